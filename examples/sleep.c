/*
 * sleep.c — the classic scheduler benchmark (HiBench's and Thrill's "sleep"): a stage of one task,
 * then a shuffle into a stage of TASKS tasks that each sleep MILLIS milliseconds. It does no real
 * work, so it shows what the scheduler does: how fast tasks start, and with dynamic allocation how
 * executors are requested while tasks wait and released when they sit idle.
 *
 * Spark equivalent:
 *
 *     val n = sc.parallelize(0 until tasks, 1).repartition(tasks)
 *       .mapPartitions { it => Thread.sleep(millis); Iterator(1) }.count()
 *     println(s"tasks run: $n")
 *
 * Usage: sleep.so TASKS MILLIS [LINGER_MS]. LINGER_MS (default 0) keeps the application alive
 * that long after the job, so that idle executors can be seen going away before it stops.
 */
#include <cspark.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void sleep_ms(int64_t ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* mapPartitions { it => Thread.sleep(millis); Iterator(1) }: the records are not even read. */
void sleep_task(cspark_iterator *in, cspark_emitter *out, cspark_task_context *tc)
{
    (void)in;
    int64_t millis = 0;
    size_t len = 0;
    const void *c = cspark_closure(tc, &len);
    if (len == sizeof millis) memcpy(&millis, c, sizeof millis);
    sleep_ms(millis);
    uint8_t *v;
    cspark_emit_reserve(out, 0, 8, &v);
    cspark_i64_encode(1, v);
}

static int parse(const char *s, long long lo, long long hi, long long *out)
{
    char *end;
    errno = 0;
    *out = strtoll(s, &end, 10);
    return errno || *end || end == s || *out < lo || *out > hi ? -1 : 0;
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    long long tasks, millis, linger = 0;
    if (argc < 3 || argc > 4 || parse(argv[1], 1, 1000000, &tasks) < 0 ||
        parse(argv[2], 0, 86400000, &millis) < 0 ||
        (argc == 4 && parse(argv[3], 0, 86400000, &linger) < 0)) {
        fprintf(stderr, "usage: sleep.so TASKS MILLIS [LINGER_MS]  (TASKS from 1 to 1000000, "
                        "MILLIS and LINGER_MS from 0 to 86400000)\n");
        return 2;
    }
    int64_t ms = millis;
    /* parallelize(0 until tasks, 1).repartition(tasks).mapPartitions(sleep).count() */
    cspark_rdd *slept =
        cspark_map_partitions(cspark_repartition(cspark_range(sc, 0, tasks, 1, 1), (int)tasks),
                              sleep_task, &ms, sizeof ms);
    int64_t n = 0;
    if (cspark_count(slept, &n) < 0) {
        /* cspark-submit prints the reason (cspark_last_error) as its last line */
        return 1;
    }
    printf("tasks run: %lld\n", (long long)n);
    fflush(stdout);
    if (linger > 0) sleep_ms(linger);
    return 0;
}
