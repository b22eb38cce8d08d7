/*
 * test_external_sort.c — ext_sorter: 500k random records with a 1 MB budget (several spilled
 * runs, k-way merge), ascending and descending; output sorted and a permutation of the input;
 * prefix ties and short keys ordered by full memcmp with the shorter key first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "records/batch.h"
#include "shuffle/external_sort.h"
#include "spill_damage.h"

static char g_dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/cspark-sort-test-XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return rmdir(g_dir);
}

static uint64_t rng = 0x2545F4914F6CDD1DULL;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Record i: a key of 1..20 bytes (often sharing an 8+ byte prefix, sometimes short), value =
 * u32 i. */
static void make_input(cs_batch *b, int n)
{
    for (int i = 0; i < n; i++) {
        uint8_t k[20];
        uint32_t kl = 1 + (uint32_t)(rnd() % 20);
        int shape = (int)(rnd() % 4);
        for (uint32_t j = 0; j < kl; j++) {
            if (shape == 0 && j < 9)
                k[j] = (uint8_t) "commonpfx"[j]; /* prefix ties */
            else if (shape == 1)
                k[j] = (uint8_t)(rnd() % 3); /* small alphabet with zero bytes */
            else
                k[j] = (uint8_t)rnd();
        }
        uint32_t v = (uint32_t)i;
        cs_batch_append_record(b, k, kl, &v, 4);
    }
}

static void run_sort(int n, int64_t budget, bool ascending, int min_spills, int ways)
{
    cs_task_memory mem;
    cs_task_memory_init(&mem, budget);
    cs_error err = {0};
    ext_sorter *s = cs_ext_sorter_new(ascending, &mem, g_dir, &err);
    assert_non_null(s);
    if (ways) cs_ext_sorter_set_merge_ways(s, ways);
    cs_batch in, chunk, out;
    cs_batch_init(&in);
    cs_batch_init(&chunk);
    cs_batch_init(&out);
    make_input(&in, n);
    for (size_t i = 0; i < in.n; i++) {
        cspark_record r = batch_get(&in, i);
        cs_batch_append_record(&chunk, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
        if (batch_full(&chunk) || i + 1 == in.n) {
            assert_int_equal(cs_ext_sorter_insert(s, &chunk, &err), 0);
            cs_batch_reset(&chunk);
        }
    }
    assert_true(cs_ext_sorter_spills(s) >= min_spills);
    if (getenv("SHUFFLE_TEST_VERBOSE"))
        fprintf(stderr, "sort spills %d\n", cs_ext_sorter_spills(s));
    char *seen = calloc((size_t)n, 1);
    uint8_t prev[20];
    uint32_t prevlen = 0;
    size_t total = 0;
    int rc;
    while ((rc = cs_ext_sorter_next(s, &out, &err)) == 1) {
        for (size_t i = 0; i < out.n; i++) {
            cspark_record r = batch_get(&out, i);
            uint32_t v;
            assert_int_equal(r.value.len, 4);
            memcpy(&v, r.value.ptr, 4);
            assert_true(v < (uint32_t)n);
            assert_int_equal(seen[v], 0);
            seen[v] = 1;
            cspark_record orig = batch_get(&in, v);
            assert_int_equal(orig.key.len, r.key.len);
            assert_memory_equal(orig.key.ptr, r.key.ptr, r.key.len);
            if (total > 0) {
                int c = cs_ext_key_compare(prev, prevlen, r.key.ptr, r.key.len);
                assert_true(ascending ? c <= 0 : c >= 0);
            }
            memcpy(prev, r.key.ptr, r.key.len);
            prevlen = r.key.len;
            total++;
        }
        cs_batch_reset(&out);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(total, (size_t)n);
    cs_ext_sorter_free(s);
    assert_int_equal(mem.used, 0);
    if (budget > 0) assert_true(mem.peak < 2 * budget); /* spills keep memory near the budget */
    free(seen);
    cs_batch_free(&in);
    cs_batch_free(&chunk);
    cs_batch_free(&out);
}

static void test_sort_500k_spills_ascending(void **state)
{
    (void)state;
    run_sort(500000, 1 << 20, true, 5, 0);
}

static void test_sort_500k_spills_descending(void **state)
{
    (void)state;
    run_sort(500000, 1 << 20, false, 5, 0);
    /* multi-pass: at most 3 sources per merge */
    run_sort(200000, 1 << 20, false, 5, 3);
    run_sort(200000, 1 << 20, true, 5, 2);
}

static void test_sort_in_memory(void **state)
{
    (void)state;
    run_sort(100000, 0, true, 0, 0);
    run_sort(100, 0, false, 0, 0);
    run_sort(0, 0, true, 0, 0);
}

static void test_key_order(void **state)
{
    (void)state;
    const char *keys[] = {"b",          "",          "a\0",     "a",    "abcdefgh",
                          "abcdefgh\0", "abcdefghi", "abcdefg", "\xff", "ab"};
    uint32_t lens[] = {1, 0, 2, 1, 8, 9, 9, 7, 1, 2};
    const int order[] = {1, 3, 2, 9, 7, 4, 5, 6, 0, 8}; /* indices in ascending order */
    for (int asc = 0; asc < 2; asc++) {
        cs_error err = {0};
        ext_sorter *s = cs_ext_sorter_new(asc, NULL, g_dir, &err);
        cs_batch b;
        cs_batch_init(&b);
        for (int i = 0; i < 10; i++)
            cs_batch_append_record(&b, keys[i], lens[i], &i, sizeof i);
        assert_int_equal(cs_ext_sorter_insert(s, &b, &err), 0);
        cs_batch_reset(&b);
        assert_int_equal(cs_ext_sorter_next(s, &b, &err), 1);
        assert_int_equal(b.n, 10);
        for (int i = 0; i < 10; i++) {
            int v;
            memcpy(&v, batch_get(&b, (size_t)i).value.ptr, sizeof v);
            assert_int_equal(v, order[asc ? i : 9 - i]);
        }
        assert_int_equal(cs_ext_sorter_next(s, &b, &err), 0);
        cs_ext_sorter_free(s);
        cs_batch_free(&b);
    }
}

/* Values larger than arena chunks, mixed with small records, through spills. */
static void test_large_records(void **state)
{
    (void)state;
    cs_task_memory mem;
    cs_task_memory_init(&mem, 1 << 20);
    cs_error err = {0};
    ext_sorter *s = cs_ext_sorter_new(true, &mem, g_dir, &err);
    cs_batch b;
    cs_batch_init(&b);
    size_t big = 3u << 20;
    uint8_t *v = malloc(big);
    for (int i = 0; i < 40; i++) {
        uint8_t k[4] = {(uint8_t)(39 - i), 0, 0, 0};
        memset(v, i, big);
        cs_batch_reset(&b);
        cs_batch_append_record(&b, k, 4, v, i % 3 == 0 ? (uint32_t)big : 10);
        assert_int_equal(cs_ext_sorter_insert(s, &b, &err), 0);
    }
    assert_true(cs_ext_sorter_spills(s) > 0);
    int seen = 0, rc;
    cs_batch_reset(&b);
    while ((rc = cs_ext_sorter_next(s, &b, &err)) == 1) {
        for (size_t j = 0; j < b.n; j++) {
            cspark_record r = batch_get(&b, j);
            int i = 39 - r.key.ptr[0];
            assert_int_equal(r.key.ptr[0], seen); /* keys 0..39 in order */
            assert_int_equal(r.value.len, i % 3 == 0 ? big : 10);
            assert_int_equal(r.value.ptr[r.value.len - 1], i);
            seen++;
        }
        cs_batch_reset(&b);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(seen, 40);
    cs_ext_sorter_free(s);
    assert_int_equal(mem.used, 0);
    free(v);
    cs_batch_free(&b);
}

/* A spill run damaged on disk fails the merge with a checksum mismatch (for every spill
 * checksum): sorted output never comes from corrupted bytes. */
static void test_damaged_spill_fails(void **state)
{
    (void)state;
    static const cs_checksum_algo algos[] = {CS_CHECKSUM_ADLER32, CS_CHECKSUM_CRC32C,
                                             CS_CHECKSUM_XXH3};
    for (int a = 0; a < 3; a++) {
        cs_task_memory mem;
        cs_task_memory_init(&mem, 256 * 1024);
        cs_error err = {0};
        ext_sorter *s = cs_ext_sorter_new(true, &mem, g_dir, &err);
        cs_ext_sorter_set_spill_compress(s, a == 1);
        cs_ext_sorter_set_spill_checksum(s, algos[a]);
        cs_batch in, out;
        cs_batch_init(&in);
        cs_batch_init(&out);
        make_input(&in, 50000);
        assert_int_equal(cs_ext_sorter_insert(s, &in, &err), 0);
        assert_true(cs_ext_sorter_spills(s) > 0);
        assert_int_equal(spill_damage(g_dir, 3000), 0);
        int rc;
        while ((rc = cs_ext_sorter_next(s, &out, &err)) == 1)
            cs_batch_reset(&out);
        assert_int_equal(rc, CS_EPROTO);
        assert_non_null(strstr(err.msg, "checksum mismatch"));
        cs_ext_sorter_free(s);
        cs_batch_free(&in);
        cs_batch_free(&out);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_500k_spills_ascending),
        cmocka_unit_test(test_sort_500k_spills_descending),
        cmocka_unit_test(test_sort_in_memory),
        cmocka_unit_test(test_key_order),
        cmocka_unit_test(test_large_records),
        cmocka_unit_test(test_damaged_spill_fails),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
