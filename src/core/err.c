/* err.c - error records and status names. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

pq_status err_set(pq_error *err, pq_status status, const char *path, int64_t offset,
                  const char *fmt, ...)
{
    if (!err)
        return status;
    err->status = status;
    err->offset = offset;
    snprintf(err->path, sizeof err->path, "%s", path ? path : "");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return status;
}

void err_clear(pq_error *err)
{
    if (!err)
        return;
    memset(err, 0, sizeof *err);
    err->offset = -1;
}

const char *pq_status_name(pq_status status)
{
    switch (status) {
    case PQ_OK:
        return "ok";
    case PQ_ERR_INPUT:
        return "input";
    case PQ_ERR_IO:
        return "io";
    case PQ_ERR_NOMEM:
        return "nomem";
    case PQ_ERR_NOT_FOUND:
        return "not_found";
    case PQ_ERR_UNSUPPORTED:
        return "unsupported";
    case PQ_ERR_OUTPUT:
        return "output";
    case PQ_ERR_USAGE:
        return "usage";
    case PQ_ERR_INTERNAL:
        return "internal";
    }
    return "unknown";
}
