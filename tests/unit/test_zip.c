/* test_zip.c - unit tests of the nsys archive readers on hand-built bytes: the zip member
 * walk (io/zip.c: listing, reading stored members, refusing `..`, absolute and symlink
 * members, truncated and corrupt archives), the archive-directory mode (symlinks refused),
 * pqzip_peek's read without libzip (the same bytes, or no read),
 * the nsys-jax inputs of a directory (io/discover.c), and the pushpop csv reader (quotes, a missing
 * column, a bad number). Whole archives are checked against Python's zipfile by
 * tests/nsys/parquet_pyarrow.sh.
 */
#include "testutil.h"

#include "core/alloc.h"
#include "formats/pushpop.h"
#include "io/discover.h"
#include "io/xz.h"
#include "io/zip.h"

#include <lzma.h>
#include <zlib.h>

/* ---- a stored-only zip writer ---- */

typedef struct zentry {
    const char *name, *data;
    uint32_t unix_mode; /* 0: no Unix attributes */
} zentry;

static void put16(tbuf *b, uint16_t v)
{
    put_byte(b, (uint8_t)v);
    put_byte(b, (uint8_t)(v >> 8));
}

static void build_zip(tbuf *z, const zentry *e, int n)
{
    tb_init(z);
    uint32_t offs[16], crcs[16];
    for (int i = 0; i < n; i++) {
        size_t nl = strlen(e[i].name), dl = strlen(e[i].data);
        offs[i] = (uint32_t)z->n;
        crcs[i] = (uint32_t)crc32(0, (const Bytef *)e[i].data, (uInt)dl);
        put_fixed32(z, 0x04034b50);
        put16(z, 10);
        put16(z, 0);
        put16(z, 0); /* stored */
        put16(z, 0);
        put16(z, 0x21);
        put_fixed32(z, crcs[i]);
        put_fixed32(z, (uint32_t)dl);
        put_fixed32(z, (uint32_t)dl);
        put16(z, (uint16_t)nl);
        put16(z, 0);
        put_bytes(z, e[i].name, nl);
        put_bytes(z, e[i].data, dl);
    }
    size_t cd = z->n;
    for (int i = 0; i < n; i++) {
        size_t nl = strlen(e[i].name), dl = strlen(e[i].data);
        put_fixed32(z, 0x02014b50);
        put16(z, e[i].unix_mode ? (3 << 8 | 20) : 20);
        put16(z, 10);
        put16(z, 0);
        put16(z, 0);
        put16(z, 0);
        put16(z, 0x21);
        put_fixed32(z, crcs[i]);
        put_fixed32(z, (uint32_t)dl);
        put_fixed32(z, (uint32_t)dl);
        put16(z, (uint16_t)nl);
        put16(z, 0);
        put16(z, 0);
        put16(z, 0);
        put16(z, 0);
        put_fixed32(z, e[i].unix_mode << 16);
        put_fixed32(z, offs[i]);
        put_bytes(z, e[i].name, nl);
    }
    size_t cdlen = z->n - cd;
    put_fixed32(z, 0x06054b50);
    put16(z, 0);
    put16(z, 0);
    put16(z, (uint16_t)n);
    put16(z, (uint16_t)n);
    put_fixed32(z, (uint32_t)cdlen);
    put_fixed32(z, (uint32_t)cd);
    put16(z, 0);
}

static void test_zip_members(void **state)
{
    (void)state;
    zentry e[] = {
        {"dump/", "", 040755}, {"dump/a.txt", "hello", 0100644}, {"report.csv", "x,y\n1,2\n", 0}};
    tbuf z;
    build_zip(&z, e, 3);
    pqzip *zip;
    pq_error err;
    assert_int_equal(pqzip_open_memory(z.p, z.n, "t.zip", &zip, &err), PQ_OK);
    assert_false(pqzip_is_directory(zip));
    assert_int_equal(pqzip_count(zip), 3);
    assert_true(pqzip_member_at(zip, 0)->is_dir);
    assert_int_equal(pqzip_member_at(zip, 1)->size, 5);
    assert_int_equal(pqzip_member_at(zip, 1)->method, 0);
    assert_int_equal(pqzip_find(zip, "dump"), 0);
    assert_int_equal(pqzip_find(zip, "report.csv"), 2);
    assert_int_equal(pqzip_find(zip, "nope"), -1);
    mapped_file m;
    assert_int_equal(pqzip_read(zip, 1, &m, &err), PQ_OK);
    assert_int_equal(m.size, 5);
    assert_memory_equal(m.data, "hello", 5);
    assert_int_equal(m.data[5], 0); /* padded */
    mapfile_close(&m);
    assert_int_equal(pqzip_read(zip, 0, &m, &err), PQ_ERR_USAGE);
    pqzip_close(zip);
    /* A corrupted member byte: the CRC check refuses it, naming archive:member. */
    z.p[30 + 5 + 30 + 10] ^= 1;
    assert_int_equal(pqzip_open_memory(z.p, z.n, "t.zip", &zip, &err), PQ_OK);
    assert_int_equal(pqzip_read(zip, 1, &m, &err), PQ_ERR_INPUT);
    assert_string_equal(err.path, "t.zip:dump/a.txt");
    assert_non_null(strstr(err.message, "libzip"));
    pqzip_close(zip);
    tb_free(&z);
}

static void expect_refused(const char *name, uint32_t mode, const char *what)
{
    zentry e[] = {{"ok.txt", "fine", 0}, {name, "bad", mode}};
    tbuf z;
    build_zip(&z, e, 2);
    pqzip *zip = NULL;
    pq_error err;
    assert_int_equal(pqzip_open_memory(z.p, z.n, "evil.zip", &zip, &err), PQ_ERR_INPUT);
    assert_null(zip);
    assert_string_equal(err.path, "evil.zip");
    assert_non_null(strstr(err.message, name));
    assert_non_null(strstr(err.message, what));
    /* The same through a file path. */
    char *path = tu_write_temp(z.p, z.n, "evil.zip");
    assert_int_equal(pqzip_open(path, &zip, &err), PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, name));
    tu_unlink_temp(path);
    tb_free(&z);
}

static void test_zip_refuses_unsafe(void **state)
{
    (void)state;
    expect_refused("../evil.txt", 0, "'..'");
    expect_refused("a/../../evil.txt", 0100644, "'..'");
    expect_refused("/etc/evil", 0, "relative path");
    expect_refused("C:/evil", 0, "drive");
    expect_refused("a\\..\\evil", 0, "backslash");
    expect_refused("link", 0120777, "symbolic link");
    assert_int_equal(pqzip_name_is_safe("a/..b/c..", 9), 0);
    assert_int_equal(pqzip_name_is_safe("..", 2), -1);
    assert_int_equal(pqzip_name_is_safe("", 0), -1);
}

static void test_zip_truncated(void **state)
{
    (void)state;
    zentry e[] = {{"a.txt", "hello hello", 0}, {"b.txt", "world", 0}};
    tbuf z;
    build_zip(&z, e, 2);
    pqzip *zip;
    pq_error err;
    for (size_t cut = 0; cut < z.n; cut++) {
        pq_status st = pqzip_open_memory(z.p, cut, "cut.zip", &zip, &err);
        if (st != PQ_ERR_INPUT)
            fail_msg("a zip cut at %zu of %zu bytes was not refused", cut, z.n);
        assert_string_equal(err.path, "cut.zip");
        assert_non_null(strstr(err.message, "expected"));
    }
    pq_status st = pqzip_open_memory(z.p, z.n - 30, "cut.zip", &zip, &err);
    assert_int_equal(st, PQ_ERR_INPUT);
    assert_int_equal(err.offset, (int64_t)z.n - 30);
    assert_non_null(strstr(err.message, "truncated"));
    /* The central directory pointing past its end: inconsistent. */
    tbuf g;
    tb_init(&g);
    put_bytes(&g, z.p, z.n);
    g.p[g.n - 6] = 0xf0;
    assert_int_equal(pqzip_open_memory(g.p, g.n, "bad.zip", &zip, &err), PQ_ERR_INPUT);
    tb_free(&g);
    tb_free(&z);
}

/* D: a zip of one member d.txt holding TEXT deflated (zlib, level 9); returns the offset of
 * its central directory entry. */
static size_t build_deflated(tbuf *d, const char *text)
{
    size_t tl = strlen(text);
    zentry one[] = {{"d.txt", text, 0}};
    tbuf z;
    build_zip(&z, one, 1);
    uint8_t packed[256];
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    zs.next_in = (Bytef *)(uintptr_t)text;
    zs.avail_in = (uInt)tl;
    zs.next_out = packed;
    zs.avail_out = sizeof packed;
    assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
    uint32_t clen = (uint32_t)zs.total_out;
    deflateEnd(&zs);
    tb_init(d);
    put_bytes(d, z.p, 30 + 5); /* the local header, then the packed data */
    put_bytes(d, packed, clen);
    size_t cd = d->n, cdlen = z.n - 22 - (30 + 5 + tl);
    put_bytes(d, z.p + 30 + 5 + tl, cdlen);
    put_bytes(d, z.p + z.n - 22, 22);
    d->p[8] = 8;                      /* local header: deflate */
    memcpy(d->p + 18, &clen, 4);      /* and its compressed size (little-endian host) */
    d->p[cd + 10] = 8;                /* the central entry: deflate */
    memcpy(d->p + cd + 20, &clen, 4); /* compressed size */
    uint32_t cdo = (uint32_t)cd;
    memcpy(d->p + d->n - 6, &cdo, 4); /* the end record's directory offset */
    tb_free(&z);
    return cd;
}

/* pqzip_peek (io/zip.c's own walk, before libzip) reads what pqzip_read reads, and says 0
 * to whatever it leaves to libzip. */
static void test_zip_peek(void **state)
{
    (void)state;
    zentry e[] = {{"dump/", "", 040755}, {"a.txt", "hello hello", 0100644}, {"b.txt", "world", 0}};
    tbuf z;
    build_zip(&z, e, 3);
    pqzip_peeked pk;
    assert_int_equal(pqzip_peek(z.p, z.n, "b.txt", &pk), 1);
    assert_int_equal(pk.index, 2);
    assert_int_equal(pk.size, 5);
    assert_int_equal(pk.method, 0);
    assert_memory_equal(pk.data, "world", 5);
    assert_null(pk.owned); /* stored: read in place */
    assert_true(pqzip_peek_crc_ok(&pk));
    assert_int_equal(pqzip_peek(z.p, z.n, "nope", &pk), 0);
    assert_int_equal(pqzip_peek(z.p, z.n, "dump", &pk), 0);  /* only "dump/" */
    assert_int_equal(pqzip_peek(z.p, z.n, "dump/", &pk), 0); /* a directory */
    assert_true(pqzip_peek_has(z.p, z.n, "dump"));
    assert_false(pqzip_peek_has(z.p, z.n, "c.txt"));
    /* A corrupted byte: read, but the CRC says no. */
    z.p[30 + 5 + 30 + 5 + 11 + 30 + 5] ^= 1;
    assert_int_equal(pqzip_peek(z.p, z.n, "b.txt", &pk), 1);
    assert_false(pqzip_peek_crc_ok(&pk));
    /* Cut anywhere: no end record at the end, nothing read. */
    for (size_t cut = 0; cut < z.n; cut++)
        assert_int_equal(pqzip_peek(z.p, cut, "a.txt", &pk), 0);
    tb_free(&z);
    /* Twice the same name, a symlink: left to libzip. */
    zentry twice[] = {{"a.txt", "one", 0}, {"a.txt", "two", 0}};
    build_zip(&z, twice, 2);
    assert_int_equal(pqzip_peek(z.p, z.n, "a.txt", &pk), 0);
    tb_free(&z);
    zentry link[] = {{"a.txt", "target", 0120777}};
    build_zip(&z, link, 1);
    assert_int_equal(pqzip_peek(z.p, z.n, "a.txt", &pk), 0);
    tb_free(&z);
    /* A deflated member: inflated by libdeflate, the bytes libzip's read gives. */
    static const char text[] = "deflated deflated deflated deflated text";
    tbuf d;
    size_t cd = build_deflated(&d, text);
    assert_int_equal(pqzip_peek(d.p, d.n, "d.txt", &pk), 1);
    assert_non_null(pk.owned);
    assert_int_equal(pk.method, 8);
    uint32_t clen;
    memcpy(&clen, d.p + cd + 20, 4);
    assert_int_equal(pk.comp_size, clen);
    assert_true(pqzip_peek_crc_ok(&pk));
    pqzip *zip;
    pq_error err;
    mapped_file m;
    assert_int_equal(pqzip_open_memory(d.p, d.n, "d.zip", &zip, &err), PQ_OK);
    assert_int_equal(pqzip_read(zip, 0, &m, &err), PQ_OK);
    assert_int_equal(m.size, pk.size);
    assert_memory_equal(m.data, pk.data, m.size);
    mapfile_close(&m);
    pqzip_close(zip);
    pq_free(pk.owned);
    /* The stated size one byte short: the stream does not end there, nothing read. */
    uint32_t shortsz = sizeof text - 2;
    memcpy(d.p + cd + 24, &shortsz, 4);
    assert_int_equal(pqzip_peek(d.p, d.n, "d.txt", &pk), 0);
    tb_free(&d);
}

/* Reads D as d.zip, its member 0 by pqzip_read and by libzip's own inflate
 * (pqzip_read_streamed): both give STATUS, and the same bytes when they read it. */
static void read_both(const tbuf *d, pq_status status)
{
    pqzip *zip;
    pq_error err;
    mapped_file a, b;
    assert_int_equal(pqzip_open_memory(d->p, d->n, "d.zip", &zip, &err), PQ_OK);
    assert_int_equal(pqzip_read(zip, 0, &a, &err), status);
    if (status != PQ_OK)
        assert_string_equal(err.path, "d.zip:d.txt");
    assert_int_equal(pqzip_read_streamed(zip, 0, &b, &err), status);
    if (status == PQ_OK) {
        assert_int_equal(a.size, b.size);
        assert_memory_equal(a.data, b.data, a.size);
        mapfile_close(&a);
        mapfile_close(&b);
    }
    pqzip_close(zip);
}

/* A deflated member is inflated by libdeflate when that gives its stated size and CRC-32,
 * else read again by libzip, whose verdict stands: a wrong CRC and bad data are its input
 * errors, and a stream without its final block but with the stated size and CRC is read as
 * libzip reads it (libdeflate refuses it; fuzz_zip found the case). */
static void test_zip_deflated_checks(void **state)
{
    (void)state;
    static const char text[] = "checked checked checked checked checked text";
    tbuf d;
    size_t cd = build_deflated(&d, text);
    read_both(&d, PQ_OK);
    /* The CRC both headers state, one bit off. */
    d.p[14] ^= 1;
    d.p[cd + 16] ^= 1;
    read_both(&d, PQ_ERR_INPUT);
    d.p[14] ^= 1;
    d.p[cd + 16] ^= 1;
    /* The first block's type set to 3 (reserved): not deflate data. */
    d.p[30 + 5] |= 6;
    read_both(&d, PQ_ERR_INPUT);
    d.p[30 + 5] &= (uint8_t)~6;
    tb_free(&d);
    /* Stored blocks without the final one: BFINAL 0, LEN, ~LEN, the bytes. */
    size_t tl = sizeof text - 1;
    zentry one[] = {{"d.txt", text, 0}};
    tbuf z;
    build_zip(&z, one, 1);
    tb_init(&d);
    put_bytes(&d, z.p, 30 + 5);
    uint8_t hdr[5] = {0, (uint8_t)tl, 0, (uint8_t)~tl, 0xff};
    put_bytes(&d, hdr, 5);
    put_bytes(&d, text, tl);
    cd = d.n;
    put_bytes(&d, z.p + 30 + 5 + tl, z.n - 22 - (30 + 5 + tl));
    put_bytes(&d, z.p + z.n - 22, 22);
    uint32_t clen = (uint32_t)(tl + 5), cdo = (uint32_t)cd;
    d.p[8] = 8;
    memcpy(d.p + 18, &clen, 4);
    d.p[cd + 10] = 8;
    memcpy(d.p + cd + 20, &clen, 4);
    memcpy(d.p + d.n - 6, &cdo, 4);
    read_both(&d, PQ_OK);
    tb_free(&d);
    tb_free(&z);
}

static void test_archive_directory(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/nvtx_gpu_proj_trace", dir);
    tu_mkdirs(p);
    snprintf(p, sizeof p, "%s/nvtx_gpu_proj_trace/trace.parquet", dir);
    tu_write_file(p, "PAR1", 4);
    snprintf(p, sizeof p, "%s/report.csv", dir);
    tu_write_file(p, "abc", 3);
    snprintf(p, sizeof p, "%s/outside", dir);
    assert_int_equal(symlink("/etc/hostname", p), 0);
    pqzip *z;
    pq_error err;
    assert_int_equal(pqzip_open(dir, &z, &err), PQ_OK);
    assert_true(pqzip_is_directory(z));
    long i = pqzip_find(z, "nvtx_gpu_proj_trace/trace.parquet");
    assert_true(i >= 0);
    mapped_file m;
    assert_int_equal(pqzip_read(z, (size_t)i, &m, &err), PQ_OK);
    assert_int_equal(m.size, 4);
    assert_memory_equal(m.data, "PAR1", 4);
    mapfile_close(&m);
    i = pqzip_find(z, "outside");
    assert_true(i >= 0);
    assert_int_equal(pqzip_read(z, (size_t)i, &m, &err), PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, "symbolic link"));
    assert_non_null(strstr(err.path, "outside"));
    pqzip_close(z);
    tu_rm_rf(dir);
    free(dir);
}

/* A directory of nsys-jax inputs (io/discover.c): the archives and extracted archives in
 * it, sorted, other files ignored; an extracted archive is itself; byte-identical archives
 * are kept once. */
static void test_discover_archives(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp();
    char p[PATH_MAX];
    static const char *const files[] = {"b.zip", "a.zip", "a-copy.zip", "notes.txt"};
    static const char *const bytes[] = {"PK-b", "PK-a", "PK-a", "text"};
    for (int k = 0; k < 4; k++) {
        snprintf(p, sizeof p, "%s/%s", dir, files[k]);
        tu_write_file(p, bytes[k], 4);
    }
    snprintf(p, sizeof p, "%s/c/nvtx_gpu_proj_trace", dir);
    tu_mkdirs(p);
    pathlist l = {0};
    assert_int_equal(discover_nsysjax(dir, &l), 1);
    assert_int_equal(l.n, 4);
    static const char *const want[] = {"/a-copy.zip", "/a.zip", "/b.zip", "/c"};
    for (int k = 0; k < 4; k++) {
        size_t a = strlen(l.items[k]), b = strlen(want[k]);
        assert_true(a > b && strcmp(l.items[k] + a - b, want[k]) == 0);
    }
    dedupe_nsysjax(&l); /* a-copy.zip comes first: a.zip is the copy dropped */
    assert_int_equal(l.n, 3);
    assert_non_null(strstr(l.items[0], "/a-copy.zip"));
    assert_non_null(strstr(l.items[1], "/b.zip"));
    pathlist_free(&l);
    snprintf(p, sizeof p, "%s/c", dir);
    assert_int_equal(discover_nsysjax(p, &l), 1);
    assert_int_equal(l.n, 1);
    assert_string_equal(l.items[0], p);
    pathlist_free(&l);
    snprintf(p, sizeof p, "%s/c/nvtx_gpu_proj_trace", dir);
    assert_int_equal(discover_nsysjax(p, &l), 0);
    pathlist_free(&l);
    tu_rm_rf(dir);
    free(dir);
}

/* ---- pushpop csv ---- */

static const char PP_HEADER[] =
    "Start (ns),End (ns),Duration (ns),DurChild (ns),DurNonChild (ns),Name,PID,TID,Lvl,"
    "NumChild,RangeId,ParentId,RangeStack,NameTree\n";

static void test_pushpop_csv(void **state)
{
    (void)state;
    char text[1024];
    snprintf(text, sizeof text,
             "%s1,9,8,3,5,TSL:XlaCompile:#module=f#,7,7,0,1,1,,:1,x\n"
             "2,5,3,0,3,\"a,\"\"b\"\"\nc\",7,8,1,0,2,1,:1:2,\"--a\"\r\n",
             PP_HEADER);
    pushpop pp;
    pq_error err;
    assert_int_equal(pushpop_read((const uint8_t *)text, strlen(text), "p.csv", &pp, &err), PQ_OK);
    assert_int_equal(pp.n, 2);
    assert_int_equal(pp.start_ns[1], 2);
    assert_int_equal(pp.dur_nonchild_ns[0], 5);
    assert_int_equal(pp.tid[1], 8);
    assert_int_equal(pp.lvl[1], 1);
    assert_int_equal(pp.range_id[1], 2);
    assert_false(pp.parent_valid[0]);
    assert_true(pp.parent_valid[1]);
    assert_int_equal(pp.parent_id[1], 1);
    assert_int_equal(pp.name[1].n, 7);
    assert_memory_equal(pp.name[1].p, "a,\"b\"\nc", 7);
    assert_int_equal(pp.range_stack[1].n, 4);
    pushpop_free(&pp);
    /* A bad number names the column and row. */
    snprintf(text, sizeof text, "%s1,9,8,3,5,n,7,x7,0,1,1,,:1,x\n", PP_HEADER);
    assert_int_equal(pushpop_read((const uint8_t *)text, strlen(text), "p.csv", &pp, &err),
                     PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, "'TID' row 1"));
    assert_int_equal(err.offset, (int64_t)strlen(PP_HEADER) + 14);
    pushpop_free(&pp);
    /* Numbers of eight digits and more (read eight at a time): 8, 16 and 19 digits, a
     * sign; a non-digit inside an eight-byte block, 20 digits and INT64_MAX + 1 refused. */
    snprintf(text, sizeof text,
             "%s12345678,9,-1234567890123456,3,5,n,9223372036854775807,7,0,1,1,,:1,x\n", PP_HEADER);
    assert_int_equal(pushpop_read((const uint8_t *)text, strlen(text), "p.csv", &pp, &err), PQ_OK);
    assert_int_equal(pp.start_ns[0], 12345678);
    assert_int_equal(pp.dur_ns[0], -1234567890123456);
    assert_int_equal(pp.pid[0], INT64_MAX);
    pushpop_free(&pp);
    static const char *const bad[] = {"1234:678", "12345678/", "123456789012345678901",
                                      "9223372036854775808", "1234567\x80"};
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
        snprintf(text, sizeof text, "%s%s,9,8,3,5,n,7,7,0,1,1,,:1,x\n", PP_HEADER, bad[b]);
        assert_int_equal(pushpop_read((const uint8_t *)text, strlen(text), "p.csv", &pp, &err),
                         PQ_ERR_INPUT);
        assert_non_null(strstr(err.message, "'Start (ns)' row 1"));
        pushpop_free(&pp);
    }
    /* A missing column, an unterminated quote, a short row. */
    const char *nocol = "Start (ns),End (ns)\n1,2\n";
    assert_int_equal(pushpop_read((const uint8_t *)nocol, strlen(nocol), "p.csv", &pp, &err),
                     PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, "'Duration (ns)'"));
    pushpop_free(&pp);
    snprintf(text, sizeof text, "%s1,9,8,3,5,\"open,7,7,0,1,1,,:1,x\n", PP_HEADER);
    assert_int_equal(pushpop_read((const uint8_t *)text, strlen(text), "p.csv", &pp, &err),
                     PQ_ERR_INPUT);
    pushpop_free(&pp);
    snprintf(text, sizeof text, "%s1,9,8\n", PP_HEADER);
    assert_int_equal(pushpop_read((const uint8_t *)text, strlen(text), "p.csv", &pp, &err),
                     PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, "row 1"));
    pushpop_free(&pp);
}

/* A csv over 1 MiB is parsed in two halves at once (formats/pushpop.c parse_text): rows on
 * both sides of the cut, quoted names with doubled quotes, commas and newlines (a name
 * of many newlines across the middle moves the cut off a row start), bare '\r' line ends,
 * the fed columns only, and a bad number in the second half named by its row. */
enum { ROWS = 20000 };

/* ROWS rows of push/pop csv (row AT: a long quoted name of newlines; rows under WIDE: names
 * of 2,000 bytes) into *N bytes. */
static char *pp_text(int at, int wide, size_t *len)
{
    size_t cap = 200 * (size_t)ROWS + 300000 + 2100 * (size_t)wide, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    n += (size_t)snprintf(text + n, cap - n, "%s", PP_HEADER);
    for (int r = 0; r < ROWS; r++) {
        const char *end = r % 7 == 3 ? "\r" : "\n";
        if (r == at || r < wide) { /* a long quoted name */
            n += (size_t)snprintf(text + n, cap - n, "%d,1,1,0,1,\"", r);
            memset(text + n, r == at ? '\n' : 'w', r == at ? 100000 : 2000);
            n += r == at ? 100000 : 2000;
            n += (size_t)snprintf(text + n, cap - n, "\",7,%d,0,0,%d,,:%d,x%s", r, r, r, end);
            continue;
        }
        n += (size_t)snprintf(text + n, cap - n,
                              "%d,1,1,0,1,\"p%d,\"\"q\"\"\",7,%d,0,0,%d,,:%d,\"--p,\"\"x\"\"\"%s",
                              r, r, r % 5, r, r, end);
    }
    assert_true(n < cap && n > (1u << 20));
    *len = n;
    return text;
}

static void split_case(int at) /* AT: the row of the long name */
{
    size_t n;
    char *text = pp_text(at, 0, &n);
    for (int fed = 0; fed < 2; fed++) {
        pushpop pp;
        pq_error err;
        pq_status st = fed ? pushpop_read_fed((const uint8_t *)text, n, "p.csv", &pp, &err)
                           : pushpop_read((const uint8_t *)text, n, "p.csv", &pp, &err);
        assert_int_equal(st, PQ_OK);
        assert_int_equal(pp.n, ROWS);
        for (int r = 0; r < ROWS; r++) {
            char want[32];
            int k = snprintf(want, sizeof want, "p%d,\"q\"", r);
            assert_int_equal(pp.start_ns[r], r);
            assert_int_equal(pp.tid[r], r == at ? r : r % 5);
            if (r == at) {
                assert_int_equal(pp.name[r].n, 100000);
                continue;
            }
            assert_int_equal(pp.name[r].n, (size_t)k);
            assert_memory_equal(pp.name[r].p, want, (size_t)k + 1); /* NUL-terminated */
        }
        if (!fed)
            assert_int_equal(pp.range_id[ROWS - 1], ROWS - 1);
        else
            assert_null(pp.range_id);
        pushpop_free(&pp);
    }
    char *bad = strstr(text + n - 1000, ",7,");
    assert_non_null(bad);
    bad[3] = 'x'; /* the TID of one of the last rows */
    pushpop pp;
    pq_error err;
    assert_int_equal(pushpop_read((const uint8_t *)text, n, "p.csv", &pp, &err), PQ_ERR_INPUT);
    assert_non_null(strstr(err.message, "column 'TID' row 199"));
    pushpop_free(&pp);
    free(text);
}

static void test_pushpop_split(void **state)
{
    (void)state;
    split_case(2000);  /* the middle falls on a row start: two halves */
    split_case(10000); /* the middle falls inside the long name: parsed again after the cut */
}

/* The xz form of a long csv is parsed while it is decoded (pushpop.c parse_streamed): the
 * same rows, names and errors as the plain text, wherever the decoder's chunks end (a long
 * name of newlines across them; wide first rows, so that the row guess must grow); a
 * corrupt stream gives xz_decompress's error. */
static uint8_t *xz_of(const char *text, size_t n, size_t *xn)
{
    size_t cap = n + n / 2 + 4096;
    uint8_t *x = malloc(cap);
    assert_non_null(x);
    *xn = 0;
    assert_int_equal(
        lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL, (const uint8_t *)text, n, x, xn, cap),
        LZMA_OK);
    return x;
}

static void pp_read_both(const char *text, size_t n, const uint8_t *xz, size_t xn, int fed)
{
    pushpop a, b;
    pq_error ea, eb;
    pq_status sa = fed ? pushpop_read_fed((const uint8_t *)text, n, "p", &a, &ea)
                       : pushpop_read((const uint8_t *)text, n, "p", &a, &ea);
    pq_status sb =
        fed ? pushpop_read_fed(xz, xn, "p", &b, &eb) : pushpop_read(xz, xn, "p", &b, &eb);
    assert_int_equal(sa, sb);
    if (sa != PQ_OK) {
        assert_string_equal(ea.message, eb.message);
        assert_int_equal(ea.offset, eb.offset);
    } else {
        assert_int_equal(a.n, b.n);
        assert_memory_equal(a.start_ns, b.start_ns, a.n * sizeof *a.start_ns);
        assert_memory_equal(a.tid, b.tid, a.n * sizeof *a.tid);
        assert_int_equal(!a.range_id, !b.range_id);
        if (a.range_id)
            assert_memory_equal(a.range_id, b.range_id, a.n * sizeof *a.range_id);
        for (size_t r = 0; r < a.n; r++) {
            assert_int_equal(a.name[r].n, b.name[r].n);
            assert_memory_equal(a.name[r].p, b.name[r].p, a.name[r].n + 1);
        }
    }
    pushpop_free(&a);
    pushpop_free(&b);
}

/* While the stream decodes, the rows [0, finished) hold their final values and names (the
 * reader feeds them to the model then), without the text being written (the decoder reads
 * its matches from it): each is checked against the plain text's rows as it becomes final. */
static void pp_midway(const char *text, size_t n, const uint8_t *xz, size_t xn)
{
    pushpop a, b;
    pq_error err;
    assert_int_equal(pushpop_read_fed((const uint8_t *)text, n, "p", &a, &err), PQ_OK);
    pushpop_stream ps;
    assert_true(pushpop_stream_start(&ps, xz, xn, "p", &b));
    size_t seen = 0;
    while (pushpop_stream_step(&ps, 1)) {
        assert_true(ps.finished <= a.n);
        for (; seen < ps.finished; seen++) {
            assert_int_equal(b.start_ns[seen], a.start_ns[seen]);
            assert_int_equal(b.tid[seen], a.tid[seen]);
            assert_int_equal(b.name[seen].n, a.name[seen].n);
            assert_memory_equal(b.name[seen].p, a.name[seen].p, a.name[seen].n);
        }
    }
    assert_int_equal(pushpop_stream_end(&ps, &err), PQ_OK);
    assert_int_equal(b.n, a.n);
    for (size_t r = 0; r < a.n; r++) { /* the early rows' names unchanged by the end */
        assert_int_equal(b.name[r].n, a.name[r].n);
        assert_memory_equal(b.name[r].p, a.name[r].p, a.name[r].n + 1);
    }
    pushpop_free(&a);
    pushpop_free(&b);
}

static void stream_case(int at, int wide)
{
    size_t n, xn;
    char *text = pp_text(at, wide, &n);
    uint8_t *xz = xz_of(text, n, &xn);
    pp_read_both(text, n, xz, xn, 0);
    pp_read_both(text, n, xz, xn, 1);
    pp_midway(text, n, xz, xn);
    free(xz);
    char *bad = strstr(text + n - 1000, ",7,");
    assert_non_null(bad);
    bad[3] = 'x'; /* the TID of one of the last rows */
    xz = xz_of(text, n, &xn);
    pp_read_both(text, n, xz, xn, 0);
    xz[xn / 2] ^= 0x55; /* a corrupt stream */
    mapped_file m;
    pq_error ea, eb;
    pushpop pp;
    assert_int_equal(xz_decompress(xz, xn, "p", &m, &ea), PQ_ERR_INPUT);
    assert_int_equal(pushpop_read(xz, xn, "p", &pp, &eb), PQ_ERR_INPUT);
    assert_string_equal(ea.message, eb.message);
    assert_int_equal(ea.offset, eb.offset);
    pushpop_free(&pp);
    free(xz);
    free(text);
}

static void test_pushpop_streamed(void **state)
{
    (void)state;
    stream_case(1500, 0);  /* the long name early, across the first chunks */
    stream_case(15000, 0); /* and late */
    stream_case(10000, 60);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zip_members),   cmocka_unit_test(test_zip_refuses_unsafe),
        cmocka_unit_test(test_zip_truncated), cmocka_unit_test(test_archive_directory),
        cmocka_unit_test(test_zip_peek),      cmocka_unit_test(test_zip_deflated_checks),
        cmocka_unit_test(test_pushpop_csv),   cmocka_unit_test(test_discover_archives),
        cmocka_unit_test(test_pushpop_split), cmocka_unit_test(test_pushpop_streamed),
    };
    return tu_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
