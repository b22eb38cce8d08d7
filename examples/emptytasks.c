/*
 * emptytasks.c — scheduler throughput benchmark: one job of N nearly empty tasks.
 *
 * Spark equivalent:  sc.range(0, n, 1, n).count()   // n partitions of one element each
 *
 * Runs count() over range(0, N) in N partitions (one record per task, so each task does the
 * minimum of real work), checks the count, and prints
 *     emptytasks: N tasks in S s, T tasks/s
 * Usage: emptytasks.so [N] (default 100000).
 */
#include <cspark.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    long n = 100000;
    if (argc > 2) {
        fprintf(stderr, "usage: emptytasks.so [N]\n");
        return 2;
    }
    if (argc == 2) {
        char *end;
        errno = 0;
        n = strtol(argv[1], &end, 10);
        if (errno || *end || end == argv[1] || n < 1 || n > 10000000) {
            fprintf(stderr, "usage: emptytasks.so [N]  (N: 1 to 10000000 tasks)\n");
            return 2;
        }
    }
    double t0 = now_s();
    int64_t count = -1;
    if (cspark_count(cspark_range(sc, 0, n, 1, (int)n), &count) < 0) {
        /* cspark-submit prints the reason (cspark_last_error) as its last line */
        return 1;
    }
    double dt = now_s() - t0;
    if (count != n) {
        fprintf(stderr, "emptytasks: counted %" PRId64 " records, expected %ld\n", count, n);
        return 1;
    }
    printf("emptytasks: %ld tasks in %.3f s, %.0f tasks/s\n", n, dt, (double)n / dt);
    return 0;
}
