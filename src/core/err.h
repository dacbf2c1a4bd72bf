/* err.h - filling a pq_error and the RETURN_ERROR_IF / FORWARD_IF_ERROR vocabulary. */
#ifndef PQ_CORE_ERR_H
#define PQ_CORE_ERR_H
#include "profq.h"

#if defined(__GNUC__)
#define PQ_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define PQ_PRINTF(a, b)
#endif

/* Sets *err (when not NULL) and returns STATUS. OFFSET -1 means "no offset". */
pq_status err_set(pq_error *err, pq_status status, const char *path, int64_t offset,
                  const char *fmt, ...) PQ_PRINTF(5, 6);
void err_clear(pq_error *err);

#define FORWARD_IF_ERROR(expr)                                                                     \
    do {                                                                                           \
        pq_status fwd_st_ = (expr);                                                                \
        if (fwd_st_ != PQ_OK)                                                                      \
            return fwd_st_;                                                                        \
    } while (0)

#endif
