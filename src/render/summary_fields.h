/* summary_fields.h - the keys of profile_summary.v1's rows and how pq_summary_result holds
 * them (include/profq.h): one table per row struct, shared by the document's writer
 * (render/summary_write.c) and its reader (api/summary_read.c), so the two stay inverses. */
#ifndef PQ_RENDER_SUMMARY_FIELDS_H
#define PQ_RENDER_SUMMARY_FIELDS_H
#include "profq.h"

#include <stddef.h>

/* How a struct member holds a key: a string (NULL: null), an unsigned or signed integer, a
 * double (NaN: null). */
typedef enum { SM_F_STR, SM_F_U64, SM_F_I64, SM_F_NUM } sm_field_kind;
typedef struct sm_field {
    const char *key;
    sm_field_kind kind;
    size_t off;
} sm_field;

/* A field of row struct T: KEY, held as KIND in MEMBER. */
#define SM_FIELD(T, key, kind, member)                                                             \
    {                                                                                              \
        key, kind, offsetof(T, member)                                                             \
    }

/* The keys of one kind of row, in the writer's order, and the row's size. */
typedef struct sm_row_desc {
    const sm_field *fields;
    size_t nfields;
    size_t size;
} sm_row_desc;

/* The row descriptor of row struct T from its array of fields F. */
#define SM_ROW(T, f)                                                                               \
    {                                                                                              \
        f, sizeof(f) / sizeof *(f), sizeof(T)                                                      \
    }

extern const sm_row_desc SM_STATS_ROW;      /* pq_sm_duration_stats */
extern const sm_row_desc SM_HOT_OP_ROW;     /* pq_sm_hot_op */
extern const sm_row_desc SM_FAMILY_ROW;     /* pq_sm_family */
extern const sm_row_desc SM_COLLECTIVE_ROW; /* pq_sm_collective */
extern const sm_row_desc SM_GAP_ROW;        /* pq_sm_gap (payload_op: the name again) */
extern const sm_row_desc SM_CONTEXT_ROW;    /* pq_sm_gap_context */
extern const sm_row_desc SM_REGION_ROW;     /* pq_sm_region */
extern const sm_row_desc SM_OP_REGION_ROW;  /* pq_sm_op_region */

/* The keys of time_breakdown's categories and of run_metadata (the first four are
 * pq_sm_run_metadata's members, in order; the others are always null). */
extern const char *const SM_CATEGORY_KEYS[PQ_SM_NCATEGORIES];
extern const char *const SM_RUN_METADATA_KEYS[10];

/* What publish does with a summary (1.25): its status, where, the artifact's name and
 * aliases, and the files it uploads. */
typedef struct sm_publish_plan {
    const char *status, *entity, *project, *artifact_name;
    const char *const *aliases;
    size_t naliases;
    const char *summary_path, *report_path;
} sm_publish_plan;

#endif
