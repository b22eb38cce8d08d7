/* test_k8s_yaml.c — unit tests for k8s_yaml.c: multi-document emission through libyaml,
 * quoting of strings that would read back as other types, key order, numbers/bools/null,
 * multi-line strings, and the YAML -> json loader (typing, errors, aliases, round trip). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_yaml.h"

static char *dump1(json_t *v)
{
    cs_error err = {0};
    char *s = cs_k8s_yaml_dump(&v, 1, &err);
    if (!s) fail_msg("dump: %s", err.msg);
    return s;
}

static void test_scalars_and_quoting(void **state)
{
    json_t *v = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:f, s:b, s:n, s:s, s:s}",
                          "plain", "hello", "num", "7078", "bool", "true", "yes", "yes", "null",
                          "null", "empty", "", "colon", "a: b", "int", 42, "real", 1.5, "flag", 1,
                          "nothing", "dash", "-driver", "ver", "0.1.0");
    char *s = dump1(v);
    assert_non_null(strstr(s, "---\nplain: hello\n"));
    assert_non_null(strstr(s, "num: \"7078\"\n"));
    assert_non_null(strstr(s, "bool: \"true\"\n"));
    assert_non_null(strstr(s, "\"yes\": \"yes\"\n"));
    assert_non_null(strstr(s, "\"null\": \"null\"\n"));
    assert_non_null(strstr(s, "empty: \"\"\n"));
    assert_non_null(strstr(s, "int: 42\n"));
    assert_non_null(strstr(s, "real: 1.5\n"));
    assert_non_null(strstr(s, "flag: true\n"));
    assert_non_null(strstr(s, "nothing: null\n"));
    assert_non_null(strstr(s, "ver: \"0.1.0\"\n"));
    /* key order preserved */
    assert_true(strstr(s, "plain:") < strstr(s, "num:"));
    assert_true(strstr(s, "num:") < strstr(s, "ver:"));
    /* and it reads back identically */
    cs_error err = {0};
    json_t *back = cs_k8s_yaml_load("dump", s, strlen(s), &err);
    assert_non_null(back);
    assert_true(json_equal(v, back));
    json_decref(back);
    json_decref(v);
    free(s);
}

static void test_multi_document_stream(void **state)
{
    json_t *docs[3] = {json_pack("{s:s}", "kind", "Pod"), json_pack("{s:s}", "kind", "Service"),
                       json_pack("{s:[i,s,{}], s:{}}", "list", 1, "two", "empty")};
    cs_error err = {0};
    char *s = cs_k8s_yaml_dump(docs, 3, &err);
    assert_non_null(s);
    int n = 0;
    for (const char *p = s; (p = strstr(p, "---")); p += 3)
        n++;
    assert_int_equal(n, 3);
    assert_non_null(strstr(s, "---\nkind: Pod\n"));
    assert_non_null(strstr(s, "---\nkind: Service\n"));
    assert_non_null(strstr(s, "list:\n- 1\n- two\n- {}\n"));
    free(s);
    FILE *f = tmpfile();
    assert_int_equal(cs_k8s_write_yaml(f, docs, 3, &err), CS_OK);
    assert_true(ftell(f) > 0);
    fclose(f);
    for (int i = 0; i < 3; i++)
        json_decref(docs[i]);
}

static void test_multiline_and_specials(void **state)
{
    json_t *v = json_pack("{s:s, s:s, s:s}", "props", "a=1\nb=2\n", "tab", "x\ty", "unicode",
                          "h\xc3\xa9llo");
    char *s = dump1(v);
    assert_non_null(strstr(s, "props: |\n  a=1\n  b=2\n"));
    cs_error err = {0};
    json_t *back = cs_k8s_yaml_load("dump", s, strlen(s), &err);
    assert_true(json_equal(v, back));
    json_decref(back);
    json_decref(v);
    free(s);
}

static void test_tricky_strings_round_trip(void **state)
{
    static const char *const tricky[] = {"",
                                         " ",
                                         "a ",
                                         " a",
                                         "#x",
                                         "x #y",
                                         "- a",
                                         "-",
                                         "? a",
                                         ": a",
                                         "a:b",
                                         "a: b",
                                         "'",
                                         "\"",
                                         "\\",
                                         "{a}",
                                         "[a]",
                                         "*a",
                                         "&a",
                                         "!a",
                                         "%a",
                                         "@a",
                                         "`a",
                                         "|",
                                         ">",
                                         "~",
                                         "NULL",
                                         "True",
                                         "0x1F",
                                         "1e3",
                                         "1_000",
                                         ".5",
                                         "+1",
                                         "-1",
                                         "2001-12-14",
                                         "1:20",
                                         "\t",
                                         "a\nb",
                                         "a\n",
                                         "\n",
                                         "h\xc3\xa9",
                                         "<<",
                                         "=",
                                         "null ",
                                         "yes",
                                         "Off",
                                         "---",
                                         "...",
                                         "a,b",
                                         "$(POD_NAME)",
                                         "{{APP_ID}}",
                                         "cspark\\:x",
                                         "line1\n  indented\n",
                                         "trailing \nspace",
                                         NULL};
    json_t *obj = json_object(), *arr = json_array();
    char key[32];
    for (int i = 0; tricky[i]; i++) {
        snprintf(key, sizeof key, "k%d", i);
        json_object_set_new(obj, key, json_string(tricky[i]));
        json_object_set_new(obj, tricky[i], json_integer(i)); /* as keys too */
        json_array_append_new(arr, json_string(tricky[i]));
    }
    json_object_set_new(obj, "list", arr);
    char *s = dump1(obj);
    cs_error err = {0};
    json_t *back = cs_k8s_yaml_load("dump", s, strlen(s), &err);
    if (!back) fail_msg("reload: %s\n%s", err.msg, s);
    if (!json_equal(obj, back)) fail_msg("round trip changed the value:\n%s", s);
    json_decref(back);
    json_decref(obj);
    free(s);
}

static void test_load_typing(void **state)
{
    const char *y = "a: 1\nb: -2\nc: 1.5e3\nd: true\ne: ~\nf: \"1\"\ng: '08'\nh: 0x1F\n"
                    "i: plain text\nj: !!str 12\nk: [1, x]\nl: {m: n}\nemptyv:\n";
    cs_error err = {0};
    json_t *v = cs_k8s_yaml_load("t", y, strlen(y), &err);
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

static void test_load_errors(void **state)
{
    cs_error err = {0};
    const char *bad = "a: [1, 2\n";
    assert_null(cs_k8s_yaml_load("tpl.yaml", bad, strlen(bad), &err));
    assert_int_equal(err.code, CS_EINVAL);
    assert_non_null(strstr(err.msg, "tpl.yaml"));
    assert_non_null(strstr(err.msg, "line"));
    const char *alias = "a: &x 1\nb: *x\n";
    assert_null(cs_k8s_yaml_load("tpl.yaml", alias, strlen(alias), &err));
    assert_non_null(strstr(err.msg, "alias"));
    json_t *v = cs_k8s_yaml_load("empty", "", 0, &err);
    assert_true(json_is_object(v));
    assert_int_equal(json_object_size(v), 0);
    json_decref(v);
    assert_null(cs_k8s_yaml_load_file("/nonexistent/x.yaml", &err));
    assert_int_equal(err.code, CS_ENOTFOUND);
    assert_non_null(strstr(err.msg, "/nonexistent/x.yaml"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars_and_quoting),
        cmocka_unit_test(test_multi_document_stream),
        cmocka_unit_test(test_multiline_and_specials),
        cmocka_unit_test(test_tricky_strings_round_trip),
        cmocka_unit_test(test_load_typing),
        cmocka_unit_test(test_load_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
