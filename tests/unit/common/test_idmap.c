/* test_idmap.c — unit tests for the id → index map (idmap.c): put/get/del, overwrites, growth
 * past many keys, tombstones reused without losing keys that probed past them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "common/idmap.h"

static void test_basic(void **state)
{
    (void)state;
    cs_idmap m = {0};
    assert_int_equal(cs_idmap_get(&m, "1"), -1);
    cs_idmap_put(&m, "1", 0);
    cs_idmap_put(&m, "exec-2", 1);
    assert_int_equal(cs_idmap_get(&m, "1"), 0);
    assert_int_equal(cs_idmap_get(&m, "exec-2"), 1);
    cs_idmap_put(&m, "1", 7);
    assert_int_equal(cs_idmap_get(&m, "1"), 7);
    cs_idmap_del(&m, "1");
    assert_int_equal(cs_idmap_get(&m, "1"), -1);
    assert_int_equal(cs_idmap_get(&m, "exec-2"), 1);
    cs_idmap_del(&m, "absent");
    cs_idmap_free(&m);
    assert_int_equal(cs_idmap_get(&m, "exec-2"), -1);
}

static void test_many_with_deletions(void **state)
{
    (void)state;
    cs_idmap m = {0};
    char k[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(k, sizeof k, "%d", i);
        cs_idmap_put(&m, k, i);
    }
    for (int i = 0; i < 5000; i += 2) { /* every other key goes: tombstones between live keys */
        snprintf(k, sizeof k, "%d", i);
        cs_idmap_del(&m, k);
    }
    for (int round = 0; round < 3; round++) /* reinsert and delete: tombstones get reused */
        for (int i = 0; i < 5000; i += 2) {
            snprintf(k, sizeof k, "%d", i);
            if (round % 2 == 0)
                cs_idmap_put(&m, k, -i - 10);
            else
                cs_idmap_del(&m, k);
        }
    for (int i = 0; i < 5000; i++) {
        snprintf(k, sizeof k, "%d", i);
        assert_int_equal(cs_idmap_get(&m, k), i % 2 ? i : -i - 10);
    }
    cs_idmap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_many_with_deletions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
