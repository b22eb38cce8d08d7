/* test_locality.c — delay scheduling over PROCESS_LOCAL and ANY (sched/locality.c) with explicit
 * times: a task set waits spark.locality.wait after its last launch for an executor holding its
 * cached partitions, then allows ANY; a local launch brings it back and restarts the wait; with
 * no task preferring a live executor it allows ANY at once; the wait left is what a scheduler
 * re-offers after. And the level a launch is reported at (Spark's TaskLocality): PROCESS_LOCAL on
 * a holder of the task's cached partitions and without a preference, NODE_LOCAL on a holder's
 * host, ANY elsewhere; Spark's names both ways. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "sched/locality.h"

static void test_waits_then_allows_any(void **state)
{
    (void)state;
    cs_locality_state s;
    cs_locality_init(&s, 1000);
    assert_int_equal(cs_locality_allowed(&s, 1000, 3000, true), CS_LOCALITY_PROCESS_LOCAL);
    assert_int_equal(cs_locality_wait_left(&s, 1000, 3000), 3000);
    assert_int_equal(cs_locality_allowed(&s, 3999, 3000, true), CS_LOCALITY_PROCESS_LOCAL);
    assert_int_equal(cs_locality_wait_left(&s, 3999, 3000), 1);
    assert_int_equal(cs_locality_allowed(&s, 4000, 3000, true), CS_LOCALITY_ANY);
    assert_int_equal(cs_locality_wait_left(&s, 4000, 3000), 0);
    /* it stays at ANY while launches go there */
    cs_locality_launched(&s, CS_LOCALITY_ANY, 4100);
    assert_int_equal(cs_locality_allowed(&s, 4200, 3000, true), CS_LOCALITY_ANY);
}

static void test_local_launch_restarts_the_wait(void **state)
{
    (void)state;
    cs_locality_state s;
    cs_locality_init(&s, 0);
    cs_locality_launched(&s, CS_LOCALITY_PROCESS_LOCAL, 2500);
    /* 3 s after the start, but only 0.5 s after the local launch */
    assert_int_equal(cs_locality_allowed(&s, 3000, 3000, true), CS_LOCALITY_PROCESS_LOCAL);
    assert_int_equal(cs_locality_allowed(&s, 5499, 3000, true), CS_LOCALITY_PROCESS_LOCAL);
    assert_int_equal(cs_locality_allowed(&s, 5500, 3000, true), CS_LOCALITY_ANY);
    /* a local launch at ANY brings the set back to PROCESS_LOCAL */
    cs_locality_launched(&s, CS_LOCALITY_PROCESS_LOCAL, 6000);
    assert_int_equal(cs_locality_allowed(&s, 6001, 3000, true), CS_LOCALITY_PROCESS_LOCAL);
}

static void test_expiry_advances_by_the_wait(void **state)
{
    (void)state;
    cs_locality_state s;
    cs_locality_init(&s, 0);
    /* seen late: the level moves on and the last launch time advances by one wait, as Spark's
     * TaskSetManager (not to now) */
    assert_int_equal(cs_locality_allowed(&s, 10000, 3000, true), CS_LOCALITY_ANY);
    assert_int_equal(s.last_launch_ms, 3000);
}

static void test_nothing_local_pending_allows_any_at_once(void **state)
{
    (void)state;
    cs_locality_state s;
    cs_locality_init(&s, 500);
    assert_int_equal(cs_locality_allowed(&s, 500, 3000, false), CS_LOCALITY_ANY);
    assert_int_equal(s.last_launch_ms, 500);
}

static void test_zero_wait(void **state)
{
    (void)state;
    cs_locality_state s;
    cs_locality_init(&s, 100);
    assert_int_equal(cs_locality_allowed(&s, 100, 0, true), CS_LOCALITY_ANY);
    assert_string_equal(cs_locality_name(CS_LOCALITY_ANY), "ANY");
    assert_string_equal(cs_locality_name(CS_LOCALITY_PROCESS_LOCAL), "PROCESS_LOCAL");
}

static cs_block_location pref(const char *executor, const char *host)
{
    cs_block_location l = {.rdd_id = 1, .partition = 0};
    snprintf(l.executor_id, sizeof l.executor_id, "%s", executor);
    snprintf(l.host, sizeof l.host, "%s", host);
    return l;
}

static void test_launch_level(void **state)
{
    (void)state;
    cs_block_location two[] = {pref("1", "10.0.0.1"), pref("2", "10.0.0.2")};
    /* on a holder, whichever of the holders */
    assert_int_equal(cs_locality_of_launch(two, 2, "1", "10.0.0.1"), CS_LOCALITY_PROCESS_LOCAL);
    assert_int_equal(cs_locality_of_launch(two, 2, "2", "10.0.0.2"), CS_LOCALITY_PROCESS_LOCAL);
    /* another executor of a holder's host */
    assert_int_equal(cs_locality_of_launch(two, 2, "3", "10.0.0.2"), CS_LOCALITY_NODE_LOCAL);
    /* elsewhere, or where the holders' hosts are unknown */
    assert_int_equal(cs_locality_of_launch(two, 2, "3", "10.0.0.3"), CS_LOCALITY_ANY);
    cs_block_location unknown[] = {pref("1", "")};
    assert_int_equal(cs_locality_of_launch(unknown, 1, "3", ""), CS_LOCALITY_ANY);
    /* no cached partition to prefer: PROCESS_LOCAL, as Spark reports a NO_PREF task */
    assert_int_equal(cs_locality_of_launch(NULL, 0, "3", "10.0.0.3"), CS_LOCALITY_PROCESS_LOCAL);
}

static void test_level_names(void **state)
{
    (void)state;
    const char *names[] = {"PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY"};
    for (int i = 0; i < 5; i++) {
        assert_string_equal(cs_locality_name((cs_locality_level)i), names[i]);
        assert_int_equal(cs_locality_parse(names[i]), i);
    }
    assert_int_equal(CS_LOCALITY_ANY, 4); /* Spark's order: nearest first */
    assert_string_equal(cs_locality_name((cs_locality_level)9), "PROCESS_LOCAL");
    assert_int_equal(cs_locality_parse("node_local"), CS_LOCALITY_PROCESS_LOCAL);
    assert_int_equal(cs_locality_parse(NULL), CS_LOCALITY_PROCESS_LOCAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_waits_then_allows_any),
        cmocka_unit_test(test_local_launch_restarts_the_wait),
        cmocka_unit_test(test_expiry_advances_by_the_wait),
        cmocka_unit_test(test_nothing_local_pending_allows_any_at_once),
        cmocka_unit_test(test_zero_wait),
        cmocka_unit_test(test_launch_level),
        cmocka_unit_test(test_level_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
