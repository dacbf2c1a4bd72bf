/* arena.h - bump allocator owning everything of one loaded profile (or one source).
 * Out-of-memory is sticky: after one failure every later allocation returns NULL,
 * so hot code may check arena_failed() once at the end. */
#ifndef PQ_CORE_ARENA_H
#define PQ_CORE_ARENA_H
#include <stddef.h>
#include <stdint.h>

typedef struct arena_block arena_block;

typedef struct arena {
    arena_block *head;
    size_t used_bytes; /* total bytes handed out, for reports */
    size_t expect;     /* arena_expect's estimate, until the first block overflows */
    int failed;
} arena;

void arena_init(arena *a);
void arena_release(arena *a);
/* Says that about BYTES will be allocated (before the first allocation): from 1.5 MiB on,
 * the first block is one 2 MiB huge page (one fault instead of 512) and what does not fit
 * goes to blocks growing again from 64 KiB. */
void arena_expect(arena *a, size_t bytes);
/* Returns N bytes aligned to 16, zeroed; NULL (sticky) on failure. */
void *arena_alloc(arena *a, size_t n);
/* Resizes P, the arena's last allocation (OLD bytes), to NEW bytes in place: returns P, or
 * NULL (P unchanged) when P is not the last allocation or its block has no room. Bytes added
 * are zeroed; bytes given back (past NEW) must not have been written (they are handed out
 * again as zeroed memory). For an array whose final size is known only after it is filled
 * (no scratch copy); NEW may be 0. */
void *arena_resize_last(arena *a, void *p, size_t old, size_t new);
/* Copies N bytes into the arena and NUL-terminates them. */
char *arena_strndup(arena *a, const char *s, size_t n);
static inline int arena_failed(const arena *a)
{
    return a->failed;
}

#endif
