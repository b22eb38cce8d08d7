/*
 * test_sampler.c — Spark's sampling state machines (src/sqlexec/sampler.c) and the Sample
 * operator (src/sqlexec/op_sample.c) against values Spark 4.0.1 computed with the same seeds
 * (java.util.Random, commons-math3 3.6.1's Well19937c, Spark's PoissonSampler and
 * BernoulliCellSampler run in a JVM): each partition's seed, the generator's doubles, Poisson
 * counts of means under and over 40, a Bernoulli cell's rows, and rows repeated by their counts; a
 * SAMPLE node's wire form and EXPLAIN line (Spark's "Sample 0.0, 0.5, true, 7").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "op_test_util.h"
#include "sqlexec/phys_plan.h"
#include "sqlexec/sampler.h"

static void test_java_random_next_long(void **state)
{
    (void)state;
    /* new java.util.Random(17).nextLong() four times; Random(-5)'s first */
    int64_t want[] = {-4937981208836185383LL, -5582529378488325032LL, 1530270151771565451LL,
                      -3389839389802268617LL};
    for (int i = 0; i < 4; i++)
        assert_int_equal(cs_java_random_nth_long(17, i + 1), want[i]);
    assert_int_equal(cs_java_random_nth_long(-5, 1), 4967725915334898755LL);
}

static void test_well19937c_doubles(void **state)
{
    (void)state;
    cs_well19937c w;
    cs_well_seed(&w, 1234567890123LL);
    assert_true(cs_well_next_double(&w) == 0x1.f071ab7ef857cp-1);
    assert_true(cs_well_next_double(&w) == 0x1.02febce7640ccp-2);
    assert_true(cs_well_next_double(&w) == 0x1.5c57b877ca264p-2);
    cs_well_seed(&w, -42); /* past the first round of the 624-word pool */
    for (int i = 0; i < 1000; i++)
        cs_well_next_double(&w);
    assert_true(cs_well_next_double(&w) == 0x1.8a31c141d5b46p-1);
}

static void expect_counts(double mean, int64_t seed, const int *want, int n)
{
    cs_poisson p;
    cs_poisson_init(&p, mean, seed);
    for (int i = 0; i < n; i++) {
        int got = cs_poisson_next(&p);
        if (got != want[i])
            fail_msg("mean %g seed %lld draw %d: %d, Spark %d", mean, (long long)seed, i, got,
                     want[i]);
    }
}

static void test_poisson_counts(void **state)
{
    (void)state;
    /* new PoissonSampler(mean, false); setSeed(seed); sample() 20 times */
    expect_counts(0.5, 17, (int[]){1, 0, 1, 3, 0, 1, 0, 0, 0, 1, 0, 0, 2, 0, 1, 0, 0, 1, 0, 0}, 20);
    expect_counts(0.5, -3, (int[]){0, 0, 2, 0, 0, 0, 0, 1, 1, 1, 2, 0, 1, 0, 0, 0, 0, 0, 0, 0}, 20);
    expect_counts(2.0, 1LL << 40,
                  (int[]){3, 1, 2, 1, 3, 2, 3, 2, 5, 5, 2, 3, 2, 1, 2, 1, 2, 2, 5, 2}, 20);
    expect_counts(7.25, 17, (int[]){9, 6, 1, 7, 5, 2, 7, 11, 6, 6, 5, 14, 6, 4, 8, 11, 8, 6, 7, 10},
                  20);
    expect_counts(7.25, -3, (int[]){7, 10, 6, 7, 8, 10, 8, 9, 6, 9, 3, 7, 10, 8, 5, 5, 9, 3, 4, 6},
                  20);
    /* a mean of 40 or more: commons-math3's rejection method */
    expect_counts(45.5, 17, (int[]){36, 36, 50, 57, 45, 36, 58, 42, 54, 56}, 10);
}

/* A leaf of the ids 0..n-1 in batches of `batch` rows. */
static cs_sql_op *ids(int64_t n, int64_t batch)
{
    const char *names[] = {"id"};
    cs_col_type *schema =
        t_schema(1, names, (cs_col_type *[]){cs_col_type_primitive(CS_TYPE_LONG)});
    cs_col_batch *b[64];
    int nb = 0;
    for (int64_t at = 0; at < n; at += batch) {
        int64_t m = n - at < batch ? n - at : batch, v[64];
        for (int64_t i = 0; i < m; i++)
            v[i] = at + i;
        b[nb++] = t_batch(schema, (cs_column *[]){t_longs(v, m, NULL)}, m);
    }
    cs_sql_op *op = t_leaf(schema, b, nb);
    cs_col_type_unref(schema);
    return op;
}

static void expect_rows(cs_sql_op *op, int64_t partition, int64_t batch_rows, const int *want,
                        int n)
{
    cs_sql_exec_ctx ctx = t_ctx();
    ctx.partition_id = partition;
    ctx.batch_rows = batch_rows;
    t_rows got = t_run(op, &ctx);
    assert_int_equal(got.rc, CS_OK);
    assert_int_equal(got.n, n);
    for (int i = 0; i < n; i++) {
        char w[32];
        snprintf(w, sizeof w, "%d", want[i]);
        assert_string_equal(got.row[i], w);
    }
    t_rows_free(&got);
    cs_sql_op_free(op);
}

static void test_op_sample_bernoulli_cell(void **state)
{
    (void)state;
    /* BernoulliCellSampler(0.25, 0.75) with setSeed(17 + partition) over 30 rows */
    int p0[] = {3, 4, 5, 7, 9, 10, 14, 15, 16, 17, 18, 19, 22, 23, 24, 25, 27, 29};
    expect_rows(cs_sql_op_sample(ids(30, 7), 0.25, 0.75, false, 17), 0, 0, p0, 18);
    int p1[] = {0, 3, 5, 6, 7, 8, 9, 10, 11, 14, 15, 17, 19, 21, 22, 23, 27, 28, 29};
    expect_rows(cs_sql_op_sample(ids(30, 30), 0.25, 0.75, false, 17), 1, 0, p1, 19);
}

static void test_op_sample_with_replacement(void **state)
{
    (void)state;
    /* partition 1 of seed 17: PoissonSampler(1.5) seeded with Random(17)'s second nextLong,
     * counts 2 2 2 2 1 2 2 1 2 3 4 2 for rows 0..11; output batches of at most 5 rows */
    int counts[] = {2, 2, 2, 2, 1, 2, 2, 1, 2, 3, 4, 2}, want[64], n = 0;
    for (int r = 0; r < 12; r++)
        for (int k = 0; k < counts[r]; k++)
            want[n++] = r;
    expect_rows(cs_sql_op_sample(ids(12, 5), 0.0, 1.5, true, 17), 1, 5, want, n);
    /* partition 0: counts 2 2 1 1 1 0 0 2 0 1 0 1 */
    int c0[] = {2, 2, 1, 1, 1, 0, 0, 2, 0, 1, 0, 1};
    n = 0;
    for (int r = 0; r < 12; r++)
        for (int k = 0; k < c0[r]; k++)
            want[n++] = r;
    expect_rows(cs_sql_op_sample(ids(12, 4), 0.0, 1.5, true, 17), 0, 3, want, n);
    /* a fraction of 0: no rows */
    expect_rows(cs_sql_op_sample(ids(12, 4), 0.0, 0.0, true, 17), 0, 0, want, 0);
}

static void test_sample_node_round_trip(void **state)
{
    (void)state;
    cs_col_field idf = {"id", cs_col_type_primitive(CS_TYPE_LONG), false};
    cs_phys_node *range = cs_phys_new(CS_PH_RANGE, cs_col_type_struct(&idf, 1), 0);
    range->range_start = 0;
    range->range_end = 30;
    range->range_step = 1;
    range->num_slices = 3;
    cs_phys_node *n = cs_phys_new(CS_PH_SAMPLE, cs_col_type_ref(range->schema), 1);
    n->children[0] = range;
    n->sample_lower = 0.25;
    n->sample_upper = 0.75;
    n->with_replacement = true;
    n->seed = -7;
    cs_sbuf a = {0}, x = {0};
    cs_error err = {0};
    if (cs_phys_encode(n, &a, &err)) fail_msg("encode: %s", err.msg);
    cs_phys_node *back = cs_phys_decode((const uint8_t *)a.data, a.len, &err);
    if (!back) fail_msg("decode: %s", err.msg);
    assert_int_equal(back->kind, CS_PH_SAMPLE);
    assert_true(back->sample_lower == 0.25 && back->sample_upper == 0.75);
    assert_true(back->with_replacement);
    assert_int_equal(back->seed, -7);
    cs_phys_explain(back, &x);
    if (!strstr(cs_sbuf_str(&x), "Sample 0.25, 0.75, true, -7\n+- Range (0, 30, step=1, splits=3)"))
        fail_msg("explain: %s", cs_sbuf_str(&x));
    cs_phys_free(back);
    cs_phys_free(n);
    cs_sbuf_free(&a);
    cs_sbuf_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_java_random_next_long),
        cmocka_unit_test(test_well19937c_doubles),
        cmocka_unit_test(test_poisson_counts),
        cmocka_unit_test(test_op_sample_bernoulli_cell),
        cmocka_unit_test(test_op_sample_with_replacement),
        cmocka_unit_test(test_sample_node_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
