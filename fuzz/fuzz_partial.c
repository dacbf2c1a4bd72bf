/* fuzz_partial.c - libFuzzer target for the partial-result reader (api/partial*.c): the
 * input read as a partial; when it reads, it is written back (the bytes must read again to
 * an equal write), merged with a second read of itself, and rendered as text, JSON and
 * XProf's JSON (memory-profile's; and ops' hlo_stats, op_profile by each grouping and
 * roofline_model from partials made with --format xprof), and as SVG (nsys: the sources'
 * models decoded into one profile and the nsys analyses run on it). `make fuzz-partial`; replayed
 * over fuzz/corpus/partial by build/fuzz_replay_partial in `make test`. Seeds: `profq
 * scan|ops|roofline|info| memory-profile|memory|summarize --partial` of small shared files, and
 * `ops|roofline
 * --format xprof --partial` of the TPU XSpace and of the two MI300X conv hosts; `nsys
 * --partial` of a synthetic archive (fuzz/corpus/nsysjax's s1_snappy.parquet as its trace,
 * fuzz_nsysjax.c's push/pop csv), alone and with an HLO dump member, and of the TPU XSpace.
 */
#include "profq.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct grow {
    unsigned char *p;
    size_t n, cap;
} grow;

static int grow_write(void *ctx, const void *d, size_t n)
{
    grow *g = ctx;
    if (g->n + n > g->cap) {
        size_t cap = (g->n + n) * 2;
        unsigned char *p = realloc(g->p, cap);
        if (!p)
            return 1;
        g->p = p;
        g->cap = cap;
    }
    memcpy(g->p + g->n, d, n);
    g->n += n;
    return 0;
}

static int discard(void *ctx, const void *d, size_t n)
{
    (void)ctx;
    (void)d;
    (void)n;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pq_partial *a = NULL, *b = NULL, *c = NULL;
    pq_error err;
    if (pq_partial_read(data, size, "fuzz.part", &a, &err) != PQ_OK)
        return 0;
    grow w1 = {0}, w2 = {0};
    pq_sink s1 = {grow_write, &w1}, s2 = {grow_write, &w2};
    if (pq_partial_write(a, &s1, &err) == PQ_OK &&
        pq_partial_read(w1.p, w1.n, "fuzz.rewritten", &c, &err) == PQ_OK &&
        pq_partial_write(c, &s2, &err) == PQ_OK && (w1.n != w2.n || memcmp(w1.p, w2.p, w1.n) != 0))
        abort(); /* a partial that reads must write back to the same bytes */
    pq_sink none = {discard, NULL};
    if (pq_partial_read(data, size, "fuzz.part", &b, &err) == PQ_OK &&
        pq_partial_merge(a, b, &err) == PQ_OK) {
        pq_partial_render(a, NULL, PQ_OUT_TEXT, &none, &err);
        pq_partial_render(a, NULL, PQ_OUT_JSON, &none, &err);
        pq_partial_render(a, NULL, PQ_OUT_XPROF, &none, &err);
        pq_partial_render(a, NULL, PQ_OUT_SVG, &none, &err);
        static const pq_ops_options views[] = {
            {.xprof = PQ_OPS_HLO_STATS},
            {.xprof = PQ_OPS_ROOFLINE_MODEL},
            {.xprof = PQ_OPS_OP_PROFILE, .by = PQ_OPS_BY_PROGRAM},
            {.xprof = PQ_OPS_OP_PROFILE, .by = PQ_OPS_BY_CATEGORY},
            {.xprof = PQ_OPS_OP_PROFILE, .by = PQ_OPS_BY_PROVENANCE}};
        for (size_t i = 0; i < sizeof views / sizeof views[0]; i++)
            pq_partial_render(a, &views[i], PQ_OUT_TEXT, &none, &err);
    }
    pq_partial_free(a);
    pq_partial_free(b);
    pq_partial_free(c);
    free(w1.p);
    free(w2.p);
    return 0;
}
