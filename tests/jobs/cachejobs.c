/*
 * cachejobs.c — jobs for tests/integration/cache_*.sh (persist, cache, unpersist), built as
 * build/tests/jobs/cachejobs.so and selected with --class. Each prints one line per action on
 * stdout, so the scripts compare results between storage levels and masters, and reads what the
 * event log says about input bytes and cached partitions per job.
 *
 *   persist_text PATH LEVEL [MIN_PARTITIONS]
 *                             lines -> (line, its length) -> persist(LEVEL); count, count,
 *                             sum of lengths, unpersist, count
 *   cache_twice PATH          two persisted RDDs over the same file; the first is read, then the
 *                             second, then the first again (LRU eviction between them)
 *   locality_away PATH SECONDS
 *                             8 cached partitions counted; then counted again while the task
 *                             of partition 0 holds its executor for SECONDS (with
 *                             spark.locality.wait=0 the other partitions that executor holds run
 *                             on the other one, away from their blocks)
 *   cached_join PARTS [MARKER_DIR]
 *                             a cached RDD of PARTS partitions whose computation is counted (an
 *                             accumulator) and takes 0.5 s, joined from two maps over it: both
 *                             map stages run its partitions at the same time; prints how many
 *                             times a partition was computed and the join's count. With
 *                             MARKER_DIR, the first computation fails once it is done (its task
 *                             retried), so a waiting task finds the block not stored
 *   decommission_cached PARTS GATE
 *                             a cached RDD of PARTS partitions whose computation is counted (an
 *                             accumulator, 0.5 s each) is counted; prints "first computations=N";
 *                             then waits (at most 120 s) for the file GATE — the script
 *                             decommissions an executor meanwhile — and counts it again:
 *                             "second computations=M count=C" (M = N: nothing was recomputed)
 *   bad_level                 cspark_persist with an unknown level
 *   level_change              persisting again at another level
 */
#include <cspark.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* (line, its length as i64) */
void cj_tag(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint8_t v[8];
    cspark_i64_encode((int64_t)in->key.len, v);
    cspark_emit(out, in->key.ptr, in->key.len, v, 8);
}

static int level_of(const char *s, cspark_storage_level *out)
{
    if (strcmp(s, "MEMORY_ONLY") == 0)
        *out = CSPARK_MEMORY_ONLY;
    else if (strcmp(s, "MEMORY_AND_DISK") == 0)
        *out = CSPARK_MEMORY_AND_DISK;
    else if (strcmp(s, "DISK_ONLY") == 0)
        *out = CSPARK_DISK_ONLY;
    else if (strcmp(s, "NONE") == 0)
        *out = CSPARK_STORAGE_NONE;
    else
        return -1;
    return 0;
}

static int failed(cspark_context *sc, const char *what)
{
    const char *e = cspark_last_error(sc);
    fprintf(stderr, "cachejobs: %s failed: %s\n", what, e ? e : "?");
    return 1;
}

int persist_text(cspark_context *sc, int argc, char **argv)
{
    cspark_storage_level level;
    if (argc < 3 || argc > 4 || level_of(argv[2], &level) < 0) {
        fprintf(stderr, "usage: persist_text PATH MEMORY_ONLY|MEMORY_AND_DISK|DISK_ONLY|NONE "
                        "[MIN_PARTITIONS]\n");
        return 2;
    }
    int parts = argc == 4 ? atoi(argv[3]) : 0;
    cspark_rdd *tagged = cspark_map(cspark_text_file(sc, argv[1], parts), cj_tag, NULL, 0);
    if (level != CSPARK_STORAGE_NONE && !cspark_persist(tagged, level))
        return failed(sc, "persist");
    int64_t n1 = 0, n2 = 0, n3 = 0;
    void *sum = NULL;
    size_t sum_len = 0;
    if (cspark_count(tagged, &n1) < 0) return failed(sc, "count 1");
    if (cspark_count(tagged, &n2) < 0) return failed(sc, "count 2");
    if (cspark_reduce(tagged, cspark_sum_i64, NULL, 0, &sum, &sum_len) < 0)
        return failed(sc, "reduce");
    printf("level=%d count=%lld count=%lld bytes=%lld\n", (int)cspark_storage_level_of(tagged),
           (long long)n1, (long long)n2, (long long)cspark_i64_decode(sum));
    free(sum);
    if (cspark_unpersist(tagged) < 0) return failed(sc, "unpersist");
    if (cspark_count(tagged, &n3) < 0) return failed(sc, "count 3");
    printf("after unpersist: level=%d count=%lld\n", (int)cspark_storage_level_of(tagged),
           (long long)n3);
    return 0;
}

int cache_twice(cspark_context *sc, int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: cache_twice PATH\n");
        return 2;
    }
    cspark_rdd *a = cspark_cache(cspark_map(cspark_text_file(sc, argv[1], 0), cj_tag, NULL, 0));
    cspark_rdd *b = cspark_cache(cspark_map(cspark_text_file(sc, argv[1], 0), cj_tag, NULL, 0));
    int64_t n[4];
    cspark_rdd *order[4] = {a, b, a, b};
    for (int i = 0; i < 4; i++)
        if (cspark_count(order[i], &n[i]) < 0) return failed(sc, "count");
    printf("counts %lld %lld %lld %lld\n", (long long)n[0], (long long)n[1], (long long)n[2],
           (long long)n[3]);
    return 0;
}

/* Counts the partition's records; the task of partition 0 first sleeps the closure's seconds. */
void cj_count_slow_first(cspark_iterator *in, cspark_emitter *out, cspark_task_context *tc)
{
    const int *seconds = cspark_closure(tc, NULL);
    if (cspark_partition_id(tc) == 0) {
        struct timespec ts = {*seconds, 0};
        nanosleep(&ts, NULL);
    }
    int64_t n = 0;
    cspark_record r;
    while (cspark_iterator_next(in, &r))
        n++;
    uint8_t v[8];
    cspark_i64_encode(n, v);
    cspark_emit(out, "n", 1, v, 8);
}

int locality_away(cspark_context *sc, int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: locality_away PATH SECONDS\n");
        return 2;
    }
    int seconds = atoi(argv[2]);
    cspark_rdd *lines = cspark_cache(cspark_map(cspark_text_file(sc, argv[1], 8), cj_tag, NULL, 0));
    int64_t n1 = 0;
    if (cspark_count(lines, &n1) < 0) return failed(sc, "count");
    cspark_records *counts = NULL;
    if (cspark_collect(cspark_map_partitions(lines, cj_count_slow_first, &seconds, sizeof seconds),
                       &counts) < 0)
        return failed(sc, "collect");
    int64_t n2 = 0;
    for (size_t i = 0; i < cspark_records_count(counts); i++)
        n2 += cspark_slice_i64(cspark_records_get(counts, i).value);
    cspark_records_free(counts);
    printf("counts %lld %lld\n", (long long)n1, (long long)n2);
    return 0;
}

typedef struct cj_counted {
    cspark_accumulator computations;
    char marker_dir[256]; /* "" or where the single failure leaves its mark */
} cj_counted;

/* The cached RDD's partition: counted, slow, and (with a marker dir) the first one computed
 * anywhere fails at its end. */
void cj_count_computation(cspark_iterator *in, cspark_emitter *out, cspark_task_context *tc)
{
    const cj_counted *c = cspark_closure(tc, NULL);
    cspark_long_accumulator_add(tc, c->computations, 1);
    struct timespec ts = {0, 500 * 1000 * 1000};
    nanosleep(&ts, NULL);
    cspark_record r;
    while (cspark_iterator_next(in, &r))
        cspark_emit(out, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
    if (c->marker_dir[0]) {
        char path[512];
        snprintf(path, sizeof path, "%s/failed-once", c->marker_dir);
        FILE *f = fopen(path, "wx"); /* exclusive: only the first computation fails */
        if (f) {
            fclose(f);
            cspark_task_fail(tc, "cachejobs: the first computation fails after computing");
        }
    }
}

/* n -> (n mod 100, 1) and (n mod 100, 2): the two sides of the join */
void cj_side_one(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint8_t k[8], v[8];
    cspark_i64_encode(cspark_slice_i64(in->key) % 100, k);
    cspark_i64_encode(1, v);
    cspark_emit(out, k, 8, v, 8);
}
void cj_side_two(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint8_t k[8], v[8];
    cspark_i64_encode(cspark_slice_i64(in->key) % 100, k);
    cspark_i64_encode(2, v);
    cspark_emit(out, k, 8, v, 8);
}

int cached_join(cspark_context *sc, int argc, char **argv)
{
    if (argc < 2 || argc > 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: cached_join PARTS [MARKER_DIR]\n");
        return 2;
    }
    int parts = atoi(argv[1]);
    cj_counted c = {.computations = cspark_long_accumulator(sc, "computations")};
    if (argc == 3) snprintf(c.marker_dir, sizeof c.marker_dir, "%s", argv[2]);
    cspark_rdd *base = cspark_cache(cspark_map_partitions(cspark_range(sc, 0, 1000, 1, parts),
                                                          cj_count_computation, &c, sizeof c));
    cspark_rdd *joined = cspark_join(cspark_map(base, cj_side_one, NULL, 0),
                                     cspark_map(base, cj_side_two, NULL, 0), parts);
    int64_t n = 0;
    if (cspark_count(joined, &n) < 0) return failed(sc, "count");
    printf("computations=%lld joined=%lld\n",
           (long long)cspark_long_accumulator_value(sc, c.computations), (long long)n);
    return 0;
}

int decommission_cached(cspark_context *sc, int argc, char **argv)
{
    if (argc != 3 || atoi(argv[1]) < 1) {
        fprintf(stderr, "usage: decommission_cached PARTS GATE\n");
        return 2;
    }
    cj_counted c = {.computations = cspark_long_accumulator(sc, "computations")};
    cspark_rdd *base = cspark_cache(cspark_map_partitions(
        cspark_range(sc, 0, 1000, 1, atoi(argv[1])), cj_count_computation, &c, sizeof c));
    int64_t n = 0;
    if (cspark_count(base, &n) < 0) return failed(sc, "count");
    printf("first computations=%lld\n",
           (long long)cspark_long_accumulator_value(sc, c.computations));
    fflush(stdout);
    struct timespec tick = {0, 100 * 1000 * 1000};
    for (int i = 0; i < 1200; i++) {
        FILE *gate = fopen(argv[2], "r");
        if (gate) {
            fclose(gate);
            break;
        }
        nanosleep(&tick, NULL);
    }
    if (cspark_count(base, &n) < 0) return failed(sc, "second count");
    printf("second computations=%lld count=%lld\n",
           (long long)cspark_long_accumulator_value(sc, c.computations), (long long)n);
    return 0;
}

int bad_level(cspark_context *sc, int argc, char **argv)
{
    cspark_rdd *r = cspark_range(sc, 0, 10, 1, 2);
    if (cspark_persist(r, (cspark_storage_level)7))
        printf("level 7 accepted\n");
    else
        printf("refused: %s\n", cspark_last_error(sc));
    return 1;
}

int level_change(cspark_context *sc, int argc, char **argv)
{
    cspark_rdd *q = cspark_persist(cspark_range(sc, 0, 10, 1, 2), CSPARK_DISK_ONLY);
    if (!cspark_persist(q, CSPARK_DISK_ONLY)) printf("the same level refused\n");
    if (cspark_persist(q, CSPARK_MEMORY_ONLY))
        printf("level change accepted\n");
    else
        printf("refused: %s\n", cspark_last_error(sc));
    return 1;
}
