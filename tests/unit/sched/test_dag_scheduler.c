/* test_dag_scheduler.c — unit tests for the DAG scheduler (src/sched/dag_scheduler.c) against a
 * fake backend: a two-stage job (map stage, then result stage), task retry up to
 * spark.task.maxFailures and the abort after it, FetchFailed resubmitting only the lost map output,
 * a shuffle computed by one job reused by the next, cancellation of running tasks when the
 * backend aborts (and every later job failing), the task reaper ending tasks that ignore their
 * kill, executor loss (outputs it held recomputed,
 * during a running map stage and after; its running tasks re-queued, not counted as failures when
 * the executor was removed), a task killed by no request of the scheduler (its executor removed
 * as it started) running again rather than stalling its map-stage job, and zombie stage
 * attempts whose late failures are not retried;
 * two jobs at once from two threads, the first cancelled while the second runs to its result.
 *
 * The fake backend is a small model of a cluster: executors "1" and "2" (alive or lost) offering
 * their cores to the task scheduler, map tasks that write their output on the executor they run
 * on, result tasks that fail with FetchFailed when a map output they read sits on a lost
 * executor. Tasks complete synchronously inside revive_offers (the
 * scheduler takes completions from any thread, its own included) unless a test holds them. No
 * thread, no clock, no process: every outcome follows from the events the test scripts. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "plan/rdd.h"
#include "sched/scheduler.h"
#include "sched/task_scheduler.h"

#define MAX_LAUNCHES 256

typedef struct launch_rec {
    int stage_id, stage_attempt, partition, attempt;
    bool map; /* a ShuffleMapTask */
    char executor[8];
} launch_rec;

typedef struct fake fake;
/* The outcome of one launched task: fills r; returns false to hold the task (not completed). */
typedef bool (*script_fn)(fake *f, const task_desc *t, task_result *r);

struct fake {
    sched_backend base;
    bool lost[3]; /* executors "1" and "2" */
    launch_rec log[MAX_LAUNCHES];
    int nlog;
    const task_desc *held[MAX_LAUNCHES];
    int nheld;
    int cancel_calls;
    script_fn script;
    int counter;             /* for scripts */
    bool left_running;       /* fake_reap reports the tasks as left running */
    char running_on[8];      /* the executor of the task the script is asked about */
    int removed_shuffles[4]; /* the ids remove_shuffles was given, in order */
    int n_removed_shuffles;
};

static const char *place(fake *f, const task_desc *t)
{
    const char *e = t->partition % 2 ? "2" : "1";
    if (f->lost[atoi(e)]) e = f->lost[1] ? "2" : "1";
    return e;
}

static bool is_map(const task_desc *t)
{
    return t->sink->kind == SINK_SHUFFLE;
}

/* What a healthy cluster answers: a map output on the task's executor, or one record. */
static void succeed(fake *f, const task_desc *t, task_result *r)
{
    r->status = TASK_OK;
    if (is_map(t)) {
        const shuffle_dep *d = t->sink->dep;
        cs_map_status *ms = &r->map_status;
        ms->shuffle_id = d->shuffle_id;
        ms->map_id = t->partition;
        uint64_t *sizes = cs_xcalloc((size_t)d->partitioner.num_partitions + 1, sizeof *sizes);
        for (int p = 0; p < d->partitioner.num_partitions; p++) /* map m: 1000 (m + 1) + p */
            sizes[p] = 1000 * (uint64_t)(t->partition + 1) + (uint64_t)p;
        cs_map_status_set_sizes(ms, sizes, d->partitioner.num_partitions, NULL);
        free(sizes);
        snprintf(ms->executor_id, sizeof ms->executor_id, "%s", place(f, t));
        snprintf(ms->host, sizeof ms->host, "host-%s", place(f, t));
        r->has_map_status = true;
        return;
    }
    /* a result task reading an output of a lost executor cannot fetch it */
    for (int i = 0; i < t->num_inputs; i++)
        for (int m = 0; m < t->inputs[i].num_maps; m++) {
            const cs_map_status *ms = t->inputs[i].maps[m];
            if (!ms || !f->lost[atoi(ms->executor_id)]) continue;
            r->status = TASK_FETCH_FAILED;
            r->fetch_shuffle_id = t->inputs[i].shuffle_id;
            r->fetch_map_id = m;
            r->error = cs_xstrdup("connection refused");
            return;
        }
    r->count = 1;
}

static bool all_succeed(fake *f, const task_desc *t, task_result *r)
{
    succeed(f, t, r);
    return true;
}

/* Runs t on the executor the task scheduler placed it on. */
static void fake_run(sched_backend *b, const task_desc *t, const char *executor)
{
    fake *f = (fake *)b;
    assert_true(f->nlog < MAX_LAUNCHES);
    launch_rec *l = &f->log[f->nlog++];
    *l = (launch_rec){t->stage_id, t->stage_attempt, t->partition, t->attempt, is_map(t), ""};
    snprintf(l->executor, sizeof l->executor, "%s", executor);
    snprintf(f->running_on, sizeof f->running_on, "%s", executor);
    cs_scheduler_task_started(b->sched, t, l->executor, "host", 0);
    task_result r;
    cs_task_result_init(&r);
    if (f->script(f, t, &r))
        cs_scheduler_task_done(b->sched, t, &r);
    else
        f->held[f->nheld++] = t;
    cs_task_result_free(&r);
}

/* The live executors offer their cores to the task scheduler; what it places runs at once (where
 * place() says: the fake's model of where each partition's output lands). */
static void fake_revive(sched_backend *b)
{
    fake *f = (fake *)b;
    cs_offer offers[2];
    int n = 0;
    if (!f->lost[1]) offers[n++] = (cs_offer){"1", "host-1", MAX_LAUNCHES};
    if (!f->lost[2]) offers[n++] = (cs_offer){"2", "host-2", MAX_LAUNCHES};
    cs_task_assignment given[MAX_LAUNCHES];
    int k = cs_task_scheduler_resource_offers(b->tasks, offers, n, 0, given, MAX_LAUNCHES);
    for (int i = 0; i < k; i++)
        fake_run(b, given[i].t, offers[given[i].offer].executor_id);
}

static int fake_total_cores(sched_backend *b)
{
    return 4;
}

static void fake_cancel_all(sched_backend *b)
{
    fake *f = (fake *)b;
    f->cancel_calls++;
    int kept = 0;
    for (int i = 0; i < f->nheld; i++) {
        if (!cs_task_desc_cancelled(f->held[i])) { /* another job's: it runs on */
            f->held[kept++] = f->held[i];
            continue;
        }
        task_result r;
        cs_task_result_init(&r);
        r.status = TASK_KILLED; /* as the backends report a cancelled task */
        r.error = cs_xstrdup(CS_TASK_CANCELLED);
        cs_scheduler_task_done(b->sched, f->held[i], &r);
    }
    f->nheld = kept;
}

static void fake_stop(sched_backend *b) {}

/* ---- the application: range(3 partitions) -> shuffle (2 partitions) -> result ---------------- */

typedef struct app {
    lineage_graph g;
    cspark_rdd *src, *reduced;
    shuffle_dep *dep;
    fake f;
    scheduler *s;
    int results[8];
} app;

static void app_init(app *a, script_fn script, int max_failures)
{
    memset(a, 0, sizeof *a);
    cs_lineage_init(&a->g);
    a->src = cs_rdd_new(&a->g, RDD_RANGE, 3, "range at test");
    a->src->range_end = 30;
    a->src->range_step = 1;
    a->dep = cs_shuffle_dep_new(&a->g, a->src);
    a->dep->partitioner.kind = PART_HASH;
    a->dep->partitioner.num_partitions = 2;
    a->reduced = cs_rdd_new(&a->g, RDD_SHUFFLED, 2, "reduce_by_key at test");
    a->reduced->deps[0] = a->dep;
    a->reduced->num_deps = 1;
    a->reduced->read_mode = SHUFFLE_READ_PLAIN;
    a->f.base = (sched_backend){.revive_offers = fake_revive,
                                .total_cores = fake_total_cores,
                                .cancel_all = fake_cancel_all,
                                .stop = fake_stop};
    a->f.script = script;
    scheduler_options o = {
        .max_task_failures = max_failures, .max_stage_attempts = 4, .max_result_size = 0};
    a->s = cs_scheduler_new(&o, &a->f.base);
}

static void app_free(app *a)
{
    cs_scheduler_free(a->s);
    cs_lineage_free(&a->g);
}

static void on_result(void *arg, int partition, task_result *r)
{
    app *a = arg;
    a->results[partition] += (int)r->count;
}

static int run(app *a, cspark_rdd *rdd, cs_error *err)
{
    task_sink sink = {.kind = SINK_COUNT};
    memset(a->results, 0, sizeof a->results);
    cs_error_clear(err);
    return cs_scheduler_run_job(a->s, rdd, NULL, 0, NULL, &sink, on_result, a, err);
}

/* Launches of (map or result) partition p, in order. */
static int launches(const fake *f, bool map, int partition)
{
    int n = 0;
    for (int i = 0; i < f->nlog; i++)
        n += f->log[i].map == map && f->log[i].partition == partition;
    return n;
}

static int count_map_launches(const fake *f)
{
    int n = 0;
    for (int i = 0; i < f->nlog; i++)
        n += f->log[i].map;
    return n;
}

/* ---- tests ------------------------------------------------------------------------------------
 */

static void test_two_stages(void **state)
{
    app a;
    app_init(&a, all_succeed, 4);
    cs_error err;
    assert_int_equal(run(&a, a.reduced, &err), 0);
    assert_int_equal(a.f.nlog, 5);
    for (int i = 0; i < 3; i++) { /* the map stage first: parents get the lower stage ids */
        assert_true(a.f.log[i].map);
        assert_int_equal(a.f.log[i].stage_id, 0);
        assert_int_equal(a.f.log[i].partition, i);
    }
    for (int i = 3; i < 5; i++) {
        assert_false(a.f.log[i].map);
        assert_int_equal(a.f.log[i].stage_id, 1);
    }
    assert_int_equal(a.results[0], 1);
    assert_int_equal(a.results[1], 1);
    app_free(&a);
}

/* Result partition 1 fails twice, then succeeds on its third attempt. */
static bool fail_twice(fake *f, const task_desc *t, task_result *r)
{
    if (!is_map(t) && t->partition == 1 && t->attempt < 2) {
        r->status = TASK_FAILED;
        r->error = cs_xstrdup("java.lang.RuntimeException: boom");
        return true;
    }
    succeed(f, t, r);
    return true;
}

static void test_task_retry(void **state)
{
    app a;
    app_init(&a, fail_twice, 4);
    cs_error err;
    assert_int_equal(run(&a, a.reduced, &err), 0);
    assert_int_equal(launches(&a.f, false, 1), 3);
    int attempt = 0;
    for (int i = 0; i < a.f.nlog; i++)
        if (!a.f.log[i].map && a.f.log[i].partition == 1)
            assert_int_equal(a.f.log[i].attempt, attempt++);
    assert_int_equal(launches(&a.f, false, 0), 1);
    assert_int_equal(a.results[1], 1);
    app_free(&a);
}

static bool always_fail_p0(fake *f, const task_desc *t, task_result *r)
{
    if (!is_map(t) && t->partition == 0) {
        r->status = TASK_FAILED;
        r->error = cs_xstrdup("boom");
        return true;
    }
    succeed(f, t, r);
    return true;
}

static void test_task_fails_max_times(void **state)
{
    app a;
    app_init(&a, always_fail_p0, 3);
    cs_error err;
    assert_int_equal(run(&a, a.reduced, &err), CS_ETASK);
    assert_non_null(strstr(err.msg, "Job aborted due to stage failure: Task 0 in stage 1.0 failed "
                                    "3 times, most recent failure: Lost task 0.2 in stage 1.0"));
    assert_non_null(strstr(err.msg, "boom"));
    assert_int_equal(launches(&a.f, false, 0), 3);
    app_free(&a);
}

/* The first attempt of result partition 0 cannot fetch map output 1. */
static bool fetch_fail_once(fake *f, const task_desc *t, task_result *r)
{
    if (!is_map(t) && t->partition == 0 && t->stage_attempt == 0) {
        r->status = TASK_FETCH_FAILED;
        r->fetch_shuffle_id = t->inputs[0].shuffle_id;
        r->fetch_map_id = 1;
        r->error = cs_xstrdup("connection reset by peer");
        return true;
    }
    succeed(f, t, r);
    return true;
}

static void test_fetch_failed_resubmits_map_output(void **state)
{
    app a;
    app_init(&a, fetch_fail_once, 4);
    cs_error err;
    assert_int_equal(run(&a, a.reduced, &err), 0);
    /* only map output 1 is computed again, in attempt 1 of the map stage */
    assert_int_equal(launches(&a.f, true, 0), 1);
    assert_int_equal(launches(&a.f, true, 1), 2);
    assert_int_equal(launches(&a.f, true, 2), 1);
    bool resubmitted = false;
    for (int i = 0; i < a.f.nlog; i++)
        if (a.f.log[i].map && a.f.log[i].partition == 1 && a.f.log[i].stage_attempt == 1)
            resubmitted = true;
    assert_true(resubmitted);
    /* the result stage's attempt 1 runs partition 0 again (1 had finished) */
    assert_int_equal(launches(&a.f, false, 0), 2);
    assert_int_equal(launches(&a.f, false, 1), 1);
    assert_int_equal(a.results[0], 1);
    assert_int_equal(a.results[1], 1);
    app_free(&a);
}

/* A second job over the same shuffle (the same RDD, and a narrow child of it) runs no map task:
 * the map outputs of the first are kept for the application. */
static void test_shuffle_reused_across_jobs(void **state)
{
    app a;
    app_init(&a, all_succeed, 4);
    cs_error err;
    assert_int_equal(run(&a, a.reduced, &err), 0);
    assert_int_equal(count_map_launches(&a.f), 3);
    assert_int_equal(run(&a, a.reduced, &err), 0);
    assert_int_equal(count_map_launches(&a.f), 3);
    cspark_rdd *child = cs_rdd_new(&a.g, RDD_MAP, 2, "map at test");
    child->parents[0] = a.reduced;
    child->num_parents = 1;
    assert_int_equal(run(&a, child, &err), 0);
    assert_int_equal(count_map_launches(&a.f), 3);
    assert_int_equal(a.f.nlog, 3 + 2 + 2 + 2);
    assert_int_equal(a.results[0] + a.results[1], 2);
    app_free(&a);
}

/* ---- a finished SQL execution's shuffles removed (Spark's ContextCleaner) ---- */

static void fake_remove_shuffles(sched_backend *b, const int *ids, int n)
{
    fake *f = (fake *)b;
    for (int i = 0; i < n && f->n_removed_shuffles < 4; i++)
        f->removed_shuffles[f->n_removed_shuffles++] = ids[i];
}

/* After its job, the shuffle is removed: the backend is told its id, its outputs are gone, and
 * its lineage can be freed; a new shuffle of the same source then runs its maps again. */
static void test_removed_shuffle_is_forgotten(void **state)
{
    app a;
    app_init(&a, all_succeed, 4);
    a.f.base.remove_shuffles = fake_remove_shuffles;
    cs_error err;
    uint64_t bytes[2];
    assert_int_equal(run(&a, a.reduced, &err), 0);
    assert_int_equal(cs_scheduler_shuffle_sizes(a.s, a.dep->shuffle_id, bytes, 2), 0);
    int sid = a.dep->shuffle_id;
    assert_true(cs_scheduler_remove_shuffles(a.s, &a.dep, 1));
    assert_int_equal(a.f.n_removed_shuffles, 1);
    assert_int_equal(a.f.removed_shuffles[0], sid);
    assert_int_equal(cs_scheduler_shuffle_sizes(a.s, sid, bytes, 2), CS_ENOTFOUND);
    cspark_rdd *gone[] = {a.reduced};
    cs_lineage_release(&a.g, gone, 1, &a.dep, 1);
    assert_int_equal(a.g.num_rdds, 1);
    assert_int_equal(a.g.num_deps, 0);

    a.dep = cs_shuffle_dep_new(&a.g, a.src);
    a.dep->partitioner.kind = PART_HASH;
    a.dep->partitioner.num_partitions = 2;
    a.reduced = cs_rdd_new(&a.g, RDD_SHUFFLED, 2, "reduce_by_key at test");
    a.reduced->deps[0] = a.dep;
    a.reduced->num_deps = 1;
    assert_int_equal(run(&a, a.reduced, &err), 0);
    assert_int_equal(count_map_launches(&a.f), 6);
    assert_int_equal(a.results[0] + a.results[1], 2);
    app_free(&a);
}

/* A long-lived application (a Connect server) numbers its shuffles on and on: the scheduler keeps
 * the live ones only, so a shuffle's id, however high, costs no memory for the ids before it,
 * and a removed shuffle leaves nothing behind. */
static void test_shuffle_ids_far_apart_cost_nothing(void **state)
{
    app a;
    app_init(&a, all_succeed, 4);
    a.f.base.remove_shuffles = fake_remove_shuffles;
    a.dep->shuffle_id = 1 << 29; /* a table indexed by id would need gigabytes for it */
    cs_error err;
    uint64_t bytes[2];
    assert_int_equal(run(&a, a.reduced, &err), 0);
    assert_int_equal(a.results[0] + a.results[1], 2);
    assert_int_equal(cs_scheduler_shuffle_sizes(a.s, 1 << 29, bytes, 2), 0);
    assert_int_equal(cs_scheduler_shuffle_sizes(a.s, (1 << 29) - 1, bytes, 2), CS_ENOTFOUND);
    assert_true(cs_scheduler_remove_shuffles(a.s, &a.dep, 1));
    assert_int_equal(a.f.n_removed_shuffles, 1);
    assert_int_equal(a.f.removed_shuffles[0], 1 << 29);
    assert_int_equal(cs_scheduler_shuffle_sizes(a.s, 1 << 29, bytes, 2), CS_ENOTFOUND);
    app_free(&a);
}

/* ---- map outputs recovered from a reused volume (issue 28 item 3) ----------------------------
 * Executor "1" (maps 0 and 2) is lost between two jobs over one shuffle; before the second job an
 * executor reports the outputs it found on "1"'s volume (here "2", the live one). They are
 * registered at it, so the second job runs no map task, though "1"'s loss is handled at its start.
 * Outputs of an unknown shuffle, a map out of range or another reduce count are ignored. */
static void recovered(cs_map_status *ms, int shuffle, int map, int reduces)
{
    uint64_t sizes[3] = {100, 200, 300};
    memset(ms, 0, sizeof *ms);
    ms->shuffle_id = shuffle;
    ms->map_id = map;
    cs_map_status_set_sizes(ms, sizes, reduces, NULL);
    snprintf(ms->executor_id, sizeof ms->executor_id, "2");
    snprintf(ms->host, sizeof ms->host, "host-2");
}

static void test_recovered_outputs_not_recomputed(void **state)
{
    app a;
    app_init(&a, all_succeed, 4);
    cs_error err;
    assert_int_equal(run(&a, a.reduced, &err), 0);
    assert_int_equal(count_map_launches(&a.f), 3);
    a.f.lost[1] = true;
    cs_scheduler_executor_lost(a.s, "1", "The executor pod was deleted");
    int sid = a.dep->shuffle_id;
    cs_map_status *outs = cs_xcalloc(5, sizeof *outs);
    recovered(&outs[0], sid, 0, 2);
    recovered(&outs[1], sid, 2, 2);
    recovered(&outs[2], sid + 7, 0, 2); /* no such shuffle */
    recovered(&outs[3], sid, 5, 2);     /* no such map */
    recovered(&outs[4], sid, 1, 3);     /* another reduce count */
    cs_scheduler_outputs_recovered(a.s, outs, 5);
    assert_int_equal(run(&a, a.reduced, &err), 0);
    assert_int_equal(count_map_launches(&a.f), 3);
    assert_int_equal(a.results[0] + a.results[1], 2);
    app_free(&a);
}

/* A map-stage job (adaptive execution's) runs the map stage alone and ends when its outputs are
 * registered; the tracker sums each reduce partition's sizes; the reduce job after it and a second
 * map-stage job run no map task again. */
static void test_map_stage_job(void **state)
{
    app a;
    app_init(&a, all_succeed, 4);
    cs_error err;
    cs_error_clear(&err);
    uint64_t bytes[2];
    assert_int_equal(cs_scheduler_shuffle_sizes(a.s, a.dep->shuffle_id, bytes, 2), CS_ENOTFOUND);
    assert_int_equal(cs_scheduler_run_map_stages(a.s, &a.dep, 1, NULL, &err), 0);
    assert_int_equal(a.f.nlog, 3);
    assert_int_equal(count_map_launches(&a.f), 3);
    assert_int_equal(cs_scheduler_shuffle_sizes(a.s, a.dep->shuffle_id, bytes, 2), 0);
    for (int p = 0; p < 2; p++) { /* 1000 + 2000 + 3000 (+ p each), within the log scale's 10% */
        assert_true(bytes[p] >= 5400 && bytes[p] <= 6600);
    }
    assert_int_equal(cs_scheduler_run_map_stages(a.s, &a.dep, 1, NULL, &err), 0);
    assert_int_equal(a.f.nlog, 3);
    assert_int_equal(run(&a, a.reduced, &err), 0);
    assert_int_equal(count_map_launches(&a.f), 3);
    assert_int_equal(a.f.nlog, 5);
    assert_int_equal(a.results[0] + a.results[1], 2);
    app_free(&a);
}

/* Result tasks hang; the backend gives up (as after spark.executor.maxNumFailures). */
static bool hang_results_then_abort(fake *f, const task_desc *t, task_result *r)
{
    if (is_map(t)) {
        succeed(f, t, r);
        return true;
    }
    if (++f->counter == 2) cs_scheduler_abort(f->base.sched, "Max number of executor failures");
    return false;
}

static void test_abort_cancels_running_tasks(void **state)
{
    app a;
    app_init(&a, hang_results_then_abort, 4);
    cs_error err;
    assert_int_equal(run(&a, a.reduced, &err), CS_ETASK);
    assert_non_null(strstr(err.msg, "Max number of executor failures"));
    assert_int_equal(a.f.cancel_calls, 1); /* the held tasks were cancelled, and reported */
    assert_int_equal(a.f.nheld, 0);
    /* every later job fails at once with the same reason, launching nothing */
    int before = a.f.nlog;
    assert_int_equal(run(&a, a.reduced, &err), CS_ETASK);
    assert_non_null(strstr(err.msg, "Max number of executor failures"));
    assert_int_equal(a.f.nlog, before);
    app_free(&a);
}

/* ---- the task reaper (issue 10 item 6) --------------------------------------------------------
 * Result tasks hang and ignore cancel_all; the backend gives up (abort). With the reaper on
 * (timeout 0: no clock involved) the scheduler asks the backend to end them once, and the job
 * returns instead of waiting for tasks that never stop (before: run_job never returned). */
static void ignore_kill(sched_backend *b)
{
    ((fake *)b)->cancel_calls++;
}

/* The fake's reap: the held tasks fail (their executors were "killed"); left_running of them are
 * instead reported as left running in the process (local mode's abandoned threads). */
static int fake_reap(sched_backend *b, const char *reason)
{
    fake *f = (fake *)b;
    f->counter += 100; /* reap calls, above the script's own counting */
    for (int i = 0; i < f->nheld; i++)
        cs_scheduler_task_failed(b->sched, f->held[i], "ExecutorLostFailure: %s", reason);
    int n = f->nheld;
    f->nheld = 0;
    return f->left_running ? n : 0;
}

static void reaper_case(bool left_running)
{
    app a;
    app_init(&a, hang_results_then_abort, 4);
    a.f.base.cancel_all = ignore_kill;
    a.f.base.reap = fake_reap;
    a.f.left_running = left_running;
    cs_scheduler_free(a.s);
    scheduler_options o = {.max_task_failures = 4,
                           .max_stage_attempts = 4,
                           .task_reaper = true,
                           .task_kill_timeout_ms = 0};
    a.s = cs_scheduler_new(&o, &a.f.base);
    cs_error err;
    assert_int_equal(run(&a, a.reduced, &err), CS_ETASK);
    assert_non_null(strstr(err.msg, "Max number of executor failures"));
    assert_int_equal(a.f.cancel_calls, 1);
    assert_int_equal(a.f.counter / 100, 1); /* reaped once */
    assert_int_equal(a.f.nheld, 0);
    /* a shuffle read by a result stage whose tasks were left running stays */
    assert_int_equal(cs_scheduler_remove_shuffles(a.s, &a.dep, 1), !left_running);
    app_free(&a); /* a result stage kept for tasks left running is freed with the scheduler */
}

static void test_reaper_ends_tasks_that_ignore_the_kill(void **state)
{
    reaper_case(false);
}

static void test_reaper_keeps_stages_of_tasks_left_running(void **state)
{
    reaper_case(true);
}

/* Executor "1" is lost when the first result task launches: its map outputs (partitions 0 and
 * 2) are unregistered; the result tasks that read them fail to fetch; the map stage computes
 * the two outputs again on executor "2", once each (regression: the superseded result stage's
 * resubmission started the map stage, and the "Resubmitted" pass launched its maps a second
 * time); the job succeeds. */
static bool lose_exec1_at_first_result(fake *f, const task_desc *t, task_result *r)
{
    if (!is_map(t) && !f->lost[1]) {
        f->lost[1] = true;
        cs_scheduler_executor_lost(f->base.sched, "1", "Executor heartbeat timed out");
        r->status = TASK_FAILED;
        r->error = cs_xstrdup("ExecutorLostFailure (executor 1 exited)");
        return true;
    }
    succeed(f, t, r);
    return true;
}

static void test_executor_lost_after_map_stage(void **state)
{
    app a;
    app_init(&a, lose_exec1_at_first_result, 4);
    cs_error err;
    assert_int_equal(run(&a, a.reduced, &err), 0);
    assert_int_equal(launches(&a.f, true, 0), 2);
    assert_int_equal(launches(&a.f, true, 1), 1); /* it was on executor "2" */
    assert_int_equal(launches(&a.f, true, 2), 2);
    for (int i = 0; i < a.f.nlog; i++) /* nothing ran on the lost executor after its loss */
        if (a.f.log[i].map && a.f.log[i].stage_attempt > 0)
            assert_string_equal(a.f.log[i].executor, "2");
    assert_int_equal(a.results[0], 1);
    assert_int_equal(a.results[1], 1);
    app_free(&a);
}

/* Executor "1" is lost while the map stage runs, after map 0 finished there: the running stage
 * runs map 0 again (Spark's "Resubmitted"), not counted as a task failure. */
static bool lose_exec1_during_map_stage(fake *f, const task_desc *t, task_result *r)
{
    if (is_map(t) && t->partition == 2 && !f->lost[1]) {
        f->lost[1] = true;
        cs_scheduler_executor_lost(f->base.sched, "1", "Executor heartbeat timed out");
    }
    succeed(f, t, r);
    return true;
}

static void test_executor_lost_during_map_stage(void **state)
{
    app a;
    app_init(&a, lose_exec1_during_map_stage, 1); /* one failure would abort: none counted */
    cs_error err;
    assert_int_equal(run(&a, a.reduced, &err), 0);
    assert_int_equal(launches(&a.f, true, 0), 2);
    assert_int_equal(launches(&a.f, true, 1), 1);
    assert_int_equal(launches(&a.f, true, 2), 1); /* its output went to executor "2" */
    assert_int_equal(a.results[0] + a.results[1], 2);
    app_free(&a);
}

/* ---- a finished parent that loses its outputs while its sibling still runs (issue 20 item 3) --
 * A join: map stage A (2 partitions) and map stage B (2 partitions) feed one result stage. A
 * finishes first; executor "1", holding A's output 0, is lost while B still runs. The result stage
 * waits for B, then finds A incomplete: A must run again (Spark's submitMissingParents), or the job
 * waits for good with nothing running (before the fix: this test hung). */
typedef struct join_app {
    app a; /* a.src / a.dep: side A */
    cspark_rdd *src_b, *joined;
    shuffle_dep *dep_b;
} join_app;

static bool lose_exec1_while_b_runs(fake *f, const task_desc *t, task_result *r)
{
    /* side B is the second shuffle: its partition 1 reports after executor "1" is lost */
    if (is_map(t) && t->sink->dep->shuffle_id == 1 && t->partition == 1 && !f->lost[1]) {
        f->lost[1] = true;
        cs_scheduler_executor_lost(f->base.sched, "1", "Command exited with code 137");
    }
    succeed(f, t, r);
    return true;
}

static void test_lost_outputs_of_finished_parent_rerun(void **state)
{
    join_app j;
    app *a = &j.a;
    app_init(a, lose_exec1_while_b_runs, 4);
    a->src->num_partitions = 2;
    j.src_b = cs_rdd_new(&a->g, RDD_RANGE, 2, "range at test");
    j.src_b->range_end = 20;
    j.src_b->range_step = 1;
    j.dep_b = cs_shuffle_dep_new(&a->g, j.src_b);
    j.dep_b->partitioner = a->dep->partitioner;
    j.joined = cs_rdd_new(&a->g, RDD_SHUFFLED, 2, "join at test");
    j.joined->deps[0] = a->dep;
    j.joined->deps[1] = j.dep_b;
    j.joined->num_deps = 2;
    j.joined->read_mode = SHUFFLE_READ_PLAIN;
    cs_error err;
    assert_int_equal(run(a, j.joined, &err), 0);
    int a0 = 0, b0 = 0;
    for (int i = 0; i < a->f.nlog; i++) {
        const launch_rec *l = &a->f.log[i];
        if (l->map && l->stage_id == 0 && l->partition == 0) a0++;
        if (l->map && l->stage_id == 1 && l->partition == 0) b0++;
        if (l->map && l->stage_attempt > 0) assert_string_equal(l->executor, "2");
    }
    assert_int_equal(a0, 2); /* A's lost output computed again */
    assert_int_equal(b0, 2); /* B's too (Resubmitted while B ran) */
    assert_int_equal(a->results[0] + a->results[1], 2);
    app_free(a);
}

/* ---- zombie attempts and executor loss (issue 22 item 1: the task set manager's rules) ---------
 * Result stage attempt 0: partition 0 cannot fetch a map output, partition 1 is still running
 * (held). The fetch failure makes attempt 0 a zombie; attempt 1 runs both partitions, and the
 * late failure of attempt 0's partition 1 arrives first. With spark.task.maxFailures=1 a zombie's
 * failure is neither counted nor retried, so the job succeeds (before: the late failure counted
 * against the stage and aborted the job). */
static bool late_failure_of_zombie(fake *f, const task_desc *t, task_result *r)
{
    if (!is_map(t) && t->stage_attempt == 0 && t->partition == 1) return false; /* held */
    if (!is_map(t) && t->stage_attempt == 0 && t->partition == 0) {
        r->status = TASK_FETCH_FAILED;
        r->fetch_shuffle_id = t->inputs[0].shuffle_id;
        r->fetch_map_id = 1;
        r->error = cs_xstrdup("connection reset by peer");
        return true;
    }
    if (!is_map(t) && t->stage_attempt == 1 && t->partition == 1 && f->nheld > 0) {
        task_result late;
        cs_task_result_init(&late);
        late.status = TASK_FAILED;
        late.error = cs_xstrdup("java.lang.RuntimeException: late failure of a zombie attempt");
        cs_scheduler_task_done(f->base.sched, f->held[0], &late);
        f->nheld = 0;
    }
    succeed(f, t, r);
    return true;
}

static void test_zombie_attempt_late_failure_ignored(void **state)
{
    app a;
    app_init(&a, late_failure_of_zombie, 1);
    cs_error err;
    assert_int_equal(run(&a, a.reduced, &err), 0);
    int attempt1 = 0;
    for (int i = 0; i < a.f.nlog; i++)
        attempt1 += !a.f.log[i].map && a.f.log[i].stage_attempt == 1;
    assert_int_equal(attempt1, 2); /* the new attempt ran both; nothing retried the zombie's */
    assert_int_equal(launches(&a.f, false, 1), 2);
    assert_int_equal(a.results[0], 1);
    assert_int_equal(a.results[1], 1);
    app_free(&a);
}

/* A one-stage job: partition 0 runs (held) on an executor that is then removed (lost by no fault
 * of its task). Its running task is re-queued and runs again on the other executor as attempt 1;
 * not counted as a failure, so spark.task.maxFailures=1 does not abort the job (before: the loss
 * counted and aborted it). */
static bool lose_executor_of_running_task(fake *f, const task_desc *t, task_result *r)
{
    if (t->partition == 0 && t->attempt == 0) return false; /* held where it runs */
    if (t->partition == 1 && f->nheld > 0) {
        static char lost[8];
        for (int i = 0; i < f->nlog; i++)
            if (f->log[i].partition == 0) snprintf(lost, sizeof lost, "%s", f->log[i].executor);
        f->lost[atoi(lost)] = true;
        cs_scheduler_task_lost(f->base.sched, f->held[0], lost, "Executor decommissioned", false);
        cs_scheduler_executor_lost(f->base.sched, lost, "Executor decommissioned");
        f->nheld = 0;
    }
    succeed(f, t, r);
    return true;
}

static void test_executor_loss_requeues_running_task(void **state)
{
    app a;
    app_init(&a, lose_executor_of_running_task, 1);
    cs_error err;
    assert_int_equal(run(&a, a.src, &err), 0);
    assert_int_equal(launches(&a.f, false, 0), 2);
    const launch_rec *first = NULL, *second = NULL;
    for (int i = 0; i < a.f.nlog; i++)
        if (a.f.log[i].partition == 0) {
            if (first)
                second = &a.f.log[i];
            else
                first = &a.f.log[i];
        }
    assert_int_equal(second->attempt, 1);
    assert_string_not_equal(second->executor, first->executor);
    assert_int_equal(a.results[0] + a.results[1] + a.results[2], 3);
    app_free(&a);
}

/* An executor removed while it runs a task stops it: the task reports KILLED though its job
 * asked for no kill (the executor's StopExecutor cancels its tasks). Its stage attempt is still
 * the current one, so the task runs again (as Spark's TaskSetManager re-queues a TaskKilled
 * attempt of a live task set, not counted as a failure); the map-stage job (whose result stage
 * is the placeholder of id -1) completes instead of stalling with "stages waiting: -1". */
static bool kill_first_map_attempt(fake *f, const task_desc *t, task_result *r)
{
    if (is_map(t) && t->partition == 1 && t->attempt == 0) {
        r->status = TASK_KILLED;
        r->error = cs_xstrdup("the executor was stopped by the driver");
        return true;
    }
    succeed(f, t, r);
    return true;
}

static void test_killed_task_of_removed_executor_reruns(void **state)
{
    app a;
    app_init(&a, kill_first_map_attempt, 1); /* a failure would abort: a kill is none */
    cs_error err;
    cs_error_clear(&err);
    int rc = cs_scheduler_run_map_stages(a.s, &a.dep, 1, NULL, &err);
    if (rc != 0) fail_msg("the map-stage job failed: %s", err.msg);
    assert_int_equal(launches(&a.f, true, 1), 2);
    assert_int_equal(count_map_launches(&a.f), 4);
    assert_int_equal(run(&a, a.reduced, &err), 0); /* the outputs are all there */
    assert_int_equal(count_map_launches(&a.f), 4);
    assert_int_equal(a.results[0] + a.results[1], 2);
    app_free(&a);
}

/* ---- two jobs at once ---------------------------------------------------------------------
 * Job 0 (thread) runs the two-stage app with its result tasks held (running); job 1 (this
 * thread) reads the same shuffle, reused, and runs to its result meanwhile; then job 0 is
 * cancelled: only its own tasks are killed (the fake's cancel kills the flagged ones), and its
 * action returns CS_ECANCELLED. */
static bool hold_job0_results(fake *f, const task_desc *t, task_result *r)
{
    if (!is_map(t) && t->job_id == 0) {
        __atomic_add_fetch(&f->counter, 1, __ATOMIC_RELEASE);
        return false;
    }
    succeed(f, t, r);
    return true;
}

typedef struct job0_run {
    app *a;
    int results[8];
    int rc;
    cs_error err;
} job0_run;

static void on_result_into(void *arg, int partition, task_result *r)
{
    ((int *)arg)[partition] += (int)r->count;
}

static void *run_job0(void *arg)
{
    job0_run *j = arg;
    task_sink sink = {.kind = SINK_COUNT};
    cs_error_clear(&j->err);
    j->rc = cs_scheduler_run_job(j->a->s, j->a->reduced, NULL, 0, NULL, &sink, on_result_into,
                                 j->results, &j->err);
    return NULL;
}

static void test_two_jobs_cancel_one(void **state)
{
    (void)state;
    app a;
    app_init(&a, hold_job0_results, 4);
    job0_run j0 = {.a = &a};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, run_job0, &j0), 0);
    /* job 0's two result tasks are running (held); bounded wait, no timing asserted */
    for (int i = 0; i < 10000 && __atomic_load_n(&a.f.counter, __ATOMIC_ACQUIRE) < 2; i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    assert_int_equal(__atomic_load_n(&a.f.counter, __ATOMIC_ACQUIRE), 2);
    int results[8] = {0};
    task_sink sink = {.kind = SINK_COUNT};
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(
        cs_scheduler_run_job(a.s, a.reduced, NULL, 0, NULL, &sink, on_result_into, results, &err),
        0);
    assert_int_equal(results[0], 1);
    assert_int_equal(results[1], 1);
    assert_int_equal(count_map_launches(&a.f), 3); /* job 1 reused job 0's shuffle */
    assert_int_equal(a.f.cancel_calls, 0);         /* job 1's end killed nothing of job 0's */
    cs_scheduler_cancel(a.s, 0, -1, "by the test");
    pthread_join(t, NULL);
    assert_int_equal(j0.rc, CS_ECANCELLED);
    assert_string_equal(j0.err.msg, "Job 0 cancelled by the test");
    assert_int_equal(a.f.cancel_calls, 1);
    assert_int_equal(a.f.nheld, 0);
    app_free(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_stages),
        cmocka_unit_test(test_task_retry),
        cmocka_unit_test(test_task_fails_max_times),
        cmocka_unit_test(test_fetch_failed_resubmits_map_output),
        cmocka_unit_test(test_shuffle_reused_across_jobs),
        cmocka_unit_test(test_removed_shuffle_is_forgotten),
        cmocka_unit_test(test_shuffle_ids_far_apart_cost_nothing),
        cmocka_unit_test(test_map_stage_job),
        cmocka_unit_test(test_abort_cancels_running_tasks),
        cmocka_unit_test(test_reaper_ends_tasks_that_ignore_the_kill),
        cmocka_unit_test(test_reaper_keeps_stages_of_tasks_left_running),
        cmocka_unit_test(test_executor_lost_after_map_stage),
        cmocka_unit_test(test_recovered_outputs_not_recomputed),
        cmocka_unit_test(test_executor_lost_during_map_stage),
        cmocka_unit_test(test_lost_outputs_of_finished_parent_rerun),
        cmocka_unit_test(test_zombie_attempt_late_failure_ignored),
        cmocka_unit_test(test_executor_loss_requeues_running_task),
        cmocka_unit_test(test_killed_task_of_removed_executor_reruns),
        cmocka_unit_test(test_two_jobs_cancel_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
