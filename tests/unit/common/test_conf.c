/* test_conf.c — unit tests for the cs_conf map and Spark's typed value parsers (conf.c):
 * sizes, durations, ints, bools, doubles, their exact error messages, defaults, redaction (a
 * credential of conf_entries.c whatever spark.redaction.regex says). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/conf_entries.h"

static void test_map_basics(void **state)
{
    cs_conf *c = cs_conf_new();
    assert_non_null(c);
    assert_null(cs_conf_get(c, "a"));
    assert_false(cs_conf_contains(c, "a"));
    cs_conf_set(c, "b", "2");
    cs_conf_set(c, "a", "1");
    cs_conf_set(c, "c", "3");
    assert_int_equal(cs_conf_size(c), 3);
    assert_string_equal(cs_conf_get(c, "a"), "1");
    cs_conf_set(c, "a", "one");
    assert_string_equal(cs_conf_get(c, "a"), "one");
    cs_conf_set_if_missing(c, "a", "uno");
    cs_conf_set_if_missing(c, "d", "4");
    assert_string_equal(cs_conf_get(c, "a"), "one");
    assert_string_equal(cs_conf_get(c, "d"), "4");
    cs_conf_unset(c, "b");
    cs_conf_unset(c, "zzz");
    assert_false(cs_conf_contains(c, "b"));
    assert_int_equal(cs_conf_size(c), 3);

    cs_conf *d = cs_conf_clone(c);
    cs_conf_set(c, "a", "changed");
    assert_string_equal(cs_conf_get(d, "a"), "one");
    cs_conf_free(d);

    /* value copied, not borrowed */
    char buf[8];
    strcpy(buf, "x");
    cs_conf_set(c, "k", buf);
    strcpy(buf, "y");
    assert_string_equal(cs_conf_get(c, "k"), "x");
    cs_conf_free(c);
    cs_conf_free(NULL);
}

static void collect(void *arg, const char *key, const char *value)
{
    char *out = arg;
    strcat(out, key);
    strcat(out, "=");
    strcat(out, value);
    strcat(out, ";");
}

static void test_foreach_sorted(void **state)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.z", "1");
    cs_conf_set(c, "spark.a", "2");
    cs_conf_set(c, "cspark.m", "3");
    char out[256] = "";
    cs_conf_foreach(c, collect, out);
    assert_string_equal(out, "cspark.m=3;spark.a=2;spark.z=1;");
    cs_conf_free(c);
}

static void test_merge(void **state)
{
    cs_conf *a = cs_conf_new(), *b = cs_conf_new();
    cs_conf_set(a, "k", "a");
    cs_conf_set(b, "k", "b");
    cs_conf_set(b, "j", "b");
    cs_conf_merge(a, b, false);
    assert_string_equal(cs_conf_get(a, "k"), "a");
    assert_string_equal(cs_conf_get(a, "j"), "b");
    cs_conf_merge(a, b, true);
    assert_string_equal(cs_conf_get(a, "k"), "b");
    cs_conf_free(a);
    cs_conf_free(b);
}

static int64_t size_of(const char *s, int64_t unit)
{
    int64_t v = -12345;
    cs_error err = {0};
    int rc = cs_conf_parse_size("k", s, unit, &v, &err);
    if (rc != CS_OK) fail_msg("'%s' rejected: %s", s, err.msg);
    return v;
}

static void test_sizes(void **state)
{
    assert_int_equal(size_of("512m", CS_MiB), 512 * CS_MiB);
    assert_int_equal(size_of("512", CS_MiB), 512 * CS_MiB);
    assert_int_equal(size_of("512", CS_BYTE), 512);
    assert_int_equal(size_of("2g", CS_MiB), 2 * CS_GiB);
    assert_int_equal(size_of("2G", CS_MiB), 2 * CS_GiB);
    assert_int_equal(size_of("2GB", CS_MiB), 2 * CS_GiB);
    assert_int_equal(size_of("1b", CS_MiB), 1);
    assert_int_equal(size_of("3k", CS_BYTE), 3 * 1024);
    assert_int_equal(size_of("3kb", CS_BYTE), 3 * 1024);
    assert_int_equal(size_of("1mb", CS_BYTE), CS_MiB);
    assert_int_equal(size_of("1t", CS_BYTE), CS_TiB);
    assert_int_equal(size_of("1tb", CS_BYTE), CS_TiB);
    assert_int_equal(size_of("1p", CS_BYTE), CS_TiB * 1024);
    assert_int_equal(size_of("1PB", CS_BYTE), CS_TiB * 1024);
    assert_int_equal(size_of("  4g  ", CS_BYTE), 4 * CS_GiB);
    assert_int_equal(size_of("0", CS_MiB), 0);
}

static void expect_size_error(const char *s, const char *msg)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.executor.memory", s);
    int64_t v = 77;
    cs_error err = {0};
    assert_int_equal(cs_conf_get_size(c, "spark.executor.memory", "1g", CS_MiB, &v, &err),
                     CS_EINVAL);
    assert_int_equal(err.code, CS_EINVAL);
    assert_string_equal(err.msg, msg);
    assert_int_equal(v, 77);
    cs_conf_free(c);
}

static void test_size_errors(void **state)
{
    expect_size_error("12q", "invalid value for spark.executor.memory: '12q' (expected a size "
                             "such as 512m or 2g)");
    expect_size_error("", "invalid value for spark.executor.memory: '' (expected a size such as "
                          "512m or 2g)");
    expect_size_error("1.5g", "invalid value for spark.executor.memory: '1.5g' (expected a size "
                              "such as 512m or 2g)");
    expect_size_error("-1g", "invalid value for spark.executor.memory: '-1g' (expected a size "
                             "such as 512m or 2g)");
    expect_size_error("g", "invalid value for spark.executor.memory: 'g' (expected a size such "
                           "as 512m or 2g)");
    expect_size_error("5 g", "invalid value for spark.executor.memory: '5 g' (expected a size "
                             "such as 512m or 2g)");
    expect_size_error("1ms", "invalid value for spark.executor.memory: '1ms' (expected a size "
                             "such as 512m or 2g)");
    expect_size_error("99999999999p",
                      "invalid value for spark.executor.memory: '99999999999p' (size too large)");
    expect_size_error("99999999999999999999", "invalid value for spark.executor.memory: "
                                              "'99999999999999999999' (expected a size such as "
                                              "512m or 2g)");
}

static void test_size_defaults(void **state)
{
    cs_conf *c = cs_conf_new();
    int64_t v = 5;
    cs_error err = {0};
    assert_int_equal(cs_conf_get_size(c, "spark.executor.memory", "1g", CS_MiB, &v, &err), CS_OK);
    assert_int_equal(v, CS_GiB);
    assert_int_equal(cs_conf_get_size(c, "spark.executor.memory", "1024", CS_MiB, &v, &err), CS_OK);
    assert_int_equal(v, CS_GiB);
    v = 5;
    assert_int_equal(cs_conf_get_size(c, "spark.executor.memory", NULL, CS_MiB, &v, &err),
                     CS_ENOTFOUND);
    assert_int_equal(v, 5);
    cs_conf_set(c, "spark.kubernetes.configMap.maxSize", "1048576");
    assert_int_equal(
        cs_conf_get_size(c, "spark.kubernetes.configMap.maxSize", NULL, CS_BYTE, &v, NULL), CS_OK);
    assert_int_equal(v, 1048576);
    /* NULL err is allowed on failure too */
    cs_conf_set(c, "x", "bad");
    assert_int_equal(cs_conf_get_size(c, "x", NULL, CS_BYTE, &v, NULL), CS_EINVAL);
    cs_conf_free(c);
}

static int64_t dur_of(const char *s, int64_t unit)
{
    int64_t v = -12345;
    cs_error err = {0};
    if (cs_conf_parse_duration_ms("k", s, unit, &v, &err) != CS_OK)
        fail_msg("'%s' rejected: %s", s, err.msg);
    return v;
}

static void test_durations(void **state)
{
    assert_int_equal(dur_of("120s", CS_SEC), 120000);
    assert_int_equal(dur_of("120", CS_SEC), 120000);
    assert_int_equal(dur_of("120", CS_MS), 120);
    assert_int_equal(dur_of("500ms", CS_SEC), 500);
    assert_int_equal(dur_of("1500us", CS_SEC), 1);
    assert_int_equal(dur_of("999us", CS_SEC), 0);
    assert_int_equal(dur_of("5m", CS_SEC), 300000);
    assert_int_equal(dur_of("5min", CS_SEC), 300000);
    assert_int_equal(dur_of("5MIN", CS_SEC), 300000);
    assert_int_equal(dur_of("2h", CS_SEC), 7200000);
    assert_int_equal(dur_of("1d", CS_SEC), 86400000);
    assert_int_equal(dur_of(" 10S ", CS_SEC), 10000);
    assert_int_equal(dur_of("-1s", CS_SEC), -1000); /* Spark accepts negative durations */
}

static void test_duration_errors(void **state)
{
    cs_conf *c = cs_conf_new();
    int64_t v = 9;
    cs_error err = {0};
    const char *bad[] = {"10x", "1.5s", "s", "", "10 s", "10sec", "abc"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cs_conf_set(c, "spark.network.timeout", bad[i]);
        assert_int_equal(
            cs_conf_get_duration_ms(c, "spark.network.timeout", "120s", CS_SEC, &v, &err),
            CS_EINVAL);
        char want[256];
        snprintf(want, sizeof want,
                 "invalid value for spark.network.timeout: '%s' (expected a duration such as "
                 "120s, 500ms or 5min)",
                 bad[i]);
        assert_string_equal(err.msg, want);
    }
    assert_int_equal(v, 9);
    cs_conf_unset(c, "spark.network.timeout");
    assert_int_equal(cs_conf_get_duration_ms(c, "spark.network.timeout", "120s", CS_SEC, &v, &err),
                     CS_OK);
    assert_int_equal(v, 120000);
    assert_int_equal(cs_conf_get_duration_ms(c, "spark.network.timeout", NULL, CS_SEC, &v, &err),
                     CS_ENOTFOUND);
    cs_conf_free(c);
}

static void test_ints(void **state)
{
    cs_conf *c = cs_conf_new();
    int64_t v = 0;
    cs_error err = {0};
    cs_conf_set(c, "spark.executor.cores", " 4 ");
    assert_int_equal(cs_conf_get_int(c, "spark.executor.cores", "1", &v, &err), CS_OK);
    assert_int_equal(v, 4);
    cs_conf_set(c, "n", "-17");
    assert_int_equal(cs_conf_get_int(c, "n", NULL, &v, &err), CS_OK);
    assert_int_equal(v, -17);
    cs_conf_set(c, "n", "+3");
    assert_int_equal(cs_conf_get_int(c, "n", NULL, &v, &err), CS_OK);
    assert_int_equal(v, 3);
    cs_conf_set(c, "n", "9223372036854775807");
    assert_int_equal(cs_conf_get_int(c, "n", NULL, &v, &err), CS_OK);
    assert_true(v == INT64_MAX);
    cs_conf_set(c, "n", "-9223372036854775808");
    assert_int_equal(cs_conf_get_int(c, "n", NULL, &v, &err), CS_OK);
    assert_true(v == INT64_MIN);
    assert_int_equal(cs_conf_get_int(c, "missing", "7", &v, &err), CS_OK);
    assert_int_equal(v, 7);
    v = 1;
    assert_int_equal(cs_conf_get_int(c, "missing", NULL, &v, &err), CS_ENOTFOUND);
    assert_int_equal(v, 1);

    const char *bad[] = {"four", "4.0", "", "4k", "9223372036854775808", "- 1", "0x10"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cs_conf_set(c, "spark.executor.cores", bad[i]);
        assert_int_equal(cs_conf_get_int(c, "spark.executor.cores", "1", &v, &err), CS_EINVAL);
        char want[256];
        snprintf(want, sizeof want,
                 "invalid value for spark.executor.cores: '%s' (expected an integer)", bad[i]);
        assert_string_equal(err.msg, want);
    }
    cs_conf_free(c);
}

static void test_bools(void **state)
{
    cs_conf *c = cs_conf_new();
    bool b = false;
    cs_error err = {0};
    const char *t[] = {"true", "TRUE", "True", " true "};
    for (size_t i = 0; i < 4; i++) {
        cs_conf_set(c, "spark.shuffle.compress", t[i]);
        b = false;
        assert_int_equal(cs_conf_get_bool(c, "spark.shuffle.compress", "false", &b, &err), CS_OK);
        assert_true(b);
    }
    cs_conf_set(c, "spark.shuffle.compress", "False");
    assert_int_equal(cs_conf_get_bool(c, "spark.shuffle.compress", "true", &b, &err), CS_OK);
    assert_false(b);
    const char *bad[] = {"yes", "1", "0", "on", "", "t"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cs_conf_set(c, "spark.eventLog.enabled", bad[i]);
        assert_int_equal(cs_conf_get_bool(c, "spark.eventLog.enabled", "false", &b, &err),
                         CS_EINVAL);
        char want[256];
        snprintf(want, sizeof want,
                 "invalid value for spark.eventLog.enabled: '%s' (expected true or false)", bad[i]);
        assert_string_equal(err.msg, want);
    }
    assert_int_equal(cs_conf_get_bool(c, "nope", "TRUE", &b, &err), CS_OK);
    assert_true(b);
    assert_int_equal(cs_conf_get_bool(c, "nope", NULL, &b, &err), CS_ENOTFOUND);
    cs_conf_free(c);
}

static void test_doubles(void **state)
{
    cs_conf *c = cs_conf_new();
    double d = 0;
    cs_error err = {0};
    assert_int_equal(cs_conf_get_double(c, "spark.memory.fraction", "0.6", &d, &err), CS_OK);
    assert_true(d == 0.6);
    cs_conf_set(c, "spark.memory.fraction", "1e-1");
    assert_int_equal(cs_conf_get_double(c, "spark.memory.fraction", "0.6", &d, &err), CS_OK);
    assert_true(d == 0.1);
    cs_conf_set(c, "spark.memory.fraction", "1");
    assert_int_equal(cs_conf_get_double(c, "spark.memory.fraction", "0.6", &d, &err), CS_OK);
    assert_true(d == 1.0);
    const char *bad[] = {"abc", "", "0.5x", "nan", "inf", "0x1p3", "1e999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cs_conf_set(c, "spark.memory.fraction", bad[i]);
        assert_int_equal(cs_conf_get_double(c, "spark.memory.fraction", "0.6", &d, &err),
                         CS_EINVAL);
        char want[256];
        snprintf(want, sizeof want,
                 "invalid value for spark.memory.fraction: '%s' (expected a number)", bad[i]);
        assert_string_equal(err.msg, want);
    }
    cs_conf_free(c);
}

static void test_redaction(void **state)
{
    assert_string_equal(cs_conf_redact("spark.executor.memory", "4g"), "4g");
    assert_string_equal(cs_conf_redact("spark.authenticate.secret", "s3"), "*********(redacted)");
    assert_string_equal(cs_conf_redact("spark.ssl.keyPassword", "p"), CS_REDACTED);
    assert_string_equal(cs_conf_redact("spark.kubernetes.authenticate.submission.oauthToken", "t"),
                        CS_REDACTED);
    assert_string_equal(cs_conf_redact("spark.hadoop.fs.s3a.access.key", "AK"), CS_REDACTED);
    assert_string_equal(cs_conf_redact("spark.hadoop.fs.s3a.ACCESS.KEY", "AK"), CS_REDACTED);
    assert_string_equal(cs_conf_redact("SECRET_THING", "v"), CS_REDACTED);
    /* access[.]key needs a literal dot */
    assert_string_equal(cs_conf_redact("spark.accessXkey", "v"), "v");
    /* as Spark: a sensitive-looking value is redacted too */
    assert_string_equal(cs_conf_redact("spark.driver.extraJavaOptions", "-Dpassword=x"),
                        CS_REDACTED);
    assert_true(cs_conf_is_sensitive("my.Token"));
    assert_false(cs_conf_is_sensitive("spark.master"));
}

static void test_redaction_regex(void **state)
{
    cs_conf *c = cs_conf_new();
    /* no custom regex: the default applies */
    assert_string_equal(cs_conf_redact_with(c, "spark.my.password", "x"), CS_REDACTED);
    assert_int_equal(cs_conf_check_redaction_regex(c, NULL), CS_OK);
    cs_conf_set(c, "spark.redaction.regex", "(?i)apikey|credential");
    assert_string_equal(cs_conf_redact_with(c, "spark.service.APIKEY", "x"), CS_REDACTED);
    assert_string_equal(cs_conf_redact_with(c, "spark.x", "my-credential"), CS_REDACTED);
    assert_string_equal(cs_conf_redact_with(c, "spark.my.password", "x"), "x");
    cs_conf_set(c, "spark.redaction.regex", "apikey");
    assert_string_equal(cs_conf_redact_with(c, "spark.APIKEY", "x"), "x");
    cs_conf_set(c, "spark.redaction.regex", "(unclosed");
    cs_error err = {0};
    assert_int_equal(cs_conf_check_redaction_regex(c, &err), CS_EINVAL);
    assert_string_equal(err.msg, "invalid value for spark.redaction.regex: '(unclosed' (expected "
                                 "a regular expression)");
    assert_string_equal(cs_conf_redact_with(c, "spark.my.password", "x"), CS_REDACTED);
    cs_conf_free(c);
}

/* A credential of conf_entries.c (spark.connect.authenticate.token) is redacted whatever
 * spark.redaction.regex says: the UI's environment page and the event log never show it. */
static void test_secret_entries_always_redacted(void **state)
{
    assert_true(cs_conf_entry_is_secret("spark.connect.authenticate.token"));
    assert_false(cs_conf_entry_is_secret("spark.master"));
    assert_false(cs_conf_entry_is_secret("spark.no.such.key"));
    assert_true(cs_conf_is_sensitive("spark.connect.authenticate.token"));
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.redaction.regex", "(?i)apikey"); /* matches no "token" */
    assert_string_equal(cs_conf_redact_with(c, "spark.connect.authenticate.token", "t0k3n"),
                        CS_REDACTED);
    assert_string_equal(cs_conf_redact_with(c, "spark.my.token", "x"), "x"); /* the user's rule */
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_basics),
        cmocka_unit_test(test_foreach_sorted),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_size_errors),
        cmocka_unit_test(test_size_defaults),
        cmocka_unit_test(test_durations),
        cmocka_unit_test(test_duration_errors),
        cmocka_unit_test(test_ints),
        cmocka_unit_test(test_bools),
        cmocka_unit_test(test_doubles),
        cmocka_unit_test(test_redaction),
        cmocka_unit_test(test_redaction_regex),
        cmocka_unit_test(test_secret_entries_always_redacted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
