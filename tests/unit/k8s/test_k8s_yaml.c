/* test_k8s_yaml.c — unit tests for k8s_yaml.c: multi-document emission through libyaml,
 * quoting of strings that would read back as other types, key order, numbers/bools/null,
 * multi-line strings, each read back through src/kube/kube_yaml.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_yaml.h"
#include "kube/kube_yaml.h"

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
    json_t *back = cs_kube_yaml_load("dump", s, strlen(s), KUBE_YAML_TYPED, &err);
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
    json_t *back = cs_kube_yaml_load("dump", s, strlen(s), KUBE_YAML_TYPED, &err);
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
    json_t *back = cs_kube_yaml_load("dump", s, strlen(s), KUBE_YAML_TYPED, &err);
    if (!back) fail_msg("reload: %s\n%s", err.msg, s);
    if (!json_equal(obj, back)) fail_msg("round trip changed the value:\n%s", s);
    json_decref(back);
    json_decref(obj);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars_and_quoting),
        cmocka_unit_test(test_multi_document_stream),
        cmocka_unit_test(test_multiline_and_specials),
        cmocka_unit_test(test_tricky_strings_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
