/*
 * shufflebench.c — measures shuffle throughput: MB megabytes of 100-byte records are generated
 * in the map tasks (no input file), redistributed all-to-all with repartition (round-robin), and
 * counted; prints the bytes shuffled per second of the whole job. Used by bench/run.sh to
 * measure the network shuffle between executors (local-cluster) against the in-process one.
 *
 *   cspark-submit --master 'local-cluster[2,1,1024]' shufflebench.so [MB] [PARTITIONS]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cspark.h"

#define RECORD_BYTES 100
#define RECORDS_PER_INPUT 1000

/* Each input number becomes RECORDS_PER_INPUT records: an 8-byte key and a 92-byte value. */
void sb_expand(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    int64_t base = cspark_slice_i64(in->key) * RECORDS_PER_INPUT;
    for (int i = 0; i < RECORDS_PER_INPUT; i++) {
        uint8_t *v;
        uint8_t *k = cspark_emit_reserve(out, 8, RECORD_BYTES - 8, &v);
        uint64_t x = (uint64_t)(base + i) * 0x9E3779B97F4A7C15ULL;
        memcpy(k, &x, 8);
        for (int j = 0; j < RECORD_BYTES - 8; j += 8) {
            x ^= x >> 29;
            x *= 0xBF58476D1CE4E5B9ULL;
            memcpy(v + j, &x, (RECORD_BYTES - 8 - j) < 8 ? (size_t)(RECORD_BYTES - 8 - j) : 8);
        }
    }
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    int64_t mb = argc > 1 ? atoll(argv[1]) : 1024;
    int parts = argc > 2 ? atoi(argv[2]) : 2 * cspark_default_parallelism(sc);
    if (mb <= 0 || parts <= 0) {
        fprintf(stderr, "usage: shufflebench.so [MB] [PARTITIONS]\n");
        return 2;
    }
    int64_t inputs = mb * 1000000 / (RECORD_BYTES * RECORDS_PER_INPUT);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int64_t n = 0;
    cspark_rdd *data = cspark_flat_map(cspark_range(sc, 0, inputs, 1, parts), sb_expand, NULL, 0);
    if (cspark_count(cspark_repartition(data, parts), &n) < 0) return 1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    double bytes = (double)n * RECORD_BYTES;
    printf("shufflebench: %" PRId64 " records, %.0f MB shuffled in %.3f s, %.0f MB/s\n", n,
           bytes / 1e6, s, bytes / 1e6 / s);
    return 0;
}
