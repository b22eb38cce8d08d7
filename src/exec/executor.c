/*
 * executor.c — the executor process's life (see executor.h). Threads: the RPC loop thread
 * receives LaunchStage / LaunchTask / KillTask / StopExecutor and the decommissioning messages;
 * `cores` worker threads run tasks with cs_task_run and send StatusUpdate; the main thread
 * heartbeats every spark.executor.heartbeatInterval until it is told to stop or loses the driver;
 * a signal watcher (decom_signals.c) turns SIGTERM into a decommission request when
 * spark.decommission.enabled (executor_decommission.c handles that and the decommissioning
 * messages: drained, block migration). Stage plans arrive once per stage attempt
 * and stay cached for its tasks (plan_cache.c); a task result whose status update would pass
 * spark.task.maxDirectResultSize (data and accumulator updates alike) is kept in the block server
 * and fetched by the driver (Spark's IndirectTaskResult). Told to stop (StopExecutor, or the
 * driver's connection closed), it waits at most spark.task.reaper.killTimeout for tasks that ignore
 * the stop, then exits without them (common/shutdown.h, docs/stopping.md).
 */
#define _GNU_SOURCE
#include "exec/executor_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common/app_file.h"
#include "common/clock.h"
#include "common/conf.h"
#include "common/conf_entries.h"
#include "common/err.h"
#include "common/exit_cleanup.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/memtune.h"
#include "common/procstat.h"
#include "common/shutdown.h"
#include "common/sync.h"
#include "exec/barrier_rpc.h"
#include "exec/exec_services.h"
#include "exec/shuffle_recovery.h"
#include "exec/task_context.h"
#include "fs/fs.h"
#include "fs/shipped_files.h"
#include "plan/pb_helpers.h"
#include "plan/stage_plan.h"
#include "plan/task_codec.h"
#include "shuffle/shuffle.h"

/* How long an executor keeps trying to reach its driver at start-up. */
#define EXECUTOR_CONNECT_WINDOW_MS 60000

/* ---- messages from the driver (loop thread) ------------------------------------------------ */

/* Sends a task's StatusUpdate. One the connection refuses (over spark.rpc.message.maxSize) is
 * logged and replaced by a failure saying so, so that the driver always hears of the task: a
 * status update it never receives would leave the job waiting for good. Only a connection that
 * is gone keeps the failure from the driver too, which then learns of the task through the
 * executor's loss. */
static void send_status(executor *x, int64_t task_id, Cspark__TaskState state,
                        Cspark__TaskResult *res)
{
    Cspark__StatusUpdate su = CSPARK__STATUS_UPDATE__INIT;
    su.executor_id = (char *)x->opt->executor_id;
    su.task_id = task_id;
    su.state = state;
    su.result = res;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_STATUS_UPDATE;
    env.status_update = &su;
    if (cs_rpc_send(x->driver, &env) == 0) return;
    size_t bytes = cspark__envelope__get_packed_size(&env);
    CS_ERROR("executor", "executor=%s task=%lld event=status_update_not_sent bytes=%zu",
             cs_log_value(x->opt->executor_id), (long long)task_id, bytes);
    char why[300];
    snprintf(why, sizeof why,
             "the status update of task %lld (%zu bytes) could not be sent to the driver "
             "(over spark.rpc.message.maxSize, or the connection is closing)",
             (long long)task_id, bytes);
    Cspark__TaskResult failed = CSPARK__TASK_RESULT__INIT;
    failed.status = TASK_FAILED;
    failed.error = why;
    su.state = CSPARK__TASK_STATE__FAILED;
    su.result = &failed;
    if (cs_rpc_send(x->driver, &env) < 0)
        CS_ERROR("executor", "executor=%s task=%lld event=task_failure_not_sent",
                 cs_log_value(x->opt->executor_id), (long long)task_id);
}

/* The status update's state of a task that ended with status: Spark's TaskState. */
static Cspark__TaskState state_of(task_status status)
{
    return status == TASK_OK       ? CSPARK__TASK_STATE__FINISHED
           : status == TASK_KILLED ? CSPARK__TASK_STATE__KILLED
                                   : CSPARK__TASK_STATE__FAILED;
}

static void fail_unstarted(executor *x, int64_t task_id, const char *why, bool plan_missing)
{
    Cspark__TaskResult res = CSPARK__TASK_RESULT__INIT;
    res.status = TASK_FAILED;
    res.error = (char *)why;
    res.plan_missing = plan_missing;
    send_status(x, task_id, CSPARK__TASK_STATE__FAILED, &res);
}

static void on_launch_stage(executor *x, const Cspark__LaunchStage *ls)
{
    stage_plan *plan = NULL;
    cs_error err;
    cs_error_clear(&err);
    if (!ls->plan || cs_stage_plan_decode(ls->plan, x->app, &plan, &err) < 0) {
        if (!ls->plan) cs_error_set(&err, CS_EINVAL, "the driver sent an empty plan");
        CS_ERROR("executor", "executor=%s stage=%d.%d event=bad_stage_plan error=%s",
                 cs_log_value(x->opt->executor_id), ls->stage_id, ls->stage_attempt,
                 cs_log_quote(err.msg));
    }
    pthread_mutex_lock(&x->lock);
    cs_plan_cache_add(x->plans, ls->stage_id, ls->stage_attempt, plan, err.msg);
    pthread_mutex_unlock(&x->lock);
}

/* A barrier task's sync goes to the driver's coordinator (exec/barrier_rpc.h). */
static int barrier_sync(void *arg, const task_desc *t, int epoch, int method, const char *message,
                        char ***msgs, int *n, cs_error *err)
{
    executor *x = arg;
    return cs_barrier_rpc_sync(x->driver, t, epoch, method, message, msgs, n, err);
}

static void on_launch_task(executor *x, const Cspark__LaunchTask *lt)
{
    pthread_mutex_lock(&x->lock);
    cs_cached_plan *cp = cs_plan_cache_find(x->plans, lt->stage_id, lt->stage_attempt);
    stage_plan *plan = cp ? cp->plan : NULL;
    if (!plan || x->stopping) {
        char why[1024];
        cs_plan_cache_explain_missing(x->plans, cp, x->opt->executor_id, lt->stage_id,
                                      lt->stage_attempt, why, sizeof why);
        pthread_mutex_unlock(&x->lock);
        fail_unstarted(x, lt->task_id, x->stopping ? "executor is stopping" : why, !x->stopping);
        return;
    }
    exec_task *t = cs_xcalloc(1, sizeof *t);
    t->plan = cp;
    cp->users++;
    t->desc.task_id = lt->task_id;
    t->desc.job_id = lt->job_id;
    t->desc.stage_id = lt->stage_id;
    t->desc.stage_attempt = lt->stage_attempt;
    t->desc.partition = lt->partition;
    t->desc.attempt = lt->attempt;
    t->desc.rdd = plan->root;
    t->desc.sink = &plan->sink;
    t->desc.inputs = plan->inputs;
    t->desc.num_inputs = plan->num_inputs;
    t->desc.cancelled = &t->cancelled;
    if (lt->n_cached_blocks) {
        t->block_locs = cs_xcalloc(lt->n_cached_blocks, sizeof *t->block_locs);
        for (size_t i = 0; i < lt->n_cached_blocks; i++) {
            const Cspark__CachedBlock *cb = lt->cached_blocks[i];
            cs_block_location *l = &t->block_locs[t->desc.num_block_locs++];
            l->rdd_id = cb->rdd_id;
            l->partition = cb->partition;
            snprintf(l->executor_id, sizeof l->executor_id, "%s", cs_pb_str(cb->executor_id));
            snprintf(l->host, sizeof l->host, "%s", cs_pb_str(cb->host));
            l->port = cb->port;
        }
        t->desc.block_locs = t->block_locs;
    }
    t->desc.resources = t->resources = cs_task_resources_from_pb(lt->resources, lt->n_resources);
    t->desc.num_resources = (int)lt->n_resources;
    if (lt->barrier) { /* BarrierTaskContext: its attempt's tasks and their addresses */
        t->barrier.num_tasks = lt->barrier_tasks;
        t->barrier.addresses = cs_xstrdup(cs_pb_str(lt->barrier_addresses));
        t->barrier.addresses_cap = strlen(t->barrier.addresses) + 1;
        t->desc.barrier = &t->barrier;
    }
    if (x->queue_tail)
        x->queue_tail->next = t;
    else
        x->queue_head = t;
    x->queue_tail = t;
    x->active++;
    pthread_cond_signal(&x->work_cond);
    pthread_mutex_unlock(&x->lock);
}

static void on_kill_task(executor *x, int64_t task_id)
{
    pthread_mutex_lock(&x->lock);
    for (exec_task *t = x->queue_head; t; t = t->next)
        if (t->desc.task_id == task_id) t->cancelled = 1;
    for (int i = 0; i < x->nworkers; i++)
        if (x->running[i] && x->running[i]->desc.task_id == task_id) x->running[i]->cancelled = 1;
    pthread_mutex_unlock(&x->lock);
}

static void stop(executor *x, bool driver_gone)
{
    pthread_mutex_lock(&x->lock);
    x->stopping = true;
    x->driver_gone |= driver_gone;
    for (exec_task *t = x->queue_head; t; t = t->next)
        t->cancelled = 1;
    for (int i = 0; i < x->nworkers; i++)
        if (x->running[i]) x->running[i]->cancelled = 1;
    pthread_cond_broadcast(&x->work_cond);
    pthread_cond_broadcast(&x->main_cond);
    pthread_mutex_unlock(&x->lock);
}

static void on_message(void *arg, rpc_conn *c, const Cspark__Envelope *msg)
{
    executor *x = arg;
    switch (msg->body_case) {
    case CSPARK__ENVELOPE__BODY_LAUNCH_STAGE:
        on_launch_stage(x, msg->launch_stage);
        break;
    case CSPARK__ENVELOPE__BODY_LAUNCH_TASK:
        on_launch_task(x, msg->launch_task);
        break;
    case CSPARK__ENVELOPE__BODY_KILL_TASK:
        on_kill_task(x, msg->kill_task->task_id);
        break;
    case CSPARK__ENVELOPE__BODY_STOP_EXECUTOR:
        CS_INFO("executor", "executor=%s event=stop_requested", cs_log_value(x->opt->executor_id));
        stop(x, false);
        break;
    case CSPARK__ENVELOPE__BODY_DECOMMISSION_EXECUTOR:
        cs_executor_on_decommission(x, msg->decommission_executor);
        break;
    case CSPARK__ENVELOPE__BODY_MIGRATE_SHUFFLE:
        cs_executor_on_migrate_shuffle(x, msg->migrate_shuffle);
        break;
    case CSPARK__ENVELOPE__BODY_MIGRATE_RDD_BLOCKS:
        cs_executor_on_migrate_rdd_blocks(x, msg->migrate_rdd_blocks);
        break;
    case CSPARK__ENVELOPE__BODY_REMOVE_RDD: /* unpersist */
        if (x->bm) cs_block_manager_remove_rdd(x->bm, msg->remove_rdd->rdd_id);
        break;
    case CSPARK__ENVELOPE__BODY_REMOVE_SHUFFLE: { /* a finished SQL execution's shuffles */
        int removed = cs_shuffle_remove_files(x->local_dir, msg->remove_shuffle->shuffle_ids,
                                              (int)msg->remove_shuffle->n_shuffle_ids);
        CS_INFO("executor", "executor=%s event=shuffles_removed shuffles=%zu files=%d",
                cs_log_value(x->opt->executor_id), msg->remove_shuffle->n_shuffle_ids, removed);
        break;
    }
    case CSPARK__ENVELOPE__BODY_REMOVE_EXECUTOR: /* a peer is lost: stop fetching from it */
        cs_block_fetcher_executor_lost(x->fetcher, msg->remove_executor->executor_id,
                                       msg->remove_executor->reason);
        break;
    case CSPARK__ENVELOPE__BODY_BROADCAST_REMOVED: /* cspark_broadcast_destroy on the driver */
        if (cs_broadcast_store_remove(x->broadcasts, msg->broadcast_removed->broadcast_id))
            CS_INFO("executor", "executor=%s event=broadcast_removed broadcast=%lld",
                    x->opt->executor_id, (long long)msg->broadcast_removed->broadcast_id);
        break;
    case CSPARK__ENVELOPE__BODY_HEARTBEAT_RESPONSE:
        if (msg->heartbeat_response->reregister)
            CS_WARN("executor", "executor=%s event=unknown_to_driver",
                    cs_log_value(x->opt->executor_id));
        break;
    default:
        CS_WARN("executor", "executor=%s event=unexpected_message case=%d",
                cs_log_value(x->opt->executor_id), (int)msg->body_case);
        break;
    }
}

static void on_close(void *arg, rpc_conn *c, const char *reason)
{
    executor *x = arg;
    if (c != x->driver) return;
    pthread_mutex_lock(&x->lock);
    bool expected = x->stopping;
    pthread_mutex_unlock(&x->lock);
    if (!expected)
        CS_ERROR("executor", "executor=%s event=driver_disconnected reason=%s",
                 cs_log_value(x->opt->executor_id), cs_log_quote(reason));
    stop(x, !expected);
}

/* ---- workers ----------------------------------------------------------------------------- */

static void report(executor *x, exec_task *t, task_result *r)
{
    Cspark__TaskResult pb = CSPARK__TASK_RESULT__INIT;
    cs_error err;
    cs_error_clear(&err);
    if (cs_task_result_encode(r, &pb, &err) < 0) {
        fail_unstarted(x, t->desc.task_id, err.msg, false);
        return;
    }
    size_t whole = cspark__task_result__get_packed_size(&pb);
    if (r->status == TASK_OK && x->blocks && (int64_t)whole > x->max_direct_result) {
        /* Spark's IndirectTaskResult: the whole result (data, accumulator updates, metrics)
         * becomes a block the driver fetches in parts, whatever spark.rpc.message.maxSize is;
         * one over spark.driver.maxResultSize is dropped, and its size alone makes the driver
         * fail the job saying so */
        Cspark__TaskResult slim = CSPARK__TASK_RESULT__INIT;
        slim.status = pb.status;
        slim.indirect = true;
        slim.indirect_size = whole;
        if (x->max_result_size > 0 && (int64_t)whole > x->max_result_size) {
            CS_WARN("executor",
                    "executor=%s task=%lld event=result_dropped bytes=%zu "
                    "reason=\"bigger than spark.driver.maxResultSize (%lld bytes)\"",
                    cs_log_value(x->opt->executor_id), (long long)t->desc.task_id, whole,
                    (long long)x->max_result_size);
        } else {
            uint8_t *block = cs_xmalloc(whole);
            cspark__task_result__pack(&pb, block);
            cs_block_server_put_result(x->blocks, t->desc.task_id, block, whole);
            CS_INFO("executor",
                    "executor=%s task=%lld event=result_sent_via_block_manager bytes=%zu",
                    cs_log_value(x->opt->executor_id), (long long)t->desc.task_id, whole);
        }
        cs_task_result_pb_clear(&pb);
        send_status(x, t->desc.task_id, state_of(r->status), &slim);
        return;
    }
    /* a failed task's accumulator updates and block statuses travel inline: past the limit,
     * the task's failure says so rather than go unreported */
    if (x->max_status_update > 0 && (int64_t)whole > x->max_status_update) {
        char why[400];
        snprintf(why, sizeof why,
                 "the accumulator updates and block statuses of task %lld take %zu bytes, over "
                 "what one message may carry (spark.rpc.message.maxSize %lld MiB less 64 KiB): "
                 "add less to accumulators in one task, or raise spark.rpc.message.maxSize",
                 (long long)t->desc.task_id, whole,
                 (long long)((x->max_status_update + 64 * 1024) >> 20));
        cs_task_result_pb_clear(&pb);
        fail_unstarted(x, t->desc.task_id, why, false);
        return;
    }
    send_status(x, t->desc.task_id, state_of(r->status), &pb);
    cs_task_result_pb_clear(&pb);
}

typedef struct worker_arg {
    executor *x;
    int slot;
} worker_arg;

static void *worker_main(void *arg)
{
    worker_arg *w = arg;
    executor *x = w->x;
    cs_task_thread_init();
    for (;;) {
        pthread_mutex_lock(&x->lock);
        while (!x->queue_head && !x->stopping)
            pthread_cond_wait(&x->work_cond, &x->lock);
        if (x->stopping) {
            pthread_mutex_unlock(&x->lock);
            break;
        }
        exec_task *t = x->queue_head;
        x->queue_head = t->next;
        if (!x->queue_head) x->queue_tail = NULL;
        task_result r;
        cs_task_result_init(&r);
        t->live = &r;
        t->start_ms = cs_now_ms();
        x->running[w->slot] = t;
        pthread_mutex_unlock(&x->lock);

        cs_task_run(&x->env, &t->desc, &r);

        pthread_mutex_lock(&x->lock);
        x->running[w->slot] = NULL;
        t->live = NULL;
        if (r.status == TASK_OK)
            x->tasks_completed++;
        else
            x->tasks_failed++;
        x->shuffle_read += r.metrics.shuffle_bytes_read;
        x->shuffle_written += r.metrics.shuffle_bytes_written;
        x->mem_spilled += r.metrics.memory_bytes_spilled;
        x->disk_spilled += r.metrics.disk_bytes_spilled;
        t->plan->users--; /* report() only needs the task id */
        pthread_mutex_unlock(&x->lock);
        report(x, t, &r);
        cs_task_result_free(&r);
        free(t->block_locs);
        free(t->resources);
        free(t->barrier.addresses);
        free(t);
        pthread_mutex_lock(&x->lock);
        x->active--; /* after the report: ExecutorDrained follows the last StatusUpdate */
        pthread_mutex_unlock(&x->lock);
        cs_executor_check_drained(x);
    }
    cs_task_thread_fini();
    free(w);
    return NULL;
}

/* ---- start-up ---------------------------------------------------------------------------- */

/* The block server's source of cached partitions: this executor's block manager. */
static int serve_cached(void *arg, int rdd_id, int partition, uint8_t **data, size_t *len,
                        cs_error *err)
{
    return cs_block_manager_get_bytes(arg, rdd_id, partition, data, len, err);
}

static int fetch_app_config(executor *x, cs_error *err)
{
    Cspark__RetrieveSparkAppConfig rq = CSPARK__RETRIEVE_SPARK_APP_CONFIG__INIT;
    Cspark__Envelope req = CSPARK__ENVELOPE__INIT, *reply = NULL;
    req.body_case = CSPARK__ENVELOPE__BODY_RETRIEVE_APP_CONFIG;
    req.retrieve_app_config = &rq;
    if (cs_rpc_call(x->driver, &req, &reply, 30000, err) < 0) return err->code;
    if (reply->body_case != CSPARK__ENVELOPE__BODY_APP_CONFIG) {
        cspark__envelope__free_unpacked(reply, NULL);
        return cs_error_set(err, CS_EPROTO,
                            "the driver answered the configuration request with message %d",
                            (int)reply->body_case);
    }
    Cspark__SparkAppConfig *ac = reply->app_config;
    x->conf = cs_conf_new();
    for (size_t i = 0; i < ac->n_conf; i++)
        cs_conf_set(x->conf, ac->conf[i]->key, ac->conf[i]->value);
    x->app_file = cs_app_file_resolve(ac->app_file); /* spark-internal: our libcspark */
    cspark__envelope__free_unpacked(reply, NULL);
    return 0;
}

static int register_with_driver(executor *x, cs_error *err)
{
    Cspark__RegisterExecutor re = CSPARK__REGISTER_EXECUTOR__INIT;
    re.executor_id = (char *)x->opt->executor_id;
    re.host = (char *)x->opt->hostname;
    re.cores = x->opt->cores;
    re.block_port = x->block_port;
    re.pid = getpid();
    re.resources = cs_executor_resources_pb(&x->resources, &re.n_resources);
    cs_shuffle_recovery_attach(&re, x->conf, x->local_dir, x->opt->app_id);
    Cspark__Envelope req = CSPARK__ENVELOPE__INIT, *reply = NULL;
    req.body_case = CSPARK__ENVELOPE__BODY_REGISTER_EXECUTOR;
    req.register_executor = &re;
    int rc = cs_rpc_call(x->driver, &req, &reply, 30000, err);
    cs_executor_resources_pb_free(re.resources, re.n_resources);
    cs_shuffle_recovery_detach(&re);
    if (rc < 0) return err->code;
    if (reply->body_case == CSPARK__ENVELOPE__BODY_REGISTER_EXECUTOR_FAILED)
        rc = cs_error_set(err, CS_EINVAL, "the driver refused executor %s: %s", x->opt->executor_id,
                          reply->register_executor_failed->message);
    else if (reply->body_case != CSPARK__ENVELOPE__BODY_REGISTERED_EXECUTOR)
        rc = cs_error_set(err, CS_EPROTO, "unexpected reply %d to RegisterExecutor",
                          (int)reply->body_case);
    cspark__envelope__free_unpacked(reply, NULL);
    return rc;
}

/* Under a data limit (local-cluster sets one from its M, as a pod's memory limit), an allocation
 * that fails names it. */
static void note_memory_limit(executor *x)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_DATA, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY) return;
    const char *master = cs_conf_get(x->conf, "spark.master");
    char note[256];
    snprintf(note, sizeof note,
             "executor %s is limited to %llu MiB of memory: spark.executor.memory %lld MiB%s%s%s "
             "plus overhead",
             x->opt->executor_id, (unsigned long long)(rl.rlim_cur >> 20),
             (long long)(x->opt->memory_bytes >> 20), master ? " from the master URL '" : "",
             master ? master : "", master ? "'" : "");
    cs_memory_limit_note_set(note);
    CS_INFO("executor", "executor=%s event=memory_limit data_limit_mb=%llu",
            cs_log_value(x->opt->executor_id), (unsigned long long)(rl.rlim_cur >> 20));
}

static int make_local_dir(executor *x, cs_error *err)
{
    char name[96];
    snprintf(name, sizeof name, "cspark-executor-%s", x->opt->executor_id);
    if (cs_local_dir_create(x->conf, name, &x->local_dir, err) < 0) return err->code;
    if (cs_shuffle_recovery_enabled(x->conf)) /* a crash leaves shuffle files to the next one */
        return cs_shuffle_recovery_mark(x->local_dir, x->opt->app_id, err);
    cs_exit_cleanup_add(x->local_dir); /* removed even if a task crashes or calls exit() */
    return 0;
}

/* spark.files and spark.archives into <local dir>/files, and the job's .so when the driver names
 * it by an object-store URI (uploaded through spark.kubernetes.file.upload.path): each once. */
static int fetch_shipped(executor *x, cs_error *err)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/files", x->local_dir);
    if (cs_files_fetch_all(x->conf, dir, err) < 0) return err->code;
    const char *local = cs_fs_local_path(x->app_file);
    if (local && local != x->app_file) { /* file:/shared/app.so */
        char *p = cs_xstrdup(local);
        free(x->app_file);
        x->app_file = p;
    } else if (cs_files_is_remote(x->app_file)) {
        const char *base = strrchr(x->app_file, '/');
        snprintf(dir, sizeof dir, "%s/%s", x->local_dir, base ? base + 1 : "app.so");
        if (cs_files_fetch_one(x->app_file, dir, err) < 0)
            return cs_error_prefix(err, "cannot fetch the application %s", x->app_file);
        free(x->app_file);
        x->app_file = cs_xstrdup(dir);
    }
    return 0;
}

static int executor_start(executor *x, cs_error *err)
{
    char host[256];
    int port;
    if (cs_executor_parse_driver_url(x->opt->driver_url, host, sizeof host, &port) < 0)
        return cs_error_set(
            err, CS_EINVAL,
            "invalid --driver-url '%s' (expected spark://CoarseGrainedScheduler@host:port)",
            x->opt->driver_url);
    char name[96];
    snprintf(name, sizeof name, "executor-%s", x->opt->executor_id);
    rpc_options ro = {.name = name, .app_id = x->opt->app_id, .secret = x->opt->secret};
    rpc_handlers h = {.on_message = on_message, .on_close = on_close, .arg = x};
    x->ep = cs_rpc_endpoint_new(&ro, &h, err);
    if (!x->ep) return err->code ? err->code : CS_EIO;
    /* The driver may not be reachable yet — on Kubernetes its Service name can resolve only a
     * moment after the executor pod starts — so keep trying, with backoff, for a minute (Spark's
     * executor likewise retries fetching the driver's configuration). Authentication failures
     * are final. */
    int64_t deadline = cs_mono_ms() + EXECUTOR_CONNECT_WINDOW_MS, backoff = 100;
    for (;;) {
        x->driver = cs_rpc_connect(x->ep, host, port, 30000, err);
        if (x->driver || err->code == CS_EAUTH || cs_mono_ms() + backoff > deadline) break;
        CS_WARN("executor",
                "executor=%s event=driver_unreachable driver=%s:%d retry_in_ms=%lld error=%s",
                cs_log_value(x->opt->executor_id), cs_log_value(host), port, (long long)backoff,
                cs_log_quote(err->msg));
        cs_sleep_ms(backoff);
        if (backoff < 2000) backoff *= 2;
    }
    if (!x->driver) return err->code ? err->code : CS_EIO;
    if (fetch_app_config(x, err) < 0) return err->code;
    note_memory_limit(x);
    cs_fs_configure(x->conf); /* tasks read and write s3a:// with the application's settings */
    /* the application's spark.rpc.message.maxSize (and the limits on unauthenticated peers of
     * the block server) are known only now: the driver connection was opened with defaults */
    rpc_options net = {.app_id = x->opt->app_id, .secret = x->opt->secret};
    if (cs_rpc_options_from_conf(x->conf, &net, err) < 0) return err->code;
    cs_rpc_endpoint_set_max_frame(x->ep, net.max_frame);
    const char *level = cs_conf_get(x->conf, "cspark.log.level");
    cs_log_level lvl;
    if (level && !getenv("CSPARK_LOG_LEVEL") && cs_log_parse_level(level, &lvl) == 0)
        cs_log_set_level(lvl);

    if (make_local_dir(x, err) < 0 || fetch_shipped(x, err) < 0) return err->code;
    if (cs_app_file_check(x->app_file, err) < 0) return err->code;
    x->app = dlopen(x->app_file, RTLD_NOW | RTLD_GLOBAL);
    if (!x->app)
        return cs_error_set(err, CS_ENOTFOUND, "cannot load application %s: %s", x->app_file,
                            dlerror());
    cs_task_crash_set_app(x->app); /* a crash there is reported as the application's */

    int64_t memory = x->opt->memory_bytes, v;
    double fraction;
    bool compress;
    if (memory <= 0 &&
        cs_conf_get_size(x->conf, "spark.executor.memory", "1g", CS_MiB, &memory, err) < 0)
        return err->code;
    if (cs_conf_entry_double(x->conf, "spark.memory.fraction", &fraction, err) < 0)
        return err->code;
    if (cs_conf_entry_bool(x->conf, "spark.shuffle.compress", &compress, err) < 0) return err->code;
    if (cs_shuffle_checksum_conf(x->conf, &x->env.shuffle_checksum, err) < 0 ||
        cs_map_status_opts_read(x->conf, &x->env.map_status_opts, err) < 0)
        return err->code;
    if (cs_conf_get_size(x->conf, "spark.task.maxDirectResultSize", "1m", CS_BYTE, &v, err) < 0)
        return err->code;
    /* as Spark, a result travels inline only if its message fits spark.rpc.message.maxSize (the
     * rest of a StatusUpdate, metrics included, fits in the 64 KiB kept aside) */
    int64_t fits = (int64_t)net.max_frame - 64 * 1024;
    x->max_direct_result = v < fits ? v : fits;
    x->max_status_update = fits;
    if (cs_conf_entry_size(x->conf, "spark.driver.maxResultSize", &x->max_result_size, err) < 0)
        return err->code;
    /* a driver whose host is gone without closing the connection (its node lost) is given up
     * once heartbeats stay unacknowledged for spark.network.timeout: the connection closes and
     * the executor stops (a paused driver's kernel still acknowledges them) */
    int64_t network_timeout_ms;
    if (cs_task_reaper_timeout(x->conf, &x->reaper_ms, err) < 0 ||
        cs_conf_entry_duration_ms(x->conf, "spark.network.timeout", &network_timeout_ms, err) < 0)
        return err->code;
    if (cs_rpc_conn_set_unacked_timeout(x->driver, network_timeout_ms) < 0)
        CS_WARN("executor", "executor=%s event=unacked_timeout_unavailable", x->opt->executor_id);
    bool decom = false;
    if (cs_conf_entry_bool(x->conf, "spark.decommission.enabled", &decom, err) < 0)
        return err->code;
    const char *decom_sig = cs_conf_get(x->conf, "spark.executor.decommission.signal");
    if (decom && cs_decom_signals_parse(decom_sig ? decom_sig : "PWR", &x->decom_signal, err) < 0)
        return err->code;

    block_manager_options bmo = {.local_dir = x->local_dir,
                                 .executor_memory = memory,
                                 .slots = x->opt->cores,
                                 .checksum = x->env.shuffle_checksum};
    if (cs_block_manager_options_read(x->conf, &bmo, err) < 0) return err->code;
    x->bm = cs_block_manager_new(&bmo);
    rpc_options bo = net;
    bo.name = "block-server";
    x->blocks = cs_block_server_start(x->opt->hostname, x->local_dir, &bo, &x->block_port, err);
    if (!x->blocks) return err->code ? err->code : CS_EIO;
    cs_block_server_serve_rdd_blocks(x->blocks, serve_cached, x->bm);
    rpc_options fo = net;
    fo.name = name;
    x->fetcher = cs_block_fetcher_new(x->opt->executor_id, x->local_dir, &fo, x->conf, err);
    if (!x->fetcher) return err->code ? err->code : CS_EIO;
    if (cs_fallback_storage_open(x->conf, x->opt->app_id, &x->fallback, err) < 0) return err->code;
    if (x->fallback) { /* outputs a leaving executor copied there are read from there */
        shuffle_block_source fs = cs_fallback_storage_source(x->fallback);
        cs_block_fetcher_set_external(x->fetcher, CS_FALLBACK_EXECUTOR_ID, &fs);
    }
    int64_t net_timeout = 120000;
    if (cs_conf_entry_duration_ms(x->conf, "spark.network.timeout", &net_timeout, err) < 0)
        return err->code;
    x->bfetch = cs_broadcast_fetcher_new(x->ep, x->driver, x->opt->executor_id, net_timeout);
    cs_broadcast_fetcher_attach(x->bfetch, x->broadcasts);
    cs_block_server_set_broadcasts(x->blocks, x->broadcasts);
    x->env.broadcasts = x->broadcasts;
    x->env.executor_id = x->opt->executor_id;
    x->env.host = x->opt->hostname;
    x->env.block_port = x->block_port;
    x->env.local_dir = x->local_dir;
    x->env.task_memory_budget = (int64_t)((double)memory * fraction / x->opt->cores);
    if (x->env.task_memory_budget < 4 * CS_MiB) x->env.task_memory_budget = 4 * CS_MiB;
    x->env.shuffle_compress = compress;
    x->env.blocks = cs_block_fetcher_source(x->fetcher);
    x->env.fetcher = x->fetcher;
    x->env.block_manager = x->bm;
    x->env.conf = x->conf;
    x->env.cores = x->opt->cores;
    x->env.services = cs_exec_services_new();
    x->env.barrier_sync = barrier_sync;
    x->env.barrier_arg = x;
    x->nworkers = x->opt->cores;
    x->running = cs_xcalloc((size_t)x->nworkers, sizeof *x->running);
    x->workers = cs_xcalloc((size_t)x->nworkers, sizeof *x->workers);
    for (int i = 0; i < x->nworkers; i++) {
        worker_arg *w = cs_xmalloc(sizeof *w);
        w->x = x;
        w->slot = i;
        pthread_create(&x->workers[i], NULL, worker_main, w);
    }
    if (cs_executor_resources_discover(x->conf, &x->resources, err) < 0 ||
        register_with_driver(x, err) < 0)
        return err->code;
    /* registered: from now on the driver can take a decommission request */
    if (decom) cs_decom_signals_arm(x->signals, x->decom_signal);
    return 0;
}

/* Heartbeat with the metrics of the running tasks so far (Spark sends accumulator updates);
 * counters are read while the task updates them, so a value may be a moment old. */
static void heartbeat(executor *x)
{
    Cspark__TaskMetricsUpdate *updates = cs_xcalloc((size_t)x->nworkers + 1, sizeof *updates);
    Cspark__TaskMetricsUpdate **uptrs = cs_xcalloc((size_t)x->nworkers + 1, sizeof *uptrs);
    Cspark__TaskMetrics *metrics = cs_xcalloc((size_t)x->nworkers + 1, sizeof *metrics);
    size_t n = 0;
    int64_t now = cs_now_ms();
    Cspark__ExecutorMetrics xm = CSPARK__EXECUTOR_METRICS__INIT;
    cs_process_usage(&xm.rss_bytes, &xm.vmem_bytes, &xm.cpu_time_ns);
    pthread_mutex_lock(&x->lock);
    xm.tasks_completed = x->tasks_completed;
    xm.tasks_failed = x->tasks_failed;
    xm.shuffle_bytes_read = x->shuffle_read;
    xm.shuffle_bytes_written = x->shuffle_written;
    xm.memory_bytes_spilled = x->mem_spilled;
    xm.disk_bytes_spilled = x->disk_spilled;
    for (int i = 0; i < x->nworkers; i++) {
        exec_task *t = x->running[i];
        if (!t || !t->live) continue;
        xm.tasks_active++;
        xm.task_memory_used += t->live->metrics.peak_execution_memory;
        cs_task_metrics m = t->live->metrics;
        m.run_time_ms = now - t->start_ms;
        cspark__task_metrics__init(&metrics[n]);
        cs_task_metrics_to_pb(&m, &metrics[n]);
        cspark__task_metrics_update__init(&updates[n]);
        updates[n].task_id = t->desc.task_id;
        updates[n].metrics = &metrics[n];
        uptrs[n] = &updates[n];
        n++;
    }
    pthread_mutex_unlock(&x->lock);
    Cspark__Heartbeat hb = CSPARK__HEARTBEAT__INIT;
    hb.executor_id = (char *)x->opt->executor_id;
    hb.n_updates = n;
    hb.updates = uptrs;
    hb.metrics = &xm;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_HEARTBEAT;
    env.heartbeat = &hb;
    cs_rpc_send(x->driver, &env);
    free(updates);
    free(uptrs);
    free(metrics);
}

/* The task reaper at stop (common/shutdown.h): workers whose tasks ignore the stop for longer
 * than spark.task.reaper.killTimeout are not waited for — the process removes its local
 * directory and exits with rc (their threads end with it). */
static void join_workers(executor *x, int rc)
{
    if (!x->workers) return;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    int64_t ms = x->reaper_ms > 0 ? x->reaper_ms : 0;
    until.tv_sec += (time_t)(ms / 1000);
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    int left = 0;
    for (int i = 0; i < x->nworkers; i++) {
        if (x->reaper_ms < 0) {
            pthread_join(x->workers[i], NULL);
        } else if (pthread_timedjoin_np(x->workers[i], NULL, &until) != 0) {
            left++;
        }
    }
    if (!left) return;
    CS_WARN("executor",
            "executor=%s event=task_reaper running_tasks=%d: not stopped %lld ms after the "
            "executor was told to stop (spark.task.reaper.killTimeout); exiting without them",
            x->opt->executor_id, left, (long long)x->reaper_ms);
    if (x->local_dir) cs_remove_local_dir(x->local_dir, "executor");
    fflush(NULL);
    _exit(rc);
}

int cs_executor_run(const executor_options *opt)
{
    executor *x = cs_xcalloc(1, sizeof *x);
    /* before any thread exists: termination signals go to the watcher only, which ends the
     * process by them as usual until decommissioning is armed */
    x->signals = cs_decom_signals_start(cs_executor_on_decom_signal, x);
    cs_task_install_crash_handlers(); /* a crash names its task and function before the process dies
                                       */
    char process[64];
    snprintf(process, sizeof process, "executor %s", opt->executor_id ? opt->executor_id : "?");
    cs_task_crash_set_process(process);
    cs_memtune_init();
    x->opt = opt;
    x->broadcasts = cs_broadcast_store_new();
    x->plans = cs_plan_cache_new();
    x->reaper_ms = -1; /* until the application's conf says otherwise */
    pthread_mutex_init(&x->lock, NULL);
    pthread_cond_init(&x->work_cond, NULL);
    cs_cond_init_monotonic(&x->main_cond);
    cs_error err;
    cs_error_clear(&err);
    int rc = 0;
    if (executor_start(x, &err) < 0) {
        fprintf(stderr, "cspark-executor: %s\n", err.msg);
        rc = 1;
        stop(x, false);
    } else {
        CS_INFO("executor", "executor=%s event=registered host=%s cores=%d block_port=%d pid=%d",
                cs_log_value(opt->executor_id), cs_log_value(opt->hostname), opt->cores,
                x->block_port, (int)getpid());
        int64_t interval_ms = 10000;
        cs_conf_entry_duration_ms(x->conf, "spark.executor.heartbeatInterval", &interval_ms, NULL);
        if (interval_ms < 10) interval_ms = 10;
        pthread_mutex_lock(&x->lock);
        while (!x->stopping) {
            if (cs_cond_wait_ms(&x->main_cond, &x->lock, interval_ms) == ETIMEDOUT &&
                !x->stopping) {
                pthread_mutex_unlock(&x->lock);
                heartbeat(x);
                pthread_mutex_lock(&x->lock);
            }
        }
        rc = x->driver_gone ? 1 : 0;
        pthread_mutex_unlock(&x->lock);
    }
    cs_decom_signals_stop(x->signals); /* before the driver connection goes: it may send on it */

    join_workers(x, rc);
    cs_exec_services_free(x->env.services); /* no task uses them any more: Python workers end */
    pthread_mutex_lock(&x->lock);
    shuffle_migrator *mg = x->migrator; /* no new one once stopping */
    rdd_migrator *rmg = x->rdd_migrator;
    x->migrator = NULL;
    x->rdd_migrator = NULL;
    bool decommissioned = (x->decommissioning || x->decom_requested) && rc == 0;
    pthread_mutex_unlock(&x->lock);
    cs_shuffle_migrator_free(mg); /* a copy in progress is abandoned at its next block */
    cs_rdd_migrator_free(rmg);    /* before the block manager it stores into */
    if (decommissioned)
        CS_INFO("executor", "executor=%s event=decommissioned", cs_log_value(opt->executor_id));
    while (x->queue_head) {
        exec_task *t = x->queue_head;
        x->queue_head = t->next;
        free(t->block_locs);
        free(t->resources);
        free(t->barrier.addresses);
        free(t);
    }
    cs_broadcast_fetcher_free(x->bfetch); /* no task fetches any more */
    if (x->driver) {
        cs_rpc_conn_close(x->driver);
        cs_rpc_conn_unref(x->driver);
    }
    cs_rpc_endpoint_free(x->ep);
    cs_block_server_stop(x->blocks);
    cs_broadcast_store_free(x->broadcasts); /* after the block server that serves its pieces */
    cs_block_fetcher_free(x->fetcher);
    cs_fallback_storage_free(x->fallback); /* after the fetcher and migrator that use it */
    cs_block_manager_free(x->bm);          /* after the workers and the block server are gone */
    cs_plan_cache_free(x->plans);
    if (x->local_dir) {
        cs_remove_local_dir(x->local_dir, "executor");
        cs_exit_cleanup_remove(x->local_dir);
    }
    free(x->local_dir);
    free(x->app_file);
    free(x->running);
    free(x->workers);
    cs_conf_free(x->conf);
    cs_executor_resources_free(&x->resources);
    pthread_mutex_destroy(&x->lock);
    pthread_cond_destroy(&x->work_cond);
    pthread_cond_destroy(&x->main_cond);
    free(x);
    return rc;
}
