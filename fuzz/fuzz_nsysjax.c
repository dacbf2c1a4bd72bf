/* fuzz_nsysjax.c - libFuzzer target for the nsys-jax archive reader (formats/nsysjax.c): the
 * input is a trace.parquet, put as a stored member into a zip built here (with a one-range
 * push/pop csv) so that mutations reach the module/thunk resolution rather than the zip
 * checks (fuzz_zip covers those). `make fuzz-nsysjax`; replayed over fuzz/corpus/nsysjax by
 * build/fuzz_replay_nsysjax in `make test`. Seeds: tests/nsys/archive_loader.py's synthetic
 * archive, uncompressed and snappy. The same bytes are also the archive's
 * device-metadata.parquet, so that every column type reaches the GPUs' capabilities
 * (formats/nsysjax_meta.c).
 */
#include "formats/nsysjax.h"
#include "model/slices.h"

#include "zipwrite.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char TRACE[] = "nvtx_gpu_proj_trace/trace.parquet";
static const char DEVICES[] = "device-metadata.parquet";
static const char PUSHPOP[] = "report_nvtx_pushpop_trace.csv";
static const char CSV[] =
    "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,"
    "TID,Lvl,NumChild,RangeId,ParentId,RangeStack,NameTree\n"
    "10,20,10,0,10,\"TSL:XlaCompileBackend:#module=a,program_id=5#\",1,1,0,0,"
    "1,,:1,x\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > (1u << 24))
        return 0;
    uint8_t *z = malloc(2 * size + 4096), cd[512];
    if (!z)
        return 0;
    size_t co = 0, o = member(z, 0, TRACE, data, size, cd, &co);
    o = member(z, o, DEVICES, data, size, cd, &co);
    o = member(z, o, PUSHPOP, (const uint8_t *)CSV, sizeof CSV - 1, cd, &co);
    o = zip_finish(z, o, cd, co, 3);
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
