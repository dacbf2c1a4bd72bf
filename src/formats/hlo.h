/* hlo.h - xla.HloProto access. For now: the module header (name, id) and whether a
 * buffer assignment is present, read without decoding computations. Field numbers:
 * spec/xprof-tools.md section 2. */
#ifndef PQ_FORMATS_HLO_H
#define PQ_FORMATS_HLO_H
#include "profq.h"

#include <stddef.h>
#include <stdint.h>

typedef struct hlo_header {
    pq_str module_name;
    int64_t module_id;
    int has_module;
    int has_buffer_assignment;
    uint32_t heap_simulator_traces; /* counted inside buffer_assignment */
    uint32_t computations;
} hlo_header;

/* Reads the header of a serialized HloProto at DATA (N bytes; BASE is the start of the file
 * for error offsets). Returns 1, or 0 with *err_offset and *err_what set. */
int hlo_read_header(const uint8_t *data, size_t n, const uint8_t *base, hlo_header *out,
                    int64_t *err_offset, const char **err_what);

#endif
