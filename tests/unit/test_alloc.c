/* test_alloc.c - the allocation wrappers of src/core/alloc.h: array sizes whose product
 * overflows size_t give NULL without allocating (and a failed resize leaves the block
 * intact), sizes that fit give usable memory, pq_strdup copies, and the failure-injection
 * counter (pq_debug_fail_alloc_after) reaches the array wrappers too. */
#include "testutil.h"

#include "core/alloc.h"

static void test_array_overflow(void **state)
{
    (void)state;
    assert_null(pq_malloc_array(SIZE_MAX / 2 + 1, 2));
    assert_null(pq_malloc_array(SIZE_MAX, SIZE_MAX));
    assert_null(pq_malloc_array((SIZE_MAX >> 3) + 1, sizeof(uint64_t)));
    uint64_t *p = pq_malloc_array(4, sizeof *p);
    assert_non_null(p);
    for (int i = 0; i < 4; i++)
        p[i] = (uint64_t)i * 3;
    assert_null(pq_realloc_array(p, SIZE_MAX / 4, sizeof *p));
    assert_int_equal(p[3], 9); /* untouched after the refused resize */
    uint64_t *q = pq_realloc_array(p, 1000, sizeof *q);
    assert_non_null(q);
    assert_int_equal(q[3], 9);
    q[999] = 7;
    pq_free(q);
}

static void test_array_edges(void **state)
{
    (void)state;
    void *a = pq_malloc_array(0, 8), *b = pq_malloc_array(8, 0);
    assert_non_null(a); /* zero bytes still give a block to free */
    assert_non_null(b);
    pq_free(a);
    pq_free(b);
    unsigned char *c = pq_malloc_array(1000, 1);
    assert_non_null(c);
    pq_free(c);
    assert_null(pq_calloc(SIZE_MAX / 16 + 1, 16));
}

static void test_strdup(void **state)
{
    (void)state;
    char *s = pq_strdup("buf_init");
    assert_non_null(s);
    assert_string_equal(s, "buf_init");
    pq_free(s);
    char *e = pq_strdup("");
    assert_non_null(e);
    assert_int_equal(e[0], 0);
    pq_free(e);
}

static void test_fail_injection(void **state)
{
    (void)state;
    pq_debug_fail_alloc_after(1);
    assert_null(pq_malloc_array(2, 8));
    assert_null(pq_strdup("x"));
    void *p = NULL;
    assert_null(pq_realloc_array(p, 2, 8));
    pq_debug_fail_alloc_after(0);
    p = pq_malloc_array(2, 8);
    assert_non_null(p);
    pq_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_overflow),
        cmocka_unit_test(test_array_edges),
        cmocka_unit_test(test_strdup),
        cmocka_unit_test(test_fail_injection),
    };
    return tu_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
