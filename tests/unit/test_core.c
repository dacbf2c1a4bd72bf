/* test_core.c - the shared core containers: the stable merge sort (core/sort.h) against a
 * reference (an insertion sort, stable by construction) on random arrays of several element
 * sizes and lengths, stability on many equal keys, 0, 1 and 2 elements, the comparator's
 * context, and allocation failure; the growable array (core/vec.h): pushes across many
 * doublings, the hard maximum, size overflow and allocation failure leaving it unchanged;
 * the hash index (core/hmap.h): inserts and lookups across growth, a hash that always
 * collides (equality alone decides), and allocation failure; the two typed layers over it,
 * core/pairmap.h (pairs across growth, sticky failure) and core/intern.h (ids in order of
 * first sight, a string taken from inside the pool). */
#include "testutil.h"

#include "core/hmap.h"
#include "core/intern.h"
#include "core/pairmap.h"
#include "core/sort.h"
#include "core/vec.h"

/* An element with a key and its original position (to check stability), padded to SIZE. */
typedef struct rec {
    int32_t key;
    uint32_t pos;
} rec;

typedef struct big {
    int64_t key;
    uint32_t pos;
    char pad[20];
} big;

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return (uint32_t)g_rng;
}

static int cmp_rec(const void *a, const void *b, void *ctx)
{
    int *calls = ctx;
    if (calls)
        ++*calls;
    const rec *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int cmp_big(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const big *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

static int cmp_u32_desc(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x < y) - (x > y);
}

/* The reference: a stable insertion sort of recs by key. */
static void ref_sort(rec *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        rec x = v[i];
        size_t j = i;
        for (; j > 0 && v[j - 1].key > x.key; j--)
            v[j] = v[j - 1];
        v[j] = x;
    }
}

static void check_recs(size_t n, int32_t range)
{
    rec *v = malloc((n ? n : 1) * sizeof *v), *w = malloc((n ? n : 1) * sizeof *w);
    assert_non_null(v);
    assert_non_null(w);
    for (size_t i = 0; i < n; i++) {
        v[i].key = (int32_t)(rnd() % (uint32_t)range) - range / 2;
        v[i].pos = (uint32_t)i;
    }
    memcpy(w, v, n * sizeof *v);
    int calls = 0;
    assert_int_equal(pq_sort(v, n, sizeof *v, cmp_rec, &calls), 0);
    ref_sort(w, n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(v[i].key, w[i].key);
        assert_int_equal(v[i].pos, w[i].pos); /* stable: equal keys keep their order */
    }
    if (n >= 2)
        assert_true(calls > 0); /* the context reached the comparator */
    free(v);
    free(w);
}

static void test_sort_random(void **state)
{
    (void)state;
    static const size_t ns[] = {3, 15, 16, 17, 31, 32, 33, 100, 1000, 4097, 20000};
    for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
        check_recs(ns[k], 1 << 30); /* mostly distinct keys */
        check_recs(ns[k], 7);       /* many equal keys: stability */
    }
}

static void test_sort_sorted_and_reversed(void **state)
{
    (void)state;
    enum { N = 5000 };
    uint32_t v[N];
    for (uint32_t i = 0; i < N; i++)
        v[i] = i;
    assert_int_equal(pq_sort(v, N, sizeof v[0], cmp_u32_desc, NULL), 0);
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(v[i], N - 1 - i);
    assert_int_equal(pq_sort(v, N, sizeof v[0], cmp_u32_desc, NULL), 0); /* already sorted */
    for (uint32_t i = 0; i < N; i++)
        assert_int_equal(v[i], N - 1 - i);
}

static void test_sort_big_elements(void **state)
{
    (void)state;
    enum { N = 777 };
    big v[N], t[N];
    for (uint32_t i = 0; i < N; i++) {
        v[i].key = (int64_t)(rnd() % 50) - 25;
        v[i].pos = i;
        memset(v[i].pad, (int)(i & 0x7f), sizeof v[i].pad);
    }
    pq_sort_with(v, t, N, sizeof v[0], cmp_big, NULL); /* no allocation */
    for (uint32_t i = 1; i < N; i++) {
        assert_true(v[i - 1].key <= v[i].key);
        if (v[i - 1].key == v[i].key)
            assert_true(v[i - 1].pos < v[i].pos);
    }
    for (uint32_t i = 0; i < N; i++) /* the whole element moved, padding included */
        assert_int_equal(v[i].pad[19], (char)(v[i].pos & 0x7f));
}

static void test_sort_tiny(void **state)
{
    (void)state;
    rec none[1] = {{5, 0}};
    assert_int_equal(pq_sort(none, 0, sizeof none[0], cmp_rec, NULL), 0);
    assert_int_equal(pq_sort(NULL, 0, sizeof none[0], cmp_rec, NULL), 0);
    assert_int_equal(none[0].key, 5);
    rec one[1] = {{7, 0}};
    assert_int_equal(pq_sort(one, 1, sizeof one[0], cmp_rec, NULL), 0);
    assert_int_equal(one[0].key, 7);
    rec two[2] = {{9, 0}, {3, 1}};
    assert_int_equal(pq_sort(two, 2, sizeof two[0], cmp_rec, NULL), 0);
    assert_int_equal(two[0].key, 3);
    assert_int_equal(two[1].key, 9);
    rec tie[2] = {{4, 0}, {4, 1}};
    assert_int_equal(pq_sort(tie, 2, sizeof tie[0], cmp_rec, NULL), 0);
    assert_int_equal(tie[0].pos, 0);
    assert_int_equal(tie[1].pos, 1);
}

static void test_sort_alloc_failure(void **state)
{
    (void)state;
    rec v[40];
    for (uint32_t i = 0; i < 40; i++)
        v[i] = (rec){(int32_t)(40 - i), i};
    pq_debug_fail_alloc_after(1); /* the next allocation fails */
    int rc = pq_sort(v, 40, sizeof v[0], cmp_rec, NULL);
    pq_debug_fail_alloc_after(0);
    assert_int_equal(rc, -1);
    for (uint32_t i = 0; i < 40; i++) /* unchanged */
        assert_int_equal(v[i].key, (int32_t)(40 - i));
    /* n * size overflows size_t: refused before any allocation */
    assert_int_equal(pq_sort(v, SIZE_MAX / 2, 4, cmp_rec, NULL), -1);
    assert_int_equal(pq_sort(v, 40, sizeof v[0], cmp_rec, NULL), 0);
    assert_int_equal(v[0].key, 1);
}

PQ_VEC_DEFINE(i64_vec, int64_t)
PQ_VEC_DEFINE(big_vec, big)

static void test_vec_push(void **state)
{
    (void)state;
    i64_vec a = {0};
    for (int64_t i = 0; i < 100000; i++)
        assert_int_equal(i64_vec_push(&a, i * 3, SIZE_MAX), 0);
    assert_int_equal(a.n, 100000);
    assert_true(a.cap >= a.n);
    assert_true(a.cap <= 2 * a.n); /* doubling, not more */
    for (int64_t i = 0; i < 100000; i++)
        assert_int_equal(a.v[i], i * 3);
    i64_vec_free(&a);
    assert_null(a.v);
    assert_int_equal(a.n, 0);
    assert_int_equal(i64_vec_push(&a, 1, 10), 0); /* usable again after free */
    assert_int_equal(a.v[0], 1);
    i64_vec_free(&a);
}

/* _add: a zeroed element filled in place; NULL at the maximum, the array unchanged. */
static void test_vec_add(void **state)
{
    (void)state;
    big_vec b = {0};
    for (int i = 0; i < 20; i++) {
        big *e = big_vec_add(&b, 20);
        assert_non_null(e);
        for (size_t k = 0; k < sizeof *e; k++)
            assert_int_equal(((unsigned char *)e)[k], 0);
        memset(e, 0xAB, sizeof *e);
    }
    assert_null(big_vec_add(&b, 20));
    assert_int_equal(b.n, 20);
    assert_int_equal(((unsigned char *)&b.v[19])[0], 0xAB);
    big_vec_free(&b);
}

static void test_vec_maximum(void **state)
{
    (void)state;
    i64_vec a = {0};
    for (int64_t i = 0; i < 10; i++)
        assert_int_equal(i64_vec_push(&a, i, 10), 0);
    assert_int_equal(i64_vec_push(&a, 10, 10), -1); /* the hard maximum */
    assert_int_equal(a.n, 10);
    assert_int_equal(a.cap, 10);
    assert_int_equal(a.v[9], 9);
    assert_int_equal(i64_vec_reserve(&a, 11, 10), -1);
    i64_vec_free(&a);
    /* cap * sizeof overflows size_t: refused, unchanged */
    big_vec b = {0};
    assert_int_equal(big_vec_reserve(&b, SIZE_MAX / sizeof(big) + 1, SIZE_MAX), -1);
    assert_null(b.v);
    assert_int_equal(b.cap, 0);
    assert_int_equal(pq_vec_next_cap(0, 1, 8, SIZE_MAX), 8);
    assert_int_equal(pq_vec_next_cap(8, 9, 8, SIZE_MAX), 16);
    assert_int_equal(pq_vec_next_cap(8, 100, 8, SIZE_MAX), 100);
    assert_int_equal(pq_vec_next_cap(8, 9, 8, 12), 12);
    assert_int_equal(pq_vec_next_cap(SIZE_MAX / 2 + 1, SIZE_MAX / 2 + 2, 1, SIZE_MAX), SIZE_MAX);
    assert_int_equal(pq_vec_next_cap(8, 9, 0, SIZE_MAX), 0);
}

static void test_vec_alloc_failure(void **state)
{
    (void)state;
    i64_vec a = {0};
    for (int64_t i = 0; i < 8; i++)
        assert_int_equal(i64_vec_push(&a, i, SIZE_MAX), 0);
    int64_t *before = a.v;
    pq_debug_fail_alloc_after(1);           /* the next allocation fails */
    int rc = i64_vec_push(&a, 8, SIZE_MAX); /* needs to grow from 8 */
    pq_debug_fail_alloc_after(0);
    assert_int_equal(rc, -1);
    assert_ptr_equal(a.v, before); /* unchanged, still owned */
    assert_int_equal(a.n, 8);
    assert_int_equal(a.cap, 8);
    assert_int_equal(i64_vec_push(&a, 8, SIZE_MAX), 0);
    assert_int_equal(a.v[8], 8);
    i64_vec_free(&a);
}

/* hmap: keys are int64 held in the caller's array; the hash is computed by the test. */
typedef struct key_ctx {
    const int64_t *keys;
    int64_t want;
} key_ctx;

static int key_same(void *ctx, uint32_t v)
{
    const key_ctx *k = ctx;
    return k->keys[v] == k->want;
}

static uint64_t mix(int64_t x, int weak)
{
    if (weak)
        return 7; /* every key collides */
    uint64_t h = (uint64_t)x * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 31);
}

static void check_hmap(size_t n, int weak)
{
    int64_t *keys = malloc(n * sizeof *keys);
    assert_non_null(keys);
    pq_hmap m = {0};
    size_t held = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t key = (int64_t)(i * 7919 % n) - 5; /* a permutation, so all distinct */
        key_ctx k = {keys, key};
        assert_int_equal(pq_hmap_reserve(&m, held + 1), 0);
        size_t s = pq_hmap_probe(&m, mix(key, weak), key_same, &k);
        assert_false(pq_hmap_found(&m, s));
        keys[held] = key;
        pq_hmap_put(&m, s, mix(key, weak), (uint32_t)held);
        held++;
        s = pq_hmap_probe(&m, mix(key, weak), key_same, &k); /* found at once */
        assert_true(pq_hmap_found(&m, s));
        assert_int_equal(pq_hmap_value(&m, s), held - 1);
    }
    assert_int_equal(m.n, n);
    assert_true(m.cap >= 2 * n);
    for (size_t i = 0; i < n; i++) { /* every key found after all the growth */
        key_ctx k = {keys, keys[i]};
        size_t s = pq_hmap_probe(&m, mix(keys[i], weak), key_same, &k);
        assert_true(pq_hmap_found(&m, s));
        assert_int_equal(pq_hmap_value(&m, s), i);
    }
    key_ctx absent = {keys, (int64_t)n + 100};
    assert_false(pq_hmap_found(&m, pq_hmap_probe(&m, mix(absent.want, weak), key_same, &absent)));
    pq_hmap_free(&m);
    assert_int_equal(m.cap, 0);
    free(keys);
}

static void test_hmap(void **state)
{
    (void)state;
    check_hmap(1, 0);
    check_hmap(20000, 0);
    check_hmap(300, 1);
}

static void test_hmap_alloc_failure(void **state)
{
    (void)state;
    pq_hmap m = {0};
    assert_int_equal(pq_hmap_reserve(&m, 8), 0);
    size_t cap = m.cap;
    int64_t keys[1] = {42};
    key_ctx k = {keys, 42};
    pq_hmap_put(&m, pq_hmap_probe(&m, mix(42, 0), key_same, &k), mix(42, 0), 0);
    pq_debug_fail_alloc_after(1);      /* the next allocation fails */
    int rc = pq_hmap_reserve(&m, cap); /* needs to grow */
    pq_debug_fail_alloc_after(0);
    assert_int_equal(rc, -1);
    assert_int_equal(m.cap, cap); /* unchanged and still usable */
    assert_true(pq_hmap_found(&m, pq_hmap_probe(&m, mix(42, 0), key_same, &k)));
    assert_int_equal(pq_hmap_reserve(&m, (size_t)1 << 32), -1); /* over 2^31 values */
    pq_hmap_free(&m);
}

/* pairmap over hmap: values stay with their keys across growth; absent keys read
 * UINT32_MAX; a failed growth is sticky and loses nothing already held. */
static void test_pairmap(void **state)
{
    (void)state;
    pairmap m = {0};
    assert_int_equal(pairmap_get(&m, 1, 2), UINT32_MAX); /* empty map */
    for (int64_t i = 0; i < 5000; i++) {
        int fresh = 0;
        uint32_t *v = pairmap_slot(&m, i, -i, &fresh);
        assert_non_null(v);
        assert_int_equal(fresh, 1);
        assert_int_equal(*v, UINT32_MAX);
        *v = (uint32_t)(i * 7);
        v = pairmap_slot(&m, i, -i, &fresh);
        assert_int_equal(fresh, 0);
        assert_int_equal(*v, (uint32_t)(i * 7));
    }
    for (int64_t i = 0; i < 5000; i++) {
        assert_int_equal(pairmap_get(&m, i, -i), (uint32_t)(i * 7));
        assert_int_equal(pairmap_get(&m, -i, i + 1), UINT32_MAX); /* the pair, not one key */
    }
    size_t cap = m.cap;
    int fresh = 0;
    while (m.n < cap)
        assert_non_null(pairmap_slot(&m, (int64_t)m.n, 1, &fresh));
    pq_debug_fail_alloc_after(1);
    uint32_t *v = pairmap_slot(&m, -1, -1, &fresh); /* needs to grow */
    pq_debug_fail_alloc_after(0);
    assert_null(v);
    assert_null(pairmap_slot(&m, -1, -1, &fresh)); /* sticky */
    assert_int_equal(pairmap_get(&m, 4999, -4999), 4999u * 7);
    pairmap_free(&m);
    assert_int_equal(pairmap_get(&m, 0, 0), UINT32_MAX);
}

/* The intern pool over hmap: one id per distinct string in order of first sight, across
 * growth, including a string taken from inside the pool itself. */
static void test_intern(void **state)
{
    (void)state;
    intern_pool pl;
    assert_int_equal(intern_init(&pl), 0);
    char buf[32];
    uint32_t first = 0;
    for (int i = 0; i < 3000; i++) {
        snprintf(buf, sizeof buf, "name-%d", i);
        uint32_t id = intern_cstr(&pl, buf);
        if (i == 0)
            first = id;
        assert_int_equal(id, first + (uint32_t)i);
        assert_string_equal(intern_str(&pl, id), buf);
        assert_int_equal(intern_len(&pl, id), strlen(buf));
    }
    for (int i = 0; i < 3000; i++) {
        snprintf(buf, sizeof buf, "name-%d", i);
        assert_int_equal(intern_cstr(&pl, buf), first + (uint32_t)i);
    }
    /* "name" is a prefix of an interned string: a new id, read from the pool itself. */
    uint32_t pre = intern_add(&pl, intern_str(&pl, first), 4);
    assert_int_equal(pre, first + 3000);
    assert_string_equal(intern_str(&pl, pre), "name");
    assert_int_equal(intern_cstr(&pl, "name"), pre);
    assert_false(pl.failed);
    intern_free(&pl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_random),
        cmocka_unit_test(test_sort_sorted_and_reversed),
        cmocka_unit_test(test_sort_big_elements),
        cmocka_unit_test(test_sort_tiny),
        cmocka_unit_test(test_sort_alloc_failure),
        cmocka_unit_test(test_vec_push),
        cmocka_unit_test(test_vec_add),
        cmocka_unit_test(test_vec_maximum),
        cmocka_unit_test(test_vec_alloc_failure),
        cmocka_unit_test(test_hmap),
        cmocka_unit_test(test_hmap_alloc_failure),
        cmocka_unit_test(test_pairmap),
        cmocka_unit_test(test_intern),
    };
    return tu_exit_code(cmocka_run_group_tests(tests, NULL, NULL));
}
