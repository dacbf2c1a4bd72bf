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

/* arena_resize_last: grows and trims the last allocation in place (bytes added read as
 * zero, the next allocation starts after the trimmed end), refuses any other allocation and
 * a size over the block's room, and works in a reused (not zeroed) block. */
static void resize_last_in(arena *a)
{
    unsigned char *p = arena_alloc(a, 40);
    assert_non_null(p);
    memset(p, 0x5A, 40);
    assert_ptr_equal(arena_resize_last(a, p, 40, 4000), p);
    assert_int_equal(p[39], 0x5A);
    assert_true(all_zero(p + 40, 4000 - 40));
    memset(p + 40, 0x5A, 60); /* 100 bytes written */
    assert_ptr_equal(arena_resize_last(a, p, 4000, 100), p);
    unsigned char *q = arena_alloc(a, 16);
    assert_ptr_equal(q, p + 112); /* 100 rounded up to 16 */
    assert_true(all_zero(q, 16));
    assert_null(arena_resize_last(a, p, 100, 200)); /* no longer the last */
    assert_int_equal(p[99], 0x5A);
    assert_null(arena_resize_last(a, q, 16, (size_t)1 << 40)); /* no room */
    assert_ptr_equal(arena_resize_last(a, q, 16, 0), q);
    assert_ptr_equal(arena_alloc(a, 1), q); /* given back */
}

static void test_resize_last(void **state)
{
    (void)state;
    arena a;
    arena_init(&a);
    resize_last_in(&a);
    arena_release(&a);
    fill_arena(300000); /* leaves its biggest block, written all over, for the next arena */
    arena_init(&a);
    resize_last_in(&a); /* in that block: not zeroed, cleared per piece */
    arena_release(&a);
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
        cmocka_unit_test(test_resize_last),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
