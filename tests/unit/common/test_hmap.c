/* test_hmap.c — unit tests for the hash table (src/common/hmap.c): 64-bit and string keys,
 * overwrites, deletes leaving tombstones that later inserts reuse, growth under many keys with
 * interleaved deletes, iteration (with deleting the current entry), and freeing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "common/hmap.h"

static void test_u64_keys(void **state)
{
    cs_hmap m = {0};
    uint64_t v = 0;
    assert_false(cs_hmap_get(&m, 7, &v));
    cs_hmap_put(&m, 7, 70);
    cs_hmap_put(&m, 0, 1); /* 0 is a key like any other */
    cs_hmap_put(&m, UINT64_MAX, 2);
    assert_true(cs_hmap_get(&m, 7, &v));
    assert_int_equal(v, 70);
    cs_hmap_put(&m, 7, 71);
    assert_true(cs_hmap_get(&m, 7, &v));
    assert_int_equal(v, 71);
    assert_true(cs_hmap_get(&m, 0, &v));
    assert_int_equal(v, 1);
    assert_int_equal(cs_hmap_size(&m), 3);
    assert_true(cs_hmap_del(&m, 7));
    assert_false(cs_hmap_del(&m, 7));
    assert_false(cs_hmap_get(&m, 7, NULL));
    assert_true(cs_hmap_get(&m, UINT64_MAX, NULL));
    assert_int_equal(cs_hmap_size(&m), 2);
    cs_hmap_free(&m);
    assert_false(cs_hmap_get(&m, 0, NULL));
}

static void test_string_keys(void **state)
{
    cs_hmap m;
    cs_hmap_init_strings(&m);
    uint64_t v;
    char key[16];
    snprintf(key, sizeof key, "exec-2");
    cs_hmap_sput(&m, "1", 0);
    cs_hmap_sput(&m, key, 1);
    key[0] = 'X'; /* the map keeps its own copy */
    assert_true(cs_hmap_sget(&m, "exec-2", &v));
    assert_int_equal(v, 1);
    cs_hmap_sput(&m, "1", 7);
    assert_true(cs_hmap_sget(&m, "1", &v));
    assert_int_equal(v, 7);
    assert_true(cs_hmap_sdel(&m, "1"));
    assert_false(cs_hmap_sget(&m, "1", NULL));
    assert_false(cs_hmap_sdel(&m, "absent"));
    cs_hmap_free(&m);
    assert_false(cs_hmap_sget(&m, "exec-2", NULL));
    cs_hmap_sput(&m, "again", 3); /* still a string map after free */
    assert_true(cs_hmap_sget(&m, "again", &v));
    cs_hmap_free(&m);
}

static void test_growth_with_deletes(void **state)
{
    cs_hmap m;
    cs_hmap_init_strings(&m);
    cs_hmap u = {0};
    char k[32];
    for (int i = 0; i < 5000; i++) {
        snprintf(k, sizeof k, "%d", i);
        cs_hmap_sput(&m, k, (uint64_t)i);
        cs_hmap_put(&u, (uint64_t)i * 4096, (uint64_t)i);
        if (i % 3 == 0) {
            cs_hmap_sdel(&m, k);
            cs_hmap_del(&u, (uint64_t)i * 4096);
        }
    }
    for (int round = 0; round < 3; round++) /* churn on tombstones */
        for (int i = 0; i < 5000; i += 3) {
            snprintf(k, sizeof k, "%d", i);
            cs_hmap_sput(&m, k, (uint64_t)i + 100000);
            cs_hmap_sdel(&m, k);
        }
    for (int i = 0; i < 5000; i++) {
        snprintf(k, sizeof k, "%d", i);
        uint64_t v;
        assert_int_equal(cs_hmap_sget(&m, k, &v), i % 3 != 0);
        if (i % 3) assert_int_equal(v, i);
        assert_int_equal(cs_hmap_get(&u, (uint64_t)i * 4096, &v), i % 3 != 0);
    }
    assert_int_equal(cs_hmap_size(&m), 3333);
    cs_hmap_free(&m);
    cs_hmap_free(&u);
}

static void test_iteration(void **state)
{
    cs_hmap m = {0};
    for (uint64_t i = 1; i <= 100; i++)
        cs_hmap_put(&m, i, i * 10);
    size_t pos = 0;
    uint64_t key, val, sum = 0;
    int n = 0;
    while (cs_hmap_next(&m, &pos, &key, &val)) {
        assert_int_equal(val, key * 10);
        sum += key;
        n++;
        if (key % 2) cs_hmap_del(&m, key); /* deleting the current entry is allowed */
    }
    assert_int_equal(n, 100);
    assert_int_equal(sum, 5050);
    assert_int_equal(cs_hmap_size(&m), 50);
    cs_hmap_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u64_keys),
        cmocka_unit_test(test_string_keys),
        cmocka_unit_test(test_growth_with_deletes),
        cmocka_unit_test(test_iteration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
