/* nsysjax_fp.c - the HEAD nsys-jax loader's program ids for archives of its era
 * (nsysjax_int.h): a program `program_id=N` of hlo_module NAME is named by the
 * `fingerprint_before_lhs` frontend attribute of its after-optimisation dump
 * dump/module_NNNN.NAME.*after_optimizations.hlo.pb.xz (in nsys-jax-combine output that
 * member may be a directory holding one file per process), as its `_remap_program_id` does;
 * programs with equal fingerprints are one program, across the processes of an archive.
 * Each fingerprint gets one canonical number for the model's run_id (the N of its first
 * dump seen, so that the HLO dump lookup by number keeps working), its text goes beside it.
 * Not here: when the rule applies (nsysjax.c: the HEAD era with dumps). */
#include "nsysjax_int.h"

#include "core/alloc.h"
#include "core/err.h"
#include "formats/pbwire.h"
#include "io/xz.h"

#include <stdio.h>
#include <string.h>

void nsysjax_fps_free(nsysjax_fps *f)
{
    nsysjax_fps_process(f);
    for (size_t k = 0; k < f->n; k++)
        pq_free(f->fp[k].text);
    pq_free(f->fp);
    pq_free(f->cache);
    memset(f, 0, sizeof *f);
}

/* The value of key "fingerprint_before_lhs" in HloProto.hlo_module (1).frontend_attributes
 * (19).map (1) of D[0..N); an empty string when absent, -1 on a malformed message. */
static int read_fingerprint(const uint8_t *d, size_t n, char *out, size_t cap)
{
    static const char want[] = "fingerprint_before_lhs";
    static const uint32_t path[2] = {1, 19};
    pb_cursor c;
    pb_field f;
    int r;
    out[0] = 0;
    for (int level = 0; level < 2; level++) {
        pb_init(&c, d, n, d);
        const uint8_t *sub = NULL;
        size_t sn = 0;
        while ((r = pb_next(&c, &f)) == PB_FIELD)
            if (f.num == path[level] && f.wire == PB_LEN)
                sub = f.data, sn = f.len; /* the last one wins, as protobuf merges */
        if (r == PB_ERROR)
            return -1;
        if (!sub)
            return 0;
        d = sub;
        n = sn;
    }
    pb_init(&c, d, n, d);
    while ((r = pb_next(&c, &f)) == PB_FIELD) {
        if (f.num != 1 || f.wire != PB_LEN)
            continue;
        pb_cursor e;
        pb_field g;
        pq_str k = {0}, v = {0};
        pb_init(&e, f.data, f.len, d);
        while ((r = pb_next(&e, &g)) == PB_FIELD)
            if (g.wire == PB_LEN && (g.num == 1 || g.num == 2))
                *(g.num == 1 ? &k : &v) = pq_str_of((const char *)g.data, g.len);
        if (r == PB_ERROR)
            return -1;
        if (k.n == sizeof want - 1 && memcmp(k.p, want, k.n) == 0)
            snprintf(out, cap, "%.*s", (int)(v.n < cap ? v.n : cap - 1), v.p);
    }
    return r == PB_ERROR ? -1 : 0;
}

/* The dump member base "dump/module_NNNN.NAME.REST.hlo.pb.xz" of program PROGRAM named
 * NAME (the loader's `^module_(\d+)\.(.+?)\.(.+)\.hlo\.pb\.xz$`, NAME up to the first dot,
 * the base ending "after_optimizations.hlo.pb.xz") into BASE; 0 when there is none. */
static int dump_base(const pqzip *z, int64_t program, pq_str name, char *base, size_t cap)
{
    static const char pre[] = "dump/module_", suf[] = "after_optimizations.hlo.pb.xz";
    size_t lp = sizeof pre - 1, ls = sizeof suf - 1;
    for (size_t i = 0; i < pqzip_count(z); i++) {
        const char *m = pqzip_member_at(z, i)->name;
        if (strncmp(m, pre, lp) != 0)
            continue;
        const char *slash = strchr(m + lp, '/');
        size_t n = slash ? (size_t)(slash - m) : strlen(m);
        const char *p = m + lp;
        int64_t v = 0;
        int digits = 0;
        while (p < m + n && *p >= '0' && *p <= '9' && digits < 15)
            v = v * 10 + (*p++ - '0'), digits++;
        if (!digits || v != program || p >= m + n || *p++ != '.' || n < ls ||
            memcmp(m + n - ls, suf, ls) != 0 || n - lp >= cap)
            continue;
        const char *dot = memchr(p, '.', (size_t)(m + n - p));
        if (!dot || dot == p || (size_t)(dot - p) != name.n || memcmp(p, name.p, name.n) != 0)
            continue;
        memcpy(base, m, n);
        base[n] = 0;
        return 1;
    }
    return 0;
}

int nsysjax_has_dumps(const pqzip *z)
{
    for (size_t i = 0; i < pqzip_count(z); i++)
        if (strncmp(pqzip_member_at(z, i)->name, "dump/module_", 12) == 0)
            return 1;
    return 0;
}

/* The canonical number of fingerprint FP first seen as program PROGRAM; its index. */
static long intern_fp(nsysjax_fps *f, const char *fp, int64_t program)
{
    int taken = 0;
    for (size_t k = 0; k < f->n; k++) {
        if (strcmp(f->fp[k].text, fp) == 0)
            return (long)k;
        taken |= f->fp[k].id == program;
    }
    nsysjax_fp *nf = pq_realloc(f->fp, (f->n + 1) * sizeof *nf);
    if (nf)
        f->fp = nf;
    char *text = nf ? pq_malloc(strlen(fp) + 1) : NULL;
    if (!text)
        return -1;
    strcpy(text, fp);
    nf[f->n].text = text; /* not moved by the realloc: trow.fp points at it */
    /* Another fingerprint holds PROGRAM already: a number no dump has. */
    nf[f->n].id = taken ? (INT64_C(1) << 40) + (int64_t)f->n : program;
    return (long)f->n++;
}

pq_status nsysjax_fps_lookup(nsysjax_fps *f, pqzip *z, const char *archive, const char *slug,
                             int64_t program, pq_str name, int missing_unknown, int64_t *id,
                             const char **fp, pq_error *err)
{
    *id = program;
    *fp = NULL;
    if (program < 0)
        return PQ_OK;
    for (size_t k = 0; k < f->ncache; k++) {
        const nsysjax_fp_seen *c = &f->cache[k];
        if (c->program == program && strlen(c->name) == name.n &&
            !memcmp(c->name, name.p, name.n)) {
            if (c->fp >= 0)
                *id = f->fp[c->fp].id, *fp = f->fp[c->fp].text;
            else if (missing_unknown)
                *id = -1;
            return PQ_OK;
        }
    }
    char base[512], member[600], text[NSYSJAX_FP_MAX];
    long fi = -1; /* no dump */
    if (dump_base(z, program, name, base, sizeof base)) {
        long m = nsysjax_member(z, base, slug, member, sizeof member);
        mapped_file xf = {0}, hf = {0};
        char path[1024];
        snprintf(path, sizeof path, "%s:%s", archive, member);
        RETURN_ERROR_IF(m < 0, err, PQ_ERR_INPUT, archive, -1,
                        "expected the dump %s to be a file or to hold one for process %s", base,
                        slug ? slug : "(none)");
        FORWARD_IF_ERROR(pqzip_read(z, (size_t)m, &xf, err));
        pq_status st = xz_decompress(xf.data, xf.size, path, &hf, err);
        int r = st == PQ_OK ? read_fingerprint(hf.data, hf.size, text, sizeof text) : 0;
        mapfile_close(&hf);
        mapfile_close(&xf);
        FORWARD_IF_ERROR(st);
        RETURN_ERROR_IF(r < 0 || !text[0], err, PQ_ERR_INPUT, path, -1,
                        "expected an HloProto whose hlo_module has the frontend attribute "
                        "fingerprint_before_lhs");
        fi = intern_fp(f, text, program);
        RETURN_ERROR_IF(fi < 0, err, PQ_ERR_NOMEM, archive, -1, "out of memory");
    }
    nsysjax_fp_seen *nc = pq_realloc(f->cache, (f->ncache + 1) * sizeof *nc);
    char *nm = pq_malloc(name.n + 1);
    if (nc)
        f->cache = nc;
    if (!nc || !nm) {
        pq_free(nm);
        return err_set(err, PQ_ERR_NOMEM, archive, -1, "out of memory");
    }
    memcpy(nm, name.p, name.n);
    nm[name.n] = 0;
    nc[f->ncache++] = (nsysjax_fp_seen){program, nm, (int)fi};
    return nsysjax_fps_lookup(f, z, archive, slug, program, name, missing_unknown, id, fp, err);
}

void nsysjax_fps_process(nsysjax_fps *f)
{
    for (size_t k = 0; k < f->ncache; k++)
        pq_free(f->cache[k].name);
    f->ncache = 0;
}
