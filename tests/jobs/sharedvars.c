/*
 * sharedvars.c — jobs over broadcast variables and accumulators, built as
 * build/tests/jobs/sharedvars.so and selected with --class. Used by
 * tests/integration/shared_variables.sh; each entry prints one line the test checks.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cspark.h"

/* The test value: a deterministic byte stream (xorshift64) and its FNV-1a hash. */
static void fill(uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t x = seed | 1;
    for (size_t i = 0; i < n; i++) {
        if ((i & 7) == 0) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        p[i] = (uint8_t)(x >> ((i & 7) * 8));
    }
}

static uint64_t fnv(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

/* per process: how many times decode_sum ran */
static int decode_calls;

typedef struct decoded {
    uint64_t hash;
    size_t len;
} decoded;

void *decode_sum(const void *data, size_t len, char **error)
{
    (void)error;
    __atomic_add_fetch(&decode_calls, 1, __ATOMIC_SEQ_CST);
    decoded *d = malloc(sizeof *d);
    d->hash = fnv(data, len);
    d->len = len;
    return d;
}

void decoded_free(void *p)
{
    free(p);
}

typedef struct bc_closure {
    cspark_broadcast_var b;
    cspark_accumulator reads;
} bc_closure;

/* One record per task: key = pid, value = "hash len decoded_hash decode_calls". */
void read_broadcast(cspark_iterator *in, cspark_emitter *out, cspark_task_context *tc)
{
    const bc_closure *c = cspark_closure(tc, NULL);
    cspark_record r;
    while (cspark_iterator_next(in, &r)) {
    }
    size_t len = 0;
    const uint8_t *v = cspark_broadcast_value(tc, c->b, &len);
    const decoded *d = cspark_broadcast_decoded(tc, c->b, decode_sum, decoded_free);
    /* a second read in the same task returns the same bytes */
    size_t len2 = 0;
    if (cspark_broadcast_value(tc, c->b, &len2) != v || len2 != len)
        cspark_task_fail(tc, "a second read returned other bytes");
    cspark_long_accumulator_add(tc, c->reads, 1);
    char key[32], val[128];
    int kl = snprintf(key, sizeof key, "%d", (int)getpid());
    int vl = snprintf(val, sizeof val, "%016" PRIx64 " %zu %016" PRIx64 " %d", fnv(v, len), len,
                      d->hash, __atomic_load_n(&decode_calls, __ATOMIC_SEQ_CST));
    cspark_emit(out, key, (size_t)kl, val, (size_t)vl);
}

/* bcast_read MB PARTITIONS: broadcasts MB MiB (or KiB with a K suffix: 48K), reads it in every
 * task; prints "tasks=N processes=P same=yes|no decodes_per_process=D reads=R destroy=0". */
int bcast_read(cspark_context *sc, int argc, char **argv)
{
    size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 10;
    int parts = argc > 2 ? atoi(argv[2]) : 8;
    size_t n = argc > 1 && strchr(argv[1], 'K') ? mb << 10 : mb << 20;
    uint8_t *data = malloc(n ? n : 1);
    fill(data, n, 42);
    uint64_t want = fnv(data, n);
    bc_closure c = {cspark_broadcast(sc, data, n), cspark_long_accumulator(sc, "broadcast reads")};
    free(data); /* the driver keeps its own copy */
    if (c.b.id < 0) return 1;
    cspark_records *res = NULL;
    if (cspark_collect(cspark_map_partitions(cspark_range(sc, 0, parts, 1, parts), read_broadcast,
                                             &c, sizeof c),
                       &res) < 0)
        return 1;
    size_t tasks = cspark_records_count(res);
    int same = 1, max_decodes = 0, processes = 0;
    char pids[256][32];
    for (size_t i = 0; i < tasks; i++) {
        cspark_record r = cspark_records_get(res, i);
        char val[160];
        snprintf(val, sizeof val, "%.*s", (int)r.value.len, (const char *)r.value.ptr);
        uint64_t h = 0, dh = 0;
        size_t len = 0;
        int calls = 0;
        if (sscanf(val, "%" SCNx64 " %zu %" SCNx64 " %d", &h, &len, &dh, &calls) != 4 ||
            h != want || dh != want || len != n)
            same = 0;
        if (calls > max_decodes) max_decodes = calls;
        char pid[32];
        snprintf(pid, sizeof pid, "%.*s", (int)r.key.len, (const char *)r.key.ptr);
        int seen = 0;
        for (int k = 0; k < processes; k++)
            seen |= strcmp(pids[k], pid) == 0;
        if (!seen && processes < 256) snprintf(pids[processes++], 32, "%s", pid);
    }
    cspark_records_free(res);
    int drc = cspark_broadcast_destroy(sc, c.b);
    int again = cspark_broadcast_destroy(sc, c.b);
    printf("tasks=%zu processes=%d same=%s decodes_per_process=%d reads=%" PRId64
           " destroy=%d again=%s\n",
           tasks, processes, same ? "yes" : "no", max_decodes,
           cspark_long_accumulator_value(sc, c.reads), drc, again < 0 ? "refused" : "accepted");
    return 0;
}

/* bcast_destroyed: a task that reads a destroyed broadcast fails with the reason. */
int bcast_destroyed(cspark_context *sc, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    const char value[] = "gone soon";
    bc_closure c = {cspark_broadcast(sc, value, sizeof value), cspark_long_accumulator(sc, NULL)};
    cspark_broadcast_destroy(sc, c.b);
    cspark_records *res = NULL;
    int rc = cspark_collect(
        cspark_map_partitions(cspark_range(sc, 0, 2, 1, 2), read_broadcast, &c, sizeof c), &res);
    printf("rc=%d\n", rc);
    cspark_records_free(res);
    return rc < 0 ? 1 : 0;
}

/* ---- accumulators ------------------------------------------------------------------------- */

typedef struct acc_closure {
    cspark_accumulator records, half, max, mapped;
    int mode; /* 0 plain, 1 flaky (fail after adding), 2 crash (kill the process after adding) */
} acc_closure;

void count_in_map(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    const acc_closure *c = cspark_closure(tc, NULL);
    cspark_long_accumulator_add(tc, c->mapped, 1);
    uint8_t key[8];
    cspark_i64_encode(cspark_slice_i64(in->key) % 100, key);
    cspark_emit(out, key, 8, in->key.ptr, in->key.len);
}

/* foreach over (k, v): adds 1, v/2 and max(v); partition 1's first attempts fail or crash after
 * adding (their additions must not count). */
void add_all(const cspark_record *in, cspark_task_context *tc)
{
    const acc_closure *c = cspark_closure(tc, NULL);
    int64_t v = cspark_slice_i64(in->value);
    cspark_long_accumulator_add(tc, c->records, 1);
    cspark_double_accumulator_add(tc, c->half, (double)v / 2);
    uint8_t enc[8];
    cspark_i64_encode(v, enc);
    cspark_accumulator_add(tc, c->max, enc, 8);
    static __thread const cspark_task_context *task;
    static __thread int seen;
    if (task != tc) { /* a new task on this thread */
        task = tc;
        seen = 0;
    }
    if (cspark_partition_id(tc) != 1 || ++seen != 500) return; /* after 500 additions */
    if (c->mode == 1 && cspark_attempt_number(tc) < 2)
        cspark_task_fail(tc, "add_all: planned failure of attempt %d", cspark_attempt_number(tc));
    if (c->mode == 2 && cspark_attempt_number(tc) == 0) raise(SIGKILL);
}

/* acc_counts MODE: 10,000 numbers through a shuffle (4 partitions), counted in the map (a
 * transformation) and in foreach (an action); prints "records=N half=X max=M mapped_at_least=yes".
 */
int acc_counts(cspark_context *sc, int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "plain";
    uint8_t zero[8];
    cspark_i64_encode(INT64_MIN, zero);
    acc_closure c = {cspark_long_accumulator(sc, "records"), cspark_double_accumulator(sc, "half"),
                     cspark_custom_accumulator(sc, "max", cspark_max_i64, zero, 8),
                     cspark_long_accumulator(sc, "mapped"),
                     strcmp(mode, "flaky") == 0   ? 1
                     : strcmp(mode, "crash") == 0 ? 2
                                                  : 0};
    cspark_rdd *pairs = cspark_map(cspark_range(sc, 0, 10000, 1, 4), count_in_map, &c, sizeof c);
    cspark_rdd *grouped = cspark_repartition(pairs, 4);
    if (cspark_foreach(grouped, add_all, &c, sizeof c) < 0) return 1;
    void *mx = NULL;
    size_t mlen = 0;
    int64_t max = cspark_accumulator_value(sc, c.max, &mx, &mlen) == 0 && mlen == 8
                      ? cspark_i64_decode(mx)
                      : -1;
    free(mx);
    int64_t mapped = cspark_long_accumulator_value(sc, c.mapped);
    printf("records=%" PRId64 " half=%.1f max=%" PRId64 " mapped_at_least=%s\n",
           cspark_long_accumulator_value(sc, c.records),
           cspark_double_accumulator_value(sc, c.half), max, mapped >= 10000 ? "yes" : "no");
    return 0;
}

/* acc_wrong_kind: adding a double to a long accumulator fails the task with a clear message. */
void add_double_to_long(const cspark_record *in, cspark_task_context *tc)
{
    (void)in;
    const acc_closure *c = cspark_closure(tc, NULL);
    cspark_double_accumulator_add(tc, c->records, 1.0);
}

int acc_wrong_kind(cspark_context *sc, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    acc_closure c = {.records = cspark_long_accumulator(sc, "records")};
    return cspark_foreach(cspark_range(sc, 0, 10, 1, 1), add_double_to_long, &c, sizeof c) < 0;
}

/* ---- resident memory per executor (bench/broadcast.sh) ------------------------------------- */

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kb) == 1) break;
    if (f) fclose(f);
    return kb;
}

/* One record per task: key = pid, value = the process's VmRSS (kB) after the task read the
 * broadcast (when the closure names one) and hashed every byte of it. */
void rss_probe(cspark_iterator *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t clen = 0;
    const bc_closure *c = cspark_closure(tc, &clen);
    cspark_record r;
    while (cspark_iterator_next(in, &r)) {
    }
    if (c && c->b.id >= 0) {
        size_t len;
        const uint8_t *v = cspark_broadcast_value(tc, c->b, &len);
        if (fnv(v, len) == 42) cspark_task_fail(tc, "unlikely hash");
    }
    char key[32], val[32];
    int kl = snprintf(key, sizeof key, "%d", (int)getpid());
    int vl = snprintf(val, sizeof val, "%ld", rss_kb());
    cspark_emit(out, key, (size_t)kl, val, (size_t)vl);
}

/* pid -> largest RSS seen, over a collected result */
static int rss_by_pid(cspark_records *res, long pids[64], long rss[64])
{
    int n = 0;
    for (size_t i = 0; i < cspark_records_count(res); i++) {
        cspark_record r = cspark_records_get(res, i);
        char kbuf[32], vbuf[32];
        snprintf(kbuf, sizeof kbuf, "%.*s", (int)r.key.len, (const char *)r.key.ptr);
        snprintf(vbuf, sizeof vbuf, "%.*s", (int)r.value.len, (const char *)r.value.ptr);
        long pid = strtol(kbuf, NULL, 10), kb = strtol(vbuf, NULL, 10);
        int k = 0;
        while (k < n && pids[k] != pid)
            k++;
        if (k == n && n < 64) {
            pids[n] = pid;
            rss[n++] = kb;
        } else if (k < n && kb > rss[k]) {
            rss[k] = kb;
        }
    }
    return n;
}

/* bcast_rss MB PARTITIONS ROUNDS: each executor's RSS before the broadcast, then after ROUNDS jobs
 * whose every task reads it; prints one line per executor and a summary. */
int bcast_rss(cspark_context *sc, int argc, char **argv)
{
    size_t mb = argc > 1 ? (size_t)atoi(argv[1]) : 100;
    int parts = argc > 2 ? atoi(argv[2]) : 8;
    int rounds = argc > 3 ? atoi(argv[3]) : 2;
    cspark_rdd *src = cspark_range(sc, 0, parts, 1, parts);
    bc_closure none = {{-1}, {-1, 0, 0, 0}};
    cspark_records *res = NULL;
    long pids0[64], rss0[64], pids1[64], rss1[64];
    if (cspark_collect(cspark_map_partitions(src, rss_probe, &none, sizeof none), &res) < 0)
        return 1;
    int n0 = rss_by_pid(res, pids0, rss0);
    cspark_records_free(res);
    size_t n = mb << 20;
    uint8_t *data = malloc(n);
    fill(data, n, 7);
    bc_closure c = {cspark_broadcast(sc, data, n), {-1, 0, 0, 0}};
    free(data);
    int n1 = 0;
    double first_s = 0;
    for (int round = 0; round < rounds; round++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        if (cspark_collect(cspark_map_partitions(src, rss_probe, &c, sizeof c), &res) < 0) return 1;
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (round == 0) first_s = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
        n1 = rss_by_pid(res, pids1, rss1);
        cspark_records_free(res);
    }
    double lo = 1e18, hi = 0;
    for (int i = 0; i < n1; i++) {
        long before = 0;
        for (int k = 0; k < n0; k++)
            if (pids0[k] == pids1[i]) before = rss0[k];
        double delta = (double)(rss1[i] - before) / 1024.0;
        printf("executor_pid=%ld rss_before_mb=%.1f rss_after_mb=%.1f delta_mb=%.1f\n", pids1[i],
               before / 1024.0, rss1[i] / 1024.0, delta);
        if (delta < lo) lo = delta;
        if (delta > hi) hi = delta;
    }
    printf("executors=%d value_mb=%zu rounds=%d min_delta_mb=%.1f max_delta_mb=%.1f "
           "first_round_s=%.3f\n",
           n1, mb, rounds, lo, hi, first_s);
    cspark_broadcast_destroy(sc, c.b);
    return 0;
}

/* acc_oversize: a custom accumulator appending bytes, 3 tasks adding 100 MiB each: the merged
 * value would pass CSPARK_MAX_RECORD_BYTES (256 MiB), so the job must fail naming the
 * accumulator (it once returned 200 MiB as a success). Prints "value_mb=N" if it does not. */
void sv_append(cspark_value *acc, cspark_slice value, cspark_task_context *tc)
{
    size_t old = acc->len;
    uint8_t *p = cspark_value_resize(acc, old + value.len);
    memcpy(p + old, value.ptr, value.len);
}

void sv_add_100mb(const cspark_record *in, cspark_task_context *tc)
{
    const cspark_accumulator *acc = cspark_closure(tc, NULL);
    size_t n = (size_t)100 << 20;
    uint8_t *buf = calloc(1, n);
    if (!buf) {
        cspark_task_fail(tc, "out of memory");
        return;
    }
    cspark_accumulator_add(tc, *acc, buf, n);
    free(buf);
}

int acc_oversize(cspark_context *sc, int argc, char **argv)
{
    cspark_accumulator acc = cspark_custom_accumulator(sc, "bytes", sv_append, "", 0);
    if (cspark_foreach(cspark_range(sc, 0, 3, 1, 3), sv_add_100mb, &acc, sizeof acc) < 0) {
        fprintf(stderr, "acc_oversize: %s\n", cspark_last_error(sc));
        return 1;
    }
    void *v = NULL;
    size_t len = 0;
    cspark_accumulator_value(sc, acc, &v, &len);
    free(v);
    printf("value_mb=%zu\n", len >> 20);
    return 0;
}

/* acc_over_rpc MIB: one task adds MIB MiB to a custom accumulator; with a smaller
 * spark.rpc.message.maxSize its status update cannot travel inline (it once was dropped without a
 * word and the job waited for good): it goes through the executor's block server, as Spark's
 * IndirectTaskResult, and the value arrives whole. Prints the value's size. */
void sv_add_mib(const cspark_record *in, cspark_task_context *tc)
{
    const struct {
        cspark_accumulator acc;
        int mib;
    } *c = cspark_closure(tc, NULL);
    size_t n = (size_t)c->mib << 20;
    uint8_t *buf = malloc(n);
    if (!buf) {
        cspark_task_fail(tc, "out of memory");
        return;
    }
    for (size_t i = 0; i < n; i++)
        buf[i] = (uint8_t)(i % 251);
    cspark_accumulator_add(tc, c->acc, buf, n);
    free(buf);
}

int acc_over_rpc(cspark_context *sc, int argc, char **argv)
{
    struct {
        cspark_accumulator acc;
        int mib;
    } c = {cspark_custom_accumulator(sc, "bytes", sv_append, "", 0), argc > 1 ? atoi(argv[1]) : 3};
    if (cspark_foreach(cspark_range(sc, 0, 1, 1, 1), sv_add_mib, &c, sizeof c) < 0) {
        fprintf(stderr, "acc_over_rpc: %s\n", cspark_last_error(sc));
        return 1;
    }
    uint8_t *v = NULL;
    size_t len = 0, bad = 0;
    cspark_accumulator_value(sc, c.acc, (void **)&v, &len);
    for (size_t i = 0; i < len; i++)
        bad += v[i] != (uint8_t)(i % 251);
    free(v);
    printf("value_bytes=%zu wrong_bytes=%zu\n", len, bad);
    return 0;
}
