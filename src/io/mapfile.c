/* mapfile.c - mmap of inputs, run-directory discovery, hashing.
 * Not a format detector: that is formats/detect. */
#define _GNU_SOURCE
#include "mapfile.h"
#include "discover.h"
#include "core/alloc.h"
#include "core/err.h"
#include "core/sha256.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

pq_status mapfile_open(const char *path, mapped_file *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    /* O_NONBLOCK: a FIFO without a writer must not block the open (reads block again). */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    RETURN_ERROR_IF(fd < 0, err, PQ_ERR_IO, path, -1, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return err_set(err, PQ_ERR_IO, path, -1, "cannot stat: %s", strerror(e));
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return err_set(err, PQ_ERR_IO, path, -1, "is a directory");
    }
    if (S_ISREG(st.st_mode) && st.st_size == 0) {
        close(fd);
        return PQ_OK;
    }
    /* A small regular file is read into the heap (below): cheaper than mapping it (two
     * mmaps, a page fault, an munmap), and the heap memory is reused in a long process. */
    int small = S_ISREG(st.st_mode) && st.st_size <= MAPFILE_READ_MAX;
    if (S_ISREG(st.st_mode) && !small) {
        /* Reserve the file's length plus one page, then map the file over the front: the
         * page after the end stays readable zeros (MAPFILE_PADDING). */
        long page = sysconf(_SC_PAGESIZE);
        size_t len = (size_t)st.st_size + (size_t)(page > 0 ? page : 4096);
        void *res = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        void *p = res == MAP_FAILED
                      ? MAP_FAILED
                      : mmap(res, (size_t)st.st_size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
        int e = errno;
        close(fd);
        if (p == MAP_FAILED) {
            if (res != MAP_FAILED)
                munmap(res, len);
            return err_set(err, PQ_ERR_IO, path, -1, "cannot map: %s", strerror(e));
        }
        out->data = p;
        out->size = (size_t)st.st_size;
        out->map_len = len;
        return PQ_OK;
    }
    /* A small file, a pipe or a device: read it whole, a pipe or device at most
     * MAPFILE_STREAM_MAX bytes (/dev/zero never ends). */
    size_t cap = small ? (size_t)st.st_size + MAPFILE_PADDING + 1 : 1 << 20, n = 0;
    uint8_t *b = pq_malloc(cap);
    if (!b) {
        close(fd);
        return err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
    }
    for (;;) {
        if (n + MAPFILE_PADDING >= cap) {
            if (cap >= (size_t)MAPFILE_STREAM_MAX) {
                pq_free(b);
                close(fd);
                return err_set(err, PQ_ERR_IO, path, -1,
                               "more than 4 GiB from a pipe or device, the limit for input that "
                               "is not a regular file: save it to a file");
            }
            uint8_t *nb = pq_realloc_array(b, cap, 2);
            if (!nb) {
                pq_free(b);
                close(fd);
                return err_set(err, PQ_ERR_NOMEM, path, -1, "out of memory");
            }
            b = nb;
            cap *= 2;
        }
        ssize_t k = read(fd, b + n, cap - n - MAPFILE_PADDING);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            pq_free(b);
            close(fd);
            return err_set(err, PQ_ERR_IO, path, -1, "cannot read: %s", strerror(e));
        }
        if (k == 0)
            break;
        n += (size_t)k;
        if (small && n == (size_t)st.st_size)
            break; /* all of it, as a mapping would have it: no read to see the end */
    }
    close(fd);
    memset(b + n, 0, MAPFILE_PADDING);
    out->data = b;
    out->size = n;
    return PQ_OK;
}

pq_status mapfile_copy(const void *data, size_t n, const char *name, mapped_file *out,
                       pq_error *err)
{
    memset(out, 0, sizeof *out);
    /* Even for N == 0 the buffer exists: a NULL data means "not loaded yet" to the loader,
     * which would then open NAME as a file. */
    uint8_t *b = pq_malloc(n + MAPFILE_PADDING);
    RETURN_ERROR_IF(!b, err, PQ_ERR_NOMEM, name, -1, "out of memory");
    if (n)
        memcpy(b, data, n);
    memset(b + n, 0, MAPFILE_PADDING);
    out->data = b;
    out->size = n;
    return PQ_OK;
}

void mapfile_close(mapped_file *m)
{
    if (m->data) {
        if (m->map_len)
            munmap((void *)m->data, m->map_len);
        else
            pq_free((void *)m->data);
    }
    memset(m, 0, sizeof *m);
}

void mapfile_advise_sequential(const mapped_file *m)
{
    if (m->map_len && m->size)
        madvise((void *)m->data, m->size, MADV_SEQUENTIAL | MADV_WILLNEED);
}

void mapfile_drop_resident(const mapped_file *m)
{
    /* MADV_DONTNEED on a private file mapping never written to (PROT_READ) only drops the
     * page table entries: the bytes read next are the file's again. */
    if (m->map_len && m->size)
        madvise((void *)m->data, m->size, MADV_DONTNEED);
}

void pathlist_free(pathlist *l)
{
    for (size_t i = 0; i < l->n; i++)
        pq_free(l->items[i]);
    pq_free(l->items);
    memset(l, 0, sizeof *l);
}

int pathlist_push(pathlist *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **items = pq_realloc_array(l->items, cap, sizeof *items);
        if (!items)
            return 0;
        l->items = items;
        l->cap = cap;
    }
    size_t len = strlen(s);
    char *copy = pq_malloc(len + 1);
    if (!copy)
        return 0;
    memcpy(copy, s, len + 1);
    l->items[l->n++] = copy;
    return 1;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void pathlist_sort(pathlist *l)
{
    if (l->n)
        qsort(l->items, l->n, sizeof *l->items, cmp_str);
}

static int walk(const char *dir, int depth, int skip_hidden,
                int (*keep)(const char *name, const void *ctx), const void *ctx, pathlist *out)
{
    if (depth > 8)
        return 1;
    DIR *d = opendir(dir);
    if (!d)
        return 1; /* unreadable subfolders are skipped, like `find` would report */
    struct dirent *e;
    int ok = 1;
    while (ok && (e = readdir(d)) != NULL) {
        if (skip_hidden ? e->d_name[0] == '.'
                        : strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        size_t need = strlen(dir) + strlen(e->d_name) + 2;
        char *p = pq_malloc(need);
        if (!p) {
            ok = 0;
            break;
        }
        snprintf(p, need, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                ok = walk(p, depth + 1, skip_hidden, keep, ctx, out);
            else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && keep(e->d_name, ctx))
                ok = pathlist_push(out, p);
        }
        pq_free(p);
    }
    closedir(d);
    return ok;
}

int pathlist_walk(const char *dir, int skip_hidden, int (*keep)(const char *name, const void *ctx),
                  const void *ctx, pathlist *out)
{
    return walk(dir, 0, skip_hidden, keep, ctx, out);
}

static int is_xplane(const char *name, const void *ctx)
{
    (void)ctx;
    size_t a = strlen(name), b = strlen(".xplane.pb");
    return a >= b && memcmp(name + a - b, ".xplane.pb", b) == 0;
}

static size_t dir_len(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? (size_t)(s - p) : 0;
}

pq_status discover_profiles(const char *arg, pathlist *out, pq_error *err)
{
    memset(out, 0, sizeof *out);
    struct stat st;
    RETURN_ERROR_IF(stat(arg, &st) != 0, err, PQ_ERR_IO, arg, -1, "cannot open: %s",
                    strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
        RETURN_ERROR_IF(!pathlist_push(out, arg), err, PQ_ERR_NOMEM, arg, -1, "out of memory");
        return PQ_OK;
    }
    char *root = pq_malloc(strlen(arg) + 1);
    RETURN_ERROR_IF(!root, err, PQ_ERR_NOMEM, arg, -1, "out of memory");
    strcpy(root, arg);
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/')
        root[--rl] = 0;
    pathlist all = {0};
    int ok = pathlist_walk(root, 1, is_xplane, NULL, &all);
    pq_free(root);
    if (!ok) {
        pathlist_free(&all);
        return err_set(err, PQ_ERR_NOMEM, arg, -1, "out of memory");
    }
    if (all.n == 0) {
        pathlist_free(&all);
        /* No XSpace: nsys-jax archives or an extracted archive (io/discover.c)? Else trace
         * JSON files, as summarize finds them: a folder of ranks is one source per file. */
        int nsys = discover_nsysjax(arg, out);
        if (nsys == 0) {
            pathlist_free(out);
            nsys = discover_traces(arg, 0, out);
        }
        if (nsys != 0)
            return nsys > 0 ? PQ_OK : err_set(err, PQ_ERR_NOMEM, arg, -1, "out of memory");
        return err_set(err, PQ_ERR_NOT_FOUND, arg, -1,
                       "is a directory holding no profile (no *.xplane.pb, nsys-jax archive or "
                       "trace JSON under it)");
    }
    pathlist_sort(&all);
    /* Keep the files of the folder that sorts last (the newest run). */
    const char *last = all.items[all.n - 1];
    size_t ll = dir_len(last);
    for (size_t i = 0; i < all.n; i++) {
        const char *p = all.items[i];
        if (dir_len(p) == ll && memcmp(p, last, ll) == 0) {
            if (!pathlist_push(out, p)) {
                pathlist_free(&all);
                pathlist_free(out);
                return err_set(err, PQ_ERR_NOMEM, arg, -1, "out of memory");
            }
        }
    }
    pathlist_free(&all);
    return PQ_OK;
}

static void hex32(const unsigned char md[32], char out[65])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[64] = 0;
}

int sha256_file_hex(const char *path, char out[65])
{
    out[0] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* 256 KiB reads: each chunk is still in the core's L2 cache when it is hashed (about
     * 7% less CPU time than 1 MiB reads on the benchmark machine). */
    enum { CHUNK = 1 << 18 };
    unsigned char *buf = pq_malloc(CHUNK), md[32];
    pq_sha256_ctx c;
    pq_sha256_init(&c);
    int ok = buf != NULL;
    while (ok) {
        ssize_t k = read(fd, buf, CHUNK);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            ok = k == 0;
            break;
        }
        pq_sha256_update(&c, buf, (size_t)k);
    }
    if (ok) {
        pq_sha256_final(&c, md);
        hex32(md, out);
    }
    pq_free(buf);
    close(fd);
    return ok ? 0 : -1;
}

void sha256_hex(const void *data, size_t n, char out[65])
{
    unsigned char md[32];
    pq_sha256(data, n, md);
    hex32(md, out);
}
