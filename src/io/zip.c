/* zip.c - nsys-jax archives: a .zip read in place through libzip, or an extracted archive
 * directory, behind one member list / read-member API. Not a general archiver: it never
 * writes, never extracts to disk, and refuses unsafe member names and symlinks outright.
 *
 * Why libzip rather than libarchive: the zip central directory is what we need (names,
 * methods, sizes and Unix mode bits of every member before reading any), libzip opens it
 * over a memory buffer (our mapping, or a fuzzer's input) with random access to members,
 * and checks the archive's consistency (ZIP_CHECKCONS); libarchive is a streaming reader
 * of many formats, more than profq needs. Both are Debian packages found by pkg-config.
 * libzip is not linked: lazylib.c dlopens it the first time an archive (not a directory) is
 * opened, and every libzip call goes through its function table z->lz.
 *
 * pqzip_peek reads one member by name straight from the archive's bytes with libdeflate,
 * before libzip is loaded (the nsys-jax reader starts its report's decoder with it:
 * loading libzip and its central directory walk cost ~16 M instructions). It never
 * reports: whatever it does not like, it leaves to libzip, which still opens and checks
 * the whole archive afterwards and gives every error. pqzip_read inflates a deflated member
 * with libdeflate too, from the compressed bytes libzip reads, and falls back to libzip's own
 * inflate whenever that does not give the stated size and CRC (read_deflated).
 */
#include "zip.h"
#include "core/alloc.h"
#include "core/arena.h"
#include "core/err.h"
#include "lazylib.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <libdeflate.h>

/* A member decompresses to at most this, and deflate to at most 1032x its input. */
#define PQZIP_MAX_MEMBER ((uint64_t)4 << 30)

struct pqzip {
    char *path;
    mapped_file map;    /* the archive's bytes (zip mode) */
    zip_t *za;          /* NULL in directory mode */
    const lazy_zip *lz; /* libzip, loaded by open_zip (lazylib.h) */
    size_t n;
    pqzip_member *members;
    arena a;
    int is_dir;   /* directory mode (open_dir) */
    int borrowed; /* map holds the caller's bytes (pqzip_open_memory): not unmapped */
};

int pqzip_name_is_safe(const char *name, size_t n)
{
    if (n == 0 || name[0] == '/' || memchr(name, '\\', n) || memchr(name, 0, n))
        return -1;
    if (n >= 2 && name[1] == ':')
        return -1;
    size_t i = 0;
    while (i < n) {
        size_t j = i;
        while (j < n && name[j] != '/')
            j++;
        if (j - i == 2 && name[i] == '.' && name[i + 1] == '.')
            return -1;
        i = j + 1;
    }
    return 0;
}

void pqzip_close(pqzip *z)
{
    if (!z)
        return;
    if (z->za)
        z->lz->zip_discard(z->za);
    if (!z->borrowed)
        mapfile_close(&z->map);
    arena_release(&z->a);
    pq_free(z->path);
    pq_free(z);
}

static pqzip *new_handle(const char *path)
{
    pqzip *z = pq_calloc(1, sizeof *z);
    if (!z)
        return NULL;
    arena_init(&z->a);
    size_t n = strlen(path);
    z->path = pq_malloc(n + 1);
    if (!z->path) {
        pq_free(z);
        return NULL;
    }
    memcpy(z->path, path, n + 1);
    return z;
}

static pq_status zip_error_status(pqzip *z, int code, pq_error *err)
{
    zip_error_t ze;
    z->lz->zip_error_init_with_code(&ze, code);
    pq_status st;
    if (code == ZIP_ER_MEMORY)
        st = err_set(err, PQ_ERR_NOMEM, z->path, -1, "out of memory (libzip)");
    else if (code == ZIP_ER_NOZIP)
        st = err_set(err, PQ_ERR_INPUT, z->path, (int64_t)z->map.size,
                     "expected a zip archive ending in an end-of-central-directory record "
                     "(libzip: %s; truncated?)",
                     z->lz->zip_error_strerror(&ze));
    else
        st = err_set(err, PQ_ERR_INPUT, z->path, -1,
                     "expected a consistent zip archive (libzip: %s)",
                     z->lz->zip_error_strerror(&ze));
    z->lz->zip_error_fini(&ze);
    return st;
}

/* Lists the members of z->za, refusing unsafe names and symlinks. */
static pq_status list_members(pqzip *z, pq_error *err)
{
    zip_int64_t cnt = z->lz->zip_get_num_entries(z->za, 0);
    RETURN_ERROR_IF(cnt < 0, err, PQ_ERR_INPUT, z->path, -1, "expected a zip central directory");
    z->n = (size_t)cnt;
    z->members = arena_alloc(&z->a, (z->n ? z->n : 1) * sizeof *z->members);
    RETURN_ERROR_IF(!z->members, err, PQ_ERR_NOMEM, z->path, -1, "out of memory");
    for (size_t i = 0; i < z->n; i++) {
        zip_stat_t sb;
        RETURN_ERROR_IF(z->lz->zip_stat_index(z->za, i, ZIP_FL_ENC_RAW, &sb) < 0 ||
                            !(sb.valid & ZIP_STAT_NAME) || !(sb.valid & ZIP_STAT_SIZE) ||
                            !(sb.valid & ZIP_STAT_COMP_SIZE),
                        err, PQ_ERR_INPUT, z->path, -1,
                        "expected central directory entry %zu to be readable", i);
        size_t nl = strlen(sb.name);
        RETURN_ERROR_IF(pqzip_name_is_safe(sb.name, nl) < 0, err, PQ_ERR_INPUT, z->path, -1,
                        "member '%s': expected a relative path without '..', a drive or "
                        "a backslash (refused: it could reach outside the archive)",
                        sb.name);
        zip_uint8_t opsys = 0;
        zip_uint32_t attr = 0;
        RETURN_ERROR_IF(z->lz->zip_file_get_external_attributes(z->za, i, 0, &opsys, &attr) == 0 &&
                            opsys == ZIP_OPSYS_UNIX && ((attr >> 16) & S_IFMT) == S_IFLNK,
                        err, PQ_ERR_INPUT, z->path, -1,
                        "member '%s': expected a file or a directory, found a symbolic link "
                        "(refused)",
                        sb.name);
        pqzip_member *m = &z->members[i];
        m->name = arena_strndup(&z->a, sb.name, nl);
        m->size = sb.size;
        m->comp_size = sb.comp_size;
        m->method = (sb.valid & ZIP_STAT_COMP_METHOD) ? (int)sb.comp_method : -1;
        m->is_dir = nl > 0 && sb.name[nl - 1] == '/';
        m->crc = sb.crc;
        m->plain = (sb.valid & ZIP_STAT_CRC) && (!(sb.valid & ZIP_STAT_ENCRYPTION_METHOD) ||
                                                 sb.encryption_method == ZIP_EM_NONE);
        RETURN_ERROR_IF(!m->name, err, PQ_ERR_NOMEM, z->path, -1, "out of memory");
    }
    return PQ_OK;
}

static pq_status open_zip(pqzip *z, pq_error *err)
{
    /* libzip takes an empty buffer for a new, empty archive. */
    RETURN_ERROR_IF(z->map.size < 22, err, PQ_ERR_INPUT, z->path, (int64_t)z->map.size,
                    "expected a zip archive (at least its 22-byte end-of-central-directory "
                    "record), found %zu bytes",
                    z->map.size);
    pq_status st = lazylib_zip(&z->lz, z->path, err);
    FORWARD_IF_ERROR(st);
    zip_error_t ze;
    z->lz->zip_error_init(&ze);
    zip_source_t *src = z->lz->zip_source_buffer_create(z->map.data, z->map.size, 0, &ze);
    if (!src) {
        z->lz->zip_error_fini(&ze);
        return err_set(err, PQ_ERR_NOMEM, z->path, -1, "out of memory (libzip)");
    }
    z->za = z->lz->zip_open_from_source(src, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
    if (!z->za) {
        int code = z->lz->zip_error_code_zip(&ze);
        z->lz->zip_source_free(src);
        z->lz->zip_error_fini(&ze);
        return zip_error_status(z, code, err);
    }
    z->lz->zip_error_fini(&ze);
    return list_members(z, err);
}

pq_status pqzip_open_memory(const void *data, size_t n, const char *name, pqzip **out,
                            pq_error *err)
{
    pq_status st = pqzip_map(NULL, data, n, name, out, err);
    if (st == PQ_OK && (st = pqzip_load(*out, err)) != PQ_OK) {
        pqzip_close(*out);
        *out = NULL;
    }
    return st;
}

static int keep_all(const char *name, const void *ctx)
{
    (void)name;
    (void)ctx;
    return 1;
}

static pq_status open_dir(pqzip *z, pq_error *err)
{
    pathlist l = {0};
    RETURN_ERROR_IF(!pathlist_walk(z->path, 0, keep_all, NULL, &l), err, PQ_ERR_NOMEM, z->path, -1,
                    "out of memory");
    pathlist_sort(&l);
    size_t plen = strlen(z->path);
    while (plen > 1 && z->path[plen - 1] == '/')
        plen--;
    z->members = arena_alloc(&z->a, (l.n ? l.n : 1) * sizeof *z->members);
    pq_status st = PQ_OK;
    if (!z->members)
        st = err_set(err, PQ_ERR_NOMEM, z->path, -1, "out of memory");
    for (size_t i = 0; st == PQ_OK && i < l.n; i++) {
        const char *full = l.items[i];
        const char *rel = full + plen;
        while (*rel == '/')
            rel++;
        struct stat sb;
        pqzip_member *m = &z->members[z->n];
        memset(m, 0, sizeof *m);
        m->name = arena_strndup(&z->a, rel, strlen(rel));
        m->method = -1;
        if (lstat(full, &sb) == 0 && S_ISREG(sb.st_mode))
            m->size = m->comp_size = (uint64_t)sb.st_size;
        if (!m->name)
            st = err_set(err, PQ_ERR_NOMEM, z->path, -1, "out of memory");
        z->n++;
    }
    pathlist_free(&l);
    return st;
}

pq_status pqzip_map(const char *path, const void *data, size_t n, const char *name, pqzip **out,
                    pq_error *err)
{
    *out = NULL;
    const char *shown = path ? path : name ? name : "";
    pqzip *z = new_handle(shown);
    RETURN_ERROR_IF(!z, err, PQ_ERR_NOMEM, shown, -1, "out of memory");
    struct stat sb;
    pq_status st = PQ_OK;
    if (!path) {
        /* Borrowed (libzip keeps its own view of DATA); pqzip_close leaves it alone. */
        z->map.data = data;
        z->map.size = n;
        z->borrowed = 1;
    } else if (stat(path, &sb) != 0)
        st = err_set(err, PQ_ERR_IO, path, -1, "cannot open: %s", strerror(errno));
    else if (S_ISDIR(sb.st_mode)) {
        st = open_dir(z, err);
        z->is_dir = 1;
    } else
        st = mapfile_open(path, &z->map, err);
    if (st != PQ_OK) {
        pqzip_close(z);
        return st;
    }
    *out = z;
    return PQ_OK;
}

const uint8_t *pqzip_bytes(const pqzip *z, size_t *n)
{
    *n = z->is_dir ? 0 : z->map.size;
    return z->is_dir ? NULL : z->map.data;
}

pq_status pqzip_load(pqzip *z, pq_error *err)
{
    return z->is_dir || z->za ? PQ_OK : open_zip(z, err);
}

pq_status pqzip_open(const char *path, pqzip **out, pq_error *err)
{
    pq_status st = pqzip_map(path, NULL, 0, NULL, out, err);
    if (st == PQ_OK && (st = pqzip_load(*out, err)) != PQ_OK) {
        pqzip_close(*out);
        *out = NULL;
    }
    return st;
}

int pqzip_is_directory(const pqzip *z)
{
    return z->za == NULL;
}
size_t pqzip_count(const pqzip *z)
{
    return z->n;
}
const pqzip_member *pqzip_member_at(const pqzip *z, size_t i)
{
    return i < z->n ? &z->members[i] : NULL;
}

long pqzip_find(const pqzip *z, const char *name)
{
    size_t nl = strlen(name);
    for (size_t i = 0; i < z->n; i++) {
        const char *m = z->members[i].name;
        size_t ml = strlen(m);
        if ((ml == nl && !memcmp(m, name, nl)) ||
            (ml == nl + 1 && m[nl] == '/' && !memcmp(m, name, nl)))
            return (long)i;
    }
    return -1;
}

static pq_status read_dir_member(pqzip *z, const pqzip_member *m, const char *ename,
                                 mapped_file *out, pq_error *err)
{
    size_t pl = strlen(z->path), ml = strlen(m->name);
    char *full = pq_malloc(pl + ml + 2);
    RETURN_ERROR_IF(!full, err, PQ_ERR_NOMEM, ename, -1, "out of memory");
    memcpy(full, z->path, pl);
    full[pl] = '/';
    memcpy(full + pl + 1, m->name, ml + 1);
    pq_status st;
    /* O_NOFOLLOW: a symlink planted in the directory is refused, not followed. */
    int fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat sb;
    if (fd < 0)
        st = err_set(err, errno == ELOOP ? PQ_ERR_INPUT : PQ_ERR_IO, ename, -1,
                     errno == ELOOP ? "expected a regular file, found a symbolic link (refused)"
                                    : "cannot open: %s",
                     strerror(errno));
    else if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode))
        st = err_set(err, PQ_ERR_INPUT, ename, -1, "expected a regular file");
    else
        st = mapfile_open(full, out, err);
    if (fd >= 0)
        close(fd);
    pq_free(full);
    return st;
}

/* Inflates the raw deflate stream IN[0..N) into exactly OUT[0..SIZE) with libdeflate (whole
 * buffers); 1 when it did, 0 otherwise (bad data, or a stream that ends before or after SIZE). */
static int inflate_exact(const uint8_t *in, size_t n, uint8_t *out, size_t size)
{
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!d)
        return 0;
    size_t got = 0;
    enum libdeflate_result r = libdeflate_deflate_decompress(d, in, n, out, size, &got);
    libdeflate_free_decompressor(d);
    return r == LIBDEFLATE_SUCCESS && got == size;
}

/* Reads N bytes of the open member ZF into B; one more read must find its end. */
static pq_status read_all(pqzip *z, zip_file_t *zf, const char *ename, uint8_t *b, uint64_t n,
                          pq_error *err)
{
    uint64_t got = 0;
    while (got < n) {
        zip_int64_t r = z->lz->zip_fread(zf, b + got, n - got);
        RETURN_ERROR_IF(r <= 0, err, PQ_ERR_INPUT, ename, (int64_t)got,
                        r < 0 ? "expected valid member data (libzip: %s)"
                              : "expected %s more bytes of member data",
                        r < 0 ? z->lz->zip_file_strerror(zf) : "the stated size in");
        got += (uint64_t)r;
    }
    /* Reading one byte more ends the stream (and, when libzip inflates, checks the CRC). */
    uint8_t extra;
    zip_int64_t r = z->lz->zip_fread(zf, &extra, 1);
    RETURN_ERROR_IF(r != 0, err, PQ_ERR_INPUT, ename, (int64_t)got,
                    r < 0 ? "expected valid member data (libzip: %s)"
                          : "expected the member to end at its stated size%s",
                    r < 0 ? z->lz->zip_file_strerror(zf) : "");
    return PQ_OK;
}

/* A deflated member M (index I, not encrypted, its CRC stated) the fast way: libzip reads its
 * compressed bytes (ZIP_FL_COMPRESSED), libdeflate inflates them whole into B (M->size bytes)
 * and computes their CRC-32, 2-5x faster than zlib's streaming through libzip
 * (docs/internals/nsys.md, round 10). 1 when that gave exactly M->size bytes of the stated
 * CRC; 0 otherwise, and the caller reads the member again through libzip's own inflate, whose
 * verdict stands (it accepts, say, a stream that stops without its final block once the
 * stated size is out and the CRC matches; libdeflate does not), with its errors. */
static int read_deflated(pqzip *z, size_t i, const pqzip_member *m, uint8_t *b)
{
    uint8_t *raw = pq_malloc((size_t)m->comp_size + 1);
    if (!raw)
        return 0;
    pq_error ignored;
    zip_file_t *zf = z->lz->zip_fopen_index(z->za, i, ZIP_FL_COMPRESSED);
    int ok = zf && read_all(z, zf, "", raw, m->comp_size, &ignored) == PQ_OK &&
             inflate_exact(raw, (size_t)m->comp_size, b, (size_t)m->size) &&
             (uint32_t)libdeflate_crc32(0, b, (size_t)m->size) == m->crc;
    if (zf)
        z->lz->zip_fclose(zf);
    pq_free(raw);
    return ok;
}

static pq_status read_zip_member(pqzip *z, size_t i, const pqzip_member *m, const char *ename,
                                 int streamed, mapped_file *out, pq_error *err)
{
    RETURN_ERROR_IF(m->size > PQZIP_MAX_MEMBER ||
                        (m->method == ZIP_CM_STORE && m->size != m->comp_size) ||
                        (m->method != ZIP_CM_STORE && m->size / 1032 > m->comp_size + 64),
                    err, PQ_ERR_INPUT, ename, -1,
                    "expected a member size of at most 4 GiB and 1032x its compressed size, "
                    "found %llu from %llu bytes",
                    (unsigned long long)m->size, (unsigned long long)m->comp_size);
    RETURN_ERROR_IF(m->method != ZIP_CM_STORE && m->method != ZIP_CM_DEFLATE, err, PQ_ERR_INPUT,
                    ename, -1, "expected compression method 0 (stored) or 8 (deflate), found %d",
                    m->method);
    uint8_t *b = pq_malloc((size_t)m->size + MAPFILE_PADDING);
    RETURN_ERROR_IF(!b, err, PQ_ERR_NOMEM, ename, -1, "out of memory");
    pq_status st = PQ_OK;
    zip_file_t *zf = NULL;
    if (m->method == ZIP_CM_DEFLATE && m->plain && !streamed && read_deflated(z, i, m, b))
        goto out;
    zf = z->lz->zip_fopen_index(z->za, i, 0);
    if (!zf) {
        zip_error_t *ze = z->lz->zip_get_error(z->za);
        st = err_set(err, PQ_ERR_INPUT, ename, -1, "expected a readable member (libzip: %s)",
                     z->lz->zip_error_strerror(ze));
        goto out;
    }
    st = read_all(z, zf, ename, b, m->size, err);
out:
    if (zf)
        z->lz->zip_fclose(zf);
    if (st != PQ_OK) {
        pq_free(b);
        return st;
    }
    memset(b + m->size, 0, MAPFILE_PADDING);
    out->data = b;
    out->size = (size_t)m->size;
    out->map_len = 0;
    return PQ_OK;
}

static pq_status read_member(pqzip *z, size_t i, int streamed, mapped_file *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    RETURN_ERROR_IF(i >= z->n, err, PQ_ERR_USAGE, z->path, -1, "no member %zu", i);
    const pqzip_member *m = &z->members[i];
    size_t pl = strlen(z->path), ml = strlen(m->name);
    char *ename = pq_malloc(pl + ml + 2);
    RETURN_ERROR_IF(!ename, err, PQ_ERR_NOMEM, z->path, -1, "out of memory");
    memcpy(ename, z->path, pl);
    ename[pl] = ':';
    memcpy(ename + pl + 1, m->name, ml + 1);
    pq_status st;
    if (m->is_dir)
        st = err_set(err, PQ_ERR_USAGE, ename, -1, "is a directory member");
    else if (z->za)
        st = read_zip_member(z, i, m, ename, streamed, out, err);
    else
        st = read_dir_member(z, m, ename, out, err);
    pq_free(ename);
    return st;
}

pq_status pqzip_read(pqzip *z, size_t i, mapped_file *out, pq_error *err)
{
    return read_member(z, i, 0, out, err);
}

pq_status pqzip_read_streamed(pqzip *z, size_t i, mapped_file *out, pq_error *err)
{
    return read_member(z, i, 1, out, err);
}

static uint32_t le16(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}
static uint32_t le32(const uint8_t *p)
{
    return le16(p) | le16(p + 2) << 16;
}

/* The end-of-central-directory record of a plain (not zip64, one disk) archive: the
 * central directory's offset, size and entry count; 0 when there is none such. */
static int find_eocd(const uint8_t *d, size_t n, size_t *cd, size_t *cd_size, size_t *count)
{
    if (n < 22)
        return 0;
    size_t lo = n - 22 > 65535 ? n - 22 - 65535 : 0;
    for (size_t e = n - 22 + 1; e-- > lo;) {
        if (le32(d + e) != 0x06054b50 || e + 22 + le16(d + e + 20) != n)
            continue;
        if (le16(d + e + 4) || le16(d + e + 6) || le16(d + e + 8) != le16(d + e + 10))
            return 0;
        *count = le16(d + e + 10);
        *cd_size = le32(d + e + 12);
        *cd = le32(d + e + 16);
        return *count != 0xffff && *cd <= e && *cd_size <= e - *cd;
    }
    return 0;
}

/* Walks the central directory of D[0..N) (at *CD) for the entries named NAME or NAME/:
 * their count into *MATCHES, the first one's index and entry into *INDEX and *E; 0 when the
 * directory cannot be walked. */
static int find_entry(const uint8_t *d, size_t n, const char *name, size_t *cd, size_t *matches,
                      size_t *index, const uint8_t **e)
{
    size_t cd_size, count, nl = strlen(name);
    *matches = 0;
    if (!d || !find_eocd(d, n, cd, &cd_size, &count))
        return 0;
    size_t p = *cd, end = *cd + cd_size;
    for (size_t i = 0; i < count; i++) {
        if (end - p < 46 || le32(d + p) != 0x02014b50)
            return 0;
        size_t l = le16(d + p + 28), len = 46 + l + le16(d + p + 30) + le16(d + p + 32);
        if (end - p < len)
            return 0;
        if ((l == nl || (l == nl + 1 && d[p + 46 + nl] == '/')) && !memcmp(d + p + 46, name, nl) &&
            !(*matches)++) {
            *index = i;
            *e = d + p;
        }
        p += len;
    }
    return 1;
}

int pqzip_peek_has(const uint8_t *d, size_t n, const char *name)
{
    size_t cd, matches, index;
    const uint8_t *e;
    return !find_entry(d, n, name, &cd, &matches, &index, &e) || matches > 0;
}

int pqzip_peek(const uint8_t *d, size_t n, const char *name, pqzip_peeked *out)
{
    memset(out, 0, sizeof *out);
    size_t matches, found, nl = strlen(name), cd;
    const uint8_t *e = NULL;
    /* NAME or NAME/ again: the first match is libzip's; leave the choice to it. A
     * directory has no bytes to read. */
    if (!nl || name[nl - 1] == '/' || !find_entry(d, n, name, &cd, &matches, &found, &e) ||
        matches != 1 || le16(e + 28) != nl)
        return 0;
    uint32_t flags = le16(e + 8), method = le16(e + 10), crc = le32(e + 16);
    uint64_t comp = le32(e + 20), size = le32(e + 24), off = le32(e + 42);
    /* Encrypted, patched or zip64 data, another method, a symlink: libzip decides. */
    if ((flags & 0x61) || (method != 0 && method != 8) || comp == 0xffffffff ||
        size == 0xffffffff || off == 0xffffffff || (e[5] == 3 && (le32(e + 38) >> 28) == 0xa))
        return 0;
    if ((method == 0 && size != comp) || (method == 8 && size / 1032 > comp + 64) ||
        size > PQZIP_MAX_MEMBER)
        return 0;
    if (off > cd || cd - off < 30 || le32(d + off) != 0x04034b50 || le16(d + off + 8) != method ||
        le16(d + off + 26) != nl)
        return 0;
    uint64_t data = off + 30 + nl + le16(d + off + 28);
    if (data > cd || cd - data < comp || memcmp(d + off + 30, name, nl) != 0)
        return 0;
    const uint8_t *src = d + data;
    uint8_t *b = NULL;
    if (method == 8) {
        b = pq_malloc((size_t)size + MAPFILE_PADDING);
        if (!b || !inflate_exact(src, (size_t)comp, b, (size_t)size)) {
            pq_free(b);
            return 0;
        }
        memset(b + size, 0, MAPFILE_PADDING);
        src = b;
    }
    out->index = found;
    out->crc = crc;
    out->data = src;
    out->size = (size_t)size;
    out->comp_size = comp;
    out->method = (int)method;
    out->owned = b;
    return 1;
}

int pqzip_peek_crc_ok(const pqzip_peeked *pk)
{
    return libdeflate_crc32(0, pk->data, pk->size) == pk->crc;
}
