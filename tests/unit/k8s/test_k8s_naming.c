/* test_k8s_naming.c — unit tests for k8s_naming.c: application and unique ids, resource prefix
 * sanitizing (capitals, underscores, symbols, 300 characters), label values, pod and service
 * name lengths, hostnames, the DNS-1123 / label validators and resource quantities. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_naming.h"

static void test_app_id_format(void **state)
{
    char a[K8S_APP_ID_SIZE], b[K8S_APP_ID_SIZE];
    cs_error err = {0};
    assert_int_equal(cs_k8s_new_app_id(a, &err), CS_OK);
    assert_int_equal(cs_k8s_new_app_id(b, &err), CS_OK);
    assert_int_equal(strlen(a), 38);
    assert_memory_equal(a, "spark-", 6);
    for (int i = 6; i < 38; i++)
        assert_non_null(strchr("0123456789abcdef", a[i]));
    assert_string_not_equal(a, b);
    assert_true(cs_k8s_is_label_value(a));
}

static void test_unique_id_format(void **state)
{
    char u[K8S_UNIQUE_ID_SIZE];
    assert_int_equal(cs_k8s_new_unique_id(u, NULL), CS_OK);
    assert_int_equal(strlen(u), 16);
    for (int i = 0; i < 16; i++)
        assert_non_null(strchr("0123456789abcdef", u[i]));
}

static void check_prefix(const char *app, const char *expect)
{
    char *p = cs_k8s_resource_prefix(app, "0123456789abcdef");
    assert_string_equal(p, expect);
    assert_true(cs_k8s_is_dns1123_subdomain(p));
    free(p);
}

static void test_prefix_sanitized(void **state)
{
    check_prefix("spark-pi", "spark-pi-0123456789abcdef");
    check_prefix("My_App Test", "my-app-test-0123456789abcdef");
    check_prefix("__Word.Count!!__", "word-count-0123456789abcdef");
    check_prefix("a---b", "a-b-0123456789abcdef");
    check_prefix("", "spark-0123456789abcdef");
    check_prefix("___", "spark-0123456789abcdef");
    check_prefix("Ünïcödé", "n-c-d-0123456789abcdef");
    check_prefix(NULL, "spark-0123456789abcdef");
    check_prefix("123job", "x23job-0123456789abcdef");
    check_prefix("_9lives", "xlives-0123456789abcdef"); /* replaced, as Spark's ^[0-9] -> x */
}

static void test_prefix_300_chars_never_rejected(void **state)
{
    char name[301];
    for (int i = 0; i < 300; i++)
        name[i] = (i % 7 == 3) ? '_' : (char)('A' + i % 26);
    name[300] = '\0';
    char *p = cs_k8s_resource_prefix(name, "0123456789abcdef");
    assert_true(strlen(p) <= K8S_POD_PREFIX_MAX);
    assert_true(cs_k8s_is_dns1123_subdomain(p));
    assert_true(strstr(p, "-0123456789abcdef") != NULL);
    char *drv = cs_k8s_driver_pod_name(p);
    char *exe = cs_k8s_executor_pod_name(p, 2147483647L);
    assert_true(strlen(drv) <= K8S_DNS_SUBDOMAIN_MAX);
    assert_true(strlen(exe) <= K8S_DNS_SUBDOMAIN_MAX);
    assert_true(cs_k8s_is_dns1123_subdomain(drv));
    assert_true(cs_k8s_is_dns1123_subdomain(exe));
    char *svc = cs_k8s_driver_service_name(p, "0123456789abcdef");
    assert_string_equal(svc, "spark-0123456789abcdef-driver-svc");
    assert_true(cs_k8s_is_dns1123_label(svc));
    char *label = cs_k8s_app_name_label(name);
    assert_true(strlen(label) <= 63);
    assert_true(cs_k8s_is_label_value(label));
    free(p);
    free(drv);
    free(exe);
    free(svc);
    free(label);
}

static void test_prefix_cut_leaves_no_dash(void **state)
{
    /* the cut lands right after a '-' */
    char name[260];
    memset(name, 'a', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    name[219] = '_';
    char *p = cs_k8s_resource_prefix(name, "0123456789abcdef");
    assert_null(strstr(p, "--"));
    assert_true(cs_k8s_is_dns1123_subdomain(p));
    free(p);
}

static void test_service_name_rule(void **state)
{
    char *s = cs_k8s_driver_service_name("spark-pi-0123456789abcdef", "0123456789abcdef");
    assert_string_equal(s, "spark-pi-0123456789abcdef-driver-svc");
    free(s);
    /* exactly 63 stays, 64 switches */
    char pre[64];
    memset(pre, 'p', 52);
    pre[52] = '\0'; /* 52 + 11 = 63 */
    s = cs_k8s_driver_service_name(pre, "u");
    assert_int_equal(strlen(s), 63);
    free(s);
    pre[52] = 'p';
    pre[53] = '\0';
    s = cs_k8s_driver_service_name(pre, "0123456789abcdef");
    assert_string_equal(s, "spark-0123456789abcdef-driver-svc");
    free(s);
    /* a Service name must start with a letter (DNS-1035) */
    s = cs_k8s_driver_service_name("9abc-0123456789abcdef", "0123456789abcdef");
    assert_string_equal(s, "spark-0123456789abcdef-driver-svc");
    free(s);
}

static void test_label_value(void **state)
{
    char *l = cs_k8s_app_name_label("My_App Test");
    assert_string_equal(l, "my-app-test");
    free(l);
    l = cs_k8s_app_name_label("--x--");
    assert_string_equal(l, "x");
    free(l);
    char big[100];
    memset(big, 'a', 99);
    big[99] = '\0';
    big[62] = ' '; /* would leave a trailing dash at 63 */
    l = cs_k8s_app_name_label(big);
    assert_int_equal(strlen(l), 62);
    assert_true(cs_k8s_is_label_value(l));
    free(l);
    l = cs_k8s_app_name_label("");
    assert_string_equal(l, "");
    assert_true(cs_k8s_is_label_value(l));
    free(l);
}

static void test_other_names(void **state)
{
    char *s = cs_k8s_executor_pod_name("pre", 12);
    assert_string_equal(s, "pre-exec-12");
    free(s);
    s = cs_k8s_driver_pod_name("pre");
    assert_string_equal(s, "pre-driver");
    free(s);
    s = cs_k8s_driver_configmap_name("abc");
    assert_string_equal(s, "spark-drv-abc-conf-map");
    free(s);
    s = cs_k8s_executor_configmap_name("abc");
    assert_string_equal(s, "spark-exec-abc-conf-map");
    free(s);
    s = cs_k8s_auth_secret_name("abc");
    assert_string_equal(s, "spark-abc-auth-secret");
    free(s);
}

static void test_hostname_last_63(void **state)
{
    char *h = cs_k8s_executor_hostname("short-exec-1");
    assert_string_equal(h, "short-exec-1");
    free(h);
    char name[200];
    memset(name, 'a', 100);
    strcpy(name + 100, "-0123456789abcdef-exec-7"); /* 124 chars */
    h = cs_k8s_executor_hostname(name);
    assert_true(strlen(h) <= 63);
    assert_true(cs_k8s_is_dns1123_label(h));
    assert_string_equal(h + strlen(h) - 7, "-exec-7");
    free(h);
    /* the 63-char window starts on a dash: it is dropped */
    memset(name, 'b', 100);
    name[63] = '-'; /* 126 chars: the window starts at index 63 */
    strcpy(name + 100, "-exec-12345678901234567890");
    h = cs_k8s_executor_hostname(name);
    assert_true(cs_k8s_is_dns1123_label(h));
    free(h);
}

static void test_validators(void **state)
{
    assert_true(cs_k8s_is_dns1123_label("a"));
    assert_true(cs_k8s_is_dns1123_label("a-1"));
    assert_false(cs_k8s_is_dns1123_label("-a"));
    assert_false(cs_k8s_is_dns1123_label("a-"));
    assert_false(cs_k8s_is_dns1123_label("A"));
    assert_false(cs_k8s_is_dns1123_label("a.b"));
    assert_false(cs_k8s_is_dns1123_label(""));
    assert_true(cs_k8s_is_dns1123_subdomain("a.b-c.d"));
    assert_false(cs_k8s_is_dns1123_subdomain("a..b"));
    assert_false(cs_k8s_is_dns1123_subdomain("a_b"));
    assert_true(cs_k8s_is_label_value(""));
    assert_true(cs_k8s_is_label_value("A_b.c-D"));
    assert_false(cs_k8s_is_label_value("_a"));
    assert_false(cs_k8s_is_label_value("a b"));
    assert_true(cs_k8s_is_qualified_name("team"));
    assert_true(cs_k8s_is_qualified_name("yunikorn.apache.org/app-id"));
    assert_false(cs_k8s_is_qualified_name("a/b/c"));
    assert_false(cs_k8s_is_qualified_name("/x"));
    assert_false(cs_k8s_is_qualified_name("Bad_Prefix/x"));
    char big[80];
    memset(big, 'a', 64);
    big[64] = '\0';
    assert_false(cs_k8s_is_label_value(big));
    assert_false(cs_k8s_is_dns1123_label(big));
}

/* Kubernetes' quantity grammar: what the API server accepts, in base units. */
static void test_quantities(void **state)
{
    (void)state;
    static const struct {
        const char *q;
        long double v;
    } good[] = {{"10Gi", 10737418240.0L},
                {"1024Mi", 1073741824.0L},
                {"500M", 5e8L},
                {"1.5Gi", 1610612736.0L},
                {"100", 100},
                {"1e3", 1000},
                {"2E2", 200},
                {"250m", 0.25L},
                {".5", 0.5L},
                {"5.", 5},
                {"+1k", 1000},
                {"-1", -1},
                {"1E", 1e18L},
                {"3Ki", 3072},
                {"0", 0}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        long double v = -42;
        if (!cs_k8s_parse_quantity(good[i].q, &v)) fail_msg("'%s' refused", good[i].q);
        if (fabsl(v - good[i].v) > 1e-12L * fabsl(good[i].v))
            fail_msg("'%s' read as %Lg, want %Lg", good[i].q, v, good[i].v);
    }
    static const char *const bad[] = {"",    "Gi",   "10GB", "10 Gi", "ten", "1.2.3", "1e",
                                      "1e+", "0x10", "1Gi ", "--1",   ".",   "+",     "1ki"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (cs_k8s_parse_quantity(bad[i], NULL)) fail_msg("'%s' accepted", bad[i]);
    assert_false(cs_k8s_parse_quantity(NULL, NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_app_id_format),
        cmocka_unit_test(test_unique_id_format),
        cmocka_unit_test(test_prefix_sanitized),
        cmocka_unit_test(test_prefix_300_chars_never_rejected),
        cmocka_unit_test(test_prefix_cut_leaves_no_dash),
        cmocka_unit_test(test_service_name_rule),
        cmocka_unit_test(test_label_value),
        cmocka_unit_test(test_other_names),
        cmocka_unit_test(test_hostname_last_63),
        cmocka_unit_test(test_validators),
        cmocka_unit_test(test_quantities),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
