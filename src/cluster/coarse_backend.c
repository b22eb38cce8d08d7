/*
 * coarse_backend.c — see coarse_backend.h. All executor and task bookkeeping sits under one
 * mutex; messages are handled on the RPC loop thread, completions are handed to the scheduler
 * outside the lock. A task is in exactly one place: the pending FIFO, the running table (by task
 * id, with the executor it runs on), or reported — so a late StatusUpdate from an executor that
 * was already declared lost is ignored, and nothing is reported twice.
 */
#define _GNU_SOURCE
#include "cluster/coarse_backend.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/context.h"
#include "common/clock.h"
#include "common/idmap.h"
#include "common/log.h"
#include "common/sync.h"
#include "common/recio.h"
#include "exec/task_codec.h"
#include "rpc/endpoint.h"
#include "rpc/frame.h"
#include "sched/listener.h"

typedef struct exec_info {
    char id[64];
    char host[256];
    int block_port;
    int cores, free;
    bool alive;
    rpc_conn *conn;
    int64_t last_seen_ms;
    int *sent_attempt; /* per stage id: attempt + 1 of the plan last sent, 0 = none */
    int cap_sent;
    char lost_reason[512];
    /* removal (dynamic allocation) and decommissioning: no new tasks once either is set */
    bool removing;         /* told to exit (StopExecutor) */
    bool decommissioning;  /* finishing its tasks, then its shuffle files move to peers */
    int migrations;        /* MigrateShuffle batches not answered yet */
    bool stop_when_unread; /* migrated: StopExecutor once no running stage reads from it */
} exec_info;

typedef struct pending {
    struct pending *next;
    const task_desc *t;
} pending;

typedef struct running {
    struct running *next; /* bucket chain */
    const task_desc *t;
    int exec;
} running;

typedef struct plan_frame {
    struct plan_frame *next;
    int stage_id, attempt;
    uint8_t *frame;
    size_t len;
} plan_frame;

typedef struct fetch_job {
    struct fetch_job *next;
    const task_desc *t;
    task_result r;
    char host[256];
    int port;
    char exec_id[64];
} fetch_job;

#define RUNNING_BUCKETS 4096
/* encoded stage plans kept for executors that have not received them yet; an evicted one is
 * encoded again when needed */
#define MAX_PLAN_FRAMES 32

struct coarse_backend {
    sched_backend base;
    cspark_context *sc;
    coarse_options opt;
    char *secret, *app_file;
    rpc_endpoint *ep;
    int port;
    int64_t network_timeout_ms;
    bool migrate_shuffles; /* spark.storage.decommission.enabled + shuffleBlocks.enabled */

    pthread_mutex_t lock;
    pthread_cond_t cond; /* registrations, fetch jobs, housekeeping wake-ups */
    exec_info *execs;
    int num_execs, cap_execs, rr;
    cs_idmap exec_index; /* executor id -> index in execs (entries are never removed) */
    pending *pend_head, *pend_tail;
    running *run[RUNNING_BUCKETS];
    plan_frame *plans; /* newest first, at most MAX_PLAN_FRAMES */
    int num_plans;
    fetch_job *fetch_head, *fetch_tail;
    bool stopping;
    pthread_t housekeeper, fetcher;
};

static int64_t mono_ms(void)
{
    return cs_now_ns() / 1000000;
}

static running **run_slot(coarse_backend *b, int64_t task_id)
{
    running **p = &b->run[(uint64_t)task_id % RUNNING_BUCKETS];
    while (*p && (*p)->t->task_id != task_id)
        p = &(*p)->next;
    return p;
}

static int find_exec(coarse_backend *b, const char *id)
{
    return cs_idmap_get(&b->exec_index, id);
}

/* ---- launching ----------------------------------------------------------------------------- */

static plan_frame *plan_for(coarse_backend *b, const task_desc *t, cs_error *err)
{
    for (plan_frame *p = b->plans; p; p = p->next)
        if (p->stage_id == t->stage_id && p->attempt == t->stage_attempt) return p;
    Cspark__StagePlan *pb = cs_stage_plan_encode(t->rdd, t->sink, t->inputs, t->num_inputs, err);
    if (!pb) return NULL;
    Cspark__LaunchStage ls = CSPARK__LAUNCH_STAGE__INIT;
    ls.stage_id = t->stage_id;
    ls.stage_attempt = t->stage_attempt;
    ls.plan = pb;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_LAUNCH_STAGE;
    env.launch_stage = &ls;
    plan_frame *p = cs_xcalloc(1, sizeof *p);
    p->stage_id = t->stage_id;
    p->attempt = t->stage_attempt;
    p->len = cs_frame_size(&env);
    p->frame = cs_xmalloc(p->len);
    cs_frame_encode(&env, p->frame);
    cs_stage_plan_pb_free(pb);
    p->next = b->plans;
    b->plans = p;
    if (++b->num_plans > MAX_PLAN_FRAMES) { /* drop the oldest */
        plan_frame **q = &b->plans;
        while ((*q)->next)
            q = &(*q)->next;
        free((*q)->frame);
        free(*q);
        *q = NULL;
        b->num_plans--;
    }
    return p;
}

static bool send_plan(coarse_backend *b, exec_info *e, const task_desc *t, cs_error *err)
{
    if (t->stage_id >= e->cap_sent) {
        int cap = e->cap_sent ? e->cap_sent : 16;
        while (cap <= t->stage_id)
            cap *= 2;
        e->sent_attempt = cs_xrealloc(e->sent_attempt, (size_t)cap * sizeof *e->sent_attempt);
        memset(e->sent_attempt + e->cap_sent, 0,
               (size_t)(cap - e->cap_sent) * sizeof *e->sent_attempt);
        e->cap_sent = cap;
    }
    if (e->sent_attempt[t->stage_id] == t->stage_attempt + 1) return true;
    plan_frame *p = plan_for(b, t, err);
    if (!p) return false;
    uint8_t *copy = cs_xmalloc(p->len);
    memcpy(copy, p->frame, p->len);
    if (cs_rpc_send_raw(e->conn, copy, p->len) < 0) return false;
    e->sent_attempt[t->stage_id] = t->stage_attempt + 1;
    return true;
}

typedef struct failed_launch {
    const task_desc *t;
    char *why;
} failed_launch;

/* Offers pending tasks to executors with free cores, round-robin. Called with the lock held;
 * tasks whose plan cannot be encoded are returned in *failed for reporting outside the lock. */
static void make_offers(coarse_backend *b, failed_launch **failed, int *nfailed)
{
    while (b->pend_head && !b->stopping) {
        int chosen = -1;
        for (int k = 0; k < b->num_execs; k++) {
            int i = (b->rr + k) % b->num_execs;
            const exec_info *e = &b->execs[i];
            if (e->alive && e->free > 0 && !e->removing && !e->decommissioning) {
                chosen = i;
                break;
            }
        }
        if (chosen < 0) return;
        b->rr = (chosen + 1) % b->num_execs;
        exec_info *e = &b->execs[chosen];
        pending *p = b->pend_head;
        b->pend_head = p->next;
        if (!b->pend_head) b->pend_tail = NULL;
        const task_desc *t = p->t;
        free(p);

        cs_error err;
        cs_error_clear(&err);
        if (!send_plan(b, e, t, &err)) {
            *failed = cs_xrealloc(*failed, (size_t)(*nfailed + 1) * sizeof **failed);
            (*failed)[(*nfailed)++] =
                (failed_launch){t, cs_xstrdup(err.msg[0] ? err.msg : "cannot send the stage plan")};
            continue;
        }
        Cspark__LaunchTask lt = CSPARK__LAUNCH_TASK__INIT;
        lt.task_id = t->task_id;
        lt.job_id = t->job_id;
        lt.stage_id = t->stage_id;
        lt.stage_attempt = t->stage_attempt;
        lt.partition = t->partition;
        lt.attempt = t->attempt;
        Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
        env.body_case = CSPARK__ENVELOPE__BODY_LAUNCH_TASK;
        env.launch_task = &lt;
        running *r = cs_xmalloc(sizeof *r);
        r->t = t;
        r->exec = chosen;
        running **slot = run_slot(b, t->task_id);
        r->next = *slot;
        *slot = r;
        e->free--;
        cs_rpc_send(e->conn, &env); /* a closed connection shows up in on_close, which fails it */
        cs_scheduler_task_started(b->base.sched, t, e->id, e->host);
    }
}

static void report_failed(coarse_backend *b, failed_launch *failed, int n)
{
    for (int i = 0; i < n; i++) {
        task_result r;
        cs_task_result_init(&r);
        r.status = TASK_FAILED;
        r.error = failed[i].why;
        cs_scheduler_task_done(b->base.sched, failed[i].t, &r);
    }
    free(failed);
}

static void offer_and_report(coarse_backend *b)
{
    failed_launch *failed = NULL;
    int n = 0;
    pthread_mutex_lock(&b->lock);
    make_offers(b, &failed, &n);
    pthread_mutex_unlock(&b->lock);
    report_failed(b, failed, n);
}

static void coarse_launch(sched_backend *base, const task_desc *t)
{
    coarse_backend *b = (coarse_backend *)base;
    pending *p = cs_xmalloc(sizeof *p);
    p->next = NULL;
    p->t = t;
    pthread_mutex_lock(&b->lock);
    if (b->pend_tail)
        b->pend_tail->next = p;
    else
        b->pend_head = p;
    b->pend_tail = p;
    pthread_mutex_unlock(&b->lock);
    offer_and_report(b);
}

static void coarse_cancel_all(sched_backend *base)
{
    coarse_backend *b = (coarse_backend *)base;
    Cspark__KillTask kt = CSPARK__KILL_TASK__INIT;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_KILL_TASK;
    env.kill_task = &kt;
    kt.reason = "the job has ended";
    pthread_mutex_lock(&b->lock);
    pending *p = b->pend_head;
    b->pend_head = b->pend_tail = NULL;
    for (int k = 0; k < RUNNING_BUCKETS; k++)
        for (running *r = b->run[k]; r; r = r->next) {
            exec_info *e = &b->execs[r->exec];
            if (!e->alive || !e->conn) continue;
            kt.task_id = r->t->task_id;
            kt.executor_id = e->id;
            cs_rpc_send(e->conn, &env);
        }
    pthread_mutex_unlock(&b->lock);
    while (p) {
        pending *next = p->next;
        task_result r;
        cs_task_result_init(&r);
        r.status = TASK_FAILED;
        r.error = cs_xstrdup("task cancelled: its job has ended");
        cs_scheduler_task_done(b->base.sched, p->t, &r);
        free(p);
        p = next;
    }
}

static int coarse_total_cores(sched_backend *base)
{
    coarse_backend *b = (coarse_backend *)base;
    int n = 0;
    pthread_mutex_lock(&b->lock);
    for (int i = 0; i < b->num_execs; i++)
        if (b->execs[i].alive) n += b->execs[i].cores;
    pthread_mutex_unlock(&b->lock);
    return n;
}

/* ---- messages ------------------------------------------------------------------------------ */

typedef struct conf_collect {
    Cspark__ConfEntry *entries;
    Cspark__ConfEntry **ptrs;
    size_t n;
} conf_collect;

static void collect_conf(void *arg, const char *key, const char *value)
{
    conf_collect *c = arg;
    if (strcmp(key, "spark.authenticate.secret") == 0) return; /* never sent, as in Spark */
    Cspark__ConfEntry *e = &c->entries[c->n];
    cspark__conf_entry__init(e);
    e->key = (char *)key;
    e->value = (char *)value;
    c->ptrs[c->n++] = e;
}

static void reply_app_config(coarse_backend *b, rpc_conn *c, uint64_t request_id)
{
    size_t n = cs_conf_size(b->sc->conf);
    conf_collect col = {cs_xcalloc(n + 1, sizeof(Cspark__ConfEntry)),
                        cs_xcalloc(n + 1, sizeof(Cspark__ConfEntry *)), 0};
    cs_conf_foreach(b->sc->conf, collect_conf, &col);
    Cspark__SparkAppConfig ac = CSPARK__SPARK_APP_CONFIG__INIT;
    ac.n_conf = col.n;
    ac.conf = col.ptrs;
    ac.app_id = b->sc->app_id;
    ac.app_file = b->app_file;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_APP_CONFIG;
    env.app_config = &ac;
    cs_rpc_reply(c, request_id, &env);
    free(col.entries);
    free(col.ptrs);
}

static void reply_register(rpc_conn *c, uint64_t request_id, const char *refusal)
{
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    Cspark__RegisteredExecutor ok = CSPARK__REGISTERED_EXECUTOR__INIT;
    Cspark__RegisterExecutorFailed bad = CSPARK__REGISTER_EXECUTOR_FAILED__INIT;
    if (refusal) {
        bad.message = (char *)refusal;
        env.body_case = CSPARK__ENVELOPE__BODY_REGISTER_EXECUTOR_FAILED;
        env.register_executor_failed = &bad;
    } else {
        env.body_case = CSPARK__ENVELOPE__BODY_REGISTERED_EXECUTOR;
        env.registered_executor = &ok;
    }
    cs_rpc_reply(c, request_id, &env);
}

static void on_register(coarse_backend *b, rpc_conn *c, uint64_t request_id,
                        const Cspark__RegisterExecutor *re)
{
    char refusal[160] = "";
    bool admitted = !b->opt.admit || b->opt.admit(b->opt.hooks_arg, re->executor_id);
    pthread_mutex_lock(&b->lock);
    if (!admitted) {
        snprintf(refusal, sizeof refusal, "Executor %s was removed by the driver", re->executor_id);
    } else if (b->stopping) {
        snprintf(refusal, sizeof refusal, "the application is stopping");
    } else if (find_exec(b, re->executor_id) >= 0) {
        snprintf(refusal, sizeof refusal, "Duplicate executor ID: %s", re->executor_id);
    } else if (re->cores < 1 || strlen(re->executor_id) >= sizeof b->execs[0].id ||
               strlen(re->host) >= sizeof b->execs[0].host) {
        snprintf(refusal, sizeof refusal, "invalid registration of executor %s", re->executor_id);
    } else {
        if (b->num_execs == b->cap_execs) {
            b->cap_execs = b->cap_execs ? b->cap_execs * 2 : 8;
            b->execs = cs_xrealloc(b->execs, (size_t)b->cap_execs * sizeof *b->execs);
        }
        exec_info *e = &b->execs[b->num_execs];
        memset(e, 0, sizeof *e);
        snprintf(e->id, sizeof e->id, "%s", re->executor_id);
        snprintf(e->host, sizeof e->host, "%s", re->host);
        e->block_port = re->block_port;
        e->cores = e->free = re->cores;
        e->alive = true;
        e->conn = c;
        cs_rpc_conn_ref(c);
        e->last_seen_ms = mono_ms();
        cs_rpc_conn_set_data(c, (void *)(intptr_t)(b->num_execs + 1));
        cs_idmap_put(&b->exec_index, e->id, b->num_execs);
        b->num_execs++;
        pthread_cond_broadcast(&b->cond);
    }
    pthread_mutex_unlock(&b->lock);
    reply_register(c, request_id, refusal[0] ? refusal : NULL);
    if (refusal[0]) {
        CS_WARN("driver", "event=executor_refused executor=%s reason=\"%s\"", re->executor_id,
                refusal);
        return;
    }
    if (b->base.sched) cs_scheduler_executor_added(b->base.sched, re->executor_id, re->cores);
    CS_INFO("driver",
            "event=executor_registered executor=%s host=%s cores=%d block_port=%d pid=%lld",
            re->executor_id, re->host, re->cores, re->block_port, (long long)re->pid);
    if (b->sc->bus) {
        cs_event ev = {.kind = CS_EV_EXECUTOR_ADDED,
                       .executor_id = re->executor_id,
                       .host = re->host,
                       .executor_cores = re->cores,
                       .time_ms = cs_now_ms()};
        cs_listener_bus_post(b->sc->bus, &ev);
    }
    offer_and_report(b);
}

static exec_info *exec_of_conn(coarse_backend *b, rpc_conn *c)
{
    intptr_t i = (intptr_t)cs_rpc_conn_data(c);
    return i > 0 && i <= b->num_execs ? &b->execs[i - 1] : NULL;
}

static void on_status(coarse_backend *b, rpc_conn *c, const Cspark__StatusUpdate *su)
{
    if (su->state != CSPARK__TASK_STATE__FINISHED && su->state != CSPARK__TASK_STATE__FAILED &&
        su->state != CSPARK__TASK_STATE__KILLED && su->state != CSPARK__TASK_STATE__LOST)
        return;
    pthread_mutex_lock(&b->lock);
    exec_info *e = exec_of_conn(b, c);
    running **slot = run_slot(b, su->task_id);
    running *r = *slot;
    if (!e || !r || &b->execs[r->exec] != e) { /* unknown, or already reported lost */
        pthread_mutex_unlock(&b->lock);
        return;
    }
    *slot = r->next;
    e->free++;
    e->last_seen_ms = mono_ms();
    const task_desc *t = r->t;
    free(r);
    char host[256];
    int port = e->block_port;
    char exec_id[64];
    snprintf(host, sizeof host, "%s", e->host);
    snprintf(exec_id, sizeof exec_id, "%s", e->id);
    pthread_mutex_unlock(&b->lock);

    task_result res;
    cs_task_result_init(&res);
    cs_error err;
    cs_error_clear(&err);
    if (!su->result) {
        res.status = TASK_FAILED;
        res.error = cs_xstrdup("the executor sent no result");
    } else if (cs_task_result_decode(su->result, &res, &err) < 0) {
        cs_task_result_free(&res);
        cs_task_result_init(&res);
        res.status = TASK_FAILED;
        res.error = cs_xstrdup(err.msg);
    } else if (su->result->indirect && res.status == TASK_OK) {
        fetch_job *f = cs_xcalloc(1, sizeof *f);
        f->t = t;
        f->r = res;
        snprintf(f->host, sizeof f->host, "%s", host);
        f->port = port;
        snprintf(f->exec_id, sizeof f->exec_id, "%s", exec_id);
        pthread_mutex_lock(&b->lock);
        if (b->fetch_tail)
            b->fetch_tail->next = f;
        else
            b->fetch_head = f;
        b->fetch_tail = f;
        pthread_cond_broadcast(&b->cond);
        pthread_mutex_unlock(&b->lock);
        offer_and_report(b);
        return;
    }
    if (su->state == CSPARK__TASK_STATE__KILLED && res.status == TASK_OK) res.status = TASK_FAILED;
    cs_scheduler_task_done(b->base.sched, t, &res);
    offer_and_report(b);
}

static void on_heartbeat(coarse_backend *b, rpc_conn *c, uint64_t request_id,
                         const Cspark__Heartbeat *hb)
{
    pthread_mutex_lock(&b->lock);
    exec_info *e = exec_of_conn(b, c);
    if (e) e->last_seen_ms = mono_ms();
    bool known = e && e->alive;
    pthread_mutex_unlock(&b->lock);
    for (size_t i = 0; i < hb->n_updates; i++) {
        const Cspark__TaskMetricsUpdate *u = hb->updates[i];
        if (u->metrics)
            CS_DEBUG("driver",
                     "event=task_metrics executor=%s task=%lld run_time_ms=%lld records_read=%lld "
                     "shuffle_bytes_read=%lld spilled=%lld",
                     hb->executor_id, (long long)u->task_id, (long long)u->metrics->run_time_ms,
                     (long long)u->metrics->records_read, (long long)u->metrics->shuffle_bytes_read,
                     (long long)u->metrics->disk_bytes_spilled);
    }
    Cspark__HeartbeatResponse hr = CSPARK__HEARTBEAT_RESPONSE__INIT;
    hr.reregister = !known;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_HEARTBEAT_RESPONSE;
    env.heartbeat_response = &hr;
    if (request_id)
        cs_rpc_reply(c, request_id, &env);
    else
        cs_rpc_send(c, &env);
}

/* ---- removal and decommissioning ------------------------------------------------------------ */

static void send_decommission(rpc_conn *c, const char *id, const char *reason)
{
    Cspark__DecommissionExecutor de = CSPARK__DECOMMISSION_EXECUTOR__INIT;
    de.executor_id = (char *)id;
    de.reason = (char *)reason;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_DECOMMISSION_EXECUTOR;
    env.decommission_executor = &de;
    cs_rpc_send(c, &env);
}

static void send_stop(rpc_conn *c)
{
    Cspark__StopExecutor se = CSPARK__STOP_EXECUTOR__INIT;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_STOP_EXECUTOR;
    env.stop_executor = &se;
    cs_rpc_send(c, &env);
}

/* Marks e decommissioning (lock held): no task is offered to it from now on, and the message
 * that tells it so goes after every LaunchTask already sent. */
static void start_decommission(exec_info *e, const char *reason)
{
    if (!e->decommissioning)
        CS_INFO("driver", "event=executor_decommissioning executor=%s reason=\"%s\"", e->id,
                reason);
    e->decommissioning = true;
    snprintf(e->lost_reason, sizeof e->lost_reason, "Executor decommission: %s", reason);
    if (e->conn) send_decommission(e->conn, e->id, reason);
}

void cs_coarse_backend_remove_executors(coarse_backend *b, const char *const *ids, int n,
                                        bool decommission, const char *reason)
{
    pthread_mutex_lock(&b->lock);
    for (int k = 0; k < n; k++) {
        int i = find_exec(b, ids[k]);
        if (i < 0) continue;
        exec_info *e = &b->execs[i];
        if (!e->alive || !e->conn || e->removing || e->decommissioning) continue;
        if (decommission) {
            start_decommission(e, reason);
        } else {
            e->removing = true;
            snprintf(e->lost_reason, sizeof e->lost_reason, "Executor killed by driver: %s",
                     reason);
            CS_INFO("driver", "event=executor_kill executor=%s reason=\"%s\"", e->id, reason);
            send_stop(e->conn);
        }
    }
    pthread_mutex_unlock(&b->lock);
}

bool cs_coarse_backend_exit_expected(coarse_backend *b, const char *executor_id)
{
    pthread_mutex_lock(&b->lock);
    int i = find_exec(b, executor_id);
    bool expected = i >= 0 && (b->execs[i].removing || b->execs[i].decommissioning);
    pthread_mutex_unlock(&b->lock);
    return expected;
}

/* The executor asked to decommission itself (its pod is being deleted): echo, so that it knows
 * no more tasks will come. */
static void on_decommission(coarse_backend *b, rpc_conn *c, const Cspark__DecommissionExecutor *d)
{
    pthread_mutex_lock(&b->lock);
    exec_info *e = exec_of_conn(b, c);
    if (e && e->alive)
        start_decommission(e, d->reason && *d->reason ? d->reason : "requested by the executor");
    pthread_mutex_unlock(&b->lock);
}

/* Migration done (or impossible): StopExecutor as soon as no running stage reads from it (the
 * housekeeper checks). Lock held. */
static void finish_decommission(coarse_backend *b, exec_info *e)
{
    e->stop_when_unread = true;
    pthread_cond_broadcast(&b->cond);
}

typedef struct drained {
    coarse_backend *b;
    char id[64];
} drained;

static void migrate_outputs(void *arg);

/* Every task of a decommissioning executor is done. Its map outputs move once the scheduler has
 * registered the last ones (their StatusUpdates came just before). */
static void on_drained(coarse_backend *b, rpc_conn *c)
{
    pthread_mutex_lock(&b->lock);
    exec_info *e = exec_of_conn(b, c);
    if (!e || !e->alive || !e->decommissioning || e->migrations || e->stop_when_unread) {
        pthread_mutex_unlock(&b->lock);
        return;
    }
    drained *d = cs_xcalloc(1, sizeof *d);
    d->b = b;
    snprintf(d->id, sizeof d->id, "%s", e->id);
    pthread_mutex_unlock(&b->lock);
    if (b->base.sched)
        cs_scheduler_after_completions(b->base.sched, migrate_outputs, d);
    else
        migrate_outputs(d);
}

/* The drained executor's map outputs go to live executors, round-robin, one MigrateShuffle per
 * peer. */
static void migrate_outputs(void *arg)
{
    drained *d = arg;
    coarse_backend *b = d->b;
    char id[64];
    snprintf(id, sizeof id, "%s", d->id);
    free(d);
    cs_map_status *outs = NULL;
    int nouts = b->migrate_shuffles && b->base.sched
                    ? cs_scheduler_outputs_on(b->base.sched, id, &outs)
                    : 0;
    pthread_mutex_lock(&b->lock);
    int at = find_exec(b, id);
    exec_info *e = at >= 0 ? &b->execs[at] : NULL;
    int *peers = cs_xcalloc((size_t)b->num_execs + 1, sizeof *peers);
    int npeers = 0;
    for (int i = 0; i < b->num_execs; i++) {
        const exec_info *p = &b->execs[i];
        if (p != e && p->alive && p->conn && !p->removing && !p->decommissioning)
            peers[npeers++] = i;
    }
    CS_INFO("driver", "event=executor_drained executor=%s map_outputs=%d peers=%d", id, nouts,
            npeers);
    if (e && e->alive && nouts > 0 && npeers > 0) {
        int batches = npeers < nouts ? npeers : nouts;
        for (int k = 0; k < batches; k++) {
            Cspark__MigrateShuffle ms = CSPARK__MIGRATE_SHUFFLE__INIT;
            Cspark__MapStatus *pbs = cs_xcalloc((size_t)nouts, sizeof *pbs);
            Cspark__MapStatus **ptrs = cs_xcalloc((size_t)nouts, sizeof *ptrs);
            for (int m = k; m < nouts; m += batches) {
                cspark__map_status__init(&pbs[ms.n_outputs]);
                cs_map_status_encode(&outs[m], &pbs[ms.n_outputs], NULL);
                ptrs[ms.n_outputs] = &pbs[ms.n_outputs];
                ms.n_outputs++;
            }
            ms.outputs = ptrs;
            Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
            env.body_case = CSPARK__ENVELOPE__BODY_MIGRATE_SHUFFLE;
            env.migrate_shuffle = &ms;
            exec_info *p = &b->execs[peers[k]];
            CS_INFO("driver", "event=shuffle_migration from=%s to=%s map_outputs=%zu", id, p->id,
                    ms.n_outputs);
            cs_rpc_send(p->conn, &env);
            e->migrations++;
            for (size_t m = 0; m < ms.n_outputs; m++)
                cs_map_status_pb_clear(&pbs[m]);
            free(pbs);
            free(ptrs);
        }
    } else if (e && e->alive) {
        if (nouts > 0)
            CS_WARN("driver",
                    "event=shuffle_migration_skipped executor=%s map_outputs=%d reason=\"%s\"", id,
                    nouts,
                    b->migrate_shuffles ? "no live executor to take them"
                                        : "spark.storage.decommission.enabled is off");
        finish_decommission(b, e);
    }
    pthread_mutex_unlock(&b->lock);
    for (int m = 0; m < nouts; m++)
        cs_map_status_free(&outs[m]);
    free(outs);
    free(peers);
}

/* A peer copied map outputs of a decommissioning executor: later stages read them there. */
static void on_migrated(coarse_backend *b, rpc_conn *c, const Cspark__ShuffleMigrated *sm)
{
    pthread_mutex_lock(&b->lock);
    exec_info *peer = exec_of_conn(b, c);
    if (!peer) {
        pthread_mutex_unlock(&b->lock);
        return;
    }
    char to[64], host[256];
    snprintf(to, sizeof to, "%s", peer->id);
    snprintf(host, sizeof host, "%s", peer->host);
    int port = peer->block_port;
    pthread_mutex_unlock(&b->lock);
    const char *source = sm->n_migrated ? sm->migrated[0]->executor_id
                         : sm->n_failed ? sm->failed[0]->executor_id
                                        : NULL;
    for (size_t i = 0; i < sm->n_migrated && b->base.sched; i++) {
        const Cspark__MapStatus *m = sm->migrated[i];
        cs_scheduler_output_moved(b->base.sched, m->shuffle_id, m->map_id, m->executor_id, to, host,
                                  port);
    }
    if (sm->n_failed)
        CS_WARN("driver",
                "event=shuffle_migration_failed from=%s to=%s map_outputs=%zu error=\"%s\"",
                source ? source : "?", to, sm->n_failed, sm->error ? sm->error : "");
    if (!source) return;
    pthread_mutex_lock(&b->lock);
    int i = find_exec(b, source);
    if (i >= 0 && b->execs[i].migrations > 0 && --b->execs[i].migrations == 0) {
        CS_INFO("driver", "event=shuffle_migration_done executor=%s", source);
        finish_decommission(b, &b->execs[i]);
    }
    pthread_mutex_unlock(&b->lock);
}

static void on_message(void *arg, rpc_conn *c, const Cspark__Envelope *msg)
{
    coarse_backend *b = arg;
    switch (msg->body_case) {
    case CSPARK__ENVELOPE__BODY_RETRIEVE_APP_CONFIG:
        reply_app_config(b, c, msg->request_id);
        break;
    case CSPARK__ENVELOPE__BODY_REGISTER_EXECUTOR:
        on_register(b, c, msg->request_id, msg->register_executor);
        break;
    case CSPARK__ENVELOPE__BODY_STATUS_UPDATE:
        on_status(b, c, msg->status_update);
        break;
    case CSPARK__ENVELOPE__BODY_HEARTBEAT:
        on_heartbeat(b, c, msg->request_id, msg->heartbeat);
        break;
    case CSPARK__ENVELOPE__BODY_DECOMMISSION_EXECUTOR:
        on_decommission(b, c, msg->decommission_executor);
        break;
    case CSPARK__ENVELOPE__BODY_EXECUTOR_DRAINED:
        on_drained(b, c);
        break;
    case CSPARK__ENVELOPE__BODY_SHUFFLE_MIGRATED:
        on_migrated(b, c, msg->shuffle_migrated);
        break;
    default:
        CS_WARN("driver", "event=unexpected_message peer=%s kind=%s", cs_rpc_conn_peer(c),
                cs_frame_body_name(msg));
        break;
    }
}

/* An executor's connection is gone: its running tasks fail, its map outputs are lost. */
static void on_close(void *arg, rpc_conn *c, const char *reason)
{
    coarse_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    exec_info *e = exec_of_conn(b, c);
    if (!e || !e->alive) {
        pthread_mutex_unlock(&b->lock);
        return;
    }
    e->alive = false;
    if (!e->lost_reason[0]) snprintf(e->lost_reason, sizeof e->lost_reason, "%s", reason);
    int idx = (int)(e - b->execs);
    const task_desc **lost = NULL;
    int nlost = 0;
    for (int k = 0; k < RUNNING_BUCKETS; k++) {
        for (running **p = &b->run[k]; *p;) {
            running *r = *p;
            if (r->exec != idx) {
                p = &r->next;
                continue;
            }
            *p = r->next;
            lost = cs_xrealloc(lost, (size_t)(nlost + 1) * sizeof *lost);
            lost[nlost++] = r->t;
            free(r);
        }
    }
    bool stopping = b->stopping || !b->base.sched;
    char id[64], why[512];
    snprintf(id, sizeof id, "%s", e->id);
    snprintf(why, sizeof why, "%s", e->lost_reason);
    rpc_conn *conn = e->conn;
    e->conn = NULL;
    pthread_mutex_unlock(&b->lock);
    cs_rpc_conn_unref(conn);
    bool expected = e->removing || e->decommissioning;
    if (stopping) {
        free(lost);
        return;
    }
    if (expected)
        CS_INFO("driver", "event=executor_removed executor=%s running_tasks=%d reason=\"%s\"", id,
                nlost, why);
    else
        CS_WARN("driver", "event=executor_lost executor=%s running_tasks=%d reason=\"%s\"", id,
                nlost, why);
    for (int i = 0; i < nlost; i++) {
        task_result r;
        cs_task_result_init(&r);
        r.status = TASK_FAILED;
        char msg[700];
        snprintf(msg, sizeof msg,
                 "ExecutorLostFailure (executor %s exited caused by one of the running tasks) "
                 "Reason: %s",
                 id, why);
        r.error = cs_xstrdup(msg);
        cs_scheduler_task_done(b->base.sched, lost[i], &r);
    }
    free(lost);
    cs_scheduler_executor_lost(b->base.sched, id, why);
    if (b->sc->bus) {
        cs_event ev = {.kind = CS_EV_EXECUTOR_REMOVED,
                       .executor_id = id,
                       .reason = why,
                       .time_ms = cs_now_ms()};
        cs_listener_bus_post(b->sc->bus, &ev);
    }
    if (b->opt.executor_removed) b->opt.executor_removed(b->opt.hooks_arg, id, why);
    offer_and_report(b);
}

/* ---- background threads -------------------------------------------------------------------- */

/* Decommissioned executors whose shuffle files have moved exit once no running stage attempt
 * was given their location (its tasks may still fetch from them). Lock held; released around
 * the scheduler queries. */
static void stop_unread(coarse_backend *b)
{
    for (int i = 0; i < b->num_execs && !b->stopping; i++) {
        exec_info *e = &b->execs[i];
        if (!e->stop_when_unread || !e->alive || !e->conn) continue;
        char id[64];
        snprintf(id, sizeof id, "%s", e->id);
        pthread_mutex_unlock(&b->lock);
        bool read = b->base.sched && cs_scheduler_reads_from(b->base.sched, id);
        pthread_mutex_lock(&b->lock);
        e = &b->execs[i];
        if (read || !e->stop_when_unread || !e->alive || !e->conn) continue;
        e->stop_when_unread = false;
        CS_INFO("driver", "event=executor_decommissioned executor=%s action=stop", e->id);
        send_stop(e->conn);
    }
}

/* Spark's HeartbeatReceiver: executors silent for longer than spark.network.timeout are removed. */
static void *housekeeper_main(void *arg)
{
    coarse_backend *b = arg;
    int64_t period = b->network_timeout_ms / 4;
    if (period > 1000) period = 1000;
    if (period < 10) period = 10;
    pthread_mutex_lock(&b->lock);
    while (!b->stopping) {
        cs_cond_wait_ms(&b->cond, &b->lock, period < 200 ? period : 200);
        stop_unread(b);
        int64_t now = mono_ms();
        for (int i = 0; i < b->num_execs && !b->stopping; i++) {
            exec_info *e = &b->execs[i];
            if (!e->alive || !e->conn || now - e->last_seen_ms <= b->network_timeout_ms) continue;
            snprintf(e->lost_reason, sizeof e->lost_reason,
                     "Executor heartbeat timed out after %lld ms",
                     (long long)(now - e->last_seen_ms));
            cs_rpc_conn_close(e->conn); /* on_close does the rest */
        }
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* Spark's TaskResultGetter: large results are fetched from the executor's block server. */
static void *fetcher_main(void *arg)
{
    coarse_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    for (;;) {
        while (!b->fetch_head && !b->stopping)
            pthread_cond_wait(&b->cond, &b->lock);
        if (!b->fetch_head) break;
        fetch_job *f = b->fetch_head;
        b->fetch_head = f->next;
        if (!b->fetch_head) b->fetch_tail = NULL;
        pthread_mutex_unlock(&b->lock);

        cs_error err;
        cs_error_clear(&err);
        rpc_conn *c = cs_rpc_connect(b->ep, f->host, f->port, 30000, &err);
        Cspark__Envelope *reply = NULL;
        if (c) {
            Cspark__FetchResult fr = CSPARK__FETCH_RESULT__INIT;
            fr.task_id = f->t->task_id;
            Cspark__Envelope req = CSPARK__ENVELOPE__INIT;
            req.body_case = CSPARK__ENVELOPE__BODY_FETCH_RESULT;
            req.fetch_result = &fr;
            cs_rpc_call(c, &req, &reply, 120000, &err);
            cs_rpc_conn_close(c);
            cs_rpc_conn_unref(c);
        }
        if (reply && reply->body_case == CSPARK__ENVELOPE__BODY_FETCH_RESULT_DATA &&
            !(reply->fetch_result_data->error && reply->fetch_result_data->error[0])) {
            cs_batch_reset(&f->r.data);
            CS_INFO("driver", "event=indirect_result task=%lld executor=%s bytes=%zu",
                    (long long)f->t->task_id, f->exec_id, reply->fetch_result_data->data.len);
            if (cs_recio_decode_all(reply->fetch_result_data->data.data,
                                    reply->fetch_result_data->data.len, &f->r.data, &err) < 0) {
                f->r.status = TASK_FAILED;
                f->r.error = cs_xstrdup(err.msg);
            }
        } else {
            f->r.status = TASK_FAILED;
            char msg[1600];
            snprintf(msg, sizeof msg,
                     "could not fetch the result of task %lld from executor %s (%s:%d): %s",
                     (long long)f->t->task_id, f->exec_id, f->host, f->port,
                     reply && reply->body_case == CSPARK__ENVELOPE__BODY_FETCH_RESULT_DATA
                         ? reply->fetch_result_data->error
                         : err.msg);
            f->r.error = cs_xstrdup(msg);
        }
        if (reply) cspark__envelope__free_unpacked(reply, NULL);
        cs_scheduler_task_done(b->base.sched, f->t, &f->r);
        free(f);
        pthread_mutex_lock(&b->lock);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* ---- public -------------------------------------------------------------------------------- */

sched_backend *cs_coarse_backend_base(coarse_backend *b)
{
    return &b->base;
}

int cs_coarse_backend_port(const coarse_backend *b)
{
    return b->port;
}

int cs_coarse_backend_wait_registered(coarse_backend *b, int n, int64_t timeout_ms)
{
    int64_t deadline = mono_ms() + timeout_ms;
    pthread_mutex_lock(&b->lock);
    int alive = 0;
    for (;;) {
        alive = 0;
        for (int i = 0; i < b->num_execs; i++)
            alive += b->execs[i].alive;
        int64_t left = deadline - mono_ms();
        if (alive >= n || left <= 0 || b->stopping) break;
        cs_cond_wait_ms(&b->cond, &b->lock, left < 200 ? left : 200);
    }
    pthread_mutex_unlock(&b->lock);
    return alive;
}

int cs_coarse_backend_wait_disconnected(coarse_backend *b, int64_t timeout_ms)
{
    int64_t deadline = mono_ms() + timeout_ms;
    pthread_mutex_lock(&b->lock);
    int alive;
    for (;;) {
        alive = 0;
        for (int i = 0; i < b->num_execs; i++)
            alive += b->execs[i].alive && b->execs[i].conn;
        int64_t left = deadline - mono_ms();
        if (!alive || left <= 0) break;
        cs_cond_wait_ms(&b->cond, &b->lock, left < 50 ? left : 50);
    }
    pthread_mutex_unlock(&b->lock);
    return alive;
}

void cs_coarse_backend_executor_exited(coarse_backend *b, const char *executor_id,
                                       const char *reason)
{
    pthread_mutex_lock(&b->lock);
    int i = find_exec(b, executor_id);
    if (i >= 0 && b->execs[i].alive && b->execs[i].conn) {
        snprintf(b->execs[i].lost_reason, sizeof b->execs[i].lost_reason, "%s", reason);
        cs_rpc_conn_close(b->execs[i].conn);
    }
    pthread_mutex_unlock(&b->lock);
}

void cs_coarse_backend_stop_executors(coarse_backend *b)
{
    pthread_mutex_lock(&b->lock);
    b->stopping = true;
    for (int i = 0; i < b->num_execs; i++)
        if (b->execs[i].alive && b->execs[i].conn) send_stop(b->execs[i].conn);
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
}

static void coarse_stop(sched_backend *base)
{
    coarse_backend *b = (coarse_backend *)base;
    cs_coarse_backend_stop_executors(b);
    pthread_join(b->housekeeper, NULL);
    pthread_join(b->fetcher, NULL);
    cs_rpc_endpoint_free(b->ep); /* closes every connection; on_close sees stopping */
    for (int i = 0; i < b->num_execs; i++) {
        if (b->execs[i].conn) cs_rpc_conn_unref(b->execs[i].conn);
        free(b->execs[i].sent_attempt);
    }
    free(b->execs);
    cs_idmap_free(&b->exec_index);
    while (b->pend_head) {
        pending *p = b->pend_head;
        b->pend_head = p->next;
        free(p);
    }
    for (int k = 0; k < RUNNING_BUCKETS; k++)
        while (b->run[k]) {
            running *r = b->run[k];
            b->run[k] = r->next;
            free(r);
        }
    while (b->plans) {
        plan_frame *p = b->plans;
        b->plans = p->next;
        free(p->frame);
        free(p);
    }
    while (b->fetch_head) {
        fetch_job *f = b->fetch_head;
        b->fetch_head = f->next;
        cs_task_result_free(&f->r);
        free(f);
    }
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->cond);
    free(b->secret);
    free(b->app_file);
    free(b);
}

coarse_backend *cs_coarse_backend_new(cspark_context *sc, const coarse_options *o, cs_error *err)
{
    int64_t timeout = 120000;
    if (cs_conf_get_duration_ms(sc->conf, "spark.network.timeout", "120s", CS_SEC, &timeout, err) <
        0)
        return NULL;
    coarse_backend *b = cs_xcalloc(1, sizeof *b);
    b->base.launch = coarse_launch;
    b->base.total_cores = coarse_total_cores;
    b->base.cancel_all = coarse_cancel_all;
    b->base.stop = coarse_stop;
    b->sc = sc;
    b->opt = *o;
    b->secret = o->secret ? cs_xstrdup(o->secret) : NULL;
    b->app_file = cs_xstrdup(o->app_file ? o->app_file : "");
    b->opt.secret = b->secret;
    b->opt.app_file = b->app_file;
    b->network_timeout_ms = timeout;
    bool storage = false, blocks = true;
    if (cs_conf_get_bool(sc->conf, "spark.storage.decommission.enabled", "false", &storage, err) <
            0 ||
        cs_conf_get_bool(sc->conf, "spark.storage.decommission.shuffleBlocks.enabled", "true",
                         &blocks, err) < 0) {
        free(b);
        return NULL;
    }
    b->migrate_shuffles = storage && blocks;
    pthread_mutex_init(&b->lock, NULL);
    cs_cond_init_monotonic(&b->cond);

    rpc_options ro = {.name = "driver", .app_id = sc->app_id, .secret = b->secret};
    rpc_handlers h = {.on_message = on_message, .on_close = on_close, .arg = b};
    b->ep = cs_rpc_endpoint_new(&ro, &h, err);
    if (!b->ep || cs_rpc_listen(b->ep, o->bind_host ? o->bind_host : "127.0.0.1", o->port, &b->port,
                                err) < 0) {
        cs_rpc_endpoint_free(b->ep);
        pthread_mutex_destroy(&b->lock);
        pthread_cond_destroy(&b->cond);
        free(b->secret);
        free(b->app_file);
        free(b);
        return NULL;
    }
    pthread_create(&b->housekeeper, NULL, housekeeper_main, b);
    pthread_create(&b->fetcher, NULL, fetcher_main, b);
    CS_INFO("driver", "event=listening host=%s port=%d auth=%s",
            o->bind_host ? o->bind_host : "127.0.0.1", b->port, b->secret ? "on" : "off");
    return b;
}
