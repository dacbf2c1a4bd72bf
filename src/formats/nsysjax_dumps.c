/* nsysjax_dumps.c - the after-optimisation HLO dumps of an nsys-jax archive as the reader
 * sees them: which members they are (nsysjax_dump_program, also analysis/nsys_hlo.c's
 * rule) and their decompression ahead of the analyses, on the reader's main thread while
 * the push/pop report decodes on the other one (nsysjax_dumps_ahead). Only a cache: a dump
 * that fails here is left out and read again, with its error, by analysis/nsys_hlo.c. Not
 * here: decoding the HloProto, HEAD's fingerprints (nsysjax_fp.c). */
#include "formats/nsysjax.h"
#include "formats/nsysjax_int.h"

#include "core/alloc.h"
#include "io/xz.h"

#include <stdlib.h>
#include <string.h>

static const char SUFFIX[] = "_gpu_after_optimizations.hlo.pb.xz";

int64_t nsysjax_dump_program(const char *name)
{
    static const char pre[] = "dump/module_";
    size_t n = strlen(name), ns = sizeof SUFFIX - 1;
    if (strncmp(name, pre, sizeof pre - 1) != 0 || n < ns || strcmp(name + n - ns, SUFFIX) != 0)
        return -1;
    const char *p = name + sizeof pre - 1;
    char *end;
    long long v = strtoll(p, &end, 10);
    return end > p && *end == '.' && v >= 0 ? v : -1;
}

/* Member I of Z decompressed into a new entry of SRC->nsys_dumps; 0, or -1 when it was
 * not (an error is the analysis's to report, on its own read). */
static int ahead_one(pqzip *z, size_t i, pq_source *src)
{
    const char *name = pqzip_member_at(z, i)->name;
    model_nsys_dump *nd = pq_realloc(src->nsys_dumps, (src->nnsys_dumps + 1) * sizeof *nd);
    if (!nd)
        return -1;
    src->nsys_dumps = nd;
    mapped_file xz = {0}, pb = {0};
    pq_error err;
    if (pqzip_read(z, i, &xz, &err) != PQ_OK)
        return -1;
    pq_status st = xz_decompress(xz.data, xz.size, name, &pb, &err);
    mapfile_close(&xz);
    char *m = st == PQ_OK ? pq_malloc(strlen(name) + 1) : NULL;
    if (!m) {
        mapfile_close(&pb);
        return -1;
    }
    strcpy(m, name);
    nd[src->nnsys_dumps++] = (model_nsys_dump){.member = m, .pb = pb};
    return 0;
}

int nsysjax_dumps_ahead_one(pqzip *z, pq_source *src, size_t *next)
{
    if (*next == 0 && src->nnsys_dumps) /* another process of the archive did it */
        *next = pqzip_count(z);
    while (*next < pqzip_count(z)) {
        size_t i = (*next)++;
        const pqzip_member *mb = pqzip_member_at(z, i);
        if (!mb->is_dir && nsysjax_dump_program(mb->name) >= 0) {
            (void)ahead_one(z, i, src);
            return 1;
        }
    }
    return 0;
}

void nsysjax_dumps_ahead(pqzip *z, pq_source *src, const atomic_int *stop)
{
    size_t next = 0;
    while (!atomic_load(stop) && nsysjax_dumps_ahead_one(z, src, &next))
        ;
}
