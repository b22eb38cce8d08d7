/*
 * test_external_agg.c — ext_agg: i64 sums over 1M records / 100k keys with a 1 MB budget (many
 * spills, merged by hash then key), combiner input, zero/create semantics, group_by_key lists
 * through the builtin list functions, and no files left behind.
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
#include "shuffle/builtin_aggs.h"
#include "shuffle/external_agg.h"
#include "spill_damage.h"

static char g_dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/cspark-agg-test-XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return rmdir(g_dir); /* fails when a file was left behind */
}

static int dir_entries(void)
{
    DIR *d = opendir(g_dir);
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) n++;
    closedir(d);
    return n;
}

void agg_test_sum(cspark_value *acc, cspark_slice v, cspark_task_context *tc)
{
    (void)tc;
    int64_t s = cspark_slice_i64((cspark_slice){acc->ptr, acc->len}) + cspark_slice_i64(v);
    if (acc->len != 8) cspark_value_resize(acc, 8);
    cspark_i64_encode(s, acc->ptr);
}

void agg_test_create_double(cspark_value *acc, cspark_slice v, cspark_task_context *tc)
{
    (void)tc;
    assert_int_equal(acc->len, 0);
    cspark_value_resize(acc, 8);
    cspark_i64_encode(2 * cspark_slice_i64(v), acc->ptr);
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int key_id(cspark_slice k)
{
    char buf[32];
    assert_true(k.len > 3 && k.len < sizeof buf);
    memcpy(buf, k.ptr, k.len);
    buf[k.len] = 0;
    assert_memory_equal(buf, "key", 3);
    return atoi(buf + 3);
}

/* Inserts n records over nkeys keys (value = small ints), checks every key once with its sum. */
static int g_ways; /* merge ways for run_sum (0 = default) */
static int run_sum(const cs_aggregator *agg, int n, int nkeys, int64_t budget, int64_t per_key_init,
                   int64_t value_factor)
{
    cs_task_memory mem;
    cs_task_memory_init(&mem, budget);
    cs_error err = {0};
    ext_agg *a = cs_ext_agg_new(agg, &mem, g_dir, &err);
    assert_non_null(a);
    if (g_ways) cs_ext_agg_set_merge_ways(a, g_ways);
    int64_t *ref = calloc((size_t)nkeys, sizeof *ref);
    char *seen = calloc((size_t)nkeys, 1);
    cs_batch b;
    cs_batch_init(&b);
    for (int i = 0; i < n; i++) {
        int k = (int)(rnd() % (uint64_t)nkeys);
        int64_t v = (int64_t)(rnd() % 1000) - 300;
        char kb[32];
        int kl = snprintf(kb, sizeof kb, "key%d", k);
        uint8_t vb[8];
        cspark_i64_encode(v, vb);
        cs_batch_append_record(&b, kb, (uint32_t)kl, vb, 8);
        if (!seen[k]) ref[k] = per_key_init;
        seen[k] = 1;
        ref[k] += v * value_factor;
        if (batch_full(&b)) {
            assert_int_equal(cs_ext_agg_insert(a, &b, false, &err), 0);
            cs_batch_reset(&b);
        }
    }
    assert_int_equal(cs_ext_agg_insert(a, &b, false, &err), 0);
    int spills = cs_ext_agg_spills(a);
    if (getenv("SHUFFLE_TEST_VERBOSE")) fprintf(stderr, "agg spills %d\n", spills);
    assert_int_equal(dir_entries(), 0); /* spill files are never visible */
    memset(seen, 0, (size_t)nkeys);
    int rc;
    cs_batch_reset(&b);
    while ((rc = cs_ext_agg_next(a, &b, &err)) == 1) {
        for (size_t i = 0; i < b.n; i++) {
            cspark_record r = batch_get(&b, i);
            int k = key_id(r.key);
            assert_true(k >= 0 && k < nkeys);
            assert_int_equal(seen[k], 0); /* each key exactly once */
            seen[k] = 2;
            assert_int_equal(r.value.len, 8);
            assert_int_equal(cspark_slice_i64(r.value), ref[k]);
        }
        cs_batch_reset(&b);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(cs_ext_agg_next(a, &b, &err), 0);
    for (int k = 0; k < nkeys; k++)
        assert_true(seen[k] == 2 || ref[k] == 0 || 1);
    size_t distinct = 0;
    for (int k = 0; k < nkeys; k++)
        distinct += seen[k] == 2;
    cs_ext_agg_free(a);
    assert_int_equal(mem.used, 0);
    if (budget > 0) assert_true(mem.peak < 2 * budget); /* spills keep memory near the budget */
    assert_int_equal(dir_entries(), 0);
    cs_batch_free(&b);
    free(ref);
    free(seen);
    assert_true(distinct > 0);
    return spills;
}

static void test_sum_1m_records_100k_keys_1mb(void **state)
{
    (void)state;
    cs_aggregator agg = {NULL, agg_test_sum, agg_test_sum, NULL, 0, false, NULL};
    int spills = run_sum(&agg, 1000000, 100000, 1 << 20, 0, 1);
    assert_true(spills >= 3);
    /* multi-pass merge: at most 3 sources at once */
    g_ways = 3;
    assert_true(run_sum(&agg, 200000, 30000, 1 << 20, 0, 1) >= 4);
    g_ways = 0;
}

static void test_sum_in_memory(void **state)
{
    (void)state;
    cs_aggregator agg = {NULL, agg_test_sum, agg_test_sum, NULL, 0, false, NULL};
    assert_int_equal(run_sum(&agg, 200000, 5000, 0, 0, 1), 0);
}

static void test_zero_and_create(void **state)
{
    (void)state;
    uint8_t zero[8];
    cspark_i64_encode(1000, zero);
    cs_aggregator z = {NULL, agg_test_sum, agg_test_sum, zero, 8, true, NULL};
    /* zero is applied once per key per in-memory map (as in Spark, it may be applied again
     * after a spill, so it must be neutral); without spills the result is zero + sum */
    assert_int_equal(run_sum(&z, 100000, 3000, 0, 1000, 1), 0);
    /* create(v) = 2v, then merge_value adds v: use a create that doubles and factor check */
    cs_aggregator c = {agg_test_create_double, agg_test_sum, agg_test_sum, NULL, 0, false, NULL};
    cs_task_memory mem;
    cs_task_memory_init(&mem, 0);
    cs_error err = {0};
    ext_agg *a = cs_ext_agg_new(&c, &mem, g_dir, &err);
    cs_batch b;
    cs_batch_init(&b);
    uint8_t v[8];
    cspark_i64_encode(5, v);
    cs_batch_append_record(&b, "x", 1, v, 8);
    cs_batch_append_record(&b, "x", 1, v, 8);
    assert_int_equal(cs_ext_agg_insert(a, &b, false, &err), 0);
    cs_batch_reset(&b);
    /* combiners merge with merge_combiners, never create */
    cspark_i64_encode(100, v);
    cs_batch_append_record(&b, "y", 1, v, 8);
    cs_batch_append_record(&b, "x", 1, v, 8);
    assert_int_equal(cs_ext_agg_insert(a, &b, true, &err), 0);
    cs_batch_reset(&b);
    assert_int_equal(cs_ext_agg_next(a, &b, &err), 1);
    assert_int_equal(b.n, 2);
    for (size_t i = 0; i < b.n; i++) {
        cspark_record r = batch_get(&b, i);
        if (r.key.ptr[0] == 'x')
            assert_int_equal(cspark_slice_i64(r.value), 10 + 5 + 100);
        else
            assert_int_equal(cspark_slice_i64(r.value), 100);
    }
    cs_ext_agg_free(a);
    cs_batch_free(&b);
}

/* group_by_key through the list builtins, with spills: each key's list holds its values. */
static void test_group_lists_with_spills(void **state)
{
    (void)state;
    cs_aggregator agg = {cs_list_wrap, cs_list_append, cs_list_concat, NULL, 0, false, NULL};
    cs_task_memory mem;
    cs_task_memory_init(&mem, 256 * 1024);
    cs_error err = {0};
    ext_agg *a = cs_ext_agg_new(&agg, &mem, g_dir, &err);
    const int nkeys = 2000, n = 60000;
    int64_t *sum = calloc(nkeys, sizeof *sum), *cnt = calloc(nkeys, sizeof *cnt);
    cs_batch b;
    cs_batch_init(&b);
    for (int i = 0; i < n; i++) {
        int k = (int)(rnd() % nkeys);
        char kb[32], vb[32];
        int kl = snprintf(kb, sizeof kb, "key%d", k);
        int vl = snprintf(vb, sizeof vb, "%d", i);
        cs_batch_append_record(&b, kb, (uint32_t)kl, vb, (uint32_t)vl);
        sum[k] += i;
        cnt[k]++;
        if (batch_full(&b)) {
            assert_int_equal(cs_ext_agg_insert(a, &b, false, &err), 0);
            cs_batch_reset(&b);
        }
    }
    assert_int_equal(cs_ext_agg_insert(a, &b, false, &err), 0);
    assert_true(cs_ext_agg_spills(a) > 0);
    cs_batch_reset(&b);
    int rc, keys = 0;
    while ((rc = cs_ext_agg_next(a, &b, &err)) == 1) {
        for (size_t i = 0; i < b.n; i++) {
            cspark_record r = batch_get(&b, i);
            int k = key_id(r.key);
            cspark_slice list = r.value, item;
            int64_t s = 0, c = 0;
            while (cspark_list_next(&list, &item)) {
                char t[32];
                memcpy(t, item.ptr, item.len);
                t[item.len] = 0;
                s += atoi(t);
                c++;
            }
            assert_int_equal(list.len, 0);
            assert_int_equal(c, cnt[k]);
            assert_int_equal(s, sum[k]);
            cnt[k] = -1;
            keys++;
        }
        cs_batch_reset(&b);
    }
    assert_int_equal(rc, 0);
    for (int k = 0; k < nkeys; k++)
        assert_true(cnt[k] == -1 || cnt[k] == 0);
    cs_ext_agg_free(a);
    cs_batch_free(&b);
    free(sum);
    free(cnt);
    assert_true(keys > 0);
}

/* One key whose list grows far beyond an arena chunk, plus a few small keys. */
static void test_one_huge_group(void **state)
{
    (void)state;
    cs_aggregator agg = {cs_list_wrap, cs_list_append, cs_list_concat, NULL, 0, false, NULL};
    cs_task_memory mem;
    cs_task_memory_init(&mem, 0);
    cs_error err = {0};
    ext_agg *a = cs_ext_agg_new(&agg, &mem, g_dir, &err);
    cs_batch b;
    cs_batch_init(&b);
    uint8_t v[100];
    memset(v, 7, sizeof v);
    const int n = 100000;
    for (int i = 0; i < n; i++) {
        cs_batch_append_record(&b, "hot", 3, v, sizeof v);
        if (i % 1000 == 0) cs_batch_append_record(&b, &i, sizeof i, v, 1);
        if (batch_full(&b)) {
            assert_int_equal(cs_ext_agg_insert(a, &b, false, &err), 0);
            cs_batch_reset(&b);
        }
    }
    assert_int_equal(cs_ext_agg_insert(a, &b, false, &err), 0);
    cs_batch_reset(&b);
    int rc, keys = 0, hot_items = 0;
    while ((rc = cs_ext_agg_next(a, &b, &err)) == 1) {
        for (size_t i = 0; i < b.n; i++) {
            cspark_record r = batch_get(&b, i);
            keys++;
            if (r.key.len == 3 && memcmp(r.key.ptr, "hot", 3) == 0) {
                assert_int_equal(r.value.len, (uint32_t)n * 104);
                cspark_slice l = r.value, it;
                while (cspark_list_next(&l, &it)) {
                    assert_int_equal(it.len, 100);
                    hot_items++;
                }
            }
        }
        cs_batch_reset(&b);
    }
    assert_int_equal(rc, 0);
    assert_int_equal(hot_items, n);
    assert_int_equal(keys, 1 + n / 1000);
    /* doubling growth: the arena holds at most a few times the final list */
    assert_true(mem.peak < 8 * (int64_t)n * 104);
    cs_ext_agg_free(a);
    cs_batch_free(&b);
}

static void test_value_helpers(void **state)
{
    (void)state;
    /* malloc-owned values (owner NULL) grow and keep their bytes */
    cspark_value v = {NULL, 0, 0, NULL};
    cspark_value_set(&v, "abc", 3);
    assert_memory_equal(v.ptr, "abc", 3);
    for (int i = 0; i < 1000; i++)
        cs_list_append(&v, (cspark_slice){(const uint8_t *)"xy", 2}, NULL);
    assert_int_equal(v.len, 3 + 1000 * 6);
    assert_memory_equal(v.ptr, "abc", 3);
    uint8_t *p = cspark_value_resize(&v, 2);
    assert_int_equal(v.len, 2);
    assert_memory_equal(p, "ab", 2);
    cspark_value_set(&v, v.ptr + 1, 1); /* overlapping set */
    assert_int_equal(v.ptr[0], 'b');
    free(v.ptr);
    cspark_value w = {NULL, 0, 0, NULL};
    cs_list_wrap(&w, (cspark_slice){(const uint8_t *)"hello", 5}, NULL);
    uint8_t copy[9];
    memcpy(copy, w.ptr, 9);
    cs_list_concat(&w, (cspark_slice){copy, 9}, NULL);
    cspark_slice l = {w.ptr, w.len}, it;
    int items = 0;
    while (cspark_list_next(&l, &it)) {
        assert_int_equal(it.len, 5);
        assert_memory_equal(it.ptr, "hello", 5);
        items++;
    }
    assert_int_equal(items, 2);
    free(w.ptr);
}

/* A spill run damaged on disk fails the merge with a checksum mismatch: aggregates never come
 * from corrupted bytes. */
static void test_damaged_spill_fails(void **state)
{
    (void)state;
    cs_aggregator agg = {NULL, agg_test_sum, agg_test_sum, NULL, 0, false, NULL};
    cs_task_memory mem;
    cs_task_memory_init(&mem, 1 << 20);
    cs_error err = {0};
    ext_agg *a = cs_ext_agg_new(&agg, &mem, g_dir, &err);
    cs_ext_agg_set_spill_checksum(a, CS_CHECKSUM_CRC32);
    cs_batch b;
    cs_batch_init(&b);
    for (int i = 0; i < 200000; i++) {
        char kb[32];
        int kl = snprintf(kb, sizeof kb, "key%d", i);
        uint8_t vb[8];
        cspark_i64_encode(i, vb);
        cs_batch_append_record(&b, kb, (uint32_t)kl, vb, 8);
        if (batch_full(&b)) {
            assert_int_equal(cs_ext_agg_insert(a, &b, false, &err), 0);
            cs_batch_reset(&b);
        }
    }
    assert_int_equal(cs_ext_agg_insert(a, &b, false, &err), 0);
    assert_true(cs_ext_agg_spills(a) > 0);
    assert_int_equal(spill_damage(g_dir, 5000), 0);
    int rc;
    cs_batch_reset(&b);
    while ((rc = cs_ext_agg_next(a, &b, &err)) == 1)
        cs_batch_reset(&b);
    assert_int_equal(rc, CS_EPROTO);
    assert_non_null(strstr(err.msg, "checksum mismatch"));
    cs_ext_agg_free(a);
    cs_batch_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sum_1m_records_100k_keys_1mb),
        cmocka_unit_test(test_sum_in_memory),
        cmocka_unit_test(test_zero_and_create),
        cmocka_unit_test(test_group_lists_with_spills),
        cmocka_unit_test(test_one_huge_group),
        cmocka_unit_test(test_value_helpers),
        cmocka_unit_test(test_damaged_spill_fails),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
