/* op_profile.h - XProf's op_profile tree (spec/xprof-tools.md 5.9) built from the op rows
 * of analysis/ops: nodes with their accumulated metrics and the figures XProf fills in; the
 * renderer (render/op_profile.c) writes it as JSON. */
#ifndef PQ_ANALYSIS_OP_PROFILE_H
#define PQ_ANALYSIS_OP_PROFILE_H
#include "analysis/ops.h"

enum { OP_PROFILE_BY_PROGRAM = 0, OP_PROFILE_BY_CATEGORY = 1, OP_PROFILE_BY_PROVENANCE = 2 };

/* A node's metrics as XProf's op_profile states them. */
typedef struct op_profile_figures {
    double flops;              /* FLOP utilisation (capped at 1) x time fraction */
    double uncapped_flops;     /* the same, not capped */
    double bandwidth_utils[3]; /* HBM, on-chip read, on-chip write: utilisation, capped */
    double raw_bytes[3];       /* the bytes behind them */
    double avg_time_ps;
    double normalized_time_ps; /* TPU only (DVFS); 0 elsewhere */
} op_profile_figures;

typedef struct op_profile_node {
    pq_str name;
    uint32_t name_off;        /* into tree.names when the name is built here (+1; 0: none) */
    pq_op_row m;              /* accumulated */
    const pq_op_row *sym;     /* the op whose xla fields the node shows; NULL: no xla */
    const pq_fused_op *fused; /* or the fused instruction it is (under a TPU fusion leaf) */
    int dedup_of_fusion;      /* "... and its duplicate(s)": 1 copying a non-fusion, 2 a fusion */
    uint32_t *kids;
    uint32_t nkids, capkids;
    uint32_t seq; /* creation order: the tie-break of the sorts */
    op_profile_figures f;
} op_profile_node;

/* Node 0 is the root. */
typedef struct op_profile_tree {
    op_profile_node *n;
    uint32_t nn, capn;
    char *names;
    size_t nnames, capnames;
    int oom;
} op_profile_tree;

/* The tree of R's ops for GROUP (OP_PROFILE_BY_*), without IDLE when EXCLUDE_IDLE; sorted,
 * pruned and deduplicated as XProf, every node's figures filled. -1 when memory ran out
 * (T is then freed). */
int op_profile_build(const pq_ops_result *r, int group, int exclude_idle, op_profile_tree *t);
pq_str op_profile_node_name(const op_profile_tree *t, const op_profile_node *x);
void op_profile_free(op_profile_tree *t);

#endif
