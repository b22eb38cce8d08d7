/* test_driver_url.c — cs_executor_parse_driver_url: Spark's
 * spark://CoarseGrainedScheduler@host:port with a name, an IPv4 address, or an IPv6 address in
 * brackets (an IPv6-only cluster's driver); the scheme and name part may be left out; a missing or
 * bad port, an unclosed bracket or a host too long for the buffer are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/err.h"
#include "exec/executor.h"

static void parses(const char *url, const char *host, int port)
{
    char h[64] = "";
    int p = 0;
    assert_int_equal(cs_executor_parse_driver_url(url, h, sizeof h, &p), 0);
    assert_string_equal(h, host);
    assert_int_equal(p, port);
}

static void refused(const char *url, size_t cap)
{
    char h[64];
    int p = 0;
    assert_int_equal(cs_executor_parse_driver_url(url, h, cap, &p), CS_EINVAL);
}

static void test_forms(void **state)
{
    (void)state;
    parses("spark://CoarseGrainedScheduler@drv.ns.svc:7078", "drv.ns.svc", 7078);
    parses("spark://CoarseGrainedScheduler@10.1.2.3:40000", "10.1.2.3", 40000);
    parses("spark://CoarseGrainedScheduler@[fd00::1:5]:7078", "fd00::1:5", 7078);
    parses("[::1]:1234", "::1", 1234);
    parses("localhost:1", "localhost", 1);
}

static void test_refusals(void **state)
{
    (void)state;
    refused("spark://CoarseGrainedScheduler@drv", 64);
    refused("spark://CoarseGrainedScheduler@drv:0", 64);
    refused("spark://CoarseGrainedScheduler@drv:70000", 64);
    refused("spark://CoarseGrainedScheduler@[fd00::1:7078", 64);
    refused("spark://CoarseGrainedScheduler@[]:7078", 64);
    refused("spark://CoarseGrainedScheduler@[::1]7078", 64);
    refused("spark://CoarseGrainedScheduler@a-rather-long-host-name:7078", 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
