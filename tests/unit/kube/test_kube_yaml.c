/* test_kube_yaml.c — unit tests for the YAML reader (src/kube/kube_yaml.c) that kubeconfig files
 * and pod templates go through: YAML 1.2 core typing of plain scalars, every scalar a string for
 * kubeconfigs, anchors and aliases expanded by copy (and bounded), errors naming the file with
 * line and column, an empty document, a missing file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "kube/kube_yaml.h"

static void test_load_typing(void **state)
{
    const char *y = "a: 1\nb: -2\nc: 1.5e3\nd: true\ne: ~\nf: \"1\"\ng: '08'\nh: 0x1F\n"
                    "i: plain text\nj: !!str 12\nk: [1, x]\nl: {m: n}\nemptyv:\n";
    cs_error err = {0};
    json_t *v = cs_kube_yaml_load("t", y, strlen(y), KUBE_YAML_TYPED, &err);
    assert_non_null(v);
    assert_int_equal(json_integer_value(json_object_get(v, "a")), 1);
    assert_int_equal(json_integer_value(json_object_get(v, "b")), -2);
    assert_true(json_is_real(json_object_get(v, "c")));
    assert_true(json_is_true(json_object_get(v, "d")));
    assert_true(json_is_null(json_object_get(v, "e")));
    assert_string_equal(json_string_value(json_object_get(v, "f")), "1");
    assert_string_equal(json_string_value(json_object_get(v, "g")), "08");
    assert_int_equal(json_integer_value(json_object_get(v, "h")), 31);
    assert_string_equal(json_string_value(json_object_get(v, "i")), "plain text");
    assert_string_equal(json_string_value(json_object_get(v, "j")), "12");
    assert_int_equal(json_array_size(json_object_get(v, "k")), 2);
    assert_string_equal(json_string_value(json_object_get(json_object_get(v, "l"), "m")), "n");
    assert_true(json_is_null(json_object_get(v, "emptyv")));
    json_decref(v);
}

/* A kubeconfig's fields are strings whatever they look like. */
static void test_load_strings(void **state)
{
    const char *y = "insecure-skip-tls-verify: true\nport: 6443\nname: 1\nempty:\nlist: [a, 2]\n";
    cs_error err = {0};
    json_t *v = cs_kube_yaml_load("kubeconfig", y, strlen(y), KUBE_YAML_STRINGS, &err);
    assert_non_null(v);
    assert_string_equal(json_string_value(json_object_get(v, "insecure-skip-tls-verify")), "true");
    assert_string_equal(json_string_value(json_object_get(v, "port")), "6443");
    assert_string_equal(json_string_value(json_object_get(v, "name")), "1");
    assert_string_equal(json_string_value(json_object_get(v, "empty")), "");
    assert_string_equal(json_string_value(json_array_get(json_object_get(v, "list"), 1)), "2");
    json_decref(v);
}

/* Anchors and aliases, as kubectl and the API server read them: the aliased node is copied (a
 * later edit of one copy leaves the other alone). */
static void test_aliases(void **state)
{
    const char *y = "base: &b {image: spark, env: [{name: A, value: \"1\"}]}\n"
                    "driver: *b\nexecutor: *b\nport: &p 7078\nagain: *p\n";
    cs_error err = {0};
    json_t *v = cs_kube_yaml_load("tpl.yaml", y, strlen(y), KUBE_YAML_TYPED, &err);
    assert_non_null(v);
    json_t *d = json_object_get(v, "driver"), *e = json_object_get(v, "executor");
    assert_string_equal(json_string_value(json_object_get(d, "image")), "spark");
    assert_true(json_equal(d, e));
    assert_ptr_not_equal(d, e);
    json_object_set_new(d, "image", json_string("other"));
    assert_string_equal(json_string_value(json_object_get(e, "image")), "spark");
    assert_int_equal(json_integer_value(json_object_get(v, "again")), 7078);
    json_decref(v);
}

static void test_load_errors(void **state)
{
    cs_error err = {0};
    const char *bad = "a: [1, 2\n";
    assert_null(cs_kube_yaml_load("tpl.yaml", bad, strlen(bad), KUBE_YAML_TYPED, &err));
    assert_int_equal(err.code, CS_EINVAL);
    assert_non_null(strstr(err.msg, "tpl.yaml"));
    assert_non_null(strstr(err.msg, "line"));
    const char *unknown = "a: 1\nb: *x\n";
    assert_null(cs_kube_yaml_load("tpl.yaml", unknown, strlen(unknown), KUBE_YAML_TYPED, &err));
    assert_non_null(strstr(err.msg, "alias *x"));
    /* a "billion laughs" document stops at the alias bound instead of filling memory */
    char bomb[4096];
    size_t n = (size_t)snprintf(bomb, sizeof bomb, "a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for (char c = 'b'; c <= 'j'; c++)
        n += (size_t)snprintf(bomb + n, sizeof bomb - n,
                              "%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, "
                              "*%c, *%c, *%c, *%c]\n",
                              c, c, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1,
                              c - 1);
    assert_null(cs_kube_yaml_load("bomb.yaml", bomb, n, KUBE_YAML_TYPED, &err));
    assert_non_null(strstr(err.msg, "aliases expand to more than"));
    json_t *v = cs_kube_yaml_load("empty", "", 0, KUBE_YAML_TYPED, &err);
    assert_true(json_is_object(v));
    assert_int_equal(json_object_size(v), 0);
    json_decref(v);
    assert_null(cs_kube_yaml_load_file("/nonexistent/x.yaml", KUBE_YAML_TYPED, &err));
    assert_int_equal(err.code, CS_ENOTFOUND);
    assert_non_null(strstr(err.msg, "/nonexistent/x.yaml"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_typing),
        cmocka_unit_test(test_load_strings),
        cmocka_unit_test(test_aliases),
        cmocka_unit_test(test_load_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
