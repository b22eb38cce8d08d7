/* test_accumulators.c — the driver's accumulator registry (src/sched/accumulators.c): long and
 * double sums, a custom merge, updates for unknown ids skipped, Accumulables only for named
 * accumulators (task: update and value; stage: value, once), and values written as Spark's event
 * log writes an external accumulator's (Java's toString). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched/accumulators.h"

static void update(cs_batch *b, int64_t id, const void *v, size_t n)
{
    uint8_t k[8];
    cspark_i64_encode(id, k);
    cs_batch_append_record(b, k, 8, v, (uint32_t)n);
}

static int concat(void *arg, cspark_value *acc, const uint8_t *u, size_t n, char **error)
{
    (void)arg;
    (void)error;
    acc->ptr = realloc(acc->ptr, acc->len + n);
    memcpy(acc->ptr + acc->len, u, n);
    acc->len += (uint32_t)n;
    acc->cap = acc->len;
    return 0;
}

static void test_merge_and_accumulables(void **state)
{
    acc_registry *r = cs_acc_registry_new();
    int64_t l = cs_acc_register(r, CS_ACC_LONG, "records", NULL, 0, NULL, NULL);
    int64_t d = cs_acc_register(r, CS_ACC_DOUBLE, NULL, NULL, 0, NULL, NULL);
    int64_t c = cs_acc_register(r, CS_ACC_CUSTOM, "letters", "<", 1, concat, NULL);
    cs_batch b;
    cs_batch_init(&b);
    uint8_t v[8];
    cspark_i64_encode(40, v);
    update(&b, l, v, 8);
    cspark_f64_encode(1.25, v);
    update(&b, d, v, 8);
    update(&b, c, "ab", 2);
    update(&b, 99, "x", 1); /* unknown: skipped */
    cs_accumulable *infos;
    int n;
    char *error = NULL;
    assert_int_equal(cs_acc_merge_updates(r, &b, 3, 0, &infos, &n, &error), 0);
    assert_null(error);
    assert_int_equal(n, 2); /* the unnamed double is not listed */
    assert_string_equal(infos[0].name, "records");
    assert_string_equal(infos[0].update, "40");
    assert_string_equal(infos[0].value, "40");
    assert_string_equal(infos[1].value, "<ab");
    cs_accumulables_free(infos, n);
    assert_int_equal(cs_acc_merge_updates(r, &b, 3, 0, &infos, &n, &error), 0);
    assert_string_equal(infos[0].update, "40");
    assert_string_equal(infos[0].value, "80");
    cs_accumulables_free(infos, n);
    uint8_t *out;
    size_t len;
    cs_acc_kind kind;
    assert_int_equal(cs_acc_value(r, d, &out, &len, &kind), 0);
    assert_int_equal(kind, CS_ACC_DOUBLE);
    assert_true(cspark_f64_decode(out) == 2.5);
    free(out);
    assert_true(cs_acc_value(r, 99, &out, &len, NULL) < 0);
    /* the stage's Accumulables: the named ones it updated, with their values, once */
    cs_acc_stage_done(r, 3, 0, &infos, &n);
    assert_int_equal(n, 2);
    assert_null(infos[0].update);
    cs_accumulables_free(infos, n);
    cs_acc_stage_done(r, 3, 0, &infos, &n);
    assert_int_equal(n, 0);
    cs_batch_free(&b);
    cs_acc_registry_free(r);
}

static void fmt_double(double x, const char *want)
{
    uint8_t v[8];
    char out[64];
    cspark_f64_encode(x, v);
    cs_acc_format(CS_ACC_DOUBLE, v, 8, out, sizeof out);
    assert_string_equal(out, want);
}

static void test_java_double_strings(void **state)
{
    fmt_double(24997500.0, "2.49975E7");
    fmt_double(2.5, "2.5");
    fmt_double(100.0, "100.0");
    fmt_double(1234567.0, "1234567.0");
    fmt_double(1e7, "1.0E7");
    fmt_double(0.001, "0.001");
    fmt_double(1e-4, "1.0E-4");
    fmt_double(-0.5, "-0.5");
    fmt_double(0.1, "0.1");
    fmt_double(0.0, "0.0");
    char out[64];
    uint8_t bin[2] = {0, 0xff};
    cs_acc_format(CS_ACC_CUSTOM, bin, 2, out, sizeof out);
    assert_string_equal(out, "0x00ff");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_and_accumulables),
        cmocka_unit_test(test_java_double_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
