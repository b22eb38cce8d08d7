/*
 * checksum.c — block checksums (see checksum.h): Adler-32 and CRC-32 from zlib, XXH3 from
 * xxhash — on x86-64 through libxxhash's runtime dispatch (AVX-512, AVX2 or SSE2, whichever
 * the CPU has: 2-3x the SSE2 code the compiler would inline for the baseline ISA) — and
 * CRC-32C, which none of cspark's libraries provides: the SSE4.2 crc32 instruction eight bytes
 * at a time when the CPU has it (checked once), else a 256-entry table of the reflected
 * polynomial 0x82F63B78 built on first use. Called by common/recio.c.
 *
 * libxxhash's AVX2 and AVX-512 XXH3 return with the upper halves of the vector registers in use
 * (no vzeroupper). Until something clears them, every legacy-SSE instruction the thread runs
 * next — the floating-point code of user functions, built for the baseline ISA — pays a merge
 * with the dirty upper state: a task's distance loop in examples/kmeans.c ran 4-5x slower after
 * the first shuffle block's checksum. So the XXH3 call is followed by vzeroupper where the CPU
 * has AVX.
 */
#include "records/checksum.h"

#include <pthread.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#if defined(__x86_64__)
#define XXH_DISPATCH_DISABLE_REPLACE
#include <xxh_x86dispatch.h>
#else
#include <xxhash.h>
#endif

int cs_checksum_known(unsigned algo)
{
    return algo == CS_CHECKSUM_ADLER32 || algo == CS_CHECKSUM_CRC32 || algo == CS_CHECKSUM_CRC32C ||
           algo == CS_CHECKSUM_XXH3;
}

const char *cs_checksum_name(cs_checksum_algo algo)
{
    switch (algo) {
    case CS_CHECKSUM_NONE:
        return "NONE";
    case CS_CHECKSUM_ADLER32:
        return "ADLER32";
    case CS_CHECKSUM_CRC32:
        return "CRC32";
    case CS_CHECKSUM_CRC32C:
        return "CRC32C";
    case CS_CHECKSUM_XXH3:
        return "XXH3";
    }
    return "UNKNOWN";
}

int cs_checksum_parse(const char *name, cs_checksum_algo *out, cs_error *err)
{
    static const cs_checksum_algo all[] = {CS_CHECKSUM_ADLER32, CS_CHECKSUM_CRC32,
                                           CS_CHECKSUM_CRC32C, CS_CHECKSUM_XXH3};
    for (size_t i = 0; name && i < sizeof all / sizeof *all; i++)
        if (strcasecmp(name, cs_checksum_name(all[i])) == 0) {
            *out = all[i];
            return 0;
        }
    return cs_error_set(err, CS_EINVAL,
                        "invalid value for spark.shuffle.checksum.algorithm: '%s' (expected "
                        "ADLER32, CRC32, CRC32C or XXH3)",
                        name ? name : "");
}

/* ---- CRC-32C ------------------------------------------------------------------------------- */

static uint32_t crc32c_table[256];
static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;
static int crc32c_hw;

static void crc32c_setup(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        crc32c_table[i] = c;
    }
#if defined(__x86_64__)
    __builtin_cpu_init();
    crc32c_hw = __builtin_cpu_supports("sse4.2");
#endif
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc, const uint8_t *p,
                                                               size_t n)
{
    uint64_t c = crc;
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = __builtin_ia32_crc32di(c, v);
    }
    uint32_t c32 = (uint32_t)c;
    for (; n > 0; p++, n--)
        c32 = __builtin_ia32_crc32qi(c32, *p);
    return c32;
}
#endif

/* crc is the running value (not inverted): callers pass 0 first, as with zlib's crc32. */
static uint32_t crc32c(uint32_t crc, const uint8_t *p, size_t n)
{
    pthread_once(&crc32c_once, crc32c_setup);
    uint32_t c = ~crc;
#if defined(__x86_64__)
    if (crc32c_hw) return ~crc32c_sse42(c, p, n);
#endif
    for (; n > 0; p++, n--)
        c = crc32c_table[(c ^ *p) & 0xff] ^ (c >> 8);
    return ~c;
}

/* ---- XXH3 ---------------------------------------------------------------------------------- */

#if defined(__x86_64__)
static pthread_once_t avx_once = PTHREAD_ONCE_INIT;
static int cpu_has_avx;

static void avx_setup(void)
{
    __builtin_cpu_init();
    cpu_has_avx = __builtin_cpu_supports("avx");
}

__attribute__((target("avx"))) static void clear_upper_vector_state(void)
{
    __builtin_ia32_vzeroupper();
}
#endif

static uint64_t checksum_xxh3(const void *data, size_t len, uint64_t seed)
{
#if defined(__x86_64__)
    uint64_t h = XXH3_64bits_withSeed_dispatch(data, len, seed);
    pthread_once(&avx_once, avx_setup);
    if (cpu_has_avx) clear_upper_vector_state();
    return h;
#else
    return XXH3_64bits_withSeed(data, len, seed);
#endif
}

/* ---- dispatch ------------------------------------------------------------------------------ */

uint32_t cs_checksum_init(cs_checksum_algo algo)
{
    return algo == CS_CHECKSUM_ADLER32 ? 1u : 0u;
}

uint32_t cs_checksum_update(cs_checksum_algo algo, uint32_t state, const void *data, size_t len)
{
    switch (algo) {
    case CS_CHECKSUM_ADLER32:
        return (uint32_t)adler32_z(state, data, len);
    case CS_CHECKSUM_CRC32:
        return (uint32_t)crc32_z(state, data, len);
    case CS_CHECKSUM_CRC32C:
        return crc32c(state, data, len);
    case CS_CHECKSUM_XXH3:
        return (uint32_t)checksum_xxh3(data, len, state);
    case CS_CHECKSUM_NONE:
        break;
    }
    return 0;
}
