/*
 * test_partitioner.c — RDD partitioners on the driver (issue 20, item 10), as Spark's: which
 * operations set one (the by-key shuffles, partition_by, the joins) and which keep their parent's
 * (map_values, flat_map_values, filter, sample) or drop it (map, flat_map, keys); Spark's
 * Partitioner equality (hash: same count; range: same bounds and order; partition_by's function:
 * same function, closure and count); defaultPartitioner's choice (an existing partitioner reused
 * when eligible, an explicit count meaning a hash partitioner); and that an input already
 * partitioned by the target partitioner is read narrowly (no shuffle dependency) by reduce_by_key,
 * aggregate_by_key, group_by_key, cogroup and join.
 *
 * The lineage is built on a context of its own with no scheduler (no job runs); the functions
 * given to transformations are this program's exported symbols (the test is linked with
 * ENABLE_EXPORTS, as a job's shared object exports its functions).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "api/context.h"
#include "api/rdd_internal.h"

void tp_map(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_emit(out, in->key.ptr, in->key.len, in->value.ptr, in->value.len);
}

bool tp_keep(const cspark_record *in, cspark_task_context *tc)
{
    return in->key.len > 0;
}

int tp_part(cspark_slice key, int n, cspark_task_context *tc)
{
    return key.len % n;
}

static int setup(void **state)
{
    cspark_context *sc = calloc(1, sizeof *sc);
    sc->conf = cs_conf_new();
    sc->default_parallelism = 2;
    cs_lineage_init(&sc->graph);
    pthread_mutex_init(&sc->lock, NULL);
    *state = sc;
    return 0;
}

static int teardown(void **state)
{
    cspark_context *sc = *state;
    cs_lineage_free(&sc->graph);
    cs_conf_free(sc->conf);
    pthread_mutex_destroy(&sc->lock);
    free(sc->error);
    free(sc);
    return 0;
}

/* A source of n partitions with no partitioner. */
static cspark_rdd *source(cspark_context *sc, int n)
{
    return cs_rdd_new(&sc->graph, RDD_RANGE, n, "source");
}

static void assert_hash(const cspark_rdd *r, int n)
{
    assert_non_null(r);
    assert_int_equal(r->partitioner.kind, RDD_PARTITIONER_HASH);
    assert_int_equal(r->partitioner.num_partitions, n);
    assert_int_equal(r->num_partitions, n);
}

/* A shuffled node's inputs: how many through shuffles, how many read narrowly. */
static void assert_inputs(const cspark_rdd *r, int shuffles, int narrow)
{
    assert_int_equal(r->kind, RDD_SHUFFLED);
    assert_int_equal(r->num_deps, shuffles);
    assert_int_equal(r->num_parents, narrow);
}

static void shuffles_set_and_narrow_ops_keep(void **state)
{
    cspark_context *sc = *state;
    cspark_rdd *src = source(sc, 4);
    assert_int_equal(src->partitioner.kind, RDD_PARTITIONER_NONE);
    cspark_rdd *red = cspark_reduce_by_key(src, cspark_sum_i64, NULL, 0, 0);
    assert_hash(red, 4);
    assert_inputs(red, 1, 0);
    assert_hash(cspark_reduce_by_key(src, cspark_sum_i64, NULL, 0, 6), 6);
    assert_hash(cspark_group_by_key(src, 0), 4);
    int64_t zero = 0;
    assert_hash(cspark_aggregate_by_key(src, &zero, 8, cspark_sum_i64, cspark_sum_i64, NULL, 0, 0),
                4);

    /* kept by per-key operations, dropped by those that may change keys */
    assert_hash(cspark_map_values(red, tp_map, NULL, 0), 4);
    assert_hash(cspark_flat_map_values(red, tp_map, NULL, 0), 4);
    assert_hash(cspark_filter(red, tp_keep, NULL, 0), 4);
    assert_hash(cspark_sample(red, false, 0.5, 1), 4);
    assert_hash(cspark_cache(red), 4);
    assert_int_equal(cspark_map(red, tp_map, NULL, 0)->partitioner.kind, RDD_PARTITIONER_NONE);
    assert_int_equal(cspark_flat_map(red, tp_map, NULL, 0)->partitioner.kind, RDD_PARTITIONER_NONE);
    assert_int_equal(cspark_keys(red)->partitioner.kind, RDD_PARTITIONER_NONE);
    assert_int_equal(cspark_repartition(red, 4)->partitioner.kind, RDD_PARTITIONER_NONE);
    assert_null(sc->error);
}

static void by_key_on_partitioned_input_is_narrow(void **state)
{
    cspark_context *sc = *state;
    cspark_rdd *red = cspark_reduce_by_key(source(sc, 4), cspark_sum_i64, NULL, 0, 0);
    cspark_rdd *kept = cspark_map_values(red, tp_map, NULL, 0);

    /* Spark's combineByKey: the same partitioner, mapPartitions (no shuffle) */
    cspark_rdd *again = cspark_reduce_by_key(kept, cspark_sum_i64, NULL, 0, 0);
    assert_hash(again, 4);
    assert_inputs(again, 0, 1);
    assert_ptr_equal(again->parents[0], kept);
    assert_false(again->values_are_combiners); /* raw values: merged with merge_value */
    assert_inputs(cspark_reduce_by_key(kept, cspark_sum_i64, NULL, 0, 4), 0, 1);
    assert_inputs(cspark_reduce_by_key(kept, cspark_sum_i64, NULL, 0, 8), 1, 0);
    assert_inputs(cspark_group_by_key(kept, 0), 0, 1);
    int64_t zero = 0;
    cspark_rdd *agg =
        cspark_aggregate_by_key(kept, &zero, 8, cspark_sum_i64, cspark_sum_i64, NULL, 0, 0);
    assert_inputs(agg, 0, 1);
    assert_true(agg->agg.has_zero); /* the whole aggregator runs on the reduce side */
    assert_false(agg->values_are_combiners);
    /* a plain map drops the partitioner: shuffled again */
    assert_inputs(
        cspark_reduce_by_key(cspark_map(red, tp_map, NULL, 0), cspark_sum_i64, NULL, 0, 0), 1, 0);
    assert_null(sc->error);
}

static void join_reads_copartitioned_sides_narrowly(void **state)
{
    cspark_context *sc = *state;
    cspark_rdd *a = cspark_reduce_by_key(source(sc, 4), cspark_sum_i64, NULL, 0, 0);
    cspark_rdd *b = cspark_group_by_key(source(sc, 3), 4);
    cspark_rdd *plain = source(sc, 4);

    cspark_rdd *both = cspark_join(a, b, 0);
    assert_hash(both, 4); /* the join's flattening keeps the cogroup's partitioner */
    assert_inputs(both->parents[0], 0, 2);
    cspark_rdd *one = cspark_join(a, plain, 0);
    assert_hash(one, 4);
    assert_inputs(one->parents[0], 1, 1);
    assert_inputs(cspark_join(a, b, 5)->parents[0], 2, 0); /* an explicit count: hash of 5 */
    assert_hash(cspark_cogroup(plain, a, 0), 4);
    assert_inputs(cspark_cogroup(plain, a, 0), 1, 1);
    assert_hash(cspark_left_outer_join(a, plain, 0), 4);
    assert_hash(cspark_right_outer_join(a, plain, 0), 4);
    assert_hash(cspark_full_outer_join(a, plain, 0), 4);
    assert_hash(cspark_subtract_by_key(a, plain, 0), 4);
    assert_null(sc->error);
}

static void default_partitioner_as_spark(void **state)
{
    cspark_context *sc = *state;
    cspark_rdd *small = cspark_reduce_by_key(source(sc, 2), cspark_sum_i64, NULL, 0, 0);
    cspark_rdd *wide = source(sc, 30), *near = source(sc, 19);
    /* not eligible: the largest parent has 10x its partitions or more */
    cspark_rdd *j = cspark_join(small, wide, 0);
    assert_hash(j, 30);
    assert_inputs(j->parents[0], 2, 0);
    /* eligible: reused, the other side shuffled into it */
    j = cspark_join(near, small, 0);
    assert_hash(j, 2);
    assert_inputs(j->parents[0], 1, 1);
    /* the parent with the most partitions among those with a partitioner */
    cspark_rdd *big = cspark_group_by_key(source(sc, 6), 0);
    assert_hash(cspark_cogroup(small, big, 0), 6);
    /* spark.default.parallelism is used only when no partitioner is eligible */
    cs_conf_set(sc->conf, "spark.default.parallelism", "7");
    sc->default_parallelism = 7;
    assert_hash(cspark_join(source(sc, 3), source(sc, 4), 0), 7);
    assert_hash(cspark_join(near, small, 0), 2);
    assert_hash(cspark_join(small, wide, 0), 7);
    assert_null(sc->error);
}

static void partition_by_function_partitioner(void **state)
{
    cspark_context *sc = *state;
    cspark_rdd *src = source(sc, 5);
    int c1 = 1, c2 = 2;
    cspark_rdd *p = cspark_partition_by(src, tp_part, &c1, sizeof c1, 3);
    assert_non_null(p);
    assert_int_equal(p->partitioner.kind, RDD_PARTITIONER_FUNCTION);
    assert_int_equal(p->num_partitions, 3);
    /* Spark's partitionBy: the RDD itself when already partitioned so; else shuffled again */
    assert_ptr_equal(cspark_partition_by(p, tp_part, &c1, sizeof c1, 3), p);
    assert_ptr_not_equal(cspark_partition_by(p, tp_part, &c2, sizeof c2, 3), p);
    assert_ptr_not_equal(cspark_partition_by(p, tp_part, &c1, sizeof c1, 4), p);
    cspark_rdd *cached = cspark_cache(cspark_filter(p, tp_keep, NULL, 0));
    assert_ptr_equal(cspark_partition_by(cached, tp_part, &c1, sizeof c1, 3), cached);

    /* the join reuses it: the cached side is read narrowly, the other side is repartitioned by
     * the same function (partition_by's shuffle) and read narrowly too */
    cspark_rdd *j = cspark_join(cached, source(sc, 2), 0);
    assert_int_equal(j->partitioner.kind, RDD_PARTITIONER_FUNCTION);
    cspark_rdd *cg = j->parents[0];
    assert_inputs(cg, 0, 2);
    assert_ptr_equal(cg->parents[0]->parents[0], cached); /* tag(cached) */
    const cspark_rdd *other = cg->parents[1]->parents[0]; /* tag(untag(...)) */
    assert_true(cs_rdd_partitioner_equal(&other->partitioner, &cached->partitioner));
    assert_int_equal(other->parents[0]->kind, RDD_SHUFFLED);
    /* and so does a by-key aggregation with no count */
    assert_inputs(cspark_reduce_by_key(j, cspark_sum_i64, NULL, 0, 0), 0, 1);
    assert_null(sc->error);
}

static void partitioner_equality(void **state)
{
    (void)state;
    cspark_slice b1[] = {{(const uint8_t *)"m", 1}}, b2[] = {{(const uint8_t *)"m", 1}},
                 b3[] = {{(const uint8_t *)"n", 1}};
    cs_partitioner r1 = {PART_RANGE, 2, b1, 1, true}, r2 = {PART_RANGE, 2, b2, 1, true},
                   r3 = {PART_RANGE, 2, b3, 1, true}, r4 = {PART_RANGE, 2, b2, 1, false};
    rdd_partitioner a = {RDD_PARTITIONER_RANGE, 2, &r1, NULL},
                    b = {RDD_PARTITIONER_RANGE, 2, &r2, NULL},
                    c = {RDD_PARTITIONER_RANGE, 2, &r3, NULL},
                    d = {RDD_PARTITIONER_RANGE, 2, &r4, NULL};
    assert_true(cs_rdd_partitioner_equal(&a, &b));
    assert_false(cs_rdd_partitioner_equal(&a, &c)); /* other bounds */
    assert_false(cs_rdd_partitioner_equal(&a, &d)); /* descending */
    rdd_partitioner h2 = {RDD_PARTITIONER_HASH, 2, NULL, NULL},
                    h2b = {RDD_PARTITIONER_HASH, 2, NULL, NULL},
                    h3 = {RDD_PARTITIONER_HASH, 3, NULL, NULL},
                    none = {RDD_PARTITIONER_NONE, 0, NULL, NULL};
    assert_true(cs_rdd_partitioner_equal(&h2, &h2b));
    assert_false(cs_rdd_partitioner_equal(&h2, &h3));
    assert_false(cs_rdd_partitioner_equal(&h2, &a));
    assert_false(cs_rdd_partitioner_equal(&none, &none)); /* no partitioner equals nothing */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(shuffles_set_and_narrow_ops_keep, setup, teardown),
        cmocka_unit_test_setup_teardown(by_key_on_partitioned_input_is_narrow, setup, teardown),
        cmocka_unit_test_setup_teardown(join_reads_copartitioned_sides_narrowly, setup, teardown),
        cmocka_unit_test_setup_teardown(default_partitioner_as_spark, setup, teardown),
        cmocka_unit_test_setup_teardown(partition_by_function_partitioner, setup, teardown),
        cmocka_unit_test(partitioner_equality),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
