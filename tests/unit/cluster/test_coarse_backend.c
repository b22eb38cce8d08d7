/* test_coarse_backend.c — unit tests for the driver's coarse backend (src/cluster/coarse_*.c)
 * under the real DAG scheduler, with fake executors: RPC clients on loopback that register,
 * take LaunchStage/LaunchTask, and answer StatusUpdates as a test scripts them (map outputs on
 * themselves, results, failures, FetchFailed for outputs on a lost executor, tasks held until
 * KillTask, or dying with their connection). Checks: a job across two executors, task retry,
 * FetchFailed resubmission, shuffle reuse across jobs, cancellation (KillTask to every running
 * task, the job ends), executor loss (its running task retried elsewhere, its map outputs
 * recomputed; with a launcher that reports exits, named by the exit status that comes after the
 * connection's close), dynamic allocation's kill refused for an executor running a task and done
 * once it is idle, and registration refusals (duplicates, ids the launcher removed, and fields
 * out of range: cores, block port, host and id). Outcomes only: waits are bounded by the RPC
 * timeouts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <pthread.h>

#include "cluster/coarse_backend.h"
#include "plan/rdd.h"
#include "plan/task_codec.h"
#include "rpc/endpoint.h"
#include "sched/scheduler.h"

/* ---- fake executors ----------------------------------------------------------------------------
 */

typedef struct stage_info {
    int stage_id, attempt;
    int sink_kind, shuffle_id, nreduces;
    char input_exec[16][64]; /* executor of each map output read ("" = none) */
    int input_shuffle, ninputs;
} stage_info;

typedef enum { ANSWER, FAIL, HOLD, DIE, ANSWERED } action; /* ANSWERED: by the script */

typedef struct fexec fexec;
/* The test's script: what this executor does with a task of stage si. */
typedef action (*script_fn)(fexec *x, const stage_info *si, const Cspark__LaunchTask *lt);

struct fexec {
    char id[8];
    rpc_endpoint *ep;
    rpc_conn *conn;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    stage_info stages[64];
    int nstages;
    int64_t held[64];
    int nheld, kills, launched, map_launched, stops;
    bool dead;
};

static fexec g_x[2];
static script_fn g_script;
static bool g_lost[3];              /* executors "1" and "2" the driver lost */
static bool g_reports_exits;        /* driver_start: the launcher reports exits */
static char g_removed_reason[1024]; /* coarse_options.executor_removed's last reason */

static stage_info *find_stage(fexec *x, int stage_id, int attempt)
{
    for (int i = 0; i < x->nstages; i++)
        if (x->stages[i].stage_id == stage_id && x->stages[i].attempt == attempt)
            return &x->stages[i];
    return NULL;
}

static void send_status(fexec *x, int64_t task_id, Cspark__TaskState state, task_result *r)
{
    Cspark__TaskResult pb;
    memset(&pb, 0, sizeof pb);
    assert_int_equal(cs_task_result_encode(r, &pb, NULL), 0);
    Cspark__StatusUpdate su = CSPARK__STATUS_UPDATE__INIT;
    su.executor_id = x->id;
    su.task_id = task_id;
    su.state = state;
    su.result = &pb;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_STATUS_UPDATE;
    env.status_update = &su;
    cs_rpc_send(x->conn, &env);
    cs_task_result_pb_clear(&pb);
}

/* What a healthy executor answers: its map output, or one record; FetchFailed when a map output
 * it must read sits on a lost executor. */
static void answer(fexec *x, const stage_info *si, const Cspark__LaunchTask *lt)
{
    task_result r;
    cs_task_result_init(&r);
    r.status = TASK_OK;
    if (si->sink_kind == SINK_SHUFFLE) {
        cs_map_status *ms = &r.map_status;
        ms->shuffle_id = si->shuffle_id;
        ms->map_id = lt->partition;
        uint64_t *sizes = cs_xcalloc((size_t)si->nreduces + 1, sizeof *sizes);
        cs_map_status_set_sizes(ms, sizes, si->nreduces, NULL);
        free(sizes);
        snprintf(ms->executor_id, sizeof ms->executor_id, "%s", x->id);
        snprintf(ms->host, sizeof ms->host, "127.0.0.1");
        r.has_map_status = true;
    } else {
        for (int m = 0; m < si->ninputs; m++)
            if (si->input_exec[m][0] && g_lost[atoi(si->input_exec[m])]) {
                r.status = TASK_FETCH_FAILED;
                r.fetch_shuffle_id = si->input_shuffle;
                r.fetch_map_id = m;
                r.error = cs_xstrdup("connection refused");
                break;
            }
        if (r.status == TASK_OK) r.count = 1;
    }
    send_status(x, lt->task_id,
                r.status == TASK_OK ? CSPARK__TASK_STATE__FINISHED : CSPARK__TASK_STATE__FAILED,
                &r);
    cs_task_result_free(&r);
}

static void fail_task(fexec *x, int64_t task_id, const char *why)
{
    task_result r;
    cs_task_result_init(&r);
    r.status = TASK_FAILED;
    r.error = cs_xstrdup(why);
    send_status(x, task_id, CSPARK__TASK_STATE__FAILED, &r);
    cs_task_result_free(&r);
}

static void on_stage(fexec *x, const Cspark__LaunchStage *ls)
{
    const Cspark__StagePlan *p = ls->plan;
    stage_info si = {.stage_id = ls->stage_id, .attempt = ls->stage_attempt};
    si.sink_kind = p->sink->kind;
    if (si.sink_kind == SINK_SHUFFLE) {
        const Cspark__ShuffleDep *d = p->deps[p->sink->dep];
        si.shuffle_id = d->shuffle_id;
        si.nreduces = d->partitioner->num_partitions;
    }
    for (size_t i = 0; i < p->n_inputs; i++) {
        si.input_shuffle = p->inputs[i]->shuffle_id;
        for (size_t m = 0; m < p->inputs[i]->n_maps && m < 16; m++) {
            const Cspark__MapStatus *ms = p->inputs[i]->maps[m];
            snprintf(si.input_exec[m], sizeof si.input_exec[m], "%s",
                     ms->map_id >= 0 && ms->executor_id ? ms->executor_id : "");
            si.ninputs = (int)m + 1;
        }
    }
    pthread_mutex_lock(&x->mu);
    assert_true(x->nstages < 64);
    x->stages[x->nstages++] = si;
    pthread_mutex_unlock(&x->mu);
}

static void on_task(fexec *x, const Cspark__LaunchTask *lt)
{
    pthread_mutex_lock(&x->mu);
    stage_info si = *find_stage(x, lt->stage_id, lt->stage_attempt); /* the plan came first */
    x->launched++;
    x->map_launched += si.sink_kind == SINK_SHUFFLE;
    pthread_mutex_unlock(&x->mu);
    switch (g_script(x, &si, lt)) {
    case ANSWER:
        answer(x, &si, lt);
        break;
    case FAIL:
        fail_task(x, lt->task_id, "java.lang.RuntimeException: boom");
        break;
    case HOLD:
        pthread_mutex_lock(&x->mu);
        x->held[x->nheld++] = lt->task_id;
        pthread_cond_broadcast(&x->cv);
        pthread_mutex_unlock(&x->mu);
        break;
    case ANSWERED:
        break;
    case DIE:
        pthread_mutex_lock(&x->mu);
        x->dead = true;
        g_lost[atoi(x->id)] = true;
        pthread_mutex_unlock(&x->mu);
        cs_rpc_conn_close(x->conn);
        break;
    }
}

static void on_message(void *arg, rpc_conn *c, const Cspark__Envelope *msg)
{
    fexec *x = arg;
    if (x->dead) return;
    if (msg->body_case == CSPARK__ENVELOPE__BODY_LAUNCH_STAGE) {
        on_stage(x, msg->launch_stage);
    } else if (msg->body_case == CSPARK__ENVELOPE__BODY_LAUNCH_TASK) {
        on_task(x, msg->launch_task);
    } else if (msg->body_case == CSPARK__ENVELOPE__BODY_STOP_EXECUTOR) {
        pthread_mutex_lock(&x->mu);
        x->stops++; /* a real executor would stop its tasks and exit: this one only counts */
        pthread_mutex_unlock(&x->mu);
    } else if (msg->body_case == CSPARK__ENVELOPE__BODY_KILL_TASK) {
        pthread_mutex_lock(&x->mu);
        x->kills++;
        int64_t id = msg->kill_task->task_id;
        bool held = false;
        for (int i = 0; i < x->nheld; i++)
            if (x->held[i] == id) {
                x->held[i] = x->held[--x->nheld];
                held = true;
                break;
            }
        pthread_mutex_unlock(&x->mu);
        if (held) fail_task(x, id, "task cancelled: its job has ended");
    }
}

/* Connects and registers executor id with the given fields: NULL on success, else the driver's
 * refusal. */
static char *start_executor_as(fexec *x, const char *id, int port, const char *host, int cores,
                               int block_port)
{
    memset(x, 0, sizeof *x);
    snprintf(x->id, sizeof x->id, "%s", id);
    pthread_mutex_init(&x->mu, NULL);
    pthread_cond_init(&x->cv, NULL);
    cs_error err = {0};
    rpc_options o = {.name = "fake-executor", .app_id = "app-test"};
    rpc_handlers h = {.on_message = on_message, .arg = x};
    x->ep = cs_rpc_endpoint_new(&o, &h, &err);
    assert_non_null(x->ep);
    x->conn = cs_rpc_connect(x->ep, "127.0.0.1", port, 10000, &err);
    assert_non_null(x->conn);
    Cspark__RegisterExecutor re = CSPARK__REGISTER_EXECUTOR__INIT;
    re.executor_id = x->id;
    re.host = (char *)host;
    re.cores = cores;
    re.block_port = block_port;
    Cspark__Envelope req = CSPARK__ENVELOPE__INIT, *reply = NULL;
    req.body_case = CSPARK__ENVELOPE__BODY_REGISTER_EXECUTOR;
    req.register_executor = &re;
    assert_int_equal(cs_rpc_call(x->conn, &req, &reply, 10000, &err), 0);
    char *refusal = NULL;
    if (reply->body_case == CSPARK__ENVELOPE__BODY_REGISTER_EXECUTOR_FAILED)
        refusal = cs_xstrdup(reply->register_executor_failed->message);
    else
        assert_int_equal(reply->body_case, CSPARK__ENVELOPE__BODY_REGISTERED_EXECUTOR);
    cspark__envelope__free_unpacked(reply, NULL);
    return refusal;
}

/* Connects and registers executor id ("1" or "2"): NULL on success, else the driver's refusal. */
static char *start_executor(fexec *x, const char *id, int port)
{
    return start_executor_as(x, id, port, "127.0.0.1", 2, 7079);
}

static void stop_executor(fexec *x)
{
    cs_rpc_conn_unref(x->conn);
    cs_rpc_endpoint_free(x->ep);
    pthread_mutex_destroy(&x->mu);
    pthread_cond_destroy(&x->cv);
}

/* ---- the driver: coarse backend + scheduler, and a range -> shuffle -> result lineage ---------
 */

typedef struct driver {
    cs_conf *conf;
    cluster_env env;
    coarse_backend *cb;
    scheduler *s;
    lineage_graph g;
    cspark_rdd *reduced;
    int results[4];
} driver;

static bool refuse_3(void *arg, const char *executor_id)
{
    return strcmp(executor_id, "3") != 0;
}

static void note_removed(void *arg, const char *executor_id, const char *reason)
{
    snprintf(g_removed_reason, sizeof g_removed_reason, "%s: %s", executor_id, reason);
}

static void driver_start(driver *d, script_fn script)
{
    memset(d, 0, sizeof *d);
    memset(g_lost, 0, sizeof g_lost);
    g_script = script;
    d->conf = cs_conf_new();
    d->env = (cluster_env){.conf = d->conf, .app_id = "app-test", .app_name = "test"};
    coarse_options o = {.bind_host = "127.0.0.1",
                        .app_file = "app.so",
                        .admit = refuse_3,
                        .executor_removed = note_removed,
                        .reports_exits = g_reports_exits};
    g_removed_reason[0] = 0;
    cs_error err = {0};
    d->cb = cs_coarse_backend_new(&d->env, &o, &err);
    assert_non_null(d->cb);
    scheduler_options so = {.max_task_failures = 4, .max_stage_attempts = 4};
    d->s = cs_scheduler_new(&so, cs_coarse_backend_base(d->cb));
    int port = cs_coarse_backend_port(d->cb);
    assert_null(start_executor(&g_x[0], "1", port));
    assert_null(start_executor(&g_x[1], "2", port));
    assert_int_equal(cs_coarse_backend_wait_registered(d->cb, 2, 10000), 2);

    cs_lineage_init(&d->g);
    cspark_rdd *src = cs_rdd_new(&d->g, RDD_RANGE, 3, "range at test");
    src->range_end = 30;
    src->range_step = 1;
    shuffle_dep *dep = cs_shuffle_dep_new(&d->g, src);
    dep->partitioner.kind = PART_HASH;
    dep->partitioner.num_partitions = 2;
    d->reduced = cs_rdd_new(&d->g, RDD_SHUFFLED, 2, "reduce_by_key at test");
    d->reduced->deps[0] = dep;
    d->reduced->num_deps = 1;
}

static void driver_stop(driver *d)
{
    cs_scheduler_free(d->s); /* stops the backend: StopExecutor, then its endpoint */
    stop_executor(&g_x[0]);
    stop_executor(&g_x[1]);
    cs_lineage_free(&d->g);
    cs_conf_free(d->conf);
}

static void on_result(void *arg, int partition, task_result *r)
{
    driver *d = arg;
    d->results[partition] += (int)r->count;
}

static int run(driver *d, cs_error *err)
{
    task_sink sink = {.kind = SINK_COUNT};
    memset(d->results, 0, sizeof d->results);
    cs_error_clear(err);
    return cs_scheduler_run_job(d->s, d->reduced, NULL, 0, NULL, &sink, on_result, d, err);
}

static int launched(bool maps)
{
    int n = 0;
    for (int i = 0; i < 2; i++) {
        pthread_mutex_lock(&g_x[i].mu);
        n += maps ? g_x[i].map_launched : g_x[i].launched - g_x[i].map_launched;
        pthread_mutex_unlock(&g_x[i].mu);
    }
    return n;
}

/* ---- tests ------------------------------------------------------------------------------------
 */

static action all_answer(fexec *x, const stage_info *si, const Cspark__LaunchTask *lt)
{
    return ANSWER;
}

static void test_job_and_shuffle_reuse(void **state)
{
    driver d;
    driver_start(&d, all_answer);
    cs_error err;
    assert_int_equal(run(&d, &err), 0);
    assert_int_equal(d.results[0] + d.results[1], 2);
    assert_int_equal(launched(true), 3);
    assert_int_equal(launched(false), 2);
    /* the second job reads the kept map outputs: no map task runs again */
    assert_int_equal(run(&d, &err), 0);
    assert_int_equal(launched(true), 3);
    assert_int_equal(launched(false), 4);
    driver_stop(&d);
}

static action fail_first_result_p1(fexec *x, const stage_info *si, const Cspark__LaunchTask *lt)
{
    return si->sink_kind != SINK_SHUFFLE && lt->partition == 1 && lt->attempt == 0 ? FAIL : ANSWER;
}

static void test_task_retry(void **state)
{
    driver d;
    driver_start(&d, fail_first_result_p1);
    cs_error err;
    assert_int_equal(run(&d, &err), 0);
    assert_int_equal(launched(false), 3); /* p0, p1, p1 again */
    assert_int_equal(d.results[1], 1);
    driver_stop(&d);
}

static action fetch_fail_once(fexec *x, const stage_info *si, const Cspark__LaunchTask *lt)
{
    if (si->sink_kind != SINK_SHUFFLE && lt->partition == 0 && lt->stage_attempt == 0) {
        task_result r;
        cs_task_result_init(&r);
        r.status = TASK_FETCH_FAILED;
        r.fetch_shuffle_id = si->input_shuffle;
        r.fetch_map_id = 2;
        r.error = cs_xstrdup("connection reset by peer");
        send_status(x, lt->task_id, CSPARK__TASK_STATE__FAILED, &r);
        cs_task_result_free(&r);
        return ANSWERED;
    }
    return ANSWER;
}

static void test_fetch_failed_resubmission(void **state)
{
    driver d;
    driver_start(&d, fetch_fail_once);
    cs_error err;
    assert_int_equal(run(&d, &err), 0);
    assert_int_equal(launched(true), 4); /* map output 2 computed again */
    assert_int_equal(d.results[0] + d.results[1], 2);
    driver_stop(&d);
}

static action hold_results(fexec *x, const stage_info *si, const Cspark__LaunchTask *lt)
{
    return si->sink_kind == SINK_SHUFFLE ? ANSWER : HOLD;
}

typedef struct aborter {
    driver *d;
    pthread_t t;
} aborter;

/* Once both result tasks are held, the backend gives up (as after maxNumFailures). */
static void *abort_when_held(void *arg)
{
    aborter *a = arg;
    for (int i = 0; i < 2000; i++) { /* up to 10 s */
        int held = 0;
        for (int i = 0; i < 2; i++) {
            pthread_mutex_lock(&g_x[i].mu);
            held += g_x[i].nheld;
            pthread_mutex_unlock(&g_x[i].mu);
        }
        if (held == 2) break;
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    cs_scheduler_abort(a->d->s, "Max number of executor failures (2) reached");
    return NULL;
}

static void test_cancellation_kills_running_tasks(void **state)
{
    driver d;
    driver_start(&d, hold_results);
    aborter a = {&d};
    pthread_create(&a.t, NULL, abort_when_held, &a);
    cs_error err;
    assert_int_equal(run(&d, &err), CS_ETASK);
    pthread_join(a.t, NULL);
    assert_non_null(strstr(err.msg, "Max number of executor failures"));
    assert_int_equal(g_x[0].kills + g_x[1].kills, 2); /* KillTask for each running task */
    assert_int_equal(g_x[0].nheld + g_x[1].nheld, 0);
    driver_stop(&d);
}

/* Executor "1" dies with the first result task it gets: that task fails (ExecutorLostFailure)
 * and runs again on "2"; the map outputs "1" held are computed again there. */
static action exec1_dies(fexec *x, const stage_info *si, const Cspark__LaunchTask *lt)
{
    if (si->sink_kind != SINK_SHUFFLE && !strcmp(x->id, "1")) return DIE;
    return ANSWER;
}

static void test_executor_loss(void **state)
{
    driver d;
    driver_start(&d, exec1_dies);
    cs_error err;
    assert_int_equal(run(&d, &err), 0);
    assert_int_equal(d.results[0] + d.results[1], 2);
    assert_true(g_x[0].dead);
    assert_true(g_x[0].map_launched > 0);
    /* every map output now lives on "2": those "1" held were computed again there */
    cs_map_status *outs = NULL;
    assert_int_equal(cs_scheduler_outputs_on(d.s, "1", &outs), 0);
    free(outs);
    int n = cs_scheduler_outputs_on(d.s, "2", &outs);
    assert_int_equal(n, 3);
    for (int i = 0; i < n; i++)
        cs_map_status_free(&outs[i]);
    free(outs);
    assert_int_equal(cs_coarse_backend_wait_registered(d.cb, 2, 0), 1);
    driver_stop(&d);
}

/* The launcher's reaper: once executor "1" has died, its exit status arrives, later than its
 * connection's close. */
static void *reap_exec1(void *arg)
{
    driver *d = arg;
    for (int i = 0; i < 10000; i++) { /* 10 s at most */
        pthread_mutex_lock(&g_x[0].mu);
        bool dead = g_x[0].dead;
        pthread_mutex_unlock(&g_x[0].mu);
        if (dead) break;
        usleep(1000);
    }
    /* the close usually reaches the driver first, as a crash's does (either order ends the same) */
    usleep(50 * 1000);
    cs_coarse_backend_executor_exited(d->cb, "1", "Command exited with code 3 (unexpected)");
    return NULL;
}

/* A launcher that reports exits: the loss of a closed connection waits for the exit status, so
 * the executor's removal and its task's failure name the exit code, not "peer closed" (issue 21
 * item 14); the job still ends right. */
static void test_executor_loss_waits_for_exit_status(void **state)
{
    driver d;
    g_reports_exits = true;
    driver_start(&d, exec1_dies);
    g_reports_exits = false;
    pthread_t reaper;
    pthread_create(&reaper, NULL, reap_exec1, &d);
    cs_error err;
    assert_int_equal(run(&d, &err), 0);
    pthread_join(reaper, NULL);
    assert_int_equal(d.results[0] + d.results[1], 2);
    assert_string_equal(g_removed_reason, "1: Command exited with code 3 (unexpected)");
    driver_stop(&d);
}

/* ---- dynamic allocation's kill never hits a busy executor ----
 * The allocation manager finds an executor idle, then asks the backend to kill it; a task may
 * have been launched there in between (a job starting). The kill is refused for an executor
 * running a task (Spark's killExecutors with force = false), so its task is not stopped under
 * it — a stopped task reported KILLED was what stalled a job ("stages waiting: -1"); once idle,
 * the same kill goes through (StopExecutor). */
static stage_info g_held_stage;
static Cspark__LaunchTask g_held_task;

static action hold_first_on_1(fexec *x, const stage_info *si, const Cspark__LaunchTask *lt)
{
    if (strcmp(x->id, "1") != 0 || x->launched != 1) return ANSWER;
    g_held_stage = *si;
    g_held_task = *lt;
    return HOLD;
}

typedef struct job_thread {
    driver *d;
    pthread_t t;
    int rc;
    cs_error err;
} job_thread;

static void *run_in_thread(void *arg)
{
    job_thread *j = arg;
    j->rc = run(j->d, &j->err);
    return NULL;
}

static void test_kill_refused_while_executor_runs_a_task(void **state)
{
    driver d;
    driver_start(&d, hold_first_on_1);
    job_thread j = {.d = &d};
    pthread_create(&j.t, NULL, run_in_thread, &j);
    fexec *x1 = &g_x[0];
    int held = 0;
    for (int i = 0; i < 10000 && !held; i++) { /* 10 s at most: tasks launch at once */
        pthread_mutex_lock(&x1->mu);
        held = x1->nheld;
        pthread_mutex_unlock(&x1->mu);
        if (!held) usleep(1000);
    }
    assert_int_equal(held, 1); /* 3 map tasks over two executors of 2 cores: one reaches "1" */

    sched_backend *base = cs_coarse_backend_base(d.cb);
    const char *ids[1] = {"1"};
    bool removed[1] = {true};
    base->remove_executors(base, ids, 1, false, "idle (dynamic allocation)", removed);
    assert_false(removed[0]); /* it runs the held task: it stays */

    pthread_mutex_lock(&x1->mu);
    x1->nheld = 0;
    pthread_mutex_unlock(&x1->mu);
    answer(x1, &g_held_stage, &g_held_task); /* the task ends as it would have */
    pthread_join(j.t, NULL);
    assert_int_equal(j.rc, 0);
    assert_int_equal(d.results[0] + d.results[1], 2);
    pthread_mutex_lock(&x1->mu);
    assert_int_equal(x1->stops, 0);
    pthread_mutex_unlock(&x1->mu);

    /* every task done: the same kill goes through */
    removed[0] = false;
    base->remove_executors(base, ids, 1, false, "idle (dynamic allocation)", removed);
    assert_true(removed[0]);
    for (int i = 0; i < 10000; i++) { /* 10 s at most for the message to arrive */
        pthread_mutex_lock(&x1->mu);
        int stops = x1->stops;
        pthread_mutex_unlock(&x1->mu);
        if (stops > 0) break;
        usleep(1000);
    }
    pthread_mutex_lock(&x1->mu);
    assert_int_equal(x1->stops, 1);
    pthread_mutex_unlock(&x1->mu);
    driver_stop(&d);
}

static void test_registration_refusals(void **state)
{
    driver d;
    driver_start(&d, all_answer);
    int port = cs_coarse_backend_port(d.cb);
    fexec dup, refused;
    char *why = start_executor(&dup, "1", port);
    assert_non_null(why);
    assert_string_equal(why, "Duplicate executor ID: 1");
    free(why);
    why = start_executor(&refused, "3", port); /* the launcher's admit hook says no */
    assert_non_null(why);
    assert_string_equal(why, "Executor 3 was removed by the driver");
    free(why);
    stop_executor(&dup);
    stop_executor(&refused);
    /* fields the driver would rely on (issue 21 item 11: cores=2147483647 was given every task,
     * block_port=-1 made every fetch from it fail): refused naming the field */
    static const struct {
        const char *id, *host;
        int cores, block_port;
        const char *why;
    } bad[] = {
        {"5", "127.0.0.1", 2147483647, 7079,
         "invalid registration: cores=2147483647 is not in 1-4096"},
        {"5", "127.0.0.1", 0, 7079, "invalid registration: cores=0 is not in 1-4096"},
        {"5", "127.0.0.1", 2, -1,
         "invalid registration: block_port=-1 is not a TCP port (1-65535)"},
        {"5", "127.0.0.1", 2, 70000, "invalid registration: block_port=70000 is not a TCP port"},
        {"5", "", 2, 7079, "invalid registration: host must be"},
        {"../5", "127.0.0.1", 2, 7079, "invalid registration: executor_id must be"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fexec x;
        why = start_executor_as(&x, bad[i].id, port, bad[i].host, bad[i].cores, bad[i].block_port);
        assert_non_null(why);
        if (!strstr(why, bad[i].why)) fail_msg("case %zu: refusal '%s'", i, why);
        free(why);
        stop_executor(&x);
    }
    assert_int_equal(cs_coarse_backend_wait_registered(d.cb, 2, 0), 2);
    driver_stop(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_job_and_shuffle_reuse),
        cmocka_unit_test(test_task_retry),
        cmocka_unit_test(test_fetch_failed_resubmission),
        cmocka_unit_test(test_cancellation_kills_running_tasks),
        cmocka_unit_test(test_executor_loss),
        cmocka_unit_test(test_executor_loss_waits_for_exit_status),
        cmocka_unit_test(test_kill_refused_while_executor_runs_a_task),
        cmocka_unit_test(test_registration_refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
