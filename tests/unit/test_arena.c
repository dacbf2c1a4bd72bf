/* test_arena.c - the bump allocator (src/core/arena.h) across its block sizes: every
 * allocation zeroed, 16-byte aligned and apart from the others, through the doubling heap
 * blocks, the first 2 MiB block (faulted in step by step), later 2 MiB blocks and one-off
 * big blocks; a second arena of the thread reusing the kept block; and an arena told to
 * expect much (arena_expect), whose first block is a huge page. */
#include "testutil.h"

#include "core/arena.h"

#include <string.h>

static int all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i])
            return 0;
    return 1;
}

/* Allocates about TOTAL bytes in pieces of varied sizes (some bigger than a block's half),
 * checks each and fills it, so that a later piece placed over it would not read as zero. */
static void fill_arena_expecting(size_t total, size_t expect)
{
    arena a;
    arena_init(&a);
    arena_expect(&a, expect);
    size_t sum = 0, sizes[] = {1, 15, 16, 100, 4096, 5000, 70000, 300000, 1, 3000000, 24};
    unsigned char *prev = NULL;
    size_t prevn = 0;
    for (size_t i = 0; sum < total; i++) {
        size_t n = sizes[i % (sizeof sizes / sizeof sizes[0])];
        unsigned char *p = arena_alloc(&a, n);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        assert_true(all_zero(p, n));
        memset(p, 0xA5, n);
        if (prev) /* the previous piece kept its bytes */
            assert_int_equal(prev[prevn - 1], 0xA5);
        prev = p;
        prevn = n;
        sum += (n + 15) & ~(size_t)15;
    }
    assert_int_equal(a.used_bytes, sum);
    assert_false(arena_failed(&a));
    arena_release(&a);
}

static void fill_arena(size_t total)
{
    fill_arena_expecting(total, 0);
}

static void test_blocks_zeroed_and_apart(void **state)
{
    (void)state;
    fill_arena(100);
    fill_arena(200000);
    fill_arena(2500000); /* into the first 2 MiB block */
    fill_arena(9000000); /* later 2 MiB blocks and one-offs */
    fill_arena(2500000); /* again, after the thread kept a block */
}

/* arena_expect: the first block a 2 MiB huge page, the overflow in blocks from 64 KiB on,
 * the huge block kept for the thread's next arena and reused (zeroed piece by piece). */
static void test_expecting_much(void **state)
{
    (void)state;
    fill_arena_expecting(1000000, 2 << 20); /* within the huge block */
    fill_arena_expecting(2500000, 2 << 20); /* overflowing it */
    fill_arena_expecting(9000000, 3 << 20); /* far beyond */
    fill_arena(300000);                     /* a small arena on the kept huge block */
    fill_arena_expecting(2500000, 1000);    /* too little to expect: as without */
}

static void test_small_pieces_fill_blocks(void **state)
{
    (void)state;
    arena a;
    arena_init(&a);
    /* 24-byte pieces over 5 MiB: every page boundary of the stepwise fault-in is crossed */
    for (size_t i = 0; i < (5u << 20) / 32; i++) {
        unsigned char *p = arena_alloc(&a, 24);
        assert_non_null(p);
        assert_true(all_zero(p, 24));
        memset(p, (int)(i & 0xFF) | 1, 24);
    }
    char *s = arena_strndup(&a, "abc", 3);
    assert_string_equal(s, "abc");
    arena_release(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocks_zeroed_and_apart),
        cmocka_unit_test(test_small_pieces_fill_blocks),
        cmocka_unit_test(test_expecting_much),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
