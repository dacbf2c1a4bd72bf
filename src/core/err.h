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

/* Returns err_set(ERR, STATUS, PATH, OFFSET, FMT, ...) from the calling function when COND
 * holds (the arguments after COND are err_set's):
 *     RETURN_ERROR_IF(!buf, err, PQ_ERR_NOMEM, path, -1, "out of memory");        */
#define RETURN_ERROR_IF(cond, err, status, path, offset, ...)                                      \
    do {                                                                                           \
        if (cond)                                                                                  \
            return err_set((err), (status), (path), (offset), __VA_ARGS__);                        \
    } while (0)

/* Returns the status of EXPR from the calling function when it is not PQ_OK (the pq_error
 * was filled by whoever failed). */
#define FORWARD_IF_ERROR(expr)                                                                     \
    do {                                                                                           \
        pq_status fwd_st_ = (expr);                                                                \
        if (fwd_st_ != PQ_OK)                                                                      \
            return fwd_st_;                                                                        \
    } while (0)

#endif
