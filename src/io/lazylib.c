/* lazylib.c - loads libzip, libsnappy and libsqlite3 with dlopen the first time an nsys-jax
 * archive, a SNAPPY parquet page or an Nsight SQLite export is read, and hands out a table of
 * their functions.
 *
 * Why not link them: a shared libzip and libsnappy pull libstdc++, libgcc_s, libbz2 and a
 * shared libcrypto into every profq process; the loader's relocations alone doubled the CPU
 * time of `profq version` (docs/internals/parquet.md, "Loading libzip and libsnappy"); a
 * linked libsqlite3 alone took it from 0.40 M to 1.45 M instructions (callgrind).
 * Commands that never read an nsys archive should not pay for them. Not here: any use of the
 * libraries (io/zip.c, formats/parquet.c); the handles are never closed.
 */
#include "lazylib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* One library to load: its soname, Debian package, symbol names and where they go. */
typedef struct lib_spec {
    const char *soname;
    const char *package;
    const char *const *names; /* NULL-terminated, in the order of the table's fields */
    void *table;              /* an array of function pointers (all the same size) */
    int ok;
    char why[256]; /* dlerror() of the failed load or lookup */
} lib_spec;

#define LAZY_NAME(fn) #fn,
static const char *const zip_names[] = {LAZY_ZIP_FUNCS(LAZY_NAME) NULL};
static const char *const snappy_names[] = {LAZY_SNAPPY_FUNCS(LAZY_NAME) NULL};
static const char *const sqlite_names[] = {LAZY_SQLITE_FUNCS(LAZY_NAME) NULL};

/* load() fills a table as an array of function pointers, in the order of the names: check
 * that the struct is exactly that array (no padding, one field per name). */
_Static_assert(sizeof(lazy_zip) ==
                   (sizeof zip_names / sizeof *zip_names - 1) * sizeof(void (*)(void)),
               "lazy_zip and zip_names disagree");
_Static_assert(sizeof(lazy_snappy) ==
                   (sizeof snappy_names / sizeof *snappy_names - 1) * sizeof(void (*)(void)),
               "lazy_snappy and snappy_names disagree");
_Static_assert(sizeof(lazy_sqlite) ==
                   (sizeof sqlite_names / sizeof *sqlite_names - 1) * sizeof(void (*)(void)),
               "lazy_sqlite and sqlite_names disagree");

static lazy_zip zip_table;
static lazy_snappy snappy_table;
static lazy_sqlite sqlite_table;
static lib_spec zip_spec = {"libzip.so.4", "libzip4", zip_names, &zip_table, 0, ""};
static lib_spec snappy_spec = {
    "libsnappy.so.1", "libsnappy1v5", snappy_names, &snappy_table, 0, ""};
static pthread_once_t zip_once = PTHREAD_ONCE_INIT;
static pthread_once_t snappy_once = PTHREAD_ONCE_INIT;
static lib_spec sqlite_spec = {
    "libsqlite3.so.0", "libsqlite3-0", sqlite_names, &sqlite_table, 0, ""};
static pthread_once_t sqlite_once = PTHREAD_ONCE_INIT;

static void set_why(lib_spec *s)
{
    const char *e = dlerror();
    snprintf(s->why, sizeof s->why, "%s", e ? e : "unknown error");
}

static void load(lib_spec *s)
{
    void *h = dlopen(s->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        set_why(s);
        return;
    }
    unsigned char *dst = s->table;
    for (size_t i = 0; s->names[i]; i++) {
        dlerror();
        void *sym = dlsym(h, s->names[i]);
        if (!sym) {
            set_why(s);
            return; /* h stays open: dlclose could run the library's destructors mid-use */
        }
        /* POSIX guarantees a function's address survives the trip through void *; memcpy
         * because ISO C has no cast from an object pointer to a function pointer. */
        void (*fn)(void);
        memcpy(&fn, &sym, sizeof fn);
        memcpy(dst + i * sizeof fn, &fn, sizeof fn);
    }
    s->ok = 1;
}

static void load_zip(void)
{
    load(&zip_spec);
}

static void load_snappy(void)
{
    load(&snappy_spec);
}

static void load_sqlite(void)
{
    load(&sqlite_spec);
}

static pq_status unavailable(const lib_spec *s, const char *what, const char *path, pq_error *err)
{
    return err_set(err, PQ_ERR_UNSUPPORTED, path, -1,
                   "reading %s needs %s (Debian package %s), which could not be loaded: %s", what,
                   s->soname, s->package, s->why);
}

pq_status lazylib_zip(const lazy_zip **out, const char *path, pq_error *err)
{
    pthread_once(&zip_once, load_zip);
    *out = zip_spec.ok ? &zip_table : NULL;
    return zip_spec.ok ? PQ_OK : unavailable(&zip_spec, "a zip archive", path, err);
}

pq_status lazylib_snappy(const lazy_snappy **out, const char *path, pq_error *err)
{
    pthread_once(&snappy_once, load_snappy);
    *out = snappy_spec.ok ? &snappy_table : NULL;
    return snappy_spec.ok ? PQ_OK : unavailable(&snappy_spec, "SNAPPY parquet pages", path, err);
}

pq_status lazylib_sqlite(const lazy_sqlite **out, const char *path, pq_error *err)
{
    pthread_once(&sqlite_once, load_sqlite);
    *out = sqlite_spec.ok ? &sqlite_table : NULL;
    return sqlite_spec.ok ? PQ_OK : unavailable(&sqlite_spec, "an SQLite database", path, err);
}
