/*
 * coarse_registry.c — the coarse backend's executors (Spark's CoarseGrainedSchedulerBackend
 * executorDataMap and HeartbeatReceiver, see coarse_backend_internal.h): RegisterExecutor
 * admitted or refused, lookups by id and by connection, heartbeats, expiry of executors silent for
 * longer than spark.network.timeout, telling executors which peers are lost (RemoveExecutor), the
 * map outputs a new executor recovered from a reused volume (handed to the map-output tracker),
 * and the waits for registrations and disconnections.
 *
 * An executor's states (exec_info, coarse_backend_internal.h; coarse_decommission.c moves it
 * between the middle ones). Only ACTIVE is offered tasks; LOST is final, and the scheduler hears
 * of it (executor_lost: its running tasks and map outputs are gone) unless the exit was expected:
 *
 *   RegisterExecutor --refused--> (closed, never listed)
 *   RegisterExecutor --admitted--> ACTIVE                        alive
 *   ACTIVE --dynamic allocation / task reaper: StopExecutor--> REMOVING          removing
 *   ACTIVE --driver or executor asks: DecommissionExecutor--> DECOMMISSIONING    decommissioning
 *   DECOMMISSIONING --tasks done, map outputs migrated--> DRAINED               stop_when_unread
 *   DRAINED --no running stage reads from it: StopExecutor--> REMOVING
 *   any --connection closed, silent past spark.network.timeout, pod gone--> LOST   !alive
 *   any --connection closed, the launcher reports exits (coarse_options.reports_exits)-->
 *       AWAITING EXIT REASON  awaiting_exit_reason (conn NULL, alive)
 *   AWAITING EXIT REASON --the launcher's exit status or pod state, or
 *       CS_COARSE_EXIT_REASON_WAIT_MS with the connection's reason--> LOST
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/coarse_backend_internal.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/shutdown.h"
#include "common/sync.h"
#include "plan/task_codec.h"
#include "sched/listener.h"

int cs_coarse_find_exec(coarse_backend *b, const char *id)
{
    uint64_t i;
    return cs_hmap_sget(&b->exec_index, id, &i) ? (int)i : -1;
}

exec_info *cs_coarse_exec_of_conn(coarse_backend *b, rpc_conn *c)
{
    intptr_t i = (intptr_t)cs_rpc_conn_data(c);
    return i > 0 && i <= b->num_execs ? &b->execs[i - 1] : NULL;
}

void cs_coarse_send_executor_lost(rpc_conn *c, const char *id, const char *reason)
{
    Cspark__RemoveExecutor rm = CSPARK__REMOVE_EXECUTOR__INIT;
    rm.executor_id = (char *)id;
    rm.reason = (char *)reason;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_REMOVE_EXECUTOR;
    env.remove_executor = &rm;
    cs_rpc_send(c, &env);
}

void cs_coarse_send_to_live(coarse_backend *b, const Cspark__Envelope *env)
{
    pthread_mutex_lock(&b->lock);
    for (int i = 0; i < b->num_execs; i++)
        if (b->execs[i].alive && b->execs[i].conn) cs_rpc_send(b->execs[i].conn, env);
    pthread_mutex_unlock(&b->lock);
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

/* An executor id or host name as cspark uses them in paths, URLs, labels and logs: printable,
 * no space, no '/' (nor '\\'), shorter than cap. */
static bool plain_name(const char *s, size_t cap)
{
    size_t n = strlen(s);
    if (n == 0 || n >= cap) return false;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= ' ' || s[i] == 0x7f || s[i] == '/' || s[i] == '\\') return false;
    return true;
}

/* The fields of a RegisterExecutor the driver will rely on (Spark trusts its authenticated
 * peers; a hostile or broken one registered cores=2147483647 and was given every task, or
 * block_port=-1 and every fetch from it failed): NULL when they are sound, else what is wrong,
 * naming the field and what is expected (in buf). */
static const char *registration_fault(const Cspark__RegisterExecutor *re, char *buf, size_t len)
{
    if (!plain_name(re->executor_id, sizeof((exec_info *)0)->id))
        snprintf(buf, len, "executor_id must be 1-%zu printable characters without spaces or '/'",
                 sizeof((exec_info *)0)->id - 1);
    else if (!plain_name(re->host, sizeof((exec_info *)0)->host))
        snprintf(buf, len, "host must be 1-%zu printable characters without spaces or '/'",
                 sizeof((exec_info *)0)->host - 1);
    else if (re->cores < 1 || re->cores > CS_MAX_EXECUTOR_CORES)
        snprintf(buf, len, "cores=%d is not in 1-%d", re->cores, CS_MAX_EXECUTOR_CORES);
    else if (re->block_port < 1 || re->block_port > 65535)
        snprintf(buf, len, "block_port=%d is not a TCP port (1-65535)", re->block_port);
    else
        return NULL;
    return buf;
}

/* The map outputs a new executor found on its reused volume: served by it from now on. */
static void register_recovered(coarse_backend *b, const Cspark__RegisterExecutor *re)
{
    cs_map_status *outs = cs_xcalloc(re->n_recovered_outputs, sizeof *outs);
    int n = 0;
    for (size_t i = 0; i < re->n_recovered_outputs; i++) {
        cs_error err;
        cs_error_clear(&err);
        if (cs_map_status_decode(re->recovered_outputs[i], &outs[n], &err) < 0) {
            CS_WARN("driver", "event=map_output_not_recovered executor=%s error=%s",
                    cs_log_value(re->executor_id), cs_log_quote(err.msg));
            continue;
        }
        snprintf(outs[n].executor_id, sizeof outs[n].executor_id, "%s", re->executor_id);
        snprintf(outs[n].host, sizeof outs[n].host, "%s", re->host);
        outs[n].port = re->block_port;
        n++;
    }
    cs_scheduler_outputs_recovered(b->base.sched, outs, n);
}

void cs_coarse_on_register(coarse_backend *b, rpc_conn *c, uint64_t request_id,
                           const Cspark__RegisterExecutor *re)
{
    char fault[120];
    const char *bad = registration_fault(re, fault, sizeof fault);
    char refusal[400] = "";
    bool admitted = !bad && (!b->opt.admit || b->opt.admit(b->opt.hooks_arg, re->executor_id));
    pthread_mutex_lock(&b->lock);
    if (bad) {
        snprintf(refusal, sizeof refusal, "invalid registration: %s", bad);
    } else if (!admitted) {
        snprintf(refusal, sizeof refusal, "Executor %s was removed by the driver", re->executor_id);
    } else if (b->stopping) {
        snprintf(refusal, sizeof refusal, "the application is stopping");
    } else if (cs_coarse_find_exec(b, re->executor_id) >= 0) {
        snprintf(refusal, sizeof refusal, "Duplicate executor ID: %s", re->executor_id);
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
        char why[200];
        if (cs_coarse_resources_admit(b, e, re, why, sizeof why)) {
            snprintf(refusal, sizeof refusal, "executor %.64s cannot run tasks: %s",
                     re->executor_id, why);
            goto done;
        }
        e->alive = true;
        e->conn = c;
        cs_rpc_conn_ref(c);
        e->last_seen_ms = cs_mono_ms();
        e->stats.add_time_ms = cs_now_ms();
        cs_rpc_conn_set_data(c, (void *)(intptr_t)(b->num_execs + 1));
        cs_hmap_sput(&b->exec_index, e->id, (uint64_t)b->num_execs);
        b->num_execs++;
        pthread_cond_broadcast(&b->cond);
    }
done:
    pthread_mutex_unlock(&b->lock);
    reply_register(c, request_id, refusal[0] ? refusal : NULL);
    if (refusal[0]) {
        CS_WARN("driver", "event=executor_refused executor=%s reason=%s",
                cs_log_value(re->executor_id), cs_log_quote(refusal));
        return;
    }
    pthread_mutex_lock(&b->lock); /* it may still be given tasks reading from lost executors */
    for (int i = 0; i < b->num_execs; i++)
        if (!b->execs[i].alive)
            cs_coarse_send_executor_lost(c, b->execs[i].id, b->execs[i].lost_reason);
    pthread_mutex_unlock(&b->lock);
    if (b->base.sched) cs_scheduler_executor_added(b->base.sched, re->executor_id, re->cores);
    if (b->base.sched && re->n_recovered_outputs) register_recovered(b, re);
    CS_INFO("driver",
            "event=executor_registered executor=%s host=%s cores=%d block_port=%d pid=%lld",
            cs_log_value(re->executor_id), cs_log_value(re->host), re->cores, re->block_port,
            (long long)re->pid);
    if (b->env.bus) {
        cs_event ev = {.kind = CS_EV_EXECUTOR_ADDED,
                       .executor_id = re->executor_id,
                       .host = re->host,
                       .executor_cores = re->cores,
                       .time_ms = cs_now_ms()};
        cs_listener_bus_post(b->env.bus, &ev);
    }
    cs_coarse_offer_and_report(b);
}

void cs_coarse_on_heartbeat(coarse_backend *b, rpc_conn *c, uint64_t request_id,
                            const Cspark__Heartbeat *hb)
{
    pthread_mutex_lock(&b->lock);
    exec_info *e = cs_coarse_exec_of_conn(b, c);
    if (e) e->last_seen_ms = cs_mono_ms();
    if (e && hb->metrics && hb->metrics->rss_bytes > e->stats.peak_rss_bytes)
        e->stats.peak_rss_bytes = hb->metrics->rss_bytes;
    bool known = e && e->alive;
    pthread_mutex_unlock(&b->lock);
    for (size_t i = 0; i < hb->n_updates; i++) {
        const Cspark__TaskMetricsUpdate *u = hb->updates[i];
        if (u->metrics)
            CS_DEBUG("driver",
                     "event=task_metrics executor=%s task=%lld run_time_ms=%lld records_read=%lld "
                     "shuffle_bytes_read=%lld spilled=%lld",
                     cs_log_value(hb->executor_id), (long long)u->task_id,
                     (long long)u->metrics->run_time_ms, (long long)u->metrics->records_read,
                     (long long)u->metrics->shuffle_bytes_read,
                     (long long)u->metrics->disk_bytes_spilled);
    }
    if (known && hb->metrics && b->env.bus) { /* Spark's ExecutorMetricsUpdate, for the UI */
        const Cspark__ExecutorMetrics *pm = hb->metrics;
        cs_executor_metrics xm = {pm->rss_bytes,
                                  pm->vmem_bytes,
                                  pm->cpu_time_ns,
                                  pm->tasks_active,
                                  pm->tasks_completed,
                                  pm->tasks_failed,
                                  pm->shuffle_bytes_read,
                                  pm->shuffle_bytes_written,
                                  pm->memory_bytes_spilled,
                                  pm->disk_bytes_spilled,
                                  pm->task_memory_used};
        cs_event ev = {
            .kind = CS_EV_EXECUTOR_METRICS, .executor_id = hb->executor_id, .exec_metrics = &xm};
        cs_listener_bus_post(b->env.bus, &ev);
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

static bool heartbeat_expired(const coarse_backend *b, const exec_info *e, int64_t now)
{
    return e->alive && e->conn && now - e->last_seen_ms > b->network_timeout_ms;
}

int cs_coarse_backend_executor_stats(coarse_backend *b, coarse_exec_stats **out)
{
    pthread_mutex_lock(&b->lock);
    *out = cs_xcalloc((size_t)(b->num_execs ? b->num_execs : 1), sizeof **out);
    int n = 0;
    for (int i = 0; i < b->num_execs; i++) {
        const exec_info *e = &b->execs[i];
        if (!e->alive || !e->conn || e->removing || e->decommissioning) continue;
        coarse_exec_stats *st = &(*out)[n++];
        *st = e->stats;
        snprintf(st->id, sizeof st->id, "%s", e->id);
        st->active_tasks = (e->cores - e->free) / b->res.task_cpus;
    }
    pthread_mutex_unlock(&b->lock);
    return n;
}

bool cs_coarse_any_silent(coarse_backend *b)
{
    int64_t now = cs_mono_ms();
    for (int i = 0; i < b->num_execs; i++)
        if (heartbeat_expired(b, &b->execs[i], now)) return true;
    return false;
}

/* An executor is judged on the time the driver was there to hear it: a heartbeat sent while the
 * driver was stopped may still be in flight or unread when it resumes, so the stall moves every
 * executor's last sign of life forward by its length. */
void cs_coarse_forgive_stall(coarse_backend *b, int64_t stalled_ms)
{
    if (stalled_ms <= 0) return;
    for (int i = 0; i < b->num_execs; i++)
        if (b->execs[i].alive) b->execs[i].last_seen_ms += stalled_ms;
    CS_WARN("driver", "event=driver_stalled ms=%lld: executors' heartbeat clocks moved forward",
            (long long)stalled_ms);
}

/* The clock only nominates (cs_coarse_any_silent): the expiry is decided here, on the RPC loop
 * once every message that had reached the driver's sockets was handled, so a heartbeat waiting
 * unread — the driver was paused (SIGSTOP, a stall) or its loop busy — counts, and a healthy
 * executor is never expired for the driver's own pause (issue 10 item 25). */
void cs_coarse_expire_silent(void *backend)
{
    coarse_backend *b = backend;
    int n = 0;
    pthread_mutex_lock(&b->lock);
    b->expiry_due = false;
    rpc_conn **gone = cs_xcalloc((size_t)b->num_execs + 1, sizeof *gone);
    int64_t now = cs_mono_ms();
    for (int i = 0; i < b->num_execs && !b->stopping; i++) {
        exec_info *e = &b->execs[i];
        if (!heartbeat_expired(b, e, now)) continue;
        snprintf(e->lost_reason, sizeof e->lost_reason,
                 "Executor heartbeat timed out after %lld ms", (long long)(now - e->last_seen_ms));
        cs_rpc_conn_ref(e->conn);
        gone[n++] = e->conn;
    }
    pthread_mutex_unlock(&b->lock);
    for (int i = 0; i < n; i++) { /* on_close does the rest */
        cs_rpc_conn_close(gone[i]);
        cs_rpc_conn_unref(gone[i]);
    }
    free(gone);
}

int cs_coarse_backend_wait_registered(coarse_backend *b, int n, int64_t timeout_ms)
{
    int64_t deadline = cs_mono_ms() + timeout_ms;
    pthread_mutex_lock(&b->lock);
    int alive = 0;
    for (;;) {
        alive = 0;
        for (int i = 0; i < b->num_execs; i++)
            alive += b->execs[i].alive;
        int64_t left = deadline - cs_mono_ms();
        if (alive >= n || left <= 0 || b->stopping || cs_shutdown_requested()) break;
        cs_cond_wait_ms(&b->cond, &b->lock, left < 200 ? left : 200);
    }
    pthread_mutex_unlock(&b->lock);
    return alive;
}

int cs_coarse_backend_wait_disconnected(coarse_backend *b, int64_t timeout_ms)
{
    int64_t deadline = cs_mono_ms() + timeout_ms;
    pthread_mutex_lock(&b->lock);
    int alive;
    for (;;) {
        alive = 0;
        for (int i = 0; i < b->num_execs; i++)
            alive += b->execs[i].alive && b->execs[i].conn;
        int64_t left = deadline - cs_mono_ms();
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
    int i = cs_coarse_find_exec(b, executor_id);
    if (i >= 0 && b->execs[i].alive) {
        exec_info *e = &b->execs[i];
        /* an executor the driver is removing (idle, decommissioned) keeps the driver's reason,
         * whichever arrives first: its pod's end or its connection's */
        if (!e->removing && !e->decommissioning)
            snprintf(e->lost_reason, sizeof e->lost_reason, "%s", reason);
        if (e->awaiting_exit_reason) { /* its connection closed first: the loss waited for this */
            cs_coarse_report_loss(b, e);
            return;
        }
        if (e->conn) cs_rpc_conn_close(e->conn); /* on_close reports it */
    }
    pthread_mutex_unlock(&b->lock);
}

void cs_coarse_expire_exit_reason_waits(coarse_backend *b, int64_t now)
{
    for (int i = 0; i < b->num_execs; i++) {
        exec_info *e = &b->execs[i];
        if (!e->alive || !e->awaiting_exit_reason || now < e->exit_reason_deadline_ms) continue;
        CS_WARN("driver", "event=exit_reason_unknown executor=%s waited_ms=%d", cs_log_value(e->id),
                CS_COARSE_EXIT_REASON_WAIT_MS);
        snprintf(e->lost_reason, sizeof e->lost_reason, "%s", e->closed_reason);
        cs_coarse_report_loss(b, e);
        pthread_mutex_lock(&b->lock);
    }
}
