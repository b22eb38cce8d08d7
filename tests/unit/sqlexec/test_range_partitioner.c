/*
 * test_range_partitioner.c — src/sqlexec/range_partitioner.c: Spark's sample size per input
 * partition; bounds chosen by RangePartitioner.determineBounds from explicit weighted samples
 * (even steps, duplicates skipped, weights from counts, descending keys with nulls last, two
 * key columns, nothing to sample); the reservoir keeps every row of a short input in order and
 * min(k, rows) of a long one, drawn from its input, the same rows for the same seed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "phys_test_util.h"
#include "sqlexec/range_partitioner.h"

static cs_col_batch *longs_batch(const int64_t *v, int64_t n, const uint8_t *valid)
{
    cs_col_type *schema = t_schema(1, (const char *[]){"k"}, (cs_col_type *[]){T(CS_TYPE_LONG)});
    cs_col_batch *b = t_batch(schema, (cs_column *[]){t_longs(v, n, valid)}, n);
    cs_col_type_unref(schema);
    return b;
}

static int64_t at(const cs_col_batch *b, int64_t row)
{
    return ((const int64_t *)(const void *)b->columns[0]->values)[row];
}

static cs_col_batch *bounds_of(cs_col_batch **samples, const int64_t *counts, int n,
                               const cs_sort_key *dirs, int n_keys, int partitions)
{
    cs_col_batch *out = NULL;
    cs_error err = {0};
    assert_int_equal(cs_range_bounds(samples, counts, n, dirs, n_keys, partitions, 100,
                                     cs_col_default_allocator(), &out, &err),
                     CS_OK);
    return out;
}

static void test_sample_size_per_partition(void **state)
{
    (void)state;
    assert_int_equal(cs_range_sample_per_partition(4, 2, 100), 600); /* ceil(3 * 400 / 2) */
    assert_int_equal(cs_range_sample_per_partition(200, 1, 100), 60000);
    assert_int_equal(cs_range_sample_per_partition(4, 3, 20), 80);
    assert_int_equal(cs_range_sample_per_partition(7, 9, 1), 3);              /* ceil(21 / 9) */
    assert_int_equal(cs_range_sample_per_partition(100000, 2, 100), 1500000); /* 1e6 cap */
}

static void test_even_steps(void **state)
{
    (void)state;
    int64_t v[10] = {7, 1, 9, 3, 10, 5, 2, 8, 4, 6};
    cs_col_batch *s = longs_batch(v, 10, NULL);
    cs_sort_key asc = {0, false, true};
    /* weight 1 each, step 10 / 4 = 2.5: the keys where 1..10 reaches 2.5, 5, 7.5 */
    cs_col_batch *b = bounds_of(&s, (int64_t[]){10}, 1, &asc, 1, 4);
    assert_non_null(b);
    assert_int_equal(b->num_rows, 3);
    assert_int_equal(at(b, 0), 3);
    assert_int_equal(at(b, 1), 5);
    assert_int_equal(at(b, 2), 8);
    cs_col_batch_unref(b);
    /* more partitions than keys: min(partitions, candidates) of them, so every key but the last */
    b = bounds_of(&s, (int64_t[]){10}, 1, &asc, 1, 50);
    assert_int_equal(b->num_rows, 9);
    for (int i = 0; i < 9; i++)
        assert_int_equal(at(b, i), i + 1);
    cs_col_batch_unref(b);
    cs_col_batch_unref(s);
}

static void test_duplicates_skipped(void **state)
{
    (void)state;
    int64_t v[8] = {1, 2, 1, 2, 1, 2, 1, 2};
    cs_col_batch *s = longs_batch(v, 8, NULL);
    cs_sort_key asc = {0, false, true};
    cs_col_batch *b = bounds_of(&s, (int64_t[]){8}, 1, &asc, 1, 4);
    assert_int_equal(b->num_rows, 2); /* 1 at the first step; 1 again is skipped; then 2 */
    assert_int_equal(at(b, 0), 1);
    assert_int_equal(at(b, 1), 2);
    cs_col_batch_unref(b);
    cs_col_batch_unref(s);
}

static void test_weights_from_counts(void **state)
{
    (void)state;
    int64_t a[2] = {10, 20}, z[2] = {1, 2};
    cs_col_batch *s[2] = {longs_batch(a, 2, NULL), longs_batch(z, 2, NULL)};
    cs_sort_key asc = {0, false, true};
    /* partition 1's keys weigh 100 each (200 rows, 2 sampled): half the weight is at key 2 */
    cs_col_batch *b = bounds_of(s, (int64_t[]){2, 200}, 2, &asc, 1, 2);
    assert_int_equal(b->num_rows, 1);
    assert_int_equal(at(b, 0), 2);
    cs_col_batch_unref(b);
    /* equal counts: the middle of 1, 2, 10, 20 */
    b = bounds_of(s, (int64_t[]){2, 2}, 2, &asc, 1, 2);
    assert_int_equal(at(b, 0), 2);
    cs_col_batch_unref(b);
    b = bounds_of(s, (int64_t[]){200, 2}, 2, &asc, 1, 2);
    assert_int_equal(at(b, 0), 10);
    cs_col_batch_unref(b);
    cs_col_batch_unref(s[0]);
    cs_col_batch_unref(s[1]);
}

static void test_descending_nulls_last(void **state)
{
    (void)state;
    int64_t v[6] = {5, 0, 3, 1, 4, 0};
    uint8_t valid[6] = {1, 0, 1, 1, 1, 0};
    cs_col_batch *s = longs_batch(v, 6, valid);
    cs_sort_key desc = {0, true, false}; /* DESC NULLS LAST: 5 4 3 1 null null */
    cs_col_batch *b = bounds_of(&s, (int64_t[]){6}, 1, &desc, 1, 3);
    assert_int_equal(b->num_rows, 2);
    assert_int_equal(at(b, 0), 4);
    assert_true(cs_column_is_valid(b->columns[0], 1));
    assert_int_equal(at(b, 1), 1);
    cs_col_batch_unref(b);
    /* DESC NULLS FIRST: null null 5 4 3 1 -> a null is the first bound */
    cs_sort_key desc_nf = {0, true, true};
    b = bounds_of(&s, (int64_t[]){6}, 1, &desc_nf, 1, 3);
    assert_int_equal(b->num_rows, 2);
    assert_false(cs_column_is_valid(b->columns[0], 0));
    assert_int_equal(at(b, 1), 4);
    cs_col_batch_unref(b);
    cs_col_batch_unref(s);
}

static void test_two_keys(void **state)
{
    (void)state;
    int64_t k1[4] = {1, 1, 2, 2}, k2[4] = {9, 8, 7, 6};
    cs_col_type *schema = t_schema(2, (const char *[]){"a", "b"},
                                   (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG)});
    cs_col_batch *s =
        t_batch(schema, (cs_column *[]){t_longs(k1, 4, NULL), t_longs(k2, 4, NULL)}, 4);
    cs_col_type_unref(schema);
    cs_sort_key dirs[2] = {{0, false, true}, {1, true, false}}; /* a ASC, b DESC */
    cs_col_batch *b = bounds_of(&s, (int64_t[]){4}, 1, dirs, 2, 2);
    assert_int_equal(b->num_rows, 1); /* (1,9) (1,8) | (2,7) (2,6): the bound is (1,8) */
    assert_int_equal(((const int64_t *)(const void *)b->columns[0]->values)[0], 1);
    assert_int_equal(((const int64_t *)(const void *)b->columns[1]->values)[0], 8);
    cs_col_batch_unref(b);
    cs_col_batch_unref(s);
}

static void test_nothing_to_sample(void **state)
{
    (void)state;
    cs_sort_key asc = {0, false, true};
    cs_col_batch *empty = longs_batch(NULL, 0, NULL);
    assert_null(bounds_of(&empty, (int64_t[]){0}, 1, &asc, 1, 4));
    int64_t v[3] = {1, 2, 3};
    cs_col_batch *s = longs_batch(v, 3, NULL);
    assert_null(bounds_of(&s, (int64_t[]){3}, 1, &asc, 1, 1)); /* one partition: no bound */
    cs_col_batch_unref(s);
    cs_col_batch_unref(empty);
}

static cs_col_batch *sample_of(int k, int64_t rows, int64_t per_batch, int64_t seed, int64_t *count)
{
    cs_col_type *schema = t_schema(2, (const char *[]){"x", "k"},
                                   (cs_col_type *[]){T(CS_TYPE_LONG), T(CS_TYPE_LONG)});
    cs_sort_key key = {1, false, true};
    cs_range_reservoir *r = cs_range_reservoir_new(schema, &key, 1, k, seed);
    cs_error err = {0};
    int64_t xs[64], ks[64];
    for (int64_t from = 0; from < rows; from += per_batch) {
        int64_t n = rows - from < per_batch ? rows - from : per_batch;
        for (int64_t i = 0; i < n; i++) {
            xs[i] = -1;
            ks[i] = from + i;
        }
        cs_col_batch *b =
            t_batch(schema, (cs_column *[]){t_longs(xs, n, NULL), t_longs(ks, n, NULL)}, n);
        assert_int_equal(cs_range_reservoir_add(r, b, cs_col_default_allocator(), &err), CS_OK);
        cs_col_batch_unref(b);
    }
    *count = cs_range_reservoir_count(r);
    cs_col_batch *s = cs_range_reservoir_sample(r, cs_col_default_allocator(), &err);
    assert_non_null(s);
    assert_int_equal(s->n_columns, 1); /* the key column only */
    cs_range_reservoir_free(r);
    cs_col_type_unref(schema);
    return s;
}

static void test_reservoir(void **state)
{
    (void)state;
    int64_t count;
    cs_col_batch *s = sample_of(20, 10, 3, 7, &count); /* fewer rows than k: all, in order */
    assert_int_equal(count, 10);
    assert_int_equal(s->num_rows, 10);
    for (int i = 0; i < 10; i++)
        assert_int_equal(at(s, i), i);
    cs_col_batch_unref(s);
    /* many batches (the reservoir compacts): k distinct rows of the input */
    s = sample_of(5, 10000, 10, 7, &count);
    assert_int_equal(count, 10000);
    assert_int_equal(s->num_rows, 5);
    bool late = false;
    for (int i = 0; i < 5; i++) {
        assert_in_range(at(s, i), 0, 9999);
        late |= at(s, i) >= 5;
        for (int j = 0; j < i; j++)
            assert_int_not_equal(at(s, i), at(s, j));
    }
    assert_true(late); /* later rows replaced the first ones */
    cs_col_batch *again = sample_of(5, 10000, 64, 7, &count);
    for (int i = 0; i < 5; i++) /* the draws do not depend on the batches' sizes */
        assert_int_equal(at(again, i), at(s, i));
    cs_col_batch_unref(again);
    cs_col_batch_unref(s);
    s = sample_of(4, 0, 1, 7, &count); /* no row: an empty sample */
    assert_int_equal(count, 0);
    assert_int_equal(s->num_rows, 0);
    cs_col_batch_unref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_size_per_partition),
        cmocka_unit_test(test_even_steps),
        cmocka_unit_test(test_duplicates_skipped),
        cmocka_unit_test(test_weights_from_counts),
        cmocka_unit_test(test_descending_nulls_last),
        cmocka_unit_test(test_two_keys),
        cmocka_unit_test(test_nothing_to_sample),
        cmocka_unit_test(test_reservoir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
