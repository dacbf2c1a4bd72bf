/* fuzz_nsyshlo.c - libFuzzer target for the HLO dump path of nsys-jax archives
 * (analysis/nsys_hlo.c): an after-optimisation dump member
 * dump/module_0007.*_gpu_after_optimizations.hlo.pb.xz, put into a zip built here, read as
 * the nsys analyses read it: zip member, xz (io/xz.c), HloProto (hlo_decode_lazy and every
 * instruction), then the communication classification of each instruction (called
 * computations, operands, replica groups) and the heap replay (heapsim).
 * The first input byte chooses what the rest is: odd, the member's bytes as stored (an xz
 * stream: mutations reach liblzma's checks and io/xz.c's sizing); even, an HloProto that is
 * xz-compressed here (preset 0), so that mutations reach the HloProto decoder.
 * `make fuzz-nsyshlo FUZZ_SECONDS=N`; replayed over fuzz/corpus/nsyshlo by
 * build/fuzz_replay_nsyshlo in `make test`. Seeds: fuzz/make_nsyshlo_seeds.py.
 */
#include "analysis/heapsim.h"
#include "analysis/nsys_hlo.h"
#include "model/model.h"

#include "zipwrite.h"

#include <lzma.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { PROGRAM = 7, MAX_INSTS = 4096 };
static const char DUMP[] = "dump/module_0007.jit_f.sm_9.0_gpu_after_optimizations.hlo.pb.xz";

/* Every instruction of the program: looked up by name and id, classified; fields touched. */
static void walk(nsys_hlo *h, const hlo_module *m)
{
    pq_error err;
    volatile int64_t sum = 0;
    uint32_t seen = 0;
    for (uint32_t k = 0; k < m->ncomputations && seen < MAX_INSTS; k++) {
        const nsys_hlo_inst *v;
        uint32_t n;
        if (nsys_hlo_computation(h, PROGRAM, k, &v, &n, &err) != PQ_OK)
            return;
        for (uint32_t i = 0; i < n && seen < MAX_INSTS; i++, seen++) {
            nsys_hlo_comm c;
            if (nsys_hlo_comm_of(h, PROGRAM, v[i].name.p, v[i].name.n, &c, &err) != PQ_OK)
                return;
            sum += c.message_bytes + c.collective_size + (int64_t)c.kind + c.known;
            const nsys_hlo_inst *by;
            if (nsys_hlo_by_id(h, PROGRAM, v[i].id, &by, &err) == PQ_OK && by)
                sum += by->elements + by->nreplica_groups + (int64_t)by->op_name.n;
            sum += nsys_hlo_type_bits(v[i].element_type);
        }
    }
    arena a;
    arena_init(&a);
    hs_result r;
    if (heapsim_compute(m, &a, &r) == PQ_OK)
        sum += r.ntraces;
    arena_release(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > (1u << 22))
        return 0;
    const uint8_t *member_bytes = data + 1;
    size_t mn = size - 1;
    uint8_t *xz = NULL;
    if (!(data[0] & 1)) { /* an HloProto: compress it */
        size_t cap = lzma_stream_buffer_bound(mn), xn = 0;
        if (!(xz = malloc(cap)))
            return 0;
        if (lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL, member_bytes, mn, xz, &xn, cap) !=
            LZMA_OK) {
            free(xz);
            return 0;
        }
        member_bytes = xz;
        mn = xn;
    }
    uint8_t *z = malloc(mn + 4096), cd[512];
    if (!z) {
        free(xz);
        return 0;
    }
    size_t co = 0, o = member(z, 0, DUMP, member_bytes, mn, cd, &co);
    o = zip_finish(z, o, cd, co, 1);
    pq_source src;
    memset(&src, 0, sizeof src);
    src.path = (char *)"fuzz.zip";
    src.file.data = z;
    src.file.size = o;
    nsys_hlo *h = NULL;
    pq_error err;
    if (nsys_hlo_open(&src, &h, &err) == PQ_OK) {
        const hlo_module *m = NULL;
        if (nsys_hlo_module(h, PROGRAM, &m, &err) == PQ_OK && m)
            walk(h, m);
        nsys_hlo_close(h);
    }
    free(z);
    free(xz);
    return 0;
}
