/*
 * memtune.c — see memtune.h. Environment settings (MALLOC_MMAP_THRESHOLD_ and friends) still
 * win: a value given there is left alone.
 */
#include "common/memtune.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "common/err.h"

#if defined(__SANITIZE_ADDRESS__)
#define MEMTUNE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MEMTUNE_ASAN 1
#endif
#endif
#ifndef MEMTUNE_ASAN
#define MEMTUNE_ASAN 0
#endif

void cs_memtune_init(void)
{
#ifdef M_MMAP_THRESHOLD
    if (!getenv("MALLOC_MMAP_THRESHOLD_")) mallopt(M_MMAP_THRESHOLD, 64 << 20);
    if (!getenv("MALLOC_TRIM_THRESHOLD_")) mallopt(M_TRIM_THRESHOLD, 256 << 20);
    if (!getenv("MALLOC_TOP_PAD_")) mallopt(M_TOP_PAD, 16 << 20);
#endif
}

int64_t cs_memtune_data_limit(int64_t memory_mb, int task_threads)
{
    int64_t overhead = memory_mb / 10 > 384 ? memory_mb / 10 : 384;
    int64_t mb = memory_mb + overhead + 256 + 16 * (int64_t)(task_threads > 0 ? task_threads : 1);
    return mb << 20;
}

bool cs_memtune_can_limit_data(void)
{
    return !MEMTUNE_ASAN;
}

/* VmData of /proc/self/status in bytes (what RLIMIT_DATA counts), or -1. */
static int64_t data_in_use(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (!f) return -1;
    char line[256];
    long long kb = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmData: %lld kB", &kb) == 1) break;
    fclose(f);
    return kb < 0 ? -1 : (int64_t)kb << 10;
}

/* The soft limit this file set last (0: none), so a second context may raise it again. */
static rlim_t limit_set_here;

int cs_memtune_limit_self(int64_t limit_bytes, const char **why)
{
    static char reason[96];
    if (!cs_memtune_can_limit_data()) {
        *why = "not in a sanitizer build";
        return 1;
    }
    struct rlimit rl;
    if (getrlimit(RLIMIT_DATA, &rl) < 0) return CS_EIO;
    rlim_t want = (rlim_t)limit_bytes;
    if (rl.rlim_max != RLIM_INFINITY && want > rl.rlim_max) want = rl.rlim_max;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur != limit_set_here && rl.rlim_cur <= want) {
        *why = "a lower limit is already set";
        return 1;
    }
    /* a limit below what is already mapped would make every later allocation fail */
    int64_t used = data_in_use();
    if (used < 0 || used + 64 * 1024 * 1024 > (int64_t)want) {
        snprintf(reason, sizeof reason, "the process already uses %lld MiB of data",
                 (long long)(used >> 20));
        *why = reason;
        return 1;
    }
    rl.rlim_cur = want;
    if (setrlimit(RLIMIT_DATA, &rl) < 0) return CS_EIO;
    limit_set_here = want;
    return 0;
}
