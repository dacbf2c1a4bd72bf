/* own_symbols.c - a small program embedding libprofq that defines its own buf_init and
 * arena_alloc (names of libprofq's internal functions, with other signatures). It links
 * against libprofq.a and libprofq.so, and works, only because the library exports nothing
 * but its pq_ API. Prints facts about FILE that tests/lib/exports.sh and install.sh check.
 * Not a unit test of the library: it exercises linking and the public header only. */
#include "profq.h"

#include <stdio.h>

int buf_init(int x);
const char *arena_alloc(void);

int buf_init(int x)
{
    return 2 * x;
}

const char *arena_alloc(void)
{
    return "own arena_alloc";
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: own_symbols FILE\n");
        return 2;
    }
    const char *paths[] = {argv[1]};
    pq_profile *p = NULL;
    pq_error err;
    pq_status st = pq_profile_open(paths, 1, NULL, &p, &err);
    if (st != PQ_OK) {
        fprintf(stderr, "own_symbols: %s: %s: %s\n", pq_status_name(st), err.path, err.message);
        return 1;
    }
    const pq_source_info *src = pq_profile_source(p, 0);
    printf("sources %zu\n", pq_profile_source_count(p));
    printf("format %s\n", pq_format_name(src->format));
    printf("size %llu\n", (unsigned long long)src->size_bytes);
    printf("sha256 %s\n", src->sha256);
    printf("buf_init(21) %d, %s\n", buf_init(21), arena_alloc());
    pq_profile_free(p);
    return 0;
}
