/* pqdump.c - the test driver of the nsys readers (the tests/nsys scripts): prints what the zip,
 * parquet and pushpop readers return in a plain text form that tests/nsys/check.py compares
 * with pyarrow / Python's zipfile. Not a user tool (the CLI comes with `profq nsys`).
 *
 *   pqdump [--time] FILE.parquet | ARCHIVE MEMBER     every column, one value per line
 *   pqdump --list ARCHIVE                             the members of a zip or directory
 *   pqdump --pushpop FILE | ARCHIVE MEMBER            the pushpop report's columns
 *
 * Values: integers in decimal, floats as %.17g, strings in hex, nulls as "-".
 * Exit 3 with "error: PATH@OFFSET: MESSAGE" on stderr when a reader refuses the input.
 */
#include "formats/parquet.h"
#include "formats/pushpop.h"
#include "io/mapfile.h"
#include "io/zip.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static int fail(const pq_error *e)
{
    fprintf(stderr, "error: %s@%lld: %s\n", e->path, (long long)e->offset, e->message);
    return 3;
}

static void put_hex(const pq_str *s)
{
    static const char hx[] = "0123456789abcdef";
    for (size_t i = 0; i < s->n; i++) {
        unsigned char c = (unsigned char)s->p[i];
        putchar(hx[c >> 4]);
        putchar(hx[c & 15]);
    }
    putchar('\n');
}

static void dump_values(const parquet_values *v)
{
    for (size_t i = 0; i < v->n; i++) {
        if (v->valid && !v->valid[i]) {
            puts("-");
            continue;
        }
        if (v->i32)
            printf("%d\n", v->i32[i]);
        else if (v->i64)
            printf("%lld\n", (long long)v->i64[i]);
        else if (v->f32)
            printf("%.9g\n", (double)v->f32[i]);
        else if (v->f64)
            printf("%.17g\n", v->f64[i]);
        else if (v->b)
            printf("%d\n", v->b[i]);
        else
            put_hex(&v->str[i]);
    }
}

static int dump_parquet(const mapped_file *m, const char *name, int timing)
{
    pq_error e;
    parquet_file *f;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (parquet_open(m->data, m->size, name, &f, &e) != PQ_OK)
        return fail(&e);
    if (timing) {
        size_t cells = 0;
        for (size_t c = 0; c < parquet_num_columns(f); c++) {
            parquet_values v;
            pq_status st = parquet_read_column(f, c, &v, &e);
            cells += v.n;
            parquet_values_free(&v);
            if (st != PQ_OK) {
                parquet_close(f);
                return fail(&e);
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        printf("%zu columns, %lld rows, %zu values in %.3f ms (%.1f MB/s of file)\n",
               parquet_num_columns(f), (long long)parquet_num_rows(f), cells, s * 1e3,
               (double)m->size / s / 1e6);
        parquet_close(f);
        return 0;
    }
    printf("rows %lld\n", (long long)parquet_num_rows(f));
    int rc = 0;
    for (size_t c = 0; c < parquet_num_columns(f) && !rc; c++) {
        const parquet_column_info *ci = parquet_column(f, c);
        parquet_values v;
        pq_status st = parquet_read_column(f, c, &v, &e);
        if (st != PQ_OK)
            rc = fail(&e);
        else {
            printf("col %s %s %zu\n", ci->name, parquet_type_name(ci->physical), v.null_count);
            dump_values(&v);
        }
        parquet_values_free(&v);
    }
    parquet_close(f);
    return rc;
}

static void dump_i64(const char *name, const int64_t *a, const uint8_t *valid, size_t n)
{
    printf("col %s\n", name);
    for (size_t i = 0; i < n; i++) {
        if (!a || (valid && !valid[i]))
            puts("-");
        else
            printf("%lld\n", (long long)a[i]);
    }
}

static void dump_strs(const char *name, const pq_str *a, size_t n)
{
    printf("col %s\n", name);
    for (size_t i = 0; i < n; i++)
        put_hex(&a[i]);
}

static int dump_pushpop(const mapped_file *m, const char *name)
{
    pq_error e;
    pushpop pp;
    if (pushpop_read(m->data, m->size, name, &pp, &e) != PQ_OK) {
        pushpop_free(&pp);
        return fail(&e);
    }
    printf("rows %zu\n", pp.n);
    dump_i64("Start (ns)", pp.start_ns, NULL, pp.n);
    dump_i64("End (ns)", pp.end_ns, NULL, pp.n);
    dump_i64("Duration (ns)", pp.dur_ns, NULL, pp.n);
    dump_i64("DurChild (ns)", pp.dur_child_ns, NULL, pp.n);
    dump_i64("DurNonChild (ns)", pp.dur_nonchild_ns, NULL, pp.n);
    dump_strs("Name", pp.name, pp.n);
    dump_i64("TID", pp.tid, NULL, pp.n);
    dump_i64("NumChild", pp.num_child, NULL, pp.n);
    dump_i64("RangeId", pp.range_id, NULL, pp.n);
    dump_i64("ParentId", pp.parent_id, pp.parent_valid, pp.n);
    dump_strs("RangeStack", pp.range_stack, pp.n);
    pushpop_free(&pp);
    return 0;
}

int main(int argc, char **argv)
{
    int timing = 0, list = 0, pp = 0, a = 1;
    for (; a < argc && !strncmp(argv[a], "--", 2); a++) {
        timing |= !strcmp(argv[a], "--time");
        list |= !strcmp(argv[a], "--list");
        pp |= !strcmp(argv[a], "--pushpop");
    }
    if (a >= argc) {
        fprintf(stderr, "usage: pqdump [--time|--list|--pushpop] FILE [MEMBER]\n");
        return 2;
    }
    pq_error e;
    mapped_file m;
    pqzip *z = NULL;
    const char *name = argv[a];
    if (list || a + 1 < argc) {
        if (pqzip_open(argv[a], &z, &e) != PQ_OK)
            return fail(&e);
        if (list) {
            for (size_t i = 0; i < pqzip_count(z); i++) {
                const pqzip_member *mb = pqzip_member_at(z, i);
                printf("%s %llu %d\n", mb->name, (unsigned long long)mb->size, mb->method);
            }
            pqzip_close(z);
            return 0;
        }
        long i = pqzip_find(z, argv[a + 1]);
        if (i < 0) {
            fprintf(stderr, "error: no member %s\n", argv[a + 1]);
            pqzip_close(z);
            return 3;
        }
        if (pqzip_read(z, (size_t)i, &m, &e) != PQ_OK) {
            pqzip_close(z);
            return fail(&e);
        }
        name = argv[a + 1];
    } else if (mapfile_open(argv[a], &m, &e) != PQ_OK)
        return fail(&e);
    int rc = pp ? dump_pushpop(&m, name) : dump_parquet(&m, name, timing);
    mapfile_close(&m);
    pqzip_close(z);
    return rc;
}
