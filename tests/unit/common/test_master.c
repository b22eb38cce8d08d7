/* test_master.c — unit tests for master URL parsing (master.c): every accepted form, the
 * normalised k8s API URL, and the exact messages for malformed URLs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/master.h"

static cs_master ok(const char *url)
{
    cs_master m;
    cs_error err = {0};
    if (cs_master_parse(url, &m, &err) != CS_OK) fail_msg("'%s' rejected: %s", url, err.msg);
    return m;
}

static void test_local(void **state)
{
    cs_master m = ok("local");
    assert_int_equal(m.kind, MASTER_LOCAL);
    assert_int_equal(m.threads, 1);
    assert_int_equal(m.max_failures, 0);
    m = ok("local[4]");
    assert_int_equal(m.kind, MASTER_LOCAL);
    assert_int_equal(m.threads, 4);
    assert_int_equal(m.max_failures, 0);
    m = ok("local[*]");
    assert_int_equal(m.threads, (int)sysconf(_SC_NPROCESSORS_ONLN));
    m = ok("local[3,2]");
    assert_int_equal(m.threads, 3);
    assert_int_equal(m.max_failures, 2);
    m = ok("local[*, 5]");
    assert_int_equal(m.threads, (int)sysconf(_SC_NPROCESSORS_ONLN));
    assert_int_equal(m.max_failures, 5);
    assert_string_equal(cs_master_kind_name(m.kind), "local");
}

static void test_local_cluster(void **state)
{
    cs_master m = ok("local-cluster[2,1,1024]");
    assert_int_equal(m.kind, MASTER_LOCAL_CLUSTER);
    assert_int_equal(m.executors, 2);
    assert_int_equal(m.cores_per_executor, 1);
    assert_int_equal(m.memory_mb, 1024);
    m = ok("local-cluster[ 3 , 2 , 512 ]");
    assert_int_equal(m.executors, 3);
    assert_int_equal(m.cores_per_executor, 2);
    assert_int_equal(m.memory_mb, 512);
    assert_string_equal(cs_master_kind_name(m.kind), "local-cluster");
}

static void test_k8s(void **state)
{
    cs_master m = ok("k8s://https://api.example.com:6443");
    assert_int_equal(m.kind, MASTER_K8S);
    assert_string_equal(m.api_url, "https://api.example.com:6443");
    m = ok("k8s://api:6443");
    assert_string_equal(m.api_url, "https://api:6443");
    m = ok("k8s://HTTPS://10.0.0.1:443/");
    assert_string_equal(m.api_url, "https://10.0.0.1:443");
    m = ok("k8s://http://127.0.0.1:8080");
    assert_string_equal(m.api_url, "http://127.0.0.1:8080");
    m = ok("k8s://https://[::1]:6443");
    assert_string_equal(m.api_url, "https://[::1]:6443");
    assert_string_equal(cs_master_kind_name(m.kind), "k8s");
}

static void expect_error(const char *url, const char *msg)
{
    cs_master m;
    cs_error err = {0};
    assert_int_equal(cs_master_parse(url, &m, &err), CS_EINVAL);
    assert_int_equal(err.code, CS_EINVAL);
    if (strcmp(err.msg, msg) != 0) fail_msg("for '%s' got \"%s\", want \"%s\"", url, err.msg, msg);
}

#define GENERIC(u)                                                                                 \
    "invalid master URL '" u "': expected local, local[N], local[*], local[N,F], "                 \
    "local-cluster[N,C,M] or k8s://https://host:port"

static void test_invalid(void **state)
{
    expect_error("xyz", GENERIC("xyz"));
    expect_error("", GENERIC(""));
    expect_error("yarn", GENERIC("yarn"));
    expect_error("spark://host:7077", GENERIC("spark://host:7077"));
    expect_error("local[", GENERIC("local["));
    expect_error("local[]", GENERIC("local[]"));
    expect_error("local[x]", GENERIC("local[x]"));
    expect_error("local[2", GENERIC("local[2"));
    expect_error("local[2]x", GENERIC("local[2]x"));
    expect_error("local[-1]", GENERIC("local[-1]"));
    expect_error("local[2,]", GENERIC("local[2,]"));
    expect_error("local[2,*]", GENERIC("local[2,*]"));
    expect_error("LOCAL", GENERIC("LOCAL"));
    expect_error("local-cluster[2,1]", GENERIC("local-cluster[2,1]"));
    expect_error("local-cluster[*,1,1024]", GENERIC("local-cluster[*,1,1024]"));
    expect_error("local[99999999999]", GENERIC("local[99999999999]"));
    expect_error("local[0]", "invalid master URL 'local[0]': asked to run locally with 0 threads "
                             "(expected at least 1)");
    expect_error("local[2,0]",
                 "invalid master URL 'local[2,0]': max task failures must be at least 1");
    expect_error("local-cluster[0,1,1024]", "invalid master URL 'local-cluster[0,1,1024]': "
                                            "executors, cores and memory (MiB) must all be "
                                            "positive");
    expect_error("k8s://https://h", "invalid master URL 'k8s://https://h': the Kubernetes API "
                                    "server port is missing (expected k8s://https://host:port)");
    expect_error("k8s://h", "invalid master URL 'k8s://h': the Kubernetes API server port is "
                            "missing (expected k8s://https://host:port)");
    expect_error("k8s://", "invalid master URL 'k8s://': the Kubernetes API server host is "
                           "missing (expected k8s://https://host:port)");
    expect_error("k8s://https://:6443", "invalid master URL 'k8s://https://:6443': the "
                                        "Kubernetes API server host is missing (expected "
                                        "k8s://https://host:port)");
    expect_error("k8s://ftp://h:1", "invalid master URL 'k8s://ftp://h:1': unsupported "
                                    "Kubernetes API scheme 'ftp' (expected "
                                    "k8s://https://host:port)");
    expect_error("k8s://https://h:0", "invalid master URL 'k8s://https://h:0': invalid "
                                      "Kubernetes API server port '0' (expected 1-65535)");
    expect_error("k8s://https://h:70000", "invalid master URL 'k8s://https://h:70000': invalid "
                                          "Kubernetes API server port '70000' (expected "
                                          "1-65535)");
    expect_error("k8s://https://h:64x", "invalid master URL 'k8s://https://h:64x': invalid "
                                        "Kubernetes API server port '64x' (expected 1-65535)");
    expect_error("k8s://https://h/api:6443", "invalid master URL 'k8s://https://h/api:6443': "
                                             "expected k8s://https://host:port (no user, path "
                                             "or query)");
    cs_master m;
    assert_int_equal(cs_master_parse(NULL, &m, NULL), CS_EINVAL);
    assert_int_equal(cs_master_parse("bad", &m, NULL), CS_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_local),
        cmocka_unit_test(test_local_cluster),
        cmocka_unit_test(test_k8s),
        cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
