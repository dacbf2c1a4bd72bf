/* partial_xprof.h - the parts of the op partial for XProf's tables and trace files
 * (partial_xprof.c), used by partial_ops.c. Not part of the library's API. */
#ifndef PQ_API_PARTIAL_XPROF_H
#define PQ_API_PARTIAL_XPROF_H
#include "analysis/ops_merge.h"
#include "api/partial_int.h"

/* A time or count of the body (never negative: a malformed partial otherwise). */
int64_t pt_get_time(pt_reader *rd, const char *what);
/* A count of records of at least MIN_BYTES each that the rest of the body can hold. */
size_t pt_get_count(pt_reader *rd, size_t min_bytes, const char *what);

/* Row M's fused instructions: direct children, entries, then each entry. */
void pt_ops_put_fused(buf *b, const pq_op_row *m);
/* The same read into M (strings and entries in O's arena), checked to nest as subtrees. */
void pt_ops_get_fused(pt_reader *rd, ops_part *o, pq_op_row *m);
/* O's XProf fields and hosts' steps, written and read back. */
void pt_ops_put_xprof(buf *b, const ops_part *o);
void pt_ops_get_xprof(pt_reader *rd, ops_part *o);
/* XProf's step data of the one source of VIEW into PART (whether it is an XSpace, its
 * steps when it has GPU planes); 0 when out of memory. */
int pt_ops_source_steps(const pq_profile *view, ops_part *part);
/* Whether P's trace files were read alone as one process reads them with the others. */
int pt_ops_trace_kinds_agree(const ops_part *p);

#endif
