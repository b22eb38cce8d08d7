/* test_token_bucket.c — unit tests for the token bucket (src/common/token_bucket.c) that paces
 * the Kubernetes client (qps/burst) and the pod allocator (maxCreateRate): a full bucket lets a
 * burst through, then one token per 1/rate, never more than the burst after idling, a rate of 0
 * means unlimited. Every time is explicit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/token_bucket.h"

static void test_burst_then_rate(void **state)
{
    (void)state;
    cs_token_bucket b;
    cs_token_bucket_init(&b, 2, 2, 0); /* 2 per second, burst 2 */
    assert_int_equal(cs_token_bucket_take(&b, 0), 0);
    assert_int_equal(cs_token_bucket_take(&b, 0), 0);
    assert_int_equal(cs_token_bucket_take(&b, 0), 500); /* one token per 500 ms */
    assert_int_equal(cs_token_bucket_take(&b, 250), 250);
    assert_int_equal(cs_token_bucket_take(&b, 500), 0);
    /* idle for long: never more than the burst */
    assert_int_equal(cs_token_bucket_take(&b, 100000), 0);
    assert_int_equal(cs_token_bucket_take(&b, 100000), 0);
    assert_true(cs_token_bucket_take(&b, 100000) > 0);
}

/* The Kubernetes client's case: burst 1 at 20 qps lets 11 requests through in 500 ms. */
static void test_eleven_requests_at_20_qps(void **state)
{
    (void)state;
    cs_token_bucket b;
    cs_token_bucket_init(&b, 20, 1, 1000);
    int64_t now = 1000;
    for (int i = 0; i < 11; i++) {
        int64_t wait;
        while ((wait = cs_token_bucket_take(&b, now)) > 0)
            now += wait;
    }
    assert_int_equal(now - 1000, 500);
}

static void test_unlimited_and_small_rates(void **state)
{
    (void)state;
    cs_token_bucket b;
    cs_token_bucket_init(&b, 0, 1, 0); /* off */
    for (int i = 0; i < 1000; i++)
        assert_int_equal(cs_token_bucket_take(&b, 0), 0);
    cs_token_bucket_init(&b, 0.5, 0.5, 0); /* a burst below 1 still lets one through */
    assert_int_equal(cs_token_bucket_take(&b, 0), 0);
    assert_int_equal(cs_token_bucket_take(&b, 0), 2000);
    assert_int_equal(cs_token_bucket_take(&b, 2000), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_burst_then_rate),
        cmocka_unit_test(test_eleven_requests_at_20_qps),
        cmocka_unit_test(test_unlimited_and_small_rates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
