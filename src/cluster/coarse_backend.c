/*
 * coarse_backend.c — the driver endpoint of the coarse backend (see coarse_backend.h): offers
 * executors' free cores to the task scheduler (sched/task_scheduler.h: placement, locality and
 * delay scheduling are decided there) and launches what it places (each stage's plan sent once
 * per executor), turns
 * StatusUpdates into scheduler completions, dispatches the other messages to the registry
 * (coarse_registry.c) and to decommissioning (coarse_decommission.c), and fails the running tasks
 * of an executor whose connection closes. The shared state and its lock rules are in
 * coarse_backend_internal.h.
 */
#define _GNU_SOURCE
#include "cluster/coarse_backend.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/coarse_backend_internal.h"
#include "common/clock.h"
#include "common/conf_entries.h"
#include "common/log.h"
#include "common/strutil.h"
#include "common/sync.h"
#include "plan/stage_plan.h"
#include "plan/task_codec.h"
#include "rpc/frame.h"
#include "sched/block_registry.h"
#include "sched/listener.h"
#include "sched/task_scheduler.h"
#include "common/localaddr.h"

/* The running task task_id, or NULL. Lock held. */
static running *find_running(coarse_backend *b, int64_t task_id)
{
    uint64_t v;
    return cs_hmap_get(&b->running, (uint64_t)task_id, &v) ? (running *)(uintptr_t)v : NULL;
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
    if (p->len - FRAME_HEADER < cs_rpc_endpoint_max_frame(b->ep)) { /* else never sent */
        p->frame = cs_xmalloc(p->len);
        cs_frame_encode(&env, p->frame);
    }
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

/* Sends t's stage plan to e unless e has it. False with err set when it cannot be sent;
 * *status is then TASK_UNLAUNCHABLE if no executor could ever take it. */
static bool send_plan(coarse_backend *b, exec_info *e, const task_desc *t, task_status *status,
                      cs_error *err)
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
    if (!p->frame) { /* Spark's task size guard: the stage fails at once, no executor is hurt */
        cs_error_set(err, CS_EINVAL,
                     "Serialized task %lld:%d was %zu bytes, which exceeds max allowed: "
                     "spark.rpc.message.maxSize (%zu bytes). Consider increasing "
                     "spark.rpc.message.maxSize or using broadcast variables for large values.",
                     (long long)t->task_id, t->partition, p->len - FRAME_HEADER,
                     cs_rpc_endpoint_max_frame(b->ep));
        *status = TASK_UNLAUNCHABLE;
        return false;
    }
    uint8_t *copy = cs_xmalloc(p->len);
    memcpy(copy, p->frame, p->len);
    if (cs_rpc_send_raw(e->conn, copy, p->len) < 0) return false;
    e->sent_attempt[t->stage_id] = t->stage_attempt + 1;
    return true;
}

typedef struct failed_launch {
    const task_desc *t;
    task_status status;
    char *why;
    char *lost_executor; /* the plan could not go: its executor's connection had closed */
} failed_launch;

/* The cached partitions t may read and the block servers of the live executors holding them. */
static Cspark__CachedBlock **cached_blocks_pb(coarse_backend *b, const task_desc *t,
                                              Cspark__CachedBlock *cb, size_t *n)
{
    Cspark__CachedBlock **ptrs = cs_xcalloc((size_t)t->num_block_locs + 1, sizeof *ptrs);
    *n = 0;
    for (int i = 0; i < t->num_block_locs; i++) {
        const cs_block_location *l = &t->block_locs[i];
        int x = cs_coarse_find_exec(b, l->executor_id);
        if (x < 0 || !b->execs[x].alive || !b->execs[x].conn || b->execs[x].block_port <= 0)
            continue;
        cspark__cached_block__init(&cb[*n]);
        cb[*n].rdd_id = l->rdd_id;
        cb[*n].partition = l->partition;
        cb[*n].executor_id = b->execs[x].id;
        cb[*n].host = b->execs[x].host;
        cb[*n].port = b->execs[x].block_port;
        ptrs[*n] = &cb[*n];
        (*n)++;
    }
    return ptrs;
}

/* Offers every executor that can take tasks, with its free cores, to the task scheduler (which
 * places tasks by locality, sched/task_scheduler.h) and launches what it gives. Called with the
 * lock held; tasks whose plan cannot be sent are returned in *failed for reporting outside the
 * lock. */
static void make_offers(coarse_backend *b, failed_launch **failed, int *nfailed)
{
    if (b->stopping || !b->base.tasks || b->num_execs == 0) return;
    cs_offer *offers = cs_xcalloc((size_t)b->num_execs, sizeof *offers);
    int *exec_of = cs_xcalloc((size_t)b->num_execs, sizeof *exec_of);
    int n = 0, free_cores = 0;
    for (int i = 0; i < b->num_execs; i++) {
        exec_info *e = &b->execs[i];
        /* a closed connection is an executor lost that on_close has not reported yet */
        if (!e->alive || !e->conn || e->removing || e->decommissioning ||
            cs_rpc_conn_is_closed(e->conn))
            continue;
        /* "free cores" to the task scheduler: how many more tasks it can run (cores and
         * resources, coarse_resources.c) */
        offers[n] = (cs_offer){e->id, e->host, cs_coarse_task_slots(b, e), e->block_port};
        free_cores += offers[n].free_cores;
        exec_of[n++] = i;
    }
    cs_task_assignment *given = NULL;
    int ngiven = 0;
    if (free_cores > 0) {
        given = cs_xcalloc((size_t)free_cores, sizeof *given);
        ngiven = cs_task_scheduler_resource_offers(b->base.tasks, offers, n, cs_mono_ms(), given,
                                                   free_cores);
    }
    for (int g = 0; g < ngiven; g++) {
        const task_desc *t = given[g].t;
        int chosen = exec_of[given[g].offer];
        exec_info *e = &b->execs[chosen];

        cs_error err;
        cs_error_clear(&err);
        task_status status = TASK_FAILED;
        if (!send_plan(b, e, t, &status, &err)) {
            /* the executor went away under the offer: the task is not at fault (Spark re-queues
             * the tasks of a lost executor without counting a failure) */
            bool gone = status == TASK_FAILED && cs_rpc_conn_is_closed(e->conn);
            *failed = cs_xrealloc(*failed, (size_t)(*nfailed + 1) * sizeof **failed);
            (*failed)[(*nfailed)++] = (failed_launch){
                t, status, cs_xstrdup(err.msg[0] ? err.msg : "cannot send the stage plan"),
                gone ? cs_xstrdup(e->id) : NULL};
            continue;
        }
        Cspark__LaunchTask lt = CSPARK__LAUNCH_TASK__INIT;
        lt.task_id = t->task_id;
        lt.job_id = t->job_id;
        lt.stage_id = t->stage_id;
        lt.stage_attempt = t->stage_attempt;
        lt.partition = t->partition;
        lt.attempt = t->attempt;
        if (t->barrier) { /* BarrierTaskContext (barrier_tasks, its tasks' addresses) */
            lt.barrier = true;
            lt.barrier_tasks = t->barrier->num_tasks;
            lt.barrier_addresses = t->barrier->addresses;
        }
        Cspark__CachedBlock *cb = cs_xcalloc((size_t)t->num_block_locs + 1, sizeof *cb);
        lt.cached_blocks = cached_blocks_pb(b, t, cb, &lt.n_cached_blocks);
        Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
        env.body_case = CSPARK__ENVELOPE__BODY_LAUNCH_TASK;
        env.launch_task = &lt;
        running *r = cs_xcalloc(1, sizeof *r);
        r->t = t;
        r->exec = chosen;
        cs_hmap_put(&b->running, (uint64_t)t->task_id, (uint64_t)(uintptr_t)r);
        cs_coarse_resources_take(b, e, r, &lt);
        cs_rpc_send(e->conn, &env); /* a closed connection shows up in on_close, which fails it */
        cs_coarse_resources_pb_free(&lt);
        free(lt.cached_blocks);
        free(cb);
        cs_scheduler_task_started(b->base.sched, t, e->id, e->host, given[g].level);
    }
    free(given);
    free(exec_of);
    free(offers);
}

static void report_failed(coarse_backend *b, failed_launch *failed, int n)
{
    for (int i = 0; i < n; i++) {
        task_result r;
        cs_task_result_init(&r);
        r.status = failed[i].status;
        r.error = failed[i].why;
        if (failed[i].lost_executor) {
            r.lost_executor = failed[i].lost_executor;
            r.loss_reason = cs_xstrdup("its connection closed before the task's plan was sent");
            r.exit_caused_by_app = false;
        }
        cs_scheduler_task_done(b->base.sched, failed[i].t, &r);
    }
    free(failed);
}

void cs_coarse_offer_and_report(coarse_backend *b)
{
    failed_launch *failed = NULL;
    int n = 0;
    pthread_mutex_lock(&b->lock);
    make_offers(b, &failed, &n);
    pthread_mutex_unlock(&b->lock);
    report_failed(b, failed, n);
}

static void coarse_revive_offers(sched_backend *base)
{
    cs_coarse_offer_and_report((coarse_backend *)base);
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
    size_t pos = 0;
    uint64_t v;
    while (cs_hmap_next(&b->running, &pos, NULL, &v)) {
        const running *r = (const running *)(uintptr_t)v;
        exec_info *e = &b->execs[r->exec];
        if (!e->alive || !e->conn || !cs_task_desc_cancelled(r->t)) continue;
        kt.task_id = r->t->task_id;
        kt.executor_id = e->id;
        cs_rpc_send(e->conn, &env);
    }
    pthread_mutex_unlock(&b->lock);
}

/* The task reaper: executors still running tasks killed spark.task.reaper.killTimeout ago are
 * removed (no failure of theirs: the tasks ignored the kill) and ended by the launcher; closing
 * their connections fails those tasks at once (on_close). */
static int coarse_reap(sched_backend *base, const char *reason)
{
    coarse_backend *b = (coarse_backend *)base;
    pthread_mutex_lock(&b->lock);
    bool *hit = cs_xcalloc((size_t)b->num_execs + 1, sizeof *hit);
    size_t pos = 0;
    uint64_t v;
    while (cs_hmap_next(&b->running, &pos, NULL, &v)) {
        const running *r = (const running *)(uintptr_t)v;
        if (cs_task_desc_cancelled(r->t)) hit[r->exec] = true; /* other jobs' tasks run on */
    }
    const char **ids = cs_xcalloc((size_t)b->num_execs + 1, sizeof *ids);
    char(*names)[64] = cs_xcalloc((size_t)b->num_execs + 1, sizeof *names);
    rpc_conn **conns = cs_xcalloc((size_t)b->num_execs + 1, sizeof *conns);
    int n = 0;
    for (int i = 0; i < b->num_execs; i++) {
        exec_info *e = &b->execs[i];
        if (!hit[i] || !e->alive || !e->conn) continue;
        e->removing = true;
        snprintf(e->lost_reason, sizeof e->lost_reason,
                 "Executor killed by the task reaper: a task of its was %s", reason);
        snprintf(names[n], sizeof names[n], "%s", e->id); /* execs may move once unlocked */
        ids[n] = names[n];
        conns[n] = e->conn;
        cs_rpc_conn_ref(e->conn);
        n++;
    }
    pthread_mutex_unlock(&b->lock);
    if (n > 0 && b->opt.removing) b->opt.removing(b->opt.hooks_arg, ids, n);
    for (int i = 0; i < n; i++) {
        CS_WARN("driver", "event=executor_reaped executor=%s reason=\"a task of its was %s\"",
                ids[i], reason);
        if (b->opt.kill) b->opt.kill(b->opt.hooks_arg, ids[i]);
        cs_rpc_conn_close(conns[i]); /* on_close fails its tasks */
        cs_rpc_conn_unref(conns[i]);
    }
    free(hit);
    free(ids);
    free(names);
    free(conns);
    return 0;
}

/* Unpersist: every live executor drops the RDD's blocks. */
static void coarse_remove_rdd(sched_backend *base, int rdd_id)
{
    coarse_backend *b = (coarse_backend *)base;
    Cspark__RemoveRdd rr = CSPARK__REMOVE_RDD__INIT;
    rr.rdd_id = rdd_id;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_REMOVE_RDD;
    env.remove_rdd = &rr;
    cs_coarse_send_to_live(b, &env);
}

/* A finished SQL execution's shuffles: every live executor deletes their files. */
static void coarse_remove_shuffles(sched_backend *base, const int *ids, int n)
{
    coarse_backend *b = (coarse_backend *)base;
    Cspark__RemoveShuffle rs = CSPARK__REMOVE_SHUFFLE__INIT;
    rs.n_shuffle_ids = (size_t)n;
    rs.shuffle_ids = (int32_t *)ids;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_REMOVE_SHUFFLE;
    env.remove_shuffle = &rs;
    cs_coarse_send_to_live(b, &env);
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
    const cs_conf *conf = b->opt.exec_conf ? b->opt.exec_conf : b->env.conf;
    size_t n = cs_conf_size(conf);
    conf_collect col = {cs_xcalloc(n + 1, sizeof(Cspark__ConfEntry)),
                        cs_xcalloc(n + 1, sizeof(Cspark__ConfEntry *)), 0};
    cs_conf_foreach(conf, collect_conf, &col);
    Cspark__SparkAppConfig ac = CSPARK__SPARK_APP_CONFIG__INIT;
    ac.n_conf = col.n;
    ac.conf = col.ptrs;
    ac.app_id = (char *)b->env.app_id;
    ac.app_file = b->app_file;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_APP_CONFIG;
    env.app_config = &ac;
    cs_rpc_reply(c, request_id, &env);
    free(col.entries);
    free(col.ptrs);
}

static void on_status(coarse_backend *b, rpc_conn *c, const Cspark__StatusUpdate *su)
{
    if (su->state != CSPARK__TASK_STATE__FINISHED && su->state != CSPARK__TASK_STATE__FAILED &&
        su->state != CSPARK__TASK_STATE__KILLED && su->state != CSPARK__TASK_STATE__LOST)
        return;
    pthread_mutex_lock(&b->lock);
    exec_info *e = cs_coarse_exec_of_conn(b, c);
    running *r = find_running(b, su->task_id);
    if (!e || !r || &b->execs[r->exec] != e) { /* unknown, or already reported lost */
        pthread_mutex_unlock(&b->lock);
        return;
    }
    cs_hmap_del(&b->running, (uint64_t)su->task_id);
    cs_coarse_resources_release(b, e, r);
    if (su->result && su->result->plan_missing && r->t->stage_id < e->cap_sent)
        e->sent_attempt[r->t->stage_id] = 0; /* e lacks the plan: the next task sends it again */
    e->last_seen_ms = cs_mono_ms();
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
    }
    pthread_mutex_lock(&b->lock); /* the executor roller's figures (Spark's ExecutorSummary) */
    int ei = cs_coarse_find_exec(b, exec_id);
    if (ei >= 0) {
        coarse_exec_stats *st = &b->execs[ei].stats;
        st->total_tasks++;
        if (res.status != TASK_OK && res.status != TASK_KILLED &&
            su->state != CSPARK__TASK_STATE__KILLED)
            st->failed_tasks++;
        st->total_duration_ms += res.metrics.run_time_ms;
        st->total_shuffle_write += res.metrics.shuffle_bytes_written;
    }
    pthread_mutex_unlock(&b->lock);
    if (su->result && su->result->indirect && res.status == TASK_OK) {
        cs_task_result_free(&res);
        cs_coarse_fetch_later(b, t, (int64_t)su->result->indirect_size, host, port, exec_id);
        cs_coarse_offer_and_report(b);
        return;
    }
    /* TaskState.KILLED: stopped on request, whatever the result says (Spark's TaskKilled) */
    if (su->state == CSPARK__TASK_STATE__KILLED && res.status != TASK_FETCH_FAILED)
        res.status = TASK_KILLED;
    res.block_port = port;
    cs_scheduler_task_done(b->base.sched, t, &res);
    cs_coarse_offer_and_report(b);
}

static void on_message(void *arg, rpc_conn *c, const Cspark__Envelope *msg)
{
    coarse_backend *b = arg;
    switch (msg->body_case) {
    case CSPARK__ENVELOPE__BODY_RETRIEVE_APP_CONFIG:
        reply_app_config(b, c, msg->request_id);
        break;
    case CSPARK__ENVELOPE__BODY_REGISTER_EXECUTOR:
        cs_coarse_on_register(b, c, msg->request_id, msg->register_executor);
        break;
    case CSPARK__ENVELOPE__BODY_STATUS_UPDATE:
        on_status(b, c, msg->status_update);
        break;
    case CSPARK__ENVELOPE__BODY_HEARTBEAT:
        cs_coarse_on_heartbeat(b, c, msg->request_id, msg->heartbeat);
        break;
    case CSPARK__ENVELOPE__BODY_DECOMMISSION_EXECUTOR:
        cs_coarse_on_decommission(b, c, msg->decommission_executor);
        break;
    case CSPARK__ENVELOPE__BODY_EXECUTOR_DRAINED:
        cs_coarse_on_drained(b, c);
        break;
    case CSPARK__ENVELOPE__BODY_SHUFFLE_MIGRATED:
        cs_coarse_on_migrated(b, c, msg->shuffle_migrated);
        break;
    case CSPARK__ENVELOPE__BODY_RDD_BLOCKS_MIGRATED:
        cs_coarse_on_rdd_migrated(b, c, msg->rdd_blocks_migrated);
        break;
    case CSPARK__ENVELOPE__BODY_BROADCAST_FETCH:
        cs_coarse_on_broadcast_fetch(b, c, msg->request_id, msg->broadcast_fetch);
        break;
    case CSPARK__ENVELOPE__BODY_BROADCAST_STORED:
        cs_coarse_on_broadcast_stored(b, msg->broadcast_stored);
        break;
    case CSPARK__ENVELOPE__BODY_BARRIER_SYNC:
        cs_coarse_on_barrier_sync(b, c, msg->request_id, msg->barrier_sync);
        break;
    default:
        CS_WARN("driver", "event=unexpected_message peer=%s kind=%s",
                cs_log_value(cs_rpc_conn_peer(c)), cs_frame_body_name(msg));
        break;
    }
}

/* An executor's connection is gone: its loss is reported now, or, when the launcher reports
 * exits and nothing explains this one yet, once the launcher says why (its process's exit code or
 * signal, its pod's state) or the wait for it ends. */
static void on_close(void *arg, rpc_conn *c, const char *reason)
{
    coarse_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    exec_info *e = cs_coarse_exec_of_conn(b, c);
    if (!e || !e->alive) {
        pthread_mutex_unlock(&b->lock);
        return;
    }
    if (b->opt.reports_exits && !e->lost_reason[0] && !e->removing && !e->decommissioning &&
        !b->stopping && b->base.sched) {
        e->awaiting_exit_reason = true;
        e->exit_reason_deadline_ms = cs_mono_ms() + CS_COARSE_EXIT_REASON_WAIT_MS;
        snprintf(e->closed_reason, sizeof e->closed_reason, "%s", reason);
        rpc_conn *conn = e->conn;
        e->conn = NULL; /* no task is offered to it, no message sent */
        CS_INFO("driver", "event=executor_disconnected executor=%s reason=%s awaiting=exit_reason",
                cs_log_value(e->id), cs_log_quote(reason));
        pthread_cond_broadcast(&b->cond);
        pthread_mutex_unlock(&b->lock);
        cs_rpc_conn_unref(conn);
        return;
    }
    if (!e->lost_reason[0]) snprintf(e->lost_reason, sizeof e->lost_reason, "%s", reason);
    cs_coarse_report_loss(b, e);
}

void cs_coarse_report_loss(coarse_backend *b, exec_info *e)
{
    e->alive = false;
    e->awaiting_exit_reason = false;
    int idx = (int)(e - b->execs);
    const task_desc **lost = NULL;
    int nlost = 0;
    size_t pos = 0;
    uint64_t task_id, v;
    while (cs_hmap_next(&b->running, &pos, &task_id, &v)) {
        running *r = (running *)(uintptr_t)v;
        if (r->exec != idx) continue;
        cs_hmap_del(&b->running, task_id);
        lost = cs_xrealloc(lost, (size_t)(nlost + 1) * sizeof *lost);
        lost[nlost++] = r->t;
        free(r->taken);
        free(r);
    }
    bool stopping = b->stopping || !b->base.sched;
    char id[64], why[1024];
    snprintf(id, sizeof id, "%s", e->id);
    snprintf(why, sizeof why, "%s", e->lost_reason);
    for (int i = 0; i < b->num_execs && !stopping; i++) /* live peers stop fetching from it */
        if (b->execs[i].alive && b->execs[i].conn)
            cs_coarse_send_executor_lost(b->execs[i].conn, id, why);
    rpc_conn *conn = e->conn;
    e->conn = NULL;
    bool expected = e->removing || e->decommissioning;
    pthread_mutex_unlock(&b->lock); /* e may move from here on (execs grows) */
    if (conn) cs_rpc_conn_unref(conn);
    cs_coarse_broadcast_executor_lost(b, id); /* its pieces are gone with it */
    if (stopping) {
        free(lost);
        return;
    }
    if (expected)
        CS_INFO("driver", "event=executor_removed executor=%s running_tasks=%d reason=%s",
                cs_log_value(id), nlost, cs_log_quote(why));
    else
        CS_WARN("driver", "event=executor_lost executor=%s running_tasks=%d reason=%s",
                cs_log_value(id), nlost, cs_log_quote(why));
    for (int i = 0; i < nlost; i++) {
        cs_scheduler_task_lost(b->base.sched, lost[i], id, why, !expected);
    }
    free(lost);
    cs_scheduler_executor_lost(b->base.sched, id, why);
    if (b->env.bus) {
        cs_event ev = {.kind = CS_EV_EXECUTOR_REMOVED,
                       .executor_id = id,
                       .reason = why,
                       .time_ms = cs_now_ms()};
        cs_listener_bus_post(b->env.bus, &ev);
    }
    if (b->opt.executor_removed) b->opt.executor_removed(b->opt.hooks_arg, id, why);
    cs_coarse_offer_and_report(b);
}

/* ---- background threads -------------------------------------------------------------------- */

/* Every 200 ms at most: migrated executors no stage reads from are stopped, and executors silent
 * for longer than spark.network.timeout removed (Spark's HeartbeatReceiver). */
static void *housekeeper_main(void *arg)
{
    coarse_backend *b = arg;
    int64_t period = b->network_timeout_ms / 4;
    if (period > 1000) period = 1000;
    if (period < 10) period = 10;
    int64_t wait_ms = period < 200 ? period : 200;
    pthread_mutex_lock(&b->lock);
    int64_t last_tick = cs_mono_ms();
    while (!b->stopping) {
        cs_cond_wait_ms(&b->cond, &b->lock, wait_ms);
        int64_t now = cs_mono_ms();
        /* a tick far later than asked: this process did not run (stopped, starved) */
        if (now - last_tick > wait_ms + b->network_timeout_ms / 2)
            cs_coarse_forgive_stall(b, now - last_tick - wait_ms);
        cs_coarse_stop_unread(b);
        cs_coarse_expire_exit_reason_waits(b, now);
        if (b->base.sched) cs_scheduler_barrier_tick(b->base.sched); /* syncs timed out */
        /* tasks waiting for their locality wait to expire */
        if (!b->stopping && b->base.tasks && cs_task_scheduler_has_pending(b->base.tasks)) {
            pthread_mutex_unlock(&b->lock);
            cs_coarse_offer_and_report(b);
            pthread_mutex_lock(&b->lock);
        }
        if (!b->expiry_due && !b->stopping && cs_coarse_any_silent(b)) {
            b->expiry_due = true; /* decided after the input already received is read */
            cs_rpc_endpoint_post_after_input(b->ep, cs_coarse_expire_silent, b);
        }
        last_tick = cs_mono_ms(); /* the next wait is measured from here */
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* ---- public -------------------------------------------------------------------------------- */

sched_backend *cs_coarse_backend_base(coarse_backend *b)
{
    return &b->base;
}

void *cs_coarse_backend_launcher(const sched_backend *base)
{
    return ((const coarse_backend *)base)->opt.hooks_arg;
}

int cs_coarse_backend_port(const coarse_backend *b)
{
    return b->port;
}

void cs_coarse_backend_stop_executors(coarse_backend *b)
{
    pthread_mutex_lock(&b->lock);
    b->stopping = true;
    for (int i = 0; i < b->num_execs; i++)
        if (b->execs[i].alive && b->execs[i].conn) cs_coarse_send_stop(b->execs[i].conn);
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
}

static void coarse_request_total(sched_backend *base, int total)
{
    coarse_backend *b = (coarse_backend *)base;
    b->opt.request_total(b->opt.hooks_arg, total);
}

static void coarse_remove_executors(sched_backend *base, const char *const *ids, int n,
                                    bool decommission, const char *reason, bool *removed)
{
    coarse_backend *b = (coarse_backend *)base;
    if (!decommission) { /* only the idle ones: a busy executor's tasks would be killed */
        cs_coarse_backend_kill_idle(b, ids, n, reason, removed);
        return;
    }
    /* decommissioning lets running tasks finish: busy or not, every one goes */
    if (b->opt.removing) b->opt.removing(b->opt.hooks_arg, ids, n);
    cs_coarse_backend_remove_executors(b, ids, n, decommission, reason);
    for (int k = 0; k < n; k++)
        removed[k] = true;
}

static void coarse_stop(sched_backend *base)
{
    coarse_backend *b = (coarse_backend *)base;
    cs_coarse_broadcast_attach(b, false);
    if (b->opt.stopping) b->opt.stopping(b->opt.hooks_arg);
    cs_coarse_backend_stop_executors(b);
    pthread_join(b->housekeeper, NULL);
    pthread_join(b->fetcher, NULL);
    cs_rpc_endpoint_free(b->ep); /* closes every connection; on_close sees stopping */
    for (int i = 0; i < b->num_execs; i++) {
        if (b->execs[i].conn) cs_rpc_conn_unref(b->execs[i].conn);
        free(b->execs[i].sent_attempt);
        cs_coarse_resources_free(&b->execs[i]);
    }
    free(b->execs);
    cs_hmap_free(&b->exec_index);
    size_t pos = 0;
    uint64_t v;
    while (cs_hmap_next(&b->running, &pos, NULL, &v)) {
        free(((running *)(uintptr_t)v)->taken);
        free((running *)(uintptr_t)v);
    }
    cs_hmap_free(&b->running);
    while (b->plans) {
        plan_frame *p = b->plans;
        b->plans = p->next;
        free(p->frame);
        free(p);
    }
    while (b->fetch_head) {
        fetch_job *f = b->fetch_head;
        b->fetch_head = f->next;
        free(f);
    }
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->cond);
    free(b->secret);
    free(b->app_file);
    cs_resource_requests_free(&b->res);
    void (*stopped)(void *) = b->opt.stopped;
    void *arg = b->opt.hooks_arg;
    free(b);
    if (stopped) stopped(arg);
}

coarse_backend *cs_coarse_backend_new(const cluster_env *env, const coarse_options *o,
                                      cs_error *err)
{
    int64_t timeout = 120000, max_result = 0;
    rpc_options ro = {.name = "driver", .app_id = env->app_id};
    if (cs_conf_entry_duration_ms(env->conf, "spark.network.timeout", &timeout, err) < 0 ||
        cs_conf_entry_size(env->conf, "spark.driver.maxResultSize", &max_result, err) < 0 ||
        cs_rpc_options_from_conf(env->conf, &ro, err) < 0)
        return NULL;
    coarse_backend *b = cs_xcalloc(1, sizeof *b);
    b->base.revive_offers = coarse_revive_offers;
    b->base.total_cores = coarse_total_cores;
    b->base.cancel_all = coarse_cancel_all;
    b->base.stop = coarse_stop;
    b->base.reap = coarse_reap;
    b->base.request_total = o->request_total ? coarse_request_total : NULL;
    b->base.remove_executors = coarse_remove_executors;
    b->base.remove_rdd = coarse_remove_rdd;
    b->base.remove_shuffles = coarse_remove_shuffles;
    b->env = *env;
    b->opt = *o;
    b->secret = o->secret ? cs_xstrdup(o->secret) : NULL;
    b->app_file = cs_xstrdup(o->app_file ? o->app_file : "");
    b->opt.secret = b->secret;
    b->opt.app_file = b->app_file;
    b->network_timeout_ms = timeout;
    b->max_result_size = max_result;
    bool storage = false, blocks = true, rdds = true;
    if (cs_conf_entry_bool(env->conf, "spark.storage.decommission.enabled", &storage, err) < 0 ||
        cs_conf_entry_bool(env->conf, "spark.storage.decommission.shuffleBlocks.enabled", &blocks,
                           err) < 0 ||
        cs_conf_entry_bool(env->conf, "spark.storage.decommission.rddBlocks.enabled", &rdds, err) <
            0) {
        free(b);
        return NULL;
    }
    b->migrate_shuffles = storage && blocks;
    b->migrate_rdd_blocks = storage && rdds;
    const char *fallback =
        cs_conf_entry_string(env->conf, "spark.storage.decommission.fallbackStorage.path");
    b->fallback_storage = b->migrate_shuffles && fallback && *fallback;
    if (cs_resource_requests_read(env->conf, &b->res, err) < 0) {
        free(b);
        return NULL;
    }
    cs_hmap_init_strings(&b->exec_index);
    pthread_mutex_init(&b->lock, NULL);
    cs_cond_init_monotonic(&b->cond);

    ro.secret = b->secret;
    rpc_handlers h = {.on_message = on_message, .on_close = on_close, .arg = b};
    b->ep = cs_rpc_endpoint_new(&ro, &h, err);
    if (!b->ep || cs_rpc_listen(b->ep, o->bind_host ? o->bind_host : cs_loopback_address(), o->port,
                                &b->port, err) < 0) {
        cs_rpc_endpoint_free(b->ep);
        pthread_mutex_destroy(&b->lock);
        pthread_cond_destroy(&b->cond);
        cs_resource_requests_free(&b->res);
        free(b->secret);
        free(b->app_file);
        free(b);
        return NULL;
    }
    pthread_create(&b->housekeeper, NULL, housekeeper_main, b);
    pthread_create(&b->fetcher, NULL, cs_coarse_fetcher_main, b);
    cs_coarse_broadcast_attach(b, true);
    CS_INFO("driver", "event=listening host=%s port=%d auth=%s",
            cs_log_value(o->bind_host ? o->bind_host : cs_loopback_address()), b->port,
            b->secret ? "on" : "off");
    return b;
}
