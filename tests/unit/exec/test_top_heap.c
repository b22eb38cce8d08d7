/*
 * test_top_heap.c — the bounded heap of top / take_ordered (exec/top_heap.c) against a full sort:
 * random records (keys with shared prefixes, duplicates, varying values) fed in batches, for k
 * from 0 to beyond the record count, largest and smallest; a long run of replacements that
 * forces compactions keeps the store bounded by O(k) records.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "exec/top_heap.h"

static int cmp_records(const void *x, const void *y, void *arg)
{
    const cs_batch *b = arg;
    cspark_record a = batch_get(b, *(const size_t *)x), c = batch_get(b, *(const size_t *)y);
    return cs_record_compare(&a, &c);
}

static void fill(cs_batch *all, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++) {
        char key[16], value[16];
        int klen = 1 + rand_r(&seed) % 4, vlen = rand_r(&seed) % 3;
        for (int j = 0; j < klen; j++)
            key[j] = (char)('a' + rand_r(&seed) % 3);
        for (int j = 0; j < vlen; j++)
            value[j] = (char)('0' + rand_r(&seed) % 2);
        cs_batch_append_record(all, key, (uint32_t)klen, value, (uint32_t)vlen);
    }
}

static void check(const cs_batch *all, size_t k, bool largest)
{
    cs_top_heap t;
    cs_top_heap_init(&t, k, largest);
    /* fed in batches of 7 records */
    for (size_t from = 0; from < all->n; from += 7) {
        cs_batch part;
        cs_batch_init(&part);
        for (size_t i = from; i < from + 7 && i < all->n; i++) {
            cspark_record r = batch_get(all, i);
            cs_batch_append_record(&part, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
        }
        cs_top_heap_add_batch(&t, &part);
        cs_batch_free(&part);
    }
    cs_batch got;
    cs_batch_init(&got);
    cs_top_heap_result(&t, &got);
    size_t *idx = malloc((all->n + 1) * sizeof *idx);
    for (size_t i = 0; i < all->n; i++)
        idx[i] = i;
    qsort_r(idx, all->n, sizeof *idx, cmp_records, (void *)all);
    size_t want = k < all->n ? k : all->n;
    assert_int_equal(got.n, want);
    for (size_t i = 0; i < want; i++) {
        cspark_record g = batch_get(&got, i);
        cspark_record w = batch_get(all, largest ? idx[all->n - 1 - i] : idx[i]);
        assert_int_equal(cs_record_compare(&g, &w), 0);
    }
    free(idx);
    cs_batch_free(&got);
    cs_top_heap_free(&t);
}

static void matches_a_full_sort(void **state)
{
    cs_batch all;
    cs_batch_init(&all);
    fill(&all, 500, 7);
    size_t ks[] = {0, 1, 2, 10, 499, 500, 1000};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        check(&all, ks[i], true);
        check(&all, ks[i], false);
    }
    cs_batch_free(&all);
}

static void memory_stays_bounded(void **state)
{
    /* ascending keys: every record replaces the root of a largest-10 heap */
    cs_top_heap t;
    cs_top_heap_init(&t, 10, true);
    cs_batch b;
    cs_batch_init(&b);
    size_t max_store = 0;
    for (int64_t i = 0; i < 200000; i++) {
        uint8_t k[8];
        cspark_i64_encode(i, k);
        cs_batch_append_record(&b, k, 8, "value", 5);
        if (b.n == 1000) {
            cs_top_heap_add_batch(&t, &b);
            cs_batch_reset(&b);
            if (t.store.n > max_store) max_store = t.store.n;
        }
    }
    assert_true(max_store <= 2 * 10 + 1024 + 1);
    cs_batch out;
    cs_batch_init(&out);
    cs_top_heap_result(&t, &out);
    assert_int_equal(out.n, 10);
    assert_true(cspark_slice_i64(batch_get(&out, 0).key) == 199999);
    assert_true(cspark_slice_i64(batch_get(&out, 9).key) == 199990);
    cs_batch_free(&out);
    cs_batch_free(&b);
    cs_top_heap_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(matches_a_full_sort),
        cmocka_unit_test(memory_stays_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
