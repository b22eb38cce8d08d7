/*
 * topk.c — benchmark: the K largest of N generated records, by top (a bounded heap per task) or
 * by a full sort (sort_by_key descending, then take K), or only counted (the cost of generating
 * the records, the baseline both add to).
 *
 * Spark equivalent:
 *     val recs = sc.range(0, n, 1, parts).map(i => (mix64(i), payload(i)))
 *     recs.top(k)                                   // mode "top"
 *     recs.sortByKey(false).take(k)                 // mode "sort"
 *     recs.count()                                  // mode "count"
 *
 * Each record is a key of 8 bytes (a splitmix64 hash of its index, cspark_i64-encoded, so keys
 * are distinct and unordered) and a 24-byte value. Prints the K records' keys (the same for top
 * and sort) and "MODE N records K: S s". bench/top_k.sh runs it under peak_rss.
 * Usage: topk.so MODE N [K (10)] [PARTITIONS (0 = default)]
 */
#include <cspark.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t topk_mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ULL;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void topk_record(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    int64_t i = cspark_slice_i64(in->key);
    uint8_t *v;
    uint8_t *k = cspark_emit_reserve(out, 8, 24, &v);
    cspark_i64_encode((int64_t)topk_mix((uint64_t)i), k);
    memset(v, 'v', 24);
    memcpy(v, &i, 8);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int cspark_main(cspark_context *sc, int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: topk.so top|sort|count N [K] [PARTITIONS]\n");
        return 2;
    }
    const char *mode = argv[1];
    int64_t n = strtoll(argv[2], NULL, 10);
    size_t k = argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 10;
    int parts = argc > 4 ? atoi(argv[4]) : 0;
    cspark_rdd *recs = cspark_map(cspark_range(sc, 0, n, 1, parts), topk_record, NULL, 0);
    double t0 = now();
    cspark_records *r = NULL;
    int rc;
    if (!strcmp(mode, "top")) {
        rc = cspark_top(recs, k, &r);
    } else if (!strcmp(mode, "sort")) {
        rc = cspark_take(cspark_sort_by_key(recs, false, 0), k, &r);
    } else if (!strcmp(mode, "count")) {
        int64_t c = 0;
        rc = cspark_count(recs, &c);
        printf("%" PRId64 " records\n", c);
    } else {
        fprintf(stderr, "usage: topk.so top|sort|count N [K] [PARTITIONS]\n");
        return 2;
    }
    if (rc < 0) return 1;
    for (size_t i = 0; i < cspark_records_count(r); i++)
        printf("%" PRId64 "\n", cspark_slice_i64(cspark_records_get(r, i).key));
    cspark_records_free(r);
    printf("%s %" PRId64 " records %zu: %.2f s\n", mode, n, k, now() - t0);
    return 0;
}
