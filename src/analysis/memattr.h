/* memattr.h - semantic memory attribution per worker and device (`profq memory`): the
 * seed's procedure (memory viewer of the module each device ran, its maxHeapBySize rows
 * classified into buckets by rules, gradient detection, sanity checks), across every
 * source of a profile, with min/avg/max aggregates. README "memory" documents the rules. */
#ifndef PQ_ANALYSIS_MEMATTR_H
#define PQ_ANALYSIS_MEMATTR_H
#include "core/arena.h"
#include "profq.h"

#include <regex.h>

enum {
    MA_MAX_BUCKETS = PQ_MEMORY_MAX_BUCKETS,
    MA_MAX_GROUPS = PQ_MEMORY_MAX_GROUPS,
    MA_MAX_RULES = 256
};

typedef enum ma_field {
    MA_F_GROUP,
    MA_F_TFOP,
    MA_F_INSTRUCTION,
    MA_F_SHAPE,
    MA_F_LABEL,
    MA_F_ANY
} ma_field;
typedef enum ma_match { MA_M_EXACT, MA_M_PREFIX, MA_M_CONTAINS, MA_M_REGEX } ma_match;

typedef struct ma_rule {
    char bucket[64];
    char group[32]; /* "" = any group */
    ma_field field;
    ma_match match;
    char *pattern;
    regex_t re;
    int has_re;
} ma_rule;

typedef struct ma_rules {
    ma_rule items[MA_MAX_RULES];
    int n;
    regex_t gradient; /* the gradient-detection regex */
} ma_rules;

/* Loads the default rules (the seed's), after the rules of TEXT when not NULL (user rules
 * are tried first). Returns PQ_OK or PQ_ERR_INPUT with the line number in err. */
pq_status memattr_rules_init(ma_rules *r, const char *text, const char *path, pq_error *err);
void memattr_rules_free(ma_rules *r);

/* The result types are public (include/profq.h, "Memory attribution"). */
typedef pq_memory_row ma_row;
typedef pq_memory_result ma_result;

extern const char *const MA_CHECK_NAMES[3];

/* Runs the procedure over every source and device of P. MODULE_PREFIX (NULL = any) picks
 * among the modules each device ran; the largest peak wins among several. Fills the rows,
 * the buckets and the min/avg/max aggregates. */
pq_status memattr_compute(const pq_profile *p, const char *module_prefix, int64_t memory_space,
                          const ma_rules *rules, arena *a, ma_result *out, pq_error *err);
/* The figures of R and their min/avg/max over its rows (memattr_compute's last step; the
 * merge of memory partials runs it over the merged rows). */
void memattr_aggregate(ma_result *r);

#endif
