/* fuzz_nsysjax.c - libFuzzer target for the nsys-jax archive reader (formats/nsysjax.c): the
 * input is a trace.parquet, put as a stored member into a zip built here (with a one-range
 * push/pop csv) so that mutations reach the module/thunk resolution rather than the zip
 * checks (fuzz_zip covers those). `make fuzz-nsysjax`; replayed over fuzz/corpus/nsysjax by
 * build/fuzz_replay_nsysjax in `make test`. Seeds: tests/nsys/archive_loader.py's synthetic
 * archive, uncompressed and snappy.
 */
#include "formats/nsysjax.h"
#include "model/slices.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char TRACE[] = "nvtx_gpu_proj_trace/trace.parquet";
static const char PUSHPOP[] = "report_nvtx_pushpop_trace.csv";
static const char CSV[] =
    "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,"
    "TID,Lvl,NumChild,RangeId,ParentId,RangeStack,NameTree\n"
    "10,20,10,0,10,\"TSL:XlaCompileBackend:#module=a,program_id=5#\",1,1,0,0,"
    "1,,:1,x\n";

static size_t le(uint8_t *p, uint32_t v, int n)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    return (size_t)n;
}

/* Appends a stored member (local header + data at Z+O, central entry at CD+*CO). */
static size_t member(uint8_t *z, size_t o, const char *name, const uint8_t *d, size_t n,
                     uint8_t *cd, size_t *co)
{
    uint32_t crc = (uint32_t)crc32(0, d, (uInt)n);
    size_t nl = strlen(name), at = o, c = *co;
    o += le(z + o, 0x04034b50, 4) + le(z + o + 4, 20, 2) + le(z + o + 6, 0, 4) +
         le(z + o + 10, 0, 4) + le(z + o + 14, crc, 4) + le(z + o + 18, (uint32_t)n, 4) +
         le(z + o + 22, (uint32_t)n, 4) + le(z + o + 26, (uint32_t)nl, 2) + le(z + o + 28, 0, 2);
    memcpy(z + o, name, nl);
    memcpy(z + o + nl, d, n);
    c += le(cd + c, 0x02014b50, 4) + le(cd + c + 4, 20, 2) + le(cd + c + 6, 20, 2) +
         le(cd + c + 8, 0, 4) + le(cd + c + 12, 0, 4) + le(cd + c + 16, crc, 4) +
         le(cd + c + 20, (uint32_t)n, 4) + le(cd + c + 24, (uint32_t)n, 4) +
         le(cd + c + 28, (uint32_t)nl, 2) + le(cd + c + 30, 0, 4) + le(cd + c + 34, 0, 4) +
         le(cd + c + 38, 0, 4) + le(cd + c + 42, (uint32_t)at, 4);
    memcpy(cd + c, name, nl);
    *co = c + nl;
    return o + nl + n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 24))
        return 0;
    uint8_t *z = malloc(size + 4096), cd[512];
    if (!z)
        return 0;
    size_t co = 0, o = member(z, 0, TRACE, data, size, cd, &co);
    o = member(z, o, PUSHPOP, (const uint8_t *)CSV, sizeof CSV - 1, cd, &co);
    size_t cdo = o;
    memcpy(z + o, cd, co);
    o += co;
    o += le(z + o, 0x06054b50, 4) + le(z + o + 4, 0, 4) + le(z + o + 8, 2, 2) +
         le(z + o + 10, 2, 2) + le(z + o + 12, (uint32_t)co, 4) + le(z + o + 16, (uint32_t)cdo, 4) +
         le(z + o + 20, 0, 2);
    model_slices m;
    if (slices_init(&m) == 0) {
        pq_events ev = slices_events(&m);
        pq_error err;
        int ndevices;
        nsysjax_feed(z, o, "fuzz.zip", &ev, &ndevices, &err);
    }
    slices_free(&m);
    free(z);
    return 0;
}
