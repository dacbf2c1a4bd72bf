/* detect.h - recognising an input format by its content (and, for protobufs, its name). */
#ifndef PQ_FORMATS_DETECT_H
#define PQ_FORMATS_DETECT_H
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

typedef enum detected {
    DETECT_EMPTY,
    DETECT_XSPACE,
    DETECT_HLO_PROTO,
    DETECT_JSON, /* JSON text (trace events or other) */
    DETECT_GZIP,
    DETECT_XZ,
    DETECT_ZSTD,
    DETECT_ZIP,
    DETECT_SQLITE,
    DETECT_TEXT,    /* printable text that is not JSON (e.g. a runtime log) */
    DETECT_NSYS_REP /* an Nsight Systems report: proprietary, read through `nsys export` */
} detected;

detected detect_format(const char *path, const uint8_t *data, size_t n);
const char *detected_name(detected d);

#endif
