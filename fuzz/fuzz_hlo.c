/* fuzz_hlo.c - libFuzzer target for the HloProto reader and the memory viewer.
 *
 * Loads the input as one in-memory source named "fuzz.hlo_proto.pb" (so detection takes
 * the HloProto path); when it loads, lists its modules (which decodes the whole HloProto)
 * and renders the memory viewer of its module for every memory space present, in XProf's
 * JSON and profq's text, into a sink that discards, and runs the GPU cost rules
 * (analysis/hlo_cost.c) over every instruction. Errors must come back as consistent
 * error records. Linked with replay.c for the corpus replay in `make test`
 * (fuzz/corpus/hlo and the shared real HloProtos).
 */
#include "analysis/hlo_cost.h"
#include "analysis/memviewer.h"
#include "model/model.h"
#include "profq.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int discard_write(void *ctx, const void *buf, size_t n)
{
    volatile unsigned char *sum = ctx;
    if (n) {
        const unsigned char *p = buf;
        *sum ^= (unsigned char)(p[0] ^ p[n - 1]);
    }
    return 0;
}

static void check_error(pq_status st, const pq_error *err, size_t size)
{
    if (st == PQ_OK)
        return;
    if (err->status != st || err->offset < -1 || !err->message[0])
        abort();
    if (st == PQ_ERR_INPUT && err->offset > (int64_t)size)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pq_profile *prof = NULL;
    pq_error err;
    pq_open_options opts = {0};
    opts.skip_sha256 = 1;
    pq_status st = pq_profile_open_memory(data, size, "fuzz.hlo_proto.pb", &opts, &prof, &err);
    if (st != PQ_OK) {
        if (prof)
            abort();
        check_error(st, &err, size);
        return 0;
    }
    unsigned char sum = 0;
    pq_sink sink = {discard_write, &sum};
    pq_memviewer_options mo = {NULL, NULL, 0, 0};
    st = pq_render_memory_viewer(prof, &mo, PQ_OUT_JSON, &sink, &err);
    check_error(st, &err, size);
    if (st == PQ_OK && prof->nsources == 1 && prof->sources[0].nprograms == 1) {
        const pq_program *p = &prof->sources[0].programs[0];
        arena a;
        arena_init(&a);
        hlo_module *m = NULL;
        int64_t off;
        const char *what;
        int64_t colors[8];
        uint32_t nc = 0;
        hlo_cost_model *cm = NULL;
        if (hlo_decode(p->hlo, p->hlo_len, prof->sources[0].file.data, &a, &m, &off, &what) ==
            PQ_OK) {
            nc = memviewer_colors(m, colors, 8);
            /* the GPU cost rules over every instruction: no crash, no hang, finite values */
            if (hlo_cost_analyze(m, &a, &cm) == PQ_OK)
                for (uint32_t i = 0; i < m->nby_id; i++) {
                    hlo_cost c;
                    if (hlo_cost_get(cm, m->by_id[i], &c) &&
                        !(c.flops >= 0 && c.bytes >= 0 && c.flops < 1e300 && c.bytes < 1e300))
                        abort();
                }
        }
        arena_release(&a);
        char id[32];
        snprintf(id, sizeof id, "%" PRIu64, p->program_id);
        mo.program_id = id;
        for (uint32_t c = 0; c <= nc && c < 8; c++) {
            mo.memory_space = c < nc ? colors[c] : 0;
            st = pq_render_memory_viewer(prof, &mo, PQ_OUT_XPROF, &sink, &err);
            check_error(st, &err, size);
            st = pq_render_memory_viewer(prof, &mo, PQ_OUT_TEXT, &sink, &err);
            check_error(st, &err, size);
        }
    }
    pq_profile_free(prof);
    return 0;
}
