/* test_localaddr.c — cs_local_address: SPARK_LOCAL_IP wins; otherwise the address is never a
 * loopback one when this machine has an interface with another IPv4 address (client mode once
 * defaulted spark.driver.host to 127.0.0.1, which executors on other nodes cannot reach); the
 * loopback and wildcard addresses are one of each family's; host:port brackets IPv6 addresses.
 * The IPv6-only namespace is tested end to end by tests/integration/ipv6_only.sh. */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/localaddr.h"

static void spark_local_ip_wins(void **state)
{
    (void)state;
    char out[64];
    setenv("SPARK_LOCAL_IP", "192.0.2.7", 1);
    cs_local_address(out, sizeof out);
    unsetenv("SPARK_LOCAL_IP");
    assert_string_equal(out, "192.0.2.7");
}

static int machine_has_non_loopback_ipv4(void)
{
    struct ifaddrs *ifs = NULL;
    int found = 0;
    if (getifaddrs(&ifs) != 0) return 0;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP)) continue;
        uint32_t a = ntohl(((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr);
        if ((a >> 24) != 127 && (a >> 16) != 0xA9FE) found = 1;
    }
    freeifaddrs(ifs);
    return found;
}

static void client_mode_driver_host_is_not_loopback(void **state)
{
    (void)state;
    char out[64];
    unsetenv("SPARK_LOCAL_IP");
    cs_local_address(out, sizeof out);
    struct in_addr a;
    struct in6_addr a6;
    if (machine_has_non_loopback_ipv4()) {
        assert_int_equal(inet_pton(AF_INET, out, &a), 1);
        assert_int_not_equal(ntohl(a.s_addr) >> 24, 127);
    } else { /* an IPv6-only machine: one of its IPv6 addresses, else the loopback */
        assert_true(inet_pton(AF_INET, out, &a) == 1 || inet_pton(AF_INET6, out, &a6) == 1);
    }
}

static void loopback_and_wildcard_can_be_bound(void **state)
{
    (void)state;
    const char *lo = cs_loopback_address(), *any = cs_wildcard_address();
    assert_true(strcmp(lo, "127.0.0.1") == 0 || strcmp(lo, "::1") == 0);
    assert_true(strcmp(any, "0.0.0.0") == 0 || strcmp(any, "::") == 0);
    assert_ptr_equal(cs_loopback_address(), lo); /* probed once */
}

static void host_port_brackets_ipv6(void **state)
{
    (void)state;
    char out[64];
    cs_host_port(out, sizeof out, "10.0.0.7", 7078);
    assert_string_equal(out, "10.0.0.7:7078");
    cs_host_port(out, sizeof out, "fd00::1:5", 7078);
    assert_string_equal(out, "[fd00::1:5]:7078");
    cs_host_port(out, sizeof out, "drv.ns.svc", 4040);
    assert_string_equal(out, "drv.ns.svc:4040");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(spark_local_ip_wins),
        cmocka_unit_test(client_mode_driver_host_is_not_loopback),
        cmocka_unit_test(loopback_and_wildcard_can_be_bound),
        cmocka_unit_test(host_port_brackets_ipv6),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
