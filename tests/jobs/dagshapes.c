/*
 * dagshapes.c — jobs of several DAG shapes for the executor-loss suites (tests/fault/dag_shapes.sh,
 * tests/fault/lost_finished_parent.sh, tests/k8s/dag_shapes.sh), built as
 * build/tests/jobs/dagshapes.so and selected with --class. Every shape prints one line,
 * "shape=NAME records=N checksum=H", whose value is independent of where and how often tasks
 * ran, so a run that lost an executor is compared with a fault-free run byte for byte.
 *
 *   chain N            range -> reduce_by_key -> reduce_by_key -> reduce_by_key (a chain of 4
 * stages) join_of_joins N    (a join b) join c, each side shuffled on its own unions N the union of
 * two aggregations, aggregated again cached N           an aggregation cached, then read by a join
 * of two stages over it and by a second job iterative N        5 rounds of links.join(ranks) ->
 * reduce_by_key, as SparkPageRank, in integers (exact) gated_join DIR     a join of side A and side
 * B (stages 0 and 1, 4 map tasks each, stage 2 joins): side A's tasks finish at once, each writing
 * DIR/a-<pid>; side B's wait until DIR/go exists. The test kills an executor that ran side A after
 * A's stage completed and before B's finished, then creates DIR/go.
 *
 * N is the number of input records. With DIR S P after N, the task of partition P of stage S
 * (its first attempt) pauses in whichever of the functions below runs there: it writes
 * DIR/paused (holding its pid) and waits until DIR/go exists, so a test kills an executor at a
 * point of the DAG it chose, with the job in flight, by files and not by timing. When no
 * function runs in that task the job simply finishes. With S = -2 (P ignored) the job instead
 * writes DIR/ran-S-P for every task where one of its functions runs: the points a test may
 * choose.
 */
#include <cspark.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define KEYS 4096

/* Where to pause (see above); the closure of every function. */
typedef struct pause_at {
    char dir[3000];
    int stage, partition; /* -1: never */
} pause_at;

static void wait_for(const char *dir, const char *name)
{
    char path[3100];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct timespec ts = {0, 10 * 1000 * 1000};
    while (access(path, F_OK) != 0)
        nanosleep(&ts, NULL);
}

/* Record mode (stage -2): DIR/ran-S-P for each stage S and partition P where a function runs,
 * so that a test pauses only where one does. Once per process and pair. */
static void record_ran(const pause_at *p, cspark_task_context *tc)
{
    static unsigned char seen[4096][64];
    int st = cspark_stage_id(tc), part = cspark_partition_id(tc);
    if (st < 0 || st >= 4096 || part < 0 || part >= 64 || seen[st][part]) return;
    seen[st][part] = 1;
    char path[3100];
    snprintf(path, sizeof path, "%s/ran-%d-%d", p->dir, st, part);
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
}

static void maybe_pause(cspark_task_context *tc)
{
    size_t len;
    const pause_at *p = cspark_closure(tc, &len);
    if (len == sizeof *p && p->stage == -2) {
        record_ran(p, tc);
        return;
    }
    if (len != sizeof *p || p->stage != cspark_stage_id(tc) ||
        p->partition != cspark_partition_id(tc) || cspark_attempt_number(tc) != 0)
        return;
    char path[3100];
    snprintf(path, sizeof path, "%s/go", p->dir);
    if (access(path, F_OK) == 0) return;
    snprintf(path, sizeof path, "%s/paused", p->dir);
    FILE *f = fopen(path, "wx"); /* the first record of the task only */
    if (f) {
        fprintf(f, "%d\n", (int)getpid());
        fclose(f);
    }
    wait_for(p->dir, "go");
}

static int64_t i64_of(cspark_slice s)
{
    return cspark_i64_decode(s.ptr);
}

static void emit_i64(cspark_emitter *out, int64_t k, int64_t v)
{
    uint8_t kb[8], vb[8];
    cspark_i64_encode(k, kb);
    cspark_i64_encode(v, vb);
    cspark_emit(out, kb, 8, vb, 8);
}

/* A cheap deterministic mix, so values depend on every input record. */
static int64_t mix(int64_t x)
{
    uint64_t z = (uint64_t)x + 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return (int64_t)((z ^ (z >> 31)) & 0xffffffffffLL);
}

/* x -> (mix(x) % KEYS, mix(x)) */
void ds_key(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    maybe_pause(tc);
    int64_t x = i64_of(in->key), m = mix(x);
    emit_i64(out, m % KEYS, m);
}

/* x -> (x % KEYS, 1) */
void ds_one(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    maybe_pause(tc);
    int64_t x = i64_of(in->key);
    emit_i64(out, x % KEYS, 1);
}

/* (k, v) -> (v % (KEYS / 4), k) */
void ds_rekey(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    maybe_pause(tc);
    emit_i64(out, i64_of(in->value) % (KEYS / 4), i64_of(in->key) + 1);
}

/* (k, (a, b)) of a join -> (k, a * 3 + b) */
void ds_pair_sum(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    maybe_pause(tc);
    /* a join's value: the pair (left, right) */
    cspark_slice a, b;
    if (!cspark_pair_split(in->value, &a, &b) || a.len != 8 || b.len != 8) {
        cspark_task_fail(tc, "dagshapes: unexpected join value of %u bytes", in->value.len);
        return;
    }
    emit_i64(out, i64_of(in->key), i64_of(a) * 3 + i64_of(b));
}

/* links: (page, out-link), 4 links per page */
void ds_links(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    maybe_pause(tc);
    int64_t x = i64_of(in->key);
    for (int i = 0; i < 4; i++)
        emit_i64(out, x % (KEYS / 2), mix(x * 4 + i) % (KEYS / 2));
}

/* (page, (link, rank)) -> (link, rank / 4 + 1) */
void ds_contrib(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    maybe_pause(tc);
    cspark_slice link, rank;
    if (!cspark_pair_split(in->value, &link, &rank) || link.len != 8 || rank.len != 8) {
        cspark_task_fail(tc, "dagshapes: unexpected join value of %u bytes", in->value.len);
        return;
    }
    emit_i64(out, i64_of(link), i64_of(rank) / 4 + 1);
}

/* page -> (page, 1000) */
void ds_initial_rank(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    maybe_pause(tc);
    emit_i64(out, i64_of(in->key), 1000);
}

static const char *gate_dir(cspark_task_context *tc)
{
    size_t len;
    const char *dir = cspark_closure(tc, &len);
    return len ? dir : ".";
}

/* side A of gated_join: marks which process ran it */
void ds_gate_a(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/a-%d", gate_dir(tc), (int)getpid());
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd >= 0) close(fd);
    ds_key(in, out, tc);
}

/* side B of gated_join: waits for DIR/go (the test's signal), then maps as side A */
void ds_gate_b(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    wait_for(gate_dir(tc), "go");
    ds_key(in, out, tc);
}

/* Prints the shape's line: the records and an order-independent checksum of them. */
static int report(cspark_context *sc, const char *shape, cspark_rdd *rdd)
{
    cspark_records *r = NULL;
    if (!rdd || cspark_collect(rdd, &r) < 0) {
        const char *e = cspark_last_error(sc);
        fprintf(stderr, "dagshapes: %s failed: %s\n", shape, e ? e : "?");
        return 1;
    }
    uint64_t sum = 0;
    size_t n = cspark_records_count(r);
    for (size_t i = 0; i < n; i++) {
        cspark_record rec = cspark_records_get(r, i);
        uint64_t h = 1469598103934665603ULL;
        for (uint32_t j = 0; j < rec.key.len; j++)
            h = (h ^ rec.key.ptr[j]) * 1099511628211ULL;
        h = (h ^ 0xff) * 1099511628211ULL;
        for (uint32_t j = 0; j < rec.value.len; j++)
            h = (h ^ rec.value.ptr[j]) * 1099511628211ULL;
        sum += h;
    }
    printf("shape=%s records=%zu checksum=%016llx\n", shape, n, (unsigned long long)sum);
    fflush(stdout);
    cspark_records_free(r);
    return 0;
}

static pause_at pause_point = {.stage = -1, .partition = -1};

/* N [DIR S P] */
static int64_t arg_n(int argc, char **argv)
{
    if (argc == 5) {
        snprintf(pause_point.dir, sizeof pause_point.dir, "%s", argv[2]);
        pause_point.stage = atoi(argv[3]);
        pause_point.partition = atoi(argv[4]);
    }
    return argc > 1 ? atoll(argv[1]) : 200000;
}

static cspark_rdd *map_fn(cspark_rdd *rdd, cspark_map_fn fn)
{
    return cspark_map(rdd, fn, &pause_point, sizeof pause_point);
}

static cspark_rdd *flat_map_fn(cspark_rdd *rdd, cspark_map_fn fn)
{
    return cspark_flat_map(rdd, fn, &pause_point, sizeof pause_point);
}

static cspark_rdd *keyed(cspark_context *sc, int64_t n, int parts, cspark_map_fn fn)
{
    return map_fn(cspark_range(sc, 0, n, 1, parts), fn);
}

int chain(cspark_context *sc, int argc, char **argv)
{
    int64_t n = arg_n(argc, argv);
    cspark_rdd *a = cspark_reduce_by_key(keyed(sc, n, 8, ds_key), cspark_sum_i64, NULL, 0, 6);
    cspark_rdd *b = cspark_reduce_by_key(map_fn(a, ds_rekey), cspark_sum_i64, NULL, 0, 5);
    cspark_rdd *c = cspark_reduce_by_key(map_fn(b, ds_rekey), cspark_sum_i64, NULL, 0, 3);
    return report(sc, "chain", c);
}

int join_of_joins(cspark_context *sc, int argc, char **argv)
{
    int64_t n = arg_n(argc, argv);
    cspark_rdd *a = cspark_reduce_by_key(keyed(sc, n, 6, ds_key), cspark_sum_i64, NULL, 0, 4);
    cspark_rdd *b = cspark_reduce_by_key(keyed(sc, n / 2, 4, ds_one), cspark_sum_i64, NULL, 0, 3);
    cspark_rdd *c = cspark_reduce_by_key(keyed(sc, n / 3, 3, ds_one), cspark_sum_i64, NULL, 0, 5);
    cspark_rdd *ab = map_fn(cspark_join(a, b, 4), ds_pair_sum);
    cspark_rdd *abc = map_fn(cspark_join(ab, c, 6), ds_pair_sum);
    return report(sc, "join_of_joins", abc);
}

int unions(cspark_context *sc, int argc, char **argv)
{
    int64_t n = arg_n(argc, argv);
    cspark_rdd *a = cspark_reduce_by_key(keyed(sc, n, 6, ds_key), cspark_sum_i64, NULL, 0, 4);
    cspark_rdd *b = cspark_reduce_by_key(keyed(sc, n, 5, ds_one), cspark_sum_i64, NULL, 0, 3);
    cspark_rdd *u = cspark_union(map_fn(a, ds_rekey), map_fn(b, ds_rekey));
    return report(sc, "unions", cspark_reduce_by_key(u, cspark_sum_i64, NULL, 0, 4));
}

int cached(cspark_context *sc, int argc, char **argv)
{
    int64_t n = arg_n(argc, argv);
    cspark_rdd *base =
        cspark_cache(cspark_reduce_by_key(keyed(sc, n, 8, ds_key), cspark_sum_i64, NULL, 0, 6));
    int64_t count = 0;
    if (cspark_count(base, &count) < 0) return report(sc, "cached", NULL);
    cspark_rdd *other = cspark_reduce_by_key(map_fn(base, ds_rekey), cspark_sum_i64, NULL, 0, 4);
    cspark_rdd *j = map_fn(cspark_join(base, other, 5), ds_pair_sum);
    return report(sc, "cached",
                  cspark_reduce_by_key(cspark_union(j, base), cspark_sum_i64, NULL, 0, 3));
}

int iterative(cspark_context *sc, int argc, char **argv)
{
    int64_t n = arg_n(argc, argv);
    cspark_rdd *links = cspark_cache(flat_map_fn(cspark_range(sc, 0, n / 4, 1, 6), ds_links));
    cspark_rdd *ranks = map_fn(cspark_distinct(cspark_keys(links), 4), ds_initial_rank);
    for (int i = 0; i < 5; i++) {
        cspark_rdd *contribs = flat_map_fn(cspark_join(links, ranks, 4), ds_contrib);
        ranks = cspark_reduce_by_key(contribs, cspark_sum_i64, NULL, 0, 4);
    }
    return report(sc, "iterative", ranks);
}

int gated_join(cspark_context *sc, int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gated_join DIR\n");
        return 2;
    }
    const char *dir = argv[1];
    size_t len = strlen(dir) + 1;
    cspark_rdd *a = cspark_map(cspark_range(sc, 0, 4000, 1, 4), ds_gate_a, dir, len);
    cspark_rdd *b = cspark_map(cspark_range(sc, 0, 4000, 1, 4), ds_gate_b, dir, len);
    return report(sc, "gated_join", map_fn(cspark_join(a, b, 4), ds_pair_sum));
}
