/* discover.c - recursive file search for artifact discovery, and the nsys-jax inputs of a
 * directory (archives, extracted archives; identical archives once); see discover.h. */
#include "discover.h"

#include "core/alloc.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

typedef struct name_match {
    const char *name;
    int exact;
} name_match;

static int matches(const char *fname, const void *ctx)
{
    const name_match *m = ctx;
    size_t a = strlen(fname), b = strlen(m->name);
    if (m->exact)
        return strcmp(fname, m->name) == 0;
    return a >= b && memcmp(fname + a - b, m->name, b) == 0;
}

int discover_files(const char *dir, const char *name, int exact, pathlist *out)
{
    memset(out, 0, sizeof *out);
    char root[4096];
    snprintf(root, sizeof root, "%s", dir);
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/')
        root[--rl] = '\0';
    name_match m = {name, exact};
    if (!pathlist_walk(root, 0, matches, &m, out))
        return 0;
    pathlist_sort(out);
    return 1;
}

int discover_traces(const char *dir, int named_only, pathlist *out)
{
    static const struct {
        const char *name;
        int exact;
    } pats[] = {{"perfetto_trace.json.gz", 1},
                {".trace.json.gz", 0},
                {".trace.json", 0},
                {".json.gz", 0},
                {".json", 0}};
    memset(out, 0, sizeof *out);
    for (size_t k = 0; k < sizeof pats / sizeof *pats && (k < 3 || !named_only); k++) {
        if (!discover_files(dir, pats[k].name, pats[k].exact, out)) {
            pathlist_free(out);
            return -1;
        }
        if (out->n)
            return 1;
        pathlist_free(out);
    }
    return 0;
}

/* DIR holds nvtx_gpu_proj_trace/ (an extracted nsys-jax archive). */
static int is_archive_dir(const char *dir)
{
    char p[4200];
    struct stat st;
    int k = snprintf(p, sizeof p, "%s/nvtx_gpu_proj_trace", dir);
    return k > 0 && (size_t)k < sizeof p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

int discover_nsysjax(const char *dir, pathlist *out)
{
    if (is_archive_dir(dir))
        return pathlist_push(out, dir) ? 1 : -1;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    pathlist found = {0};
    int ok = 1;
    struct dirent *e;
    while (ok && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char p[4200];
        struct stat st;
        int k = snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (k < 0 || (size_t)k >= sizeof p || lstat(p, &st) != 0)
            continue;
        if ((S_ISREG(st.st_mode) && has_suffix(e->d_name, ".zip")) ||
            (S_ISDIR(st.st_mode) && is_archive_dir(p)))
            ok = pathlist_push(&found, p);
    }
    closedir(d);
    pathlist_sort(&found);
    for (size_t i = 0; ok && i < found.n; i++)
        ok = pathlist_push(out, found.items[i]);
    size_t n = found.n;
    pathlist_free(&found);
    return !ok ? -1 : n > 0;
}

/* Files A and B have the same bytes (same size, same sha256). */
static int same_bytes(const char *a, const char *b)
{
    struct stat sa, sb;
    char ha[65], hb[65];
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0 || !S_ISREG(sa.st_mode) || !S_ISREG(sb.st_mode) ||
        sa.st_size != sb.st_size)
        return 0;
    return sha256_file_hex(a, ha) == 0 && sha256_file_hex(b, hb) == 0 && strcmp(ha, hb) == 0;
}

void dedupe_nsysjax(pathlist *l)
{
    size_t w = 0;
    for (size_t i = 0; i < l->n; i++) {
        int dup = 0;
        for (size_t j = 0; !dup && has_suffix(l->items[i], ".zip") && j < w; j++)
            dup = has_suffix(l->items[j], ".zip") && same_bytes(l->items[i], l->items[j]);
        if (dup)
            pq_free(l->items[i]);
        else
            l->items[w++] = l->items[i];
    }
    l->n = w;
}
