/*
 * test_rdd_kind.c — the table of RDD kinds (src/plan/rdd_kind.c, src/plan/kinds/): every kind of
 * the list has a complete entry at its number, names are Spark's class names, the constructors
 * build nodes with their tables, and the narrow parent partitions (what locality follows) are
 * each kind's. The codec and iterators of every kind are exercised by test_stage_plan_codec.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "plan/rdd_kind.h"

static void test_every_kind_has_an_entry(void **state)
{
    (void)state;
    for (int k = 0; k < RDD_KIND_COUNT; k++) {
        const cs_rdd_kind *e = cs_rdd_kind_of(k);
        assert_non_null(e);
        assert_int_equal(e->kind, k); /* listed at its own number */
        assert_non_null(e->spark_class);
        assert_true(e->spark_class[0] != '\0');
        assert_non_null(e->compute);
        assert_true(e->num_parents >= CS_RDD_PARENTS_WITH_SHUFFLES && e->num_parents <= 2);
        if (e->one_to_one) assert_int_equal(e->num_parents, 1);
    }
    assert_null(cs_rdd_kind_of(-1));
    assert_null(cs_rdd_kind_of(RDD_KIND_COUNT));
    assert_null(cs_rdd_kind_of(42));
}

static void test_spark_names(void **state)
{
    (void)state;
    lineage_graph g;
    cs_lineage_init(&g);
    cspark_rdd *range = cs_rdd_range_new(&g, 0, 10, 1, 2, "range at test");
    cspark_rdd *map = cs_rdd_narrow_new(&g, RDD_MAP, range, "map at test");
    cspark_rdd *sample = cs_rdd_narrow_new(&g, RDD_SAMPLE, range, "sample at test");
    assert_string_equal(cs_rdd_spark_name(range), "RangeRDD");
    assert_string_equal(cs_rdd_spark_name(map), "MapPartitionsRDD");
    assert_string_equal(cs_rdd_spark_name(sample), "PartitionwiseSampledRDD");
    assert_string_equal(cs_rdd_spark_name(cs_rdd_union_new(&g, range, map, "u")), "UnionRDD");
    assert_string_equal(cs_rdd_spark_name(cs_rdd_coalesce_new(&g, map, NULL, 1, "c")),
                        "CoalescedRDD");
    shuffle_dep *d = cs_shuffle_dep_new(&g, map);
    cspark_rdd *plain = cs_rdd_shuffled_new(&g, d, SHUFFLE_READ_PLAIN, 2, "repartition");
    cspark_rdd *cogroup = cs_rdd_shuffled_new(&g, d, SHUFFLE_READ_COGROUP, 2, "cogroup");
    cspark_rdd *narrow = cs_rdd_shuffled_new(&g, NULL, SHUFFLE_READ_AGGREGATE, 2, "reduce");
    narrow->parents[narrow->num_parents++] = map;
    assert_string_equal(cs_rdd_spark_name(plain), "ShuffledRDD");
    assert_string_equal(cs_rdd_spark_name(cogroup), "CoGroupedRDD");
    assert_string_equal(cs_rdd_spark_name(narrow), "MapPartitionsRDD"); /* Spark's narrow combine */
    /* a text file's RDD is named by its path; several files by the class */
    text_split one[2] = {{"file:/in/a.txt", 0, 5, 10}, {"file:/in/a.txt", 5, 5, 10}};
    assert_string_equal(cs_rdd_spark_name(cs_rdd_text_file_new(&g, one, 2, "t")), "file:/in/a.txt");
    text_split two[2] = {{"file:/in/a.txt", 0, 10, 10}, {"file:/in/b.txt", 0, 4, 4}};
    cspark_rdd *t2 = cs_rdd_text_file_new(&g, two, 2, "t");
    assert_string_equal(cs_rdd_spark_name(t2), "HadoopRDD");
    assert_int_equal(t2->num_paths, 2);
    assert_ptr_equal(t2->splits[1].path, t2->paths[1]); /* owned by the node */
    assert_string_equal(cs_rdd_spark_name(cs_rdd_checkpoint_new(&g, two, 2, "cp")),
                        "ReliableCheckpointRDD");
    cspark_rdd *cart = cs_rdd_cartesian_new(&g, range, sample, "cartesian at test");
    assert_string_equal(cs_rdd_spark_name(cart), "CartesianRDD");
    assert_int_equal(cart->num_partitions, 4);
    assert_int_equal(cart->num_parents, 2);
    assert_ptr_equal(cart->parents[1], sample);
    cs_lineage_free(&g);
}

static void test_constructors_and_parent_partitions(void **state)
{
    (void)state;
    lineage_graph g;
    cs_lineage_init(&g);
    cspark_rdd *a = cs_rdd_range_new(&g, 0, 100, 1, 3, "a");
    cspark_rdd *b = cs_rdd_range_new(&g, 0, 100, 1, 2, "b");
    assert_int_equal(a->range_end, 100);
    cs_rdd_parent_partition pp[8];
    assert_int_equal(cs_rdd_parent_partitions(a, 0, pp, 8), 0); /* a source */

    cspark_rdd *m = cs_rdd_narrow_new(&g, RDD_FILTER, a, "filter");
    assert_int_equal(m->num_partitions, 3);
    assert_int_equal(cs_rdd_parent_partitions(m, 2, pp, 8), 1);
    assert_ptr_equal(pp[0].parent, a);
    assert_int_equal(pp[0].partition, 2);

    cspark_rdd *u = cs_rdd_union_new(&g, a, b, "union");
    assert_int_equal(u->num_partitions, 5);
    assert_int_equal(u->num_parents, 2);
    assert_int_equal(cs_rdd_parent_partitions(u, 4, pp, 8), 1);
    assert_ptr_equal(pp[0].parent, b);
    assert_int_equal(pp[0].partition, 1);
    assert_int_equal(cs_rdd_parent_partitions(u, 2, pp, 8), 1);
    assert_ptr_equal(pp[0].parent, a);
    assert_int_equal(pp[0].partition, 2);

    /* coalesce 5 -> 2: groups [0, 2) and [2, 5); the count is returned even beyond max */
    cspark_rdd *c = cs_rdd_coalesce_new(&g, u, NULL, 2, "coalesce");
    assert_int_equal(c->group_start[0], 0);
    assert_int_equal(c->group_start[1], 2);
    assert_int_equal(c->group_start[2], 5);
    assert_int_equal(cs_rdd_parent_partitions(c, 1, pp, 2), 3);
    assert_ptr_equal(pp[0].parent, u);
    assert_int_equal(pp[0].partition, 2);
    assert_int_equal(pp[1].partition, 3);
    int groups[3] = {0, 1, 5};
    cspark_rdd *c2 = cs_rdd_coalesce_new(&g, u, groups, 2, "coalesce");
    assert_int_equal(cs_rdd_parent_partitions(c2, 1, pp, 8), 4);

    /* a shuffled node reads its narrow parents' same partition, never its shuffles' map side */
    shuffle_dep *d = cs_shuffle_dep_new(&g, b);
    cspark_rdd *s = cs_rdd_shuffled_new(&g, d, SHUFFLE_READ_COGROUP, 3, "cogroup");
    assert_int_equal(s->num_deps, 1);
    assert_ptr_equal(s->deps[0], d);
    assert_int_equal(cs_rdd_parent_partitions(s, 1, pp, 8), 0);
    s->parents[s->num_parents++] = m;
    assert_int_equal(cs_rdd_parent_partitions(s, 1, pp, 8), 1);
    assert_ptr_equal(pp[0].parent, m);
    assert_int_equal(pp[0].partition, 1);
    assert_int_equal(cs_rdd_parent_partitions(s, 3, pp, 8), 0); /* out of range */

    cs_batch recs;
    cs_batch_init(&recs);
    for (int i = 0; i < 10; i++)
        cs_batch_append_record(&recs, &i, sizeof i, NULL, 0);
    size_t offsets[3] = {0, 4, 10};
    cspark_rdd *p = cs_rdd_parallelize_new(&g, &recs, offsets, 2, "parallelize");
    assert_int_equal(recs.n, 0); /* moved into the node */
    assert_int_equal(p->par_data.n, 10);
    assert_int_equal(p->par_offsets[1], 4);
    cs_lineage_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_has_an_entry),
        cmocka_unit_test(test_spark_names),
        cmocka_unit_test(test_constructors_and_parent_partitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
