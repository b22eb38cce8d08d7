/*
 * recoveryjobs.c — jobs that show whether a shuffle's map outputs were computed again after an
 * executor went away, built as build/tests/jobs/recoveryjobs.so. Used by
 * tests/k8s/shuffle_recovery.sh (shuffle files recovered from a reused claim).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cspark.h"

typedef struct counted {
    cspark_accumulator acc;
    int ms; /* to sleep per record */
} counted;

/* Counts the records a map task computes in the closure's accumulator, and keys each by its
 * number modulo 8. */
void recovery_counted_key(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    const counted *c = cspark_closure(tc, NULL);
    cspark_accumulator acc = c->acc;
    int ms = c->ms;
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    cspark_long_accumulator_add(tc, acc, 1);
    uint8_t k[8];
    cspark_i64_encode(cspark_slice_i64(in->key) % 8, k);
    cspark_emit(out, k, 8, in->key.ptr, 8);
}

static int collect_sums(cspark_rdd *sums, int job)
{
    cspark_records *r = NULL;
    if (cspark_collect(sums, &r) < 0) return -1;
    int64_t total = 0;
    for (size_t i = 0; i < cspark_records_count(r); i++)
        total += cspark_slice_i64(cspark_records_get(r, i).value);
    printf("job=%d keys=%zu sum=%" PRId64 "\n", job, cspark_records_count(r), total);
    fflush(stdout);
    cspark_records_free(r);
    return 0;
}

/* shuffle_then_wait GO [MS]: one shuffle (range 0..32 in 4 map tasks, each record sleeping MS,
 * default 100; a reduce_by_key into 2 partitions) collected twice: once, then — after the file
 * GO appears (up to 10 minutes) — again. The second job needs the map outputs of the first:
 * those still registered are not computed again. Prints "job=N keys=8 sum=496" per job, then
 * "map_records_computed=C" (32 when no map output was computed twice). */
int shuffle_then_wait(cspark_context *sc, int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: shuffle_then_wait GO [MS]\n");
        return 2;
    }
    counted c = {cspark_long_accumulator(sc, "map records computed"),
                 argc > 2 ? atoi(argv[2]) : 100};
    cspark_rdd *sums = cspark_reduce_by_key(
        cspark_map(cspark_range(sc, 0, 32, 1, 4), recovery_counted_key, &c, sizeof c),
        cspark_sum_i64, NULL, 0, 2);
    if (collect_sums(sums, 1) < 0) return 1;
    printf("waiting for %s\n", argv[1]);
    fflush(stdout);
    for (int i = 0; i < 6000 && access(argv[1], F_OK) != 0; i++)
        usleep(100000);
    if (collect_sums(sums, 2) < 0) return 1;
    printf("map_records_computed=%" PRId64 "\n", cspark_long_accumulator_value(sc, c.acc));
    return 0;
}
