/* test_locality.c — Spark's names of the locality levels both ways (sched/locality.c); the delay
 * scheduling over the levels is tested with the task scheduler (test_task_scheduler.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "sched/locality.h"

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
        cmocka_unit_test(test_level_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
