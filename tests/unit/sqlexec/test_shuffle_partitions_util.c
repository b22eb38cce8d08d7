/*
 * test_shuffle_partitions_util.c — src/sqlexec/shuffle_partitions_util.c, cases written after the
 * behaviour Spark's ShufflePartitionsUtilSuite checks: neighbouring partitions packed up to the
 * target (a partition over it alone), two shuffles summed partition by partition (Spark's own
 * doc example), everything in one partition, nothing coalesced when nothing shrinks, ranges of
 * empty partitions left unread, an all-empty input as one partition; and the target size from
 * the total, the minimum partition number, the advisory size and the minimum partition size.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "sqlexec/shuffle_partitions_util.h"

#define MIB (1024ULL * 1024ULL)

/* Coalesces one or two shuffles of n partitions to target; checks the ranges (starts, ends;
 * want 0 ranges: nothing coalesced). */
static void check(const uint64_t *a, const uint64_t *b, int n, int64_t target, int want,
                  const int *starts, const int *ends)
{
    const uint64_t *bytes[2] = {a, b};
    int s[16], e[16];
    int got = cs_coalesce_partitions(bytes, b ? 2 : 1, n, target, s, e);
    assert_int_equal(got, want);
    for (int i = 0; i < want; i++) {
        assert_int_equal(s[i], starts[i]);
        assert_int_equal(e[i], ends[i]);
    }
}

static void test_pack_to_target(void **state)
{
    (void)state;
    uint64_t sizes[5] = {10, 10, 10, 10, 20};
    check(sizes, NULL, 5, 20, 3, (int[]){0, 2, 4}, (int[]){2, 4, 5});
    /* a partition bigger than the target is alone */
    uint64_t big[5] = {10, 100, 10, 10, 10};
    check(big, NULL, 5, 30, 3, (int[]){0, 1, 2}, (int[]){1, 2, 5});
}

static void test_two_shuffles(void **state)
{
    (void)state;
    /* ShufflePartitionsUtil's doc example: target 128 MiB -> [0,1) [1,2) [2,3) [3,5) */
    uint64_t a[5] = {100 * MIB, 20 * MIB, 100 * MIB, 10 * MIB, 30 * MIB};
    uint64_t b[5] = {10 * MIB, 10 * MIB, 70 * MIB, 5 * MIB, 5 * MIB};
    check(a, b, 5, 128 * MIB, 4, (int[]){0, 1, 2, 3}, (int[]){1, 2, 3, 5});
}

static void test_all_in_one(void **state)
{
    (void)state;
    uint64_t sizes[4] = {1, 2, 3, 4};
    check(sizes, NULL, 4, 100, 1, (int[]){0}, (int[]){4});
}

static void test_nothing_shrinks(void **state)
{
    (void)state;
    uint64_t sizes[3] = {30, 30, 30};
    check(sizes, NULL, 3, 20, 0, NULL, NULL);
    uint64_t one[1] = {5};
    check(one, NULL, 1, 100, 0, NULL, NULL); /* one partition stays one */
    check(one, NULL, 0, 100, 0, NULL, NULL);
}

static void test_empty_ranges_unread(void **state)
{
    (void)state;
    /* [0, 0] before a big partition, and [3, 5) of nothing between two big ones: no task */
    uint64_t sizes[6] = {0, 0, 50, 0, 0, 50};
    check(sizes, NULL, 6, 40, 2, (int[]){2, 5}, (int[]){3, 6});
    /* empty partitions inside a range are read with their neighbours */
    uint64_t mixed[5] = {5, 0, 5, 0, 5};
    check(mixed, NULL, 5, 10, 2, (int[]){0, 4}, (int[]){4, 5});
    /* everything empty: one (empty) partition, as Spark never returns none */
    uint64_t empty[3] = {0, 0, 0};
    check(empty, NULL, 3, 16, 1, (int[]){0}, (int[]){3});
}

static void test_target_size(void **state)
{
    (void)state;
    uint64_t sizes[4] = {250, 250, 250, 250};
    const uint64_t *b[1] = {sizes};
    /* parallelism first: total / default parallelism, but at least minPartitionSize */
    assert_int_equal(cs_coalesce_target_size(b, 1, 4, 64 * MIB, 2, 1 * MIB), 1 * MIB);
    assert_int_equal(cs_coalesce_target_size(b, 1, 4, 64 * MIB, 2, 0), 500);
    assert_int_equal(cs_coalesce_target_size(b, 1, 4, 64 * MIB, 3, 0), 334); /* ceil */
    /* the advisory size caps it */
    assert_int_equal(cs_coalesce_target_size(b, 1, 4, 100, 1, 0), 100);
    /* no bytes at all: 16, so an empty input still makes one partition */
    uint64_t zero[2] = {0, 0};
    const uint64_t *z[1] = {zero};
    assert_int_equal(cs_coalesce_target_size(z, 1, 2, 64 * MIB, 1, 0), 16);
    /* two shuffles count together */
    const uint64_t *two[2] = {sizes, sizes};
    assert_int_equal(cs_coalesce_target_size(two, 2, 4, 64 * MIB, 1, 0), 2000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pack_to_target),      cmocka_unit_test(test_two_shuffles),
        cmocka_unit_test(test_all_in_one),          cmocka_unit_test(test_nothing_shrinks),
        cmocka_unit_test(test_empty_ranges_unread), cmocka_unit_test(test_target_size),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
