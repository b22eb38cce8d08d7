/*
 * decomjobs.c — jobs for the decommissioning tests (tests/integration/decommission_*.sh,
 * tests/s3/fallback_storage.sh), built as build/tests/jobs/decomjobs.so and selected with
 * --class. Each waits between two actions for a file the script creates once it has
 * decommissioned an executor, so that the second action runs after the executor has left.
 *
 *   shuffle_gate PARTS GATE    n -> (n mod 10, 1) over 1000 numbers in PARTS partitions, summed
 *                              by key into PARTS partitions: counted ("first keys=10"), then,
 *                              once the file GATE exists (at most 180 s), collected again from
 *                              the same map outputs: "second keys=10 sum=1000"
 */
#include <cspark.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* n -> (n mod 10, 1) */
void dj_key(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint8_t k[8], v[8];
    cspark_i64_encode(cspark_slice_i64(in->key) % 10, k);
    cspark_i64_encode(1, v);
    cspark_emit(out, k, 8, v, 8);
}

static void wait_for(const char *path, int seconds)
{
    struct timespec tick = {0, 100 * 1000 * 1000};
    for (int i = 0; i < seconds * 10; i++) {
        FILE *f = fopen(path, "r");
        if (f) {
            fclose(f);
            return;
        }
        nanosleep(&tick, NULL);
    }
}

int shuffle_gate(cspark_context *sc, int argc, char **argv)
{
    if (argc != 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: shuffle_gate PARTS GATE\n");
        return 2;
    }
    int parts = atoi(argv[1]);
    cspark_rdd *sums =
        cspark_reduce_by_key(cspark_map(cspark_range(sc, 0, 1000, 1, parts), dj_key, NULL, 0),
                             cspark_sum_i64, NULL, 0, parts);
    int64_t n = 0;
    if (cspark_count(sums, &n) < 0) {
        fprintf(stderr, "shuffle_gate: count failed: %s\n", cspark_last_error(sc));
        return 1;
    }
    printf("first keys=%lld\n", (long long)n);
    fflush(stdout);
    wait_for(argv[2], 180);
    cspark_records *rs = NULL;
    if (cspark_collect(sums, &rs) < 0) {
        fprintf(stderr, "shuffle_gate: collect failed: %s\n", cspark_last_error(sc));
        return 1;
    }
    int64_t total = 0;
    for (size_t i = 0; i < cspark_records_count(rs); i++)
        total += cspark_slice_i64(cspark_records_get(rs, i).value);
    printf("second keys=%zu sum=%lld\n", cspark_records_count(rs), (long long)total);
    cspark_records_free(rs);
    return 0;
}
