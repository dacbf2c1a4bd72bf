/* discover.c - recursive file search for artifact discovery; see discover.h. */
#include "discover.h"

#include "core/alloc.h"

#include <stdio.h>
#include <string.h>

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
