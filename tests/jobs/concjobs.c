/* concjobs.c — applications that run jobs from several threads of the driver at once, on one
 * context (tests/integration/concurrent_jobs.sh). Every wait is on a gate file the application
 * or the test controls, so that overlap is proved by what finished while what was blocked, never
 * by timing:
 *
 *   overlap GATES: thread A collects a reduce_by_key whose map task for value 0 touches
 *     GATES/a_started, then waits for GATES/a_release. Once A's task waits, the main thread runs
 *     job B (another reduce_by_key, collected) to the end, prints it, and only then touches
 *     a_release; A finishes and is printed. B can only finish while A is blocked if the two jobs
 *     run at once (FIFO: A's task set is offered the cores first, B takes the free one; FAIR:
 *     A runs in pool "pool_a", B in "pool_b").
 *   cancel_one GATES: a shuffle computed once (map stage shared by both jobs' lineage), then two
 *     threads: A (job group "slow") counts a map over it whose task for key 0 waits for
 *     GATES/a_release; B (no group) collects another map over it whose task for key 0 waits for
 *     GATES/b_release. With both tasks waiting, the main thread cancels group "slow", lets A's
 *     task go and joins A (its action fails: cancelled) while B's task still waits; then lets B
 *     go: B's result must be exact (its task was not killed with A's).
 *   many: four threads each run five actions over shared and their own shuffles at once; every
 *     result is checked against the value computed here.
 * Each prints its results as lines the test compares, and exits 0 only when they are right.
 * A gate not reached within GATE_TIMEOUT_MS fails the task (and every retry at once: a
 * GATES/timed_out file says so), so a failed test cannot hang.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cspark.h"

#define GATE_TIMEOUT_MS (120 * 1000)

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

static bool gate_exists(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Waits until dir/name exists; false after the timeout or once dir/timed_out exists. */
static bool wait_gate(const char *dir, const char *name)
{
    for (int waited = 0; waited < GATE_TIMEOUT_MS; waited += 20) {
        if (gate_exists(dir, name)) return true;
        if (gate_exists(dir, "timed_out")) return false;
        sleep_ms(20);
    }
    return false;
}

static void touch_gate(const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
}

/* A gate a task waits at: touches dir/started, waits for dir/release. */
typedef struct gate_closure {
    char dir[3000];
    char started[32];
    char release[32];
} gate_closure;

static gate_closure make_gate(const char *dir, const char *started, const char *release)
{
    gate_closure g;
    memset(&g, 0, sizeof g);
    snprintf(g.dir, sizeof g.dir, "%s", dir);
    snprintf(g.started, sizeof g.started, "%s", started);
    snprintf(g.release, sizeof g.release, "%s", release);
    return g;
}

/* The record whose key is 0 waits at the closure's gate; the task fails when the gate never
 * opens. */
static void pass_gate(const cspark_record *in, cspark_task_context *tc)
{
    size_t len;
    const gate_closure *g = cspark_closure(tc, &len);
    if (cspark_slice_i64(in->key) != 0) return;
    touch_gate(g->dir, g->started);
    if (!wait_gate(g->dir, g->release)) {
        touch_gate(g->dir, "timed_out");
        cspark_task_fail(tc, "gate %s was not opened in time", g->release);
    }
}

/* key = value % 7, value 1; value 0 waits at the gate */
void gated_mod7(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    pass_gate(in, tc);
    uint8_t k[8], one[8];
    cspark_i64_encode(cspark_slice_i64(in->key) % 7, k);
    cspark_i64_encode(1, one);
    cspark_emit(out, k, 8, one, 8);
}

/* the record itself; key 0 waits at the gate */
void gated_identity(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    pass_gate(in, tc);
    cspark_emit_record(out, in);
}

/* key = value % m (m: the closure's i64), value = the value */
void mod_key(const cspark_record *in, cspark_emitter *out, cspark_task_context *tc)
{
    size_t len;
    const int64_t *m = cspark_closure(tc, &len);
    int64_t v = cspark_slice_i64(in->key);
    uint8_t k[8], val[8];
    cspark_i64_encode(v % *m, k);
    cspark_i64_encode(v, val);
    cspark_emit(out, k, 8, val, 8);
}

/* Prints "<label> k:v k:v ..." of (i64, i64) records, in key order (collect_as_map sorts). */
static int print_pairs(const char *label, cspark_rdd *rdd)
{
    cspark_records *recs = NULL;
    if (cspark_collect_as_map(rdd, &recs) < 0) return -1;
    printf("%s", label);
    for (size_t i = 0; i < cspark_records_count(recs); i++) {
        cspark_record r = cspark_records_get(recs, i);
        printf(" %" PRId64 ":%" PRId64, cspark_slice_i64(r.key), cspark_slice_i64(r.value));
    }
    printf("\n");
    fflush(stdout);
    cspark_records_free(recs);
    return 0;
}

/* ---- overlap ---------------------------------------------------------------------------- */

typedef struct job_thread {
    cspark_context *sc;
    const char *gates;
    cspark_rdd *rdd;
    int rc;
    int64_t n;
    char error[512];
} job_thread;

static void *overlap_a(void *arg)
{
    job_thread *jt = arg;
    cspark_set_local_property(jt->sc, "spark.scheduler.pool", "pool_a");
    gate_closure g = make_gate(jt->gates, "a_started", "a_release");
    cspark_rdd *mapped = cspark_map(cspark_range(jt->sc, 0, 1000, 1, 2), gated_mod7, &g, sizeof g);
    jt->rdd = cspark_reduce_by_key(mapped, cspark_sum_i64, NULL, 0, 2);
    jt->rc = jt->rdd ? print_pairs("A", jt->rdd) : -1;
    return NULL;
}

int overlap(cspark_context *sc, int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: overlap GATE_DIR\n");
        return 2;
    }
    const char *gates = argv[1];
    job_thread a = {.sc = sc, .gates = gates};
    pthread_t t;
    if (pthread_create(&t, NULL, overlap_a, &a) != 0) return 2;
    int rc_b = -1;
    cspark_set_local_property(sc, "spark.scheduler.pool", "pool_b");
    if (wait_gate(gates, "a_started")) { /* job A's task waits for a_release from now on */
        int64_t m = 5;
        cspark_rdd *b =
            cspark_reduce_by_key(cspark_map(cspark_range(sc, 0, 500, 1, 3), mod_key, &m, sizeof m),
                                 cspark_sum_i64, NULL, 0, 3);
        rc_b = b ? print_pairs("B", b) : -1;
        printf("B finished while A waited: %s\n",
               rc_b == 0 && !gate_exists(gates, "a_release") && !gate_exists(gates, "timed_out")
                   ? "yes"
                   : "no");
        fflush(stdout);
    }
    touch_gate(gates, "a_release");
    pthread_join(t, NULL);
    if (a.rc < 0 || rc_b < 0)
        printf("failed: %s\n", cspark_last_error(sc) ? cspark_last_error(sc) : "?");
    return a.rc == 0 && rc_b == 0 ? 0 : 1;
}

/* ---- cancel_one -------------------------------------------------------------------------- */

static void *cancel_one_a(void *arg)
{
    job_thread *jt = arg;
    cspark_set_job_group(jt->sc, "slow", "the job that is cancelled", true);
    gate_closure g = make_gate(jt->gates, "a_started", "a_release");
    jt->rc = cspark_count(cspark_map(jt->rdd, gated_identity, &g, sizeof g), &jt->n);
    if (jt->rc < 0)
        snprintf(jt->error, sizeof jt->error, "%s",
                 cspark_last_error(jt->sc) ? cspark_last_error(jt->sc) : "?");
    return NULL;
}

static void *cancel_one_b(void *arg)
{
    job_thread *jt = arg;
    gate_closure g = make_gate(jt->gates, "b_started", "b_release");
    jt->rc = print_pairs("B", cspark_map(jt->rdd, gated_identity, &g, sizeof g));
    touch_gate(jt->gates, "b_done");
    return NULL;
}

int cancel_one(cspark_context *sc, int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: cancel_one GATE_DIR\n");
        return 2;
    }
    const char *gates = argv[1];
    int64_t m = 7;
    cspark_rdd *shared =
        cspark_reduce_by_key(cspark_map(cspark_range(sc, 0, 1000, 1, 2), mod_key, &m, sizeof m),
                             cspark_sum_i64, NULL, 0, 2);
    int64_t keys = -1;
    if (!shared || cspark_count(shared, &keys) < 0) return 1; /* its map stage is kept */
    job_thread a = {.sc = sc, .gates = gates, .rdd = shared};
    job_thread b = {.sc = sc, .gates = gates, .rdd = shared};
    pthread_t ta, tb;
    if (pthread_create(&ta, NULL, cancel_one_a, &a) != 0) return 2;
    bool both = wait_gate(gates, "a_started");
    if (pthread_create(&tb, NULL, cancel_one_b, &b) != 0) return 2;
    both = both && wait_gate(gates, "b_started");
    printf("both jobs' tasks waiting: %s\n", both ? "yes" : "no");
    cspark_cancel_job_group(sc, "slow");
    touch_gate(gates, "a_release"); /* A's task returns; A's action ends cancelled */
    pthread_join(ta, NULL);
    printf("A: rc=%d error=%s\n", a.rc, a.rc < 0 ? a.error : "none");
    printf("B still waiting after A ended: %s\n", gate_exists(gates, "b_done") ? "no" : "yes");
    fflush(stdout);
    touch_gate(gates, "b_release");
    pthread_join(tb, NULL);
    return both && a.rc < 0 && b.rc == 0 ? 0 : 1;
}

/* ---- many -------------------------------------------------------------------------------- */

typedef struct many_thread {
    cspark_context *sc;
    cspark_rdd *shared;
    int index;
    int failures;
} many_thread;

/* The sum of the values v in [0, n) with v % m == k. */
static int64_t expected_sum(int64_t n, int64_t m, int64_t k)
{
    int64_t s = 0;
    for (int64_t v = k; v < n; v += m)
        s += v;
    return s;
}

static int check_sums(cspark_rdd *rdd, int64_t n, int64_t m)
{
    cspark_records *recs = NULL;
    if (!rdd || cspark_collect_as_map(rdd, &recs) < 0) return -1;
    int bad = cspark_records_count(recs) != (size_t)(n < m ? n : m);
    for (size_t i = 0; i < cspark_records_count(recs); i++) {
        cspark_record r = cspark_records_get(recs, i);
        int64_t k = cspark_slice_i64(r.key);
        bad |= cspark_slice_i64(r.value) != expected_sum(n, m, k);
    }
    cspark_records_free(recs);
    return bad ? -1 : 0;
}

static void *many_main(void *arg)
{
    many_thread *mt = arg;
    for (int round = 0; round < 5; round++) {
        int64_t n = 2000 + 100 * mt->index + round, m = 3 + mt->index + round;
        cspark_rdd *own = cspark_reduce_by_key(
            cspark_map(cspark_range(mt->sc, 0, n, 1, 3), mod_key, &m, sizeof m), cspark_sum_i64,
            NULL, 0, 2 + round % 2);
        if (check_sums(own, n, m) < 0) mt->failures++;
        if (check_sums(mt->shared, 5000, 11) < 0) mt->failures++;
    }
    return NULL;
}

int many(cspark_context *sc, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    int64_t m = 11;
    cspark_rdd *shared =
        cspark_reduce_by_key(cspark_map(cspark_range(sc, 0, 5000, 1, 4), mod_key, &m, sizeof m),
                             cspark_sum_i64, NULL, 0, 3);
    many_thread mt[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        mt[i] = (many_thread){.sc = sc, .shared = shared, .index = i};
        if (pthread_create(&t[i], NULL, many_main, &mt[i]) != 0) return 2;
    }
    int failures = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        failures += mt[i].failures;
    }
    printf("many: %d wrong results of 40\n", failures);
    if (failures) printf("failed: %s\n", cspark_last_error(sc) ? cspark_last_error(sc) : "?");
    fflush(stdout);
    return failures == 0 ? 0 : 1;
}
