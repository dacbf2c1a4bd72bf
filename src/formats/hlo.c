/* hlo.c - HloProto header reader (module name and id, buffer-assignment presence).
 * Not the full HLO decoder: computations, instructions and buffer assignment are
 * decoded by the memory analyses when they need them. */
#include "hlo.h"
#include "pbwire.h"

#include <string.h>

static int fail(const pb_cursor *c, int64_t *off, const char **what)
{
    *off = pb_error_offset(c);
    *what = c->err;
    return 0;
}

int hlo_read_header(const uint8_t *data, size_t n, const uint8_t *base, hlo_header *out,
                    int64_t *err_offset, const char **err_what)
{
    memset(out, 0, sizeof *out);
    pb_cursor c;
    pb_field f = {0};
    int k;
    pb_init(&c, data, n, base);
    while ((k = pb_next(&c, &f)) == PB_FIELD) {
        if (f.wire != PB_LEN)
            continue;
        if (f.num == 1) {
            out->has_module = 1;
            pb_cursor m;
            pb_field g = {0};
            pb_init(&m, f.data, f.len, base);
            while ((k = pb_next(&m, &g)) == PB_FIELD) {
                if (g.num == 1 && g.wire == PB_LEN)
                    out->module_name = (pq_str){(const char *)g.data, g.len};
                else if (g.num == 5 && g.wire == PB_VARINT)
                    out->module_id = (int64_t)g.u;
                else if (g.num == 3 && g.wire == PB_LEN)
                    out->computations++;
            }
            if (k == PB_ERROR)
                return fail(&m, err_offset, err_what);
        } else if (f.num == 3) {
            out->has_buffer_assignment = 1;
            pb_cursor b;
            pb_field g = {0};
            pb_init(&b, f.data, f.len, base);
            while ((k = pb_next(&b, &g)) == PB_FIELD)
                out->heap_simulator_traces += g.num == 4 && g.wire == PB_LEN;
            if (k == PB_ERROR)
                return fail(&b, err_offset, err_what);
        }
    }
    if (k == PB_ERROR)
        return fail(&c, err_offset, err_what);
    return 1;
}
