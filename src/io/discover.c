/* discover.c - recursive file search for artifact discovery; see discover.h. */
#include "discover.h"

#include "core/alloc.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int push(pathlist *l, const char *s)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        char **items = pq_realloc(l->items, cap * sizeof *items);
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

static int matches(const char *fname, const char *name, int exact)
{
    size_t a = strlen(fname), b = strlen(name);
    if (exact)
        return strcmp(fname, name) == 0;
    return a >= b && memcmp(fname + a - b, name, b) == 0;
}

static int walk(const char *dir, int depth, const char *name, int exact, pathlist *out)
{
    if (depth > 8)
        return 1;
    DIR *d = opendir(dir);
    if (!d)
        return 1;
    struct dirent *e;
    int ok = 1;
    while (ok && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        size_t need = strlen(dir) + strlen(e->d_name) + 2;
        char *p = pq_malloc(need);
        if (!p)
            return closedir(d), 0;
        snprintf(p, need, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0) {
            if (S_ISDIR(st.st_mode))
                ok = walk(p, depth + 1, name, exact, out);
            else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
                     matches(e->d_name, name, exact))
                ok = push(out, p);
        }
        pq_free(p);
    }
    closedir(d);
    return ok;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int discover_files(const char *dir, const char *name, int exact, pathlist *out)
{
    memset(out, 0, sizeof *out);
    char root[4096];
    snprintf(root, sizeof root, "%s", dir);
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/')
        root[--rl] = '\0';
    if (!walk(root, 0, name, exact, out))
        return 0;
    if (out->n)
        qsort(out->items, out->n, sizeof *out->items, cmp_str);
    return 1;
}
