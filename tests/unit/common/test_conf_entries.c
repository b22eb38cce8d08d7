/* test_conf_entries.c — unit tests for the typed key table (conf_entries.c): each value the
 * hardening pass found accepted or misreported is refused with one message naming the key, the
 * value and what is expected; defaults and in-range values pass; the network timeout is checked
 * for its own range before it is compared with the heartbeat interval. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/conf.h"
#include "common/conf_entries.h"

static void expect_refused(const char *key, const char *value, const char *message)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, key, value);
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_conf_validate(c, &err);
    if (rc != CS_EINVAL || strcmp(err.msg, message) != 0)
        fail_msg("%s=%s: rc %d, message '%s', want '%s'", key, value, rc, err.msg, message);
    cs_conf_free(c);
}

static void expect_accepted(const char *key, const char *value)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, key, value);
    cs_error err;
    cs_error_clear(&err);
    if (cs_conf_validate(c, &err) != CS_OK) fail_msg("%s=%s refused: %s", key, value, err.msg);
    cs_conf_free(c);
}

/* Regression: issue 10 item 22 — values accepted or misreported. */
static void test_values_the_hardening_pass_found(void **state)
{
    expect_refused("spark.driver.port", "70000",
                   "invalid value for spark.driver.port: '70000' (expected a port number between "
                   "0 and 65535)");
    expect_refused("spark.executor.heartbeatInterval", "0",
                   "invalid value for spark.executor.heartbeatInterval: '0' (expected a positive "
                   "duration such as 10s or 500ms)");
    expect_refused("spark.rpc.message.maxSize", "0",
                   "invalid value for spark.rpc.message.maxSize: '0' (expected a size between 1m "
                   "and 2047m)");
    expect_refused("spark.rpc.message.maxSize", "4096",
                   "invalid value for spark.rpc.message.maxSize: '4096' (expected a size between "
                   "1m and 2047m)");
    expect_refused("spark.scheduler.maxRegisteredResourcesWaitingTime", "-1s",
                   "invalid value for spark.scheduler.maxRegisteredResourcesWaitingTime: '-1s' "
                   "(expected a duration of 0 or more such as 0s, 10s or 500ms)");
    expect_refused(
        "spark.executor.memory", "0",
        "invalid value for spark.executor.memory: '0' (expected a size of at least 32m)");
    expect_refused("spark.network.timeout", "-5s",
                   "invalid value for spark.network.timeout: '-5s' (expected a positive duration "
                   "such as 10s or 500ms)");
    expect_refused("spark.default.parallelism", "100000000",
                   "invalid value for spark.default.parallelism: '100000000' (expected an integer "
                   "between 1 and 1000000)");
}

static void test_types_and_ranges(void **state)
{
    expect_refused("spark.executor.instances", "-2",
                   "invalid value for spark.executor.instances: '-2' (expected a non-negative "
                   "integer)");
    expect_refused("spark.executor.cores", "0",
                   "invalid value for spark.executor.cores: '0' (expected a positive integer)");
    expect_refused("spark.executor.cores", "two",
                   "invalid value for spark.executor.cores: 'two' (expected an integer)");
    expect_refused("spark.executor.cores", "99999999999",
                   "invalid value for spark.executor.cores: '99999999999' (expected a positive "
                   "integer)");
    expect_refused("spark.memory.fraction", "0",
                   "invalid value for spark.memory.fraction: '0' (expected a number in (0, 1])");
    expect_refused("spark.memory.storageFraction", "1",
                   "invalid value for spark.memory.storageFraction: '1' (expected a number in "
                   "[0, 1))");
    expect_refused("spark.kubernetes.allocation.batch.size", "0",
                   "invalid value for spark.kubernetes.allocation.batch.size: '0' (expected a "
                   "positive integer)");
    expect_refused("spark.kubernetes.container.image.pullPolicy", "always",
                   "invalid value for spark.kubernetes.container.image.pullPolicy: 'always' "
                   "(expected Always, Never or IfNotPresent)");
    expect_refused(
        "spark.submit.deployMode", "both",
        "invalid value for spark.submit.deployMode: 'both' (expected client or cluster)");
    expect_refused("cspark.kubernetes.client.qps", "0",
                   "invalid value for cspark.kubernetes.client.qps: '0' (expected a number "
                   "greater than 0)");
    expect_refused("spark.eventLog.buffer.kb", "0",
                   "invalid value for spark.eventLog.buffer.kb: '0' (expected a size of at least "
                   "1k)");
    expect_accepted("spark.driver.port", "0");
    expect_accepted("spark.driver.port", "65535");
    expect_accepted("spark.executor.memory", "32m");
    expect_accepted("spark.executor.memory", "2g");
    expect_accepted("spark.network.timeout", "300");
    expect_accepted("spark.dynamicAllocation.executorIdleTimeout", "0s");
    expect_accepted("spark.memory.storageFraction", "0");
    expect_accepted("spark.kubernetes.container.image.pullPolicy", "IfNotPresent");
    expect_accepted("spark.rpc.message.maxSize", "2047");
    expect_accepted("spark.default.parallelism", "1000000");
}

/* The range check comes first: a negative timeout is named as such, not compared. */
static void test_heartbeat_rule(void **state)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.network.timeout", "5s");
    cs_conf_set(c, "spark.executor.heartbeatInterval", "10s");
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_conf_validate(c, &err), CS_EINVAL);
    assert_string_equal(err.msg, "the value of spark.network.timeout=5000ms must be greater than "
                                 "the value of spark.executor.heartbeatInterval=10000ms");
    cs_conf_set(c, "spark.executor.heartbeatInterval", "1s");
    assert_int_equal(cs_conf_validate(c, &err), CS_OK);
    cs_conf_free(c);
}

static void test_every_entry_accepts_a_valid_value(void **state)
{
    int n;
    const cs_conf_entry *e = cs_conf_entries(&n);
    assert_true(n > 80);
    for (int i = 0; i < n; i++) {
        assert_ptr_equal(cs_conf_entry_find(e[i].key), &e[i]); /* no key declared twice */
        const char *v = NULL;
        switch (e[i].type) {
        case CS_CONF_BOOL:
            v = "true";
            break;
        case CS_CONF_INT:
        case CS_CONF_PORT:
            v = "1";
            break;
        case CS_CONF_SIZE:
            v = "64m";
            break;
        case CS_CONF_DURATION:
            v = "30s";
            break;
        case CS_CONF_DOUBLE:
            v = "0.5";
            break;
        case CS_CONF_CHOICE:
            v = NULL;
            break;
        case CS_CONF_STRING:
            v = "any text";
            break;
        }
        if (!v) continue;
        cs_error err;
        cs_error_clear(&err);
        if (cs_conf_entry_check(&e[i], v, &err) != CS_OK)
            fail_msg("%s=%s: %s", e[i].key, v, err.msg);
    }
}

/* An entry's default is a value the entry accepts; the accessors give it when the key is unset,
 * in the entry's unit, the set value otherwise, and refuse a key without an entry of that type. */
static void test_entry_defaults_and_accessors(void **state)
{
    (void)state;
    int n, with_default = 0;
    const cs_conf_entry *e = cs_conf_entries(&n);
    for (int i = 0; i < n; i++) {
        if (!e[i].dflt) continue;
        with_default++;
        cs_error err;
        cs_error_clear(&err);
        if (cs_conf_entry_check(&e[i], e[i].dflt, &err) != CS_OK)
            fail_msg("default of %s: %s", e[i].key, err.msg);
    }
    assert_true(with_default >= 14);
    cs_conf *c = cs_conf_new();
    cs_error err;
    cs_error_clear(&err);
    int64_t v = 0;
    bool b = true;
    double d = 0;
    assert_int_equal(cs_conf_entry_int(c, "spark.executor.cores", &v, &err), CS_OK);
    assert_int_equal(v, 1);
    assert_int_equal(cs_conf_entry_duration_ms(c, "spark.network.timeout", &v, &err), CS_OK);
    assert_int_equal(v, 120000);
    assert_int_equal(cs_conf_entry_size(c, "spark.rpc.message.maxSize", &v, &err), CS_OK);
    assert_int_equal(v, 128 * CS_MiB);
    assert_int_equal(cs_conf_entry_bool(c, "spark.dynamicAllocation.enabled", &b, &err), CS_OK);
    assert_false(b);
    assert_int_equal(cs_conf_entry_double(c, "spark.memory.fraction", &d, &err), CS_OK);
    assert_true(d > 0.59 && d < 0.61);
    cs_conf_set(c, "spark.network.timeout", "30"); /* seconds, the entry's unit */
    assert_int_equal(cs_conf_entry_duration_ms(c, "spark.network.timeout", &v, &err), CS_OK);
    assert_int_equal(v, 30000);
    v = 7; /* no default: untouched */
    assert_int_equal(cs_conf_entry_int(c, "spark.cores.max", &v, &err), CS_ENOTFOUND);
    assert_int_equal(v, 7);
    assert_int_equal(cs_conf_entry_int(c, "spark.made.up", &v, &err), CS_EINVAL);
    assert_int_equal(cs_conf_entry_bool(c, "spark.executor.cores", &b, &err), CS_EINVAL);
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_the_hardening_pass_found),
        cmocka_unit_test(test_types_and_ranges),
        cmocka_unit_test(test_heartbeat_rule),
        cmocka_unit_test(test_every_entry_accepts_a_valid_value),
        cmocka_unit_test(test_entry_defaults_and_accessors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
