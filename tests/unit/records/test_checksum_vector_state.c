/* test_checksum_vector_state.c — regression test for src/records/checksum.c: an XXH3 checksum
 * (libxxhash's AVX2/AVX-512 code) must not return with the upper halves of the vector registers
 * in use. Left dirty, they made every legacy-SSE instruction of the thread's next user function
 * pay a merge: examples/kmeans.c's distance loop ran 4-5x slower in every task after the first
 * shuffle block's checksum. The state is read directly (XGETBV with ECX=1, the XINUSE bitmap:
 * bit 2 the upper halves of YMM0-15, bit 6 those of ZMM0-15), so nothing here is timed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "records/checksum.h"

#if defined(__x86_64__)
#include <cpuid.h>

#define XINUSE_UPPER_VECTOR_STATE ((1u << 2) | (1u << 6))

/* XGETBV with ECX=1 exists (CPUID.(EAX=0DH,ECX=1):EAX bit 2) and the CPU has AVX. */
static int can_read_xinuse(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_AVX) || !(c & bit_OSXSAVE)) return 0;
    if (__get_cpuid_max(0, NULL) < 0xd) return 0;
    __cpuid_count(0xd, 1, a, b, c, d);
    return (a >> 2) & 1;
}

static uint64_t xinuse(void)
{
    uint32_t lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
    return (uint64_t)hi << 32 | lo;
}

static void test_xxh3_leaves_upper_vector_state_clean(void **state)
{
    (void)state;
    if (!can_read_xinuse()) skip(); /* no AVX: no upper state to leave dirty */
    static uint8_t block[1 << 16];
    memset(block, 0x5a, sizeof block);
    for (size_t len = 64; len <= sizeof block; len *= 4) { /* short and long inputs */
        uint32_t sum = cs_checksum_update(CS_CHECKSUM_XXH3, 0, block, len);
        uint64_t in_use = xinuse();
        assert_int_equal(in_use & XINUSE_UPPER_VECTOR_STATE, 0);
        assert_int_equal(sum, cs_checksum_update(CS_CHECKSUM_XXH3, 0, block, len));
    }
}
#else
static void test_xxh3_leaves_upper_vector_state_clean(void **state)
{
    (void)state;
    skip(); /* only x86-64 has the legacy-SSE/AVX state transition */
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xxh3_leaves_upper_vector_state_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
