/* fuzz_pushpop.c - libFuzzer target for the NVTX push/pop report reader
 * (formats/pushpop.c): the input as it comes (parquet, xz or csv, by its magic bytes), and
 * the same bytes once more as csv text. Every string is touched. `make fuzz-pushpop`;
 * replayed over fuzz/corpus/pushpop by build/fuzz_replay_pushpop in `make test`.
 */
#include "formats/pushpop.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void touch(const pushpop *p)
{
    volatile unsigned sum = 0;
    for (size_t i = 0; i < p->n; i++) {
        if (p->name[i].n)
            sum += (unsigned char)p->name[i].p[p->name[i].n - 1];
        if (p->range_stack[i].n)
            sum += (unsigned char)p->range_stack[i].p[0];
        sum += (unsigned)(p->start_ns[i] + p->parent_id[i]) + p->parent_valid[i];
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pushpop p;
    pq_error err;
    if (pushpop_read(data, size, "fuzz.pushpop", &p, &err) == PQ_OK)
        touch(&p);
    pushpop_free(&p);
    if (pushpop_parse_csv(data, size, "fuzz.csv", &p, &err) == PQ_OK)
        touch(&p);
    pushpop_free(&p);
    return 0;
}
