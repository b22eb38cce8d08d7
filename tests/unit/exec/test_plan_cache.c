/*
 * test_plan_cache.c — an executor's stage plans (exec/plan_cache.c): the cap frees the oldest
 * plans no task uses and keeps those in use; a task that comes for a stage attempt whose plan is
 * missing is told why in a user's terms (issue 20 item 13: it said only "executor 4 has no plan
 * for stage 181.1"): freed after newer stages came, never received, or undecodable (with the
 * decoder's error), each starting with CS_TASK_NO_PLAN so the driver sends the plan again.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "exec/plan_cache.h"
#include "plan/task.h"

/* An entry without a decoded plan stands for any plan: the cache treats both alike. */
static void add(cs_plan_cache *c, int stage, int attempt)
{
    cs_plan_cache_add(c, stage, attempt, NULL, "undecodable for the test");
}

static void test_cap_keeps_plans_in_use(void **state)
{
    (void)state;
    cs_plan_cache *c = cs_plan_cache_new();
    add(c, 0, 0);
    add(c, 1, 0);
    cs_plan_cache_find(c, 1, 0)->users = 1; /* a task runs with it */
    for (int s = 2; s < 2 + CS_PLAN_CACHE_MAX; s++)
        add(c, s, 0);
    assert_null(cs_plan_cache_find(c, 0, 0));
    assert_non_null(cs_plan_cache_find(c, 1, 0));
    assert_non_null(cs_plan_cache_find(c, 2 + CS_PLAN_CACHE_MAX - 1, 0));
    cs_plan_cache_free(c);
}

static void test_missing_plan_explained(void **state)
{
    (void)state;
    cs_plan_cache *c = cs_plan_cache_new();
    add(c, 181, 1);
    for (int s = 200; s < 200 + CS_PLAN_CACHE_MAX; s++)
        add(c, s, 0);
    char why[1024];
    assert_null(cs_plan_cache_find(c, 181, 1));
    cs_plan_cache_explain_missing(c, NULL, "4", 181, 1, why, sizeof why);
    assert_true(strncmp(why, CS_TASK_NO_PLAN, strlen(CS_TASK_NO_PLAN)) == 0);
    assert_non_null(strstr(why, "executor 4 had already freed the plan of stage 181.1: it keeps "
                                "those of its 32 most recent stages"));
    assert_non_null(strstr(why, "the task is retried and the driver sends the plan again"));

    cs_plan_cache_explain_missing(c, NULL, "4", 7, 0, why, sizeof why);
    assert_non_null(strstr(why, "executor 4 never received the plan of stage 7.0"));

    cs_plan_cache_add(c, 300, 0, NULL, "function 'f' not found in the application");
    cs_cached_plan *e = cs_plan_cache_find(c, 300, 0);
    assert_non_null(e);
    cs_plan_cache_explain_missing(c, e, "4", 300, 0, why, sizeof why);
    assert_non_null(strstr(why, "executor 4 could not load the plan of stage 300.0 (function 'f' "
                                "not found in the application)"));
    cs_plan_cache_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cap_keeps_plans_in_use),
        cmocka_unit_test(test_missing_plan_explained),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
