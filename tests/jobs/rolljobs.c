/*
 * rolljobs.c — a job that runs long enough for executors to be rolled under it, built as
 * build/tests/jobs/rolljobs.so. Used by tests/k8s/executor_roll.sh.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cspark.h"

/* Sleeps the closure's milliseconds, then keys the record by its number modulo 10. */
void roll_slow_key(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len;
    const int *ms = cspark_closure(tc, &len);
    int wait = len == sizeof(int) ? *ms : 100;
    struct timespec ts = {wait / 1000, (long)(wait % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    uint8_t k[8];
    cspark_i64_encode(cspark_slice_i64(in->key) % 10, k);
    cspark_emit(out, k, 8, in->key.ptr, 8);
}

/* rolling_rounds MAX MS [STOP]: up to MAX jobs, one after the other — fewer when the file STOP
 * appears (the test makes it once it saw what it waits for) — each a map stage of 8 tasks (10
 * records of MS each) and a reduce_by_key into 4 partitions, collected: 10 keys summing to
 * 0 + 1 + ... + 79 = 3160. Prints "round=I keys=K sum=S" per job, then "rounds=N exact=E". */
int rolling_rounds(cspark_context *sc, int argc, char **argv)
{
    int max = argc > 1 ? atoi(argv[1]) : 5;
    int ms = argc > 2 ? atoi(argv[2]) : 50;
    const char *stop = argc > 3 ? argv[3] : NULL;
    int exact = 0, rounds = 0;
    for (int i = 0; i < max; i++) {
        if (stop && access(stop, F_OK) == 0) break;
        rounds++;
        cspark_rdd *sums = cspark_reduce_by_key(
            cspark_map(cspark_range(sc, 0, 80, 1, 8), roll_slow_key, &ms, sizeof ms),
            cspark_sum_i64, NULL, 0, 4);
        cspark_records *r = NULL;
        if (cspark_collect(sums, &r) < 0) return 1;
        int64_t total = 0;
        for (size_t j = 0; j < cspark_records_count(r); j++)
            total += cspark_slice_i64(cspark_records_get(r, j).value);
        printf("round=%d keys=%zu sum=%" PRId64 "\n", i, cspark_records_count(r), total);
        fflush(stdout);
        if (cspark_records_count(r) == 10 && total == 3160) exact++;
        cspark_records_free(r);
    }
    printf("rounds=%d exact=%d\n", rounds, exact);
    return 0;
}
