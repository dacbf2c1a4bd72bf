/* test_sha256.c - SHA-256 (src/core/sha256.h): the FIPS 180-4 example digests, split
 * updates at every offset, and the SHA-extension blocks against the portable ones on
 * random data of every length up to 1,100 bytes and one of 1 MiB. */
#include "testutil.h"

#include "core/sha256.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void hex(const unsigned char md[32], char out[65])
{
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static void check(const void *data, size_t n, const char *want)
{
    unsigned char md[32];
    char got[65];
    pq_sha256(data, n, md);
    hex(md, got);
    assert_string_equal(got, want);
}

static void known_digests(void)
{
    check("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    /* an empty file's mapping is NULL (the sanitizer build checks memcpy is not given it) */
    check(NULL, 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check(m, strlen(m), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    const char *m2 =
        "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
        "klmnopqrlmnopqrsmnopqrstnopqrstu";
    check(m2, strlen(m2), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
    size_t n = 1000000;
    char *a = malloc(n);
    assert_non_null(a);
    memset(a, 'a', n);
    check(a, n, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

static void test_known_digests(void **state)
{
    (void)state;
    pq_sha256_force_portable(1);
    known_digests();
    pq_sha256_force_portable(0);
    known_digests(); /* the SHA-extension blocks where the CPU has them */
}

static void test_split_updates(void **state)
{
    (void)state;
    unsigned char data[300], whole[32], parts[32];
    for (size_t i = 0; i < sizeof data; i++)
        data[i] = (unsigned char)(i * 7 + 3);
    pq_sha256(data, sizeof data, whole);
    for (size_t cut = 0; cut <= sizeof data; cut++) {
        for (size_t cut2 = cut; cut2 <= sizeof data; cut2 += 37) {
            pq_sha256_ctx s;
            pq_sha256_init(&s);
            pq_sha256_update(&s, data, cut);
            pq_sha256_update(&s, data + cut, cut2 - cut);
            pq_sha256_update(&s, data + cut2, sizeof data - cut2);
            pq_sha256_final(&s, parts);
            assert_memory_equal(whole, parts, 32);
        }
    }
}

static void test_accelerated_matches_portable(void **state)
{
    (void)state;
    size_t big = 1 << 20;
    unsigned char *data = malloc(big), a[32], b[32];
    assert_non_null(data);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < big; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (unsigned char)x;
    }
    for (size_t n = 0; n <= 1100; n++) {
        pq_sha256_force_portable(1);
        pq_sha256(data + n % 13, n, a);
        pq_sha256_force_portable(0);
        pq_sha256(data + n % 13, n, b);
        assert_memory_equal(a, b, 32);
    }
    pq_sha256_force_portable(1);
    pq_sha256(data, big, a);
    pq_sha256_force_portable(0);
    pq_sha256(data, big, b);
    assert_memory_equal(a, b, 32);
    print_message("sha256: %s blocks compared with the portable ones\n",
                  pq_sha256_accelerated() ? "SHA-extension" : "portable (no SHA extensions)");
    free(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_digests),
        cmocka_unit_test(test_split_updates),
        cmocka_unit_test(test_accelerated_matches_portable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
