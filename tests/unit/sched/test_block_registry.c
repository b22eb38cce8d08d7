/* test_block_registry.c — the driver's block locations (sched/block_registry.c): executors report
 * blocks held and gone, lookups list memory holders first, a lost executor's blocks and an
 * unpersisted RDD's are forgotten, and an RDD's totals add up its blocks for the event log; the
 * blocks one executor holds are listed with their statuses (decommissioning moves them). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <stdlib.h>

#include "cspark.h"
#include "sched/block_registry.h"

static cs_block_status st(int rdd, int part, int level, int64_t mem, int64_t disk)
{
    return (cs_block_status){rdd, part, level, mem, disk};
}

static void test_locations_and_totals(void **state)
{
    (void)state;
    block_registry *r = cs_block_registry_new();
    cs_block_status a = st(3, 0, CSPARK_MEMORY_AND_DISK, 0, 500);
    cs_block_status b = st(3, 0, CSPARK_MEMORY_AND_DISK, 100, 0);
    cs_block_status c = st(3, 1, CSPARK_MEMORY_AND_DISK, 200, 0);
    cs_block_status d = st(4, 0, CSPARK_MEMORY_ONLY, 7, 0);
    cs_block_registry_update(r, "1", &a);
    cs_block_registry_update(r, "2", &b);
    cs_block_registry_update(r, "2", &c);
    cs_block_registry_update(r, "1", &d);
    char ids[4][64];
    assert_int_equal(cs_block_registry_locations(r, 3, 0, ids, 4), 2);
    assert_string_equal(ids[0], "2"); /* in memory first */
    assert_string_equal(ids[1], "1");
    assert_int_equal(cs_block_registry_locations(r, 3, 0, ids, 1), 1);
    assert_int_equal(cs_block_registry_locations(r, 3, 2, ids, 4), 0);
    int parts;
    int64_t mem, disk;
    cs_block_registry_rdd_totals(r, 3, &parts, &mem, &disk);
    assert_int_equal(parts, 2);
    assert_int_equal(mem, 300);
    assert_int_equal(disk, 500);
    /* a status update replaces the executor's entry; a NONE status removes it */
    cs_block_status moved = st(3, 1, CSPARK_MEMORY_AND_DISK, 0, 250);
    cs_block_registry_update(r, "2", &moved);
    cs_block_registry_rdd_totals(r, 3, &parts, &mem, &disk);
    assert_int_equal(mem, 100);
    assert_int_equal(disk, 750);
    cs_block_status gone = st(3, 1, CSPARK_STORAGE_NONE, 0, 0);
    cs_block_registry_update(r, "2", &gone);
    assert_int_equal(cs_block_registry_locations(r, 3, 1, ids, 4), 0);
    cs_block_registry_rdd_totals(r, 3, &parts, &mem, &disk);
    assert_int_equal(parts, 1);
    cs_block_registry_free(r);
}

static void test_executor_lost_and_unpersist(void **state)
{
    (void)state;
    block_registry *r = cs_block_registry_new();
    for (int p = 0; p < 50; p++) {
        cs_block_status s = st(1, p, CSPARK_MEMORY_ONLY, 10, 0);
        cs_block_registry_update(r, p % 2 ? "a" : "b", &s);
        cs_block_status t = st(2, p, CSPARK_DISK_ONLY, 0, 10);
        cs_block_registry_update(r, "a", &t);
    }
    assert_int_equal(cs_block_registry_executor_lost(r, "a"), 75);
    assert_int_equal(cs_block_registry_executor_lost(r, "a"), 0);
    int parts;
    int64_t mem, disk;
    cs_block_registry_rdd_totals(r, 1, &parts, &mem, &disk);
    assert_int_equal(parts, 25);
    cs_block_registry_rdd_totals(r, 2, &parts, &mem, &disk);
    assert_int_equal(parts, 0);
    char ids[2][64];
    assert_int_equal(cs_block_registry_locations(r, 1, 1, ids, 2), 0);
    assert_int_equal(cs_block_registry_locations(r, 1, 2, ids, 2), 1);
    cs_block_registry_remove_rdd(r, 1);
    cs_block_registry_rdd_totals(r, 1, &parts, &mem, &disk);
    assert_int_equal(parts, 0);
    assert_int_equal(cs_block_registry_locations(r, 1, 2, ids, 2), 0);
    cs_block_registry_free(r);
}

static void test_blocks_of_executor(void **state)
{
    (void)state;
    block_registry *r = cs_block_registry_new();
    cs_block_status a = st(3, 0, CSPARK_MEMORY_ONLY, 10, 0);
    cs_block_status b = st(3, 1, CSPARK_DISK_ONLY, 0, 20);
    cs_block_status c = st(5, 2, CSPARK_MEMORY_ONLY, 30, 0);
    cs_block_registry_update(r, "1", &a);
    cs_block_registry_update(r, "1", &b);
    cs_block_registry_update(r, "2", &c);
    cs_block_registry_update(r, "2", &a);
    cs_block_status *out = NULL;
    assert_int_equal(cs_block_registry_blocks_of(r, "1", &out), 2);
    int64_t mem = 0, disk = 0;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(out[i].rdd_id, 3);
        mem += out[i].memory_size;
        disk += out[i].disk_size;
        assert_int_equal(out[i].level,
                         out[i].partition == 0 ? CSPARK_MEMORY_ONLY : CSPARK_DISK_ONLY);
    }
    assert_int_equal(mem, 10);
    assert_int_equal(disk, 20);
    free(out);
    assert_int_equal(cs_block_registry_blocks_of(r, "9", &out), 0);
    assert_null(out);
    cs_block_registry_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_locations_and_totals),
        cmocka_unit_test(test_executor_lost_and_unpersist),
        cmocka_unit_test(test_blocks_of_executor),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
