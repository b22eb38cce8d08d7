/*
 * tinyjobs.c — job latency benchmark: N tiny jobs run one after the other.
 *
 * Spark equivalent:  for (_ <- 1 to n) sc.range(0, 100, 1, 2).count()   // time each
 *
 * Each job counts range(0, 100) over 2 partitions (a fresh lineage every time, so nothing is
 * reused), and its wall-clock latency is recorded. Prints
 *     tinyjobs: N jobs, median M us, p90 P us, min A us, max B us
 * Usage: tinyjobs.so [N] (default 1000).
 */
#include <cspark.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    long n = 1000;
    if (argc > 2) {
        fprintf(stderr, "usage: tinyjobs.so [N]\n");
        return 2;
    }
    if (argc == 2) {
        char *end;
        errno = 0;
        n = strtol(argv[1], &end, 10);
        if (errno || *end || end == argv[1] || n < 1 || n > 10000000) {
            fprintf(stderr, "usage: tinyjobs.so [N]  (N: 1 to 10000000 jobs)\n");
            return 2;
        }
    }
    int64_t *lat = malloc((size_t)n * sizeof *lat);
    if (!lat) return 1;
    for (long i = 0; i < n; i++) {
        int64_t t0 = now_ns(), count = -1;
        if (cspark_count(cspark_range(sc, 0, 100, 1, 2), &count) < 0 || count != 100) {
            const char *e = cspark_last_error(sc);
            fprintf(stderr, "tinyjobs: job %ld failed: %s\n", i,
                    e ? e : (count != 100 ? "wrong count" : "unknown error"));
            free(lat);
            return 1;
        }
        lat[i] = (now_ns() - t0) / 1000;
    }
    qsort(lat, (size_t)n, sizeof *lat, cmp_i64);
    /* median: lower middle; p90: nearest rank, ceil(0.9 n). */
    printf("tinyjobs: %ld jobs, median %" PRId64 " us, p90 %" PRId64 " us, min %" PRId64
           " us, max %" PRId64 " us\n",
           n, lat[(n - 1) / 2], lat[(9 * n + 9) / 10 - 1], lat[0], lat[n - 1]);
    free(lat);
    return 0;
}
