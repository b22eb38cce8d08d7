/*
 * testjobs.c — small jobs that exercise failure paths of the engine, built as
 * build/tests/jobs/testjobs.so and selected with --class. Used by tests/integration/faults_*.sh
 * and bad_input_*.sh; each entry prints one line the test checks.
 */
#define _GNU_SOURCE /* nftw */
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cspark.h"

/* Fails the first two attempts of partition 1, then succeeds. */
void flaky_map(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    if (cspark_partition_id(tc) == 1 && cspark_attempt_number(tc) < 2)
        cspark_task_fail(tc, "flaky_map: planned failure of attempt %d", cspark_attempt_number(tc));
    cspark_emit_record(out, in);
}

int fail_twice(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    if (cspark_count(cspark_map(cspark_range(sc, 0, 1000, 1, 4), flaky_map, NULL, 0), &n) < 0)
        return 1;
    printf("count=%" PRId64 "\n", n);
    return 0;
}

void always_fail_map(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_task_fail(tc, "boom from always_fail_map (partition %d)", cspark_partition_id(tc));
}

int always_fail(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    int rc = cspark_count(cspark_map(cspark_range(sc, 0, 100, 1, 2), always_fail_map, NULL, 0), &n);
    printf("rc=%d\n", rc);
    return rc < 0 ? 1 : 0;
}

void crash_here(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    volatile int *p = NULL;
    if (cspark_partition_id(tc) == 1) *p = 42; /* SIGSEGV */
    cspark_emit_record(out, in);
}

int segv(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    cspark_count(cspark_map(cspark_range(sc, 0, 100, 1, 2), crash_here, NULL, 0), &n);
    printf("not reached: %" PRId64 "\n", n);
    return 0;
}

static void hidden_map(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_emit_record(out, in);
}

int static_fn(cspark_context *sc, int argc, char **argv)
{
    cspark_rdd *r = cspark_map(cspark_range(sc, 0, 10, 1, 1), hidden_map, NULL, 0);
    printf("rdd=%s\n", r ? "created" : "refused");
    return r ? 0 : 1;
}

/* map must emit exactly one record. */
void emits_two(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    cspark_emit_record(out, in);
    cspark_emit_record(out, in);
}

int map_contract(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    int rc = cspark_count(cspark_map(cspark_range(sc, 0, 10, 1, 1), emits_two, NULL, 0), &n);
    return rc < 0 ? 1 : 0;
}

/* key = value mod 10, value = the number */
void mod_key(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint8_t k[8];
    cspark_i64_encode(cspark_slice_i64(in->key) % 10, k);
    cspark_emit(out, k, 8, in->key.ptr, 8);
}

/* Two jobs over the same shuffle: the second must not re-run the map stage. */
int shuffle_reuse(cspark_context *sc, int argc, char **argv)
{
    cspark_rdd *pairs = cspark_range(sc, 0, 10000, 1, 4);
    cspark_rdd *grouped = cspark_group_by_key(pairs, 3);
    int64_t a = 0, b = 0;
    if (cspark_count(grouped, &a) < 0 || cspark_count(grouped, &b) < 0) return 1;
    printf("counts=%" PRId64 ",%" PRId64 "\n", a, b);
    return 0;
}

/* Fetch failure recovery: job 1 computes a shuffle; its map output 0 is then deleted from the
 * local directory (as if the executor holding it were lost); job 2 reads the same shuffle, hits
 * a fetch failure, the scheduler resubmits only map 0, and the answer is unchanged. */
int lost_map_output(cspark_context *sc, int argc, char **argv)
{
    const char *local = cspark_conf_get(sc, "spark.local.dir");
    if (!local) {
        fprintf(stderr, "lost_map_output needs spark.local.dir\n");
        return 2;
    }
    cspark_rdd *sums =
        cspark_reduce_by_key(cspark_map(cspark_range(sc, 0, 100000, 1, 4), mod_key, NULL, 0),
                             cspark_sum_i64, NULL, 0, 3);
    cspark_records *a = NULL, *b = NULL;
    if (cspark_collect(sums, &a) < 0) return 1;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "rm -f %s/cspark-*/shuffle_*_0_0.data", local);
    if (system(cmd) != 0) return 1;
    if (cspark_collect(sums, &b) < 0) return 1;
    int64_t total_a = 0, total_b = 0;
    for (size_t i = 0; i < cspark_records_count(a); i++)
        total_a += cspark_slice_i64(cspark_records_get(a, i).value);
    for (size_t i = 0; i < cspark_records_count(b); i++)
        total_b += cspark_slice_i64(cspark_records_get(b, i).value);
    printf("keys=%zu,%zu sums=%" PRId64 ",%" PRId64 "\n", cspark_records_count(a),
           cspark_records_count(b), total_a, total_b);
    cspark_records_free(a);
    cspark_records_free(b);
    return 0;
}

/* Sleeps the closure's milliseconds per record: a job that runs long enough to be probed. */
void sleepy(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len;
    const int *ms = cspark_closure(tc, &len);
    struct timespec ts = {0, (long)(len == sizeof(int) ? *ms : 100) * 1000000L};
    while (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    nanosleep(&ts, NULL);
    cspark_emit_record(out, in);
}

/* slow [MS]: 16 records in 8 partitions, each record sleeping MS (default 250) ms. */
int slow(cspark_context *sc, int argc, char **argv)
{
    int ms = argc > 1 ? atoi(argv[1]) : 250;
    int64_t n = 0;
    if (cspark_count(cspark_map(cspark_range(sc, 0, 16, 1, 8), sleepy, &ms, sizeof ms), &n) < 0)
        return 1;
    printf("count=%" PRId64 "\n", n);
    return 0;
}

/* The first attempt of partition 1 crashes its process (an executor in local-cluster). */
void crash_first_attempt(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    if (cspark_partition_id(tc) == 1 && cspark_attempt_number(tc) == 0) raise(SIGSEGV);
    cspark_emit_record(out, in);
}

int crash_once(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    if (cspark_count(cspark_map(cspark_range(sc, 0, 1000, 1, 4), crash_first_attempt, NULL, 0),
                     &n) < 0)
        return 1;
    printf("count=%" PRId64 "\n", n);
    return 0;
}

void crash_every_attempt(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    if (cspark_partition_id(tc) == 1) raise(SIGSEGV);
    cspark_emit_record(out, in);
}

int crash_always(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    int rc =
        cspark_count(cspark_map(cspark_range(sc, 0, 1000, 1, 4), crash_every_attempt, NULL, 0), &n);
    return rc < 0 ? 1 : 0;
}

/* Each input becomes 100,000 records of 100 bytes. */
void expand_100k(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint8_t value[92];
    memset(value, 'v', sizeof value);
    for (int i = 0; i < 100000; i++) {
        uint8_t key[8];
        cspark_i64_encode(cspark_slice_i64(in->key) * 100000 + i, key);
        cspark_emit(out, key, 8, value, sizeof value);
    }
}

/* expand: 64 inputs -> 6.4M records (640 MB) counted in one task: memory must stay bounded. */
int expand(cspark_context *sc, int argc, char **argv)
{
    int64_t n = 0;
    if (cspark_count(cspark_flat_map(cspark_range(sc, 0, 64, 1, 1), expand_100k, NULL, 0), &n) < 0)
        return 1;
    printf("count=%" PRId64 "\n", n);
    return 0;
}

/* big_collect: collects 2 partitions of 100,000 16-byte records (~1.8 MB each, above the 1 MiB
 * spark.task.maxDirectResultSize) and prints how many came back and their checksum. */
void with_value(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint8_t v[8];
    cspark_i64_encode(cspark_slice_i64(in->key) * 3, v);
    cspark_emit(out, in->key.ptr, in->key.len, v, 8);
}

int big_collect(cspark_context *sc, int argc, char **argv)
{
    cspark_records *r = NULL;
    if (cspark_collect(cspark_map(cspark_range(sc, 0, 200000, 1, 2), with_value, NULL, 0), &r) < 0)
        return 1;
    int64_t sum = 0;
    for (size_t i = 0; i < cspark_records_count(r); i++)
        sum += cspark_slice_i64(cspark_records_get(r, i).value);
    printf("records=%zu sum=%" PRId64 "\n", cspark_records_count(r), sum);
    cspark_records_free(r);
    return 0;
}

/* tracked_join MS LINGER_MS: shuffle tracking under dynamic allocation. Two map stages run side
 * by side: A (2 quick tasks) and B (1 task of 4 records sleeping MS each); the join reads both.
 * While B runs, the executors that ran A sit idle but hold A's map outputs, which the pending
 * join needs: they must stay. Prints count=400 (keys 0..3: 100 values from A times 1 from B),
 * then keeps the application alive LINGER_MS, when the outputs are no longer needed. */
int tracked_join(cspark_context *sc, int argc, char **argv)
{
    int ms = argc > 1 ? atoi(argv[1]) : 1000;
    int linger = argc > 2 ? atoi(argv[2]) : 0;
    cspark_rdd *a = cspark_map(cspark_range(sc, 0, 1000, 1, 2), mod_key, NULL, 0);
    cspark_rdd *b = cspark_map(cspark_map(cspark_range(sc, 0, 4, 1, 1), sleepy, &ms, sizeof ms),
                               mod_key, NULL, 0);
    int64_t n = 0;
    if (cspark_count(cspark_join(a, b, 2), &n) < 0) return 1;
    printf("count=%" PRId64 "\n", n);
    fflush(stdout);
    struct timespec ts = {linger / 1000, (long)(linger % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    return 0;
}

/* Sleeps the closure's milliseconds per record in partitions 2 and up; 0 and 1 are quick. */
void sleepy_late(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    if (cspark_partition_id(tc) >= 2)
        sleepy(in, out, tc);
    else
        cspark_emit_record(out, in);
}

/* slow_shuffle MS: a map stage of 4 tasks (2 records each; partitions 0 and 1 quick, 2 and 3
 * sleeping MS per record), then a reduce_by_key into 2 partitions whose tasks take about MS too
 * (MS/4 per key). With 2 one-core executors, both hold a map output while the slow map tasks
 * run, and the job goes on for a while after the map stage. Prints keys=8 sum=28. */
int slow_shuffle(cspark_context *sc, int argc, char **argv)
{
    int ms = argc > 1 ? atoi(argv[1]) : 1000;
    int reduce_ms = ms / 4;
    cspark_rdd *sums = cspark_reduce_by_key(
        cspark_map(cspark_map(cspark_range(sc, 0, 8, 1, 4), sleepy_late, &ms, sizeof ms), mod_key,
                   NULL, 0),
        cspark_sum_i64, NULL, 0, 2);
    cspark_records *r = NULL;
    if (cspark_collect(cspark_map(sums, sleepy, &reduce_ms, sizeof reduce_ms), &r) < 0) return 1;
    int64_t total = 0;
    for (size_t i = 0; i < cspark_records_count(r); i++)
        total += cspark_slice_i64(cspark_records_get(r, i).value);
    printf("keys=%zu sum=%" PRId64 "\n", cspark_records_count(r), total);
    cspark_records_free(r);
    return 0;
}

/* ---- record lengths over 32 bits (issue 10 item 20) --------------------------------------- *
 * record_limit CASE: each public entry point given a length above CSPARK_MAX_RECORD_BYTES —
 * lengths that once were cut to 32 bits (a 2^40-byte key became empty and the job succeeded;
 * emit_reserve(4 GiB + 8) returned an 8-byte slot and the caller overflowed the heap). The data
 * pointers are small: nothing may be read or written before the length is refused. CASE ok
 * emits a 1 MiB record, which must work. Prints rc=N (and len=N for ok). */
static uint8_t limit_small[16];

void limit_emit(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    const char *c = cspark_closure(tc, NULL);
    if (strcmp(c, "emit") == 0) {
        cspark_emit(out, limit_small, (size_t)1 << 40, limit_small, 0);
    } else if (strcmp(c, "emit_value") == 0) {
        cspark_emit(out, limit_small, 8, limit_small, ((size_t)4 << 30) + 8);
    } else if (strcmp(c, "reserve") == 0) {
        uint8_t *v;
        uint8_t *k = cspark_emit_reserve(out, ((size_t)4 << 30) + 8, 0, &v);
        memset(k, 'x', ((size_t)4 << 30) + 8); /* what a job does with its slot */
    } else if (strcmp(c, "reserve_sum") == 0) {
        uint8_t *v; /* lengths whose sum wraps around 2^64 */
        cspark_emit_reserve(out, SIZE_MAX - 3, 8, &v);
    } else {
        static uint8_t mib[1 << 20];
        cspark_emit(out, "k", 1, mib, sizeof mib);
    }
}

void limit_grow(cspark_value *acc, cspark_slice v, cspark_task_context *tc)
{
    uint8_t *p = cspark_value_resize(acc, ((size_t)5 << 30) + 1);
    p[0] = 1;
}

int record_limit(cspark_context *sc, int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "ok";
    int rc = 0;
    if (strcmp(c, "parallelize") == 0) {
        cspark_record r = {{limit_small, 300u << 20}, {limit_small, 0}};
        rc = cspark_parallelize(sc, &r, 1, 1) ? 0 : -1;
    } else if (strcmp(c, "aggregate_zero") == 0) {
        rc = cspark_aggregate_by_key(cspark_range(sc, 0, 10, 1, 1), limit_small, (size_t)1 << 33,
                                     cspark_sum_i64, cspark_sum_i64, NULL, 0, 1)
                 ? 0
                 : -1;
    } else if (strcmp(c, "fold_zero") == 0) {
        void *out = NULL;
        size_t n = 0;
        rc = cspark_fold(cspark_range(sc, 0, 10, 1, 1), limit_small, (size_t)1 << 33,
                         cspark_sum_i64, NULL, 0, &out, &n);
        free(out);
    } else if (strcmp(c, "value") == 0) {
        int64_t n = 0;
        uint8_t one[8];
        cspark_i64_encode(1, one);
        cspark_record r[2] = {{{one, 8}, {one, 8}}, {{one, 8}, {one, 8}}};
        rc = cspark_count(
            cspark_reduce_by_key(cspark_parallelize(sc, r, 2, 1), limit_grow, NULL, 0, 1), &n);
    } else {
        cspark_records *out = NULL;
        rc = cspark_collect(
            cspark_flat_map(cspark_range(sc, 0, 1, 1, 1), limit_emit, c, strlen(c) + 1), &out);
        if (rc == 0 && cspark_records_count(out) == 1)
            printf("len=%u\n", cspark_records_get(out, 0).value.len);
        cspark_records_free(out);
    }
    printf("rc=%d\n", rc);
    return rc < 0 ? 1 : 0;
}

/* ---- a damaged shuffle file between two jobs (issue 10 item 15) ---------------------------- *
 * bitflip_between_jobs INPUT ROOT [last|middle]: a word count whose map outputs the second job
 * reuses (a shuffle's map outputs are kept across jobs): job 1 counts the distinct words, then
 * one bit of the largest shuffle_*.data file under ROOT is flipped — the top bit of its last
 * byte (with spark.shuffle.compress=false, the high byte of a count), or a bit in its middle —
 * and job 2 collects the counts. Prints keys=N total=T. The red-team run printed keys=173613
 * total=-9223372036852007078 instead of keys=173609 total=2768730, exit 0: the damaged block
 * was read as records. */
static char flip_path[4096];
static off_t flip_size = -1;

static int flip_visit(const char *path, const struct stat *sb, int type, struct FTW *f)
{
    const char *base = path + f->base;
    size_t n = strlen(base);
    if (type == FTW_F && strncmp(base, "shuffle_", 8) == 0 && n > 5 &&
        strcmp(base + n - 5, ".data") == 0 &&
        (sb->st_size > flip_size || (sb->st_size == flip_size && strcmp(path, flip_path) < 0))) {
        flip_size = sb->st_size;
        snprintf(flip_path, sizeof flip_path, "%s", path);
    }
    return 0;
}

static int flip_one_bit(const char *root, bool middle)
{
    flip_size = -1;
    if (nftw(root, flip_visit, 16, FTW_PHYS) != 0 || flip_size <= 0) {
        fprintf(stderr, "bitflip_between_jobs: no shuffle data file under %s\n", root);
        return -1;
    }
    FILE *f = fopen(flip_path, "r+");
    if (!f) return -1;
    long at = middle ? (long)(flip_size / 2) : (long)(flip_size - 1);
    uint8_t mask = middle ? 0x10 : 0x80;
    fseek(f, at, SEEK_SET);
    int c = fgetc(f);
    fseek(f, at, SEEK_SET);
    fputc(c ^ mask, f);
    fclose(f);
    fprintf(stderr, "bitflip_between_jobs: flipped bit 0x%02x of byte %ld of %s\n", mask, at,
            flip_path);
    return 0;
}

void words_one(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint8_t one[8];
    cspark_i64_encode(1, one);
    const uint8_t *p = in->key.ptr, *end = p + in->key.len;
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        const uint8_t *w = p;
        while (p < end && *p != ' ' && *p != '\t' && *p != '\r')
            p++;
        if (p > w) cspark_emit(out, w, (size_t)(p - w), one, 8);
    }
}

int bitflip_between_jobs(cspark_context *sc, int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bitflip_between_jobs INPUT ROOT [last|middle]\n");
        return 2;
    }
    bool middle = argc > 3 && strcmp(argv[3], "middle") == 0;
    cspark_rdd *counts =
        cspark_reduce_by_key(cspark_flat_map(cspark_text_file(sc, argv[1], 0), words_one, NULL, 0),
                             cspark_sum_i64, NULL, 0, 0);
    int64_t keys1 = 0;
    if (cspark_count(counts, &keys1) < 0 || flip_one_bit(argv[2], middle) < 0) return 1;
    cspark_records *r = NULL;
    if (cspark_collect(counts, &r) < 0) return 1;
    int64_t total = 0;
    for (size_t i = 0; i < cspark_records_count(r); i++)
        total += cspark_slice_i64(cspark_records_get(r, i).value);
    printf("keys=%zu total=%" PRId64 "\n", cspark_records_count(r), total);
    if ((int64_t)cspark_records_count(r) != keys1)
        fprintf(stderr, "bitflip_between_jobs: job 1 counted %" PRId64 " keys\n", keys1);
    cspark_records_free(r);
    return 0;
}

/* ---- an executor lost while the reduce stage runs (issue 10 item 17) ---------------------- *
 * gated_sort INPUT OUTDIR GATE: sort.so's job, whose reduce tasks (the sort's output, by then
 * fetched) wait for the file GATE before their first record; each waiting task first creates
 * GATE.waiting.<pid> so that a test knows which executors hold a running reduce task. Once GATE
 * exists every task passes (it is never removed). The wait is bounded (300 s), then the task
 * fails. */
static volatile int gate_open;

void gate_join(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    if (!gate_open) {
        const char *gate = cspark_closure(tc, NULL);
        char waiting[4096];
        snprintf(waiting, sizeof waiting, "%s.waiting.%d", gate, (int)getpid());
        FILE *f = fopen(waiting, "w");
        if (f) fclose(f);
        struct stat st;
        for (int i = 0; stat(gate, &st) != 0; i++) {
            if (i == 30000) cspark_task_fail(tc, "gated_sort: no gate file %s after 300 s", gate);
            struct timespec ts = {0, 10 * 1000000L};
            nanosleep(&ts, NULL);
        }
        gate_open = 1;
    }
    uint8_t *v;
    uint8_t *line = cspark_emit_reserve(out, (size_t)in->key.len + in->value.len, 0, &v);
    if (in->key.len) memcpy(line, in->key.ptr, in->key.len);
    if (in->value.len) memcpy(line + in->key.len, in->value.ptr, in->value.len);
}

void gate_split(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    uint32_t k = in->key.len < 10 ? in->key.len : 10;
    cspark_emit(out, in->key.ptr, k, in->key.ptr + k, in->key.len - k);
}

int gated_sort(cspark_context *sc, int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gated_sort INPUT OUTDIR GATE\n");
        return 2;
    }
    cspark_rdd *keyed = cspark_map(cspark_text_file(sc, argv[1], 0), gate_split, NULL, 0);
    cspark_rdd *sorted = cspark_sort_by_key(keyed, true, 0);
    cspark_rdd *lines = cspark_map(sorted, gate_join, argv[3], strlen(argv[3]) + 1);
    return cspark_save_as_text_file(lines, argv[2]) < 0 ? 1 : 0;
}
