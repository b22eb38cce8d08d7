/*
 * executor_decommission.c — the executor's side of decommissioning (proto/cspark.proto,
 * docs/distributed.md): the signal watcher's SIGTERM / spark.executor.decommission.signal turned
 * into DecommissionExecutor to the driver, the driver's DecommissionExecutor (no more tasks),
 * ExecutorDrained once nothing is queued or running, and MigrateShuffle from the driver: a
 * leaving peer's map outputs copied here on the migration thread (shuffle_migration.c) and
 * answered with ShuffleMigrated; MigrateRddBlocks: its cached partitions stored here on the rdd
 * migration thread (rdd_migration.c) and answered with RddBlocksMigrated. Called by executor.c (its
 * RPC loop, workers and signal watcher); the executor is borrowed for each call
 * (executor_internal.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "exec/executor_internal.h"
#include "plan/pb_helpers.h"
#include "plan/task_codec.h"

/* Once decommissioning and with nothing queued, running or being reported: ExecutorDrained,
 * once. Called when the driver's DecommissionExecutor arrives and after each task's report. */
void cs_executor_check_drained(executor *x)
{
    pthread_mutex_lock(&x->lock);
    bool send = x->decommissioning && !x->drained_sent && x->active == 0 && !x->stopping;
    if (send) x->drained_sent = true;
    pthread_mutex_unlock(&x->lock);
    if (!send) return;
    CS_INFO("executor", "executor=%s event=drained", cs_log_value(x->opt->executor_id));
    Cspark__ExecutorDrained d = CSPARK__EXECUTOR_DRAINED__INIT;
    d.executor_id = (char *)x->opt->executor_id;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_EXECUTOR_DRAINED;
    env.executor_drained = &d;
    cs_rpc_send(x->driver, &env);
}

/* Signal watcher thread: SIGTERM (the pod is being deleted) or the decommission signal. */
void cs_executor_on_decom_signal(void *arg, int sig)
{
    executor *x = arg;
    pthread_mutex_lock(&x->lock);
    bool first = !x->decom_requested && !x->decommissioning && !x->stopping;
    x->decom_requested = true;
    pthread_mutex_unlock(&x->lock);
    if (!first) {
        CS_INFO("executor", "executor=%s event=signal_ignored signal=SIG%s reason=%s",
                cs_log_value(x->opt->executor_id), cs_decom_signals_name(sig),
                cs_log_quote("already decommissioning"));
        return;
    }
    char reason[64];
    snprintf(reason, sizeof reason, "received SIG%s", cs_decom_signals_name(sig));
    CS_INFO("executor", "executor=%s event=decommissioning reason=%s",
            cs_log_value(x->opt->executor_id), cs_log_quote(reason));
    Cspark__DecommissionExecutor de = CSPARK__DECOMMISSION_EXECUTOR__INIT;
    de.executor_id = (char *)x->opt->executor_id;
    de.reason = reason;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_DECOMMISSION_EXECUTOR;
    env.decommission_executor = &de;
    cs_rpc_send(x->driver, &env);
}

/* Loop thread: the driver's decision (dynamic allocation) or its echo of ours. */
void cs_executor_on_decommission(executor *x, const Cspark__DecommissionExecutor *de)
{
    pthread_mutex_lock(&x->lock);
    bool first = !x->decommissioning, ours = x->decom_requested;
    x->decommissioning = true;
    pthread_mutex_unlock(&x->lock);
    if (first && !ours)
        CS_INFO("executor", "executor=%s event=decommissioning reason=%s by=driver",
                cs_log_value(x->opt->executor_id), cs_log_quote(de->reason ? de->reason : ""));
    cs_executor_check_drained(x);
}

/* Migration thread: one MigrateShuffle done. */
static void on_migration_done(void *arg, const shuffle_migration *m)
{
    executor *x = arg;
    Cspark__MapStatus *pbs = cs_xcalloc((size_t)m->num_items + 1, sizeof *pbs);
    Cspark__MapStatus **ok = cs_xcalloc((size_t)m->num_items + 1, sizeof *ok);
    Cspark__MapStatus **failed = cs_xcalloc((size_t)m->num_items + 1, sizeof *failed);
    Cspark__ShuffleMigrated sm = CSPARK__SHUFFLE_MIGRATED__INIT;
    for (int i = 0; i < m->num_items; i++) {
        cs_map_status_encode(&m->items[i].st, &pbs[i], NULL); /* sizes: checked before the copy */
        if (m->items[i].rc == 0)
            ok[sm.n_migrated++] = &pbs[i];
        else
            failed[sm.n_failed++] = &pbs[i];
    }
    sm.executor_id = (char *)x->opt->executor_id;
    sm.migrated = ok;
    sm.failed = failed;
    sm.error = (char *)m->error;
    sm.fallback = m->fallback != NULL;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_SHUFFLE_MIGRATED;
    env.shuffle_migrated = &sm;
    cs_rpc_send(x->driver, &env);
    for (int i = 0; i < m->num_items; i++)
        cs_map_status_pb_clear(&pbs[i]);
    free(pbs);
    free(ok);
    free(failed);
}

/* Loop thread: copy these outputs of a leaving executor (on the migration thread). */
void cs_executor_on_migrate_shuffle(executor *x, const Cspark__MigrateShuffle *ms)
{
    shuffle_migration *m = cs_shuffle_migration_new((int)ms->n_outputs);
    for (size_t i = 0; i < ms->n_outputs; i++) {
        shuffle_migration_item *it = &m->items[i];
        const Cspark__MapStatus *pb = ms->outputs[i];
        cs_error err;
        cs_error_clear(&err);
        if (cs_map_status_decode(pb, &it->st, &err) == 0) continue;
        /* unusable: reported failed, with the ids the driver sent */
        it->rc = err.code ? err.code : CS_EPROTO;
        it->st.shuffle_id = pb ? pb->shuffle_id : -1;
        it->st.map_id = pb ? pb->map_id : -1;
        snprintf(it->st.executor_id, sizeof it->st.executor_id, "%s",
                 pb && pb->executor_id ? pb->executor_id : "");
        if (!m->error[0]) snprintf(m->error, sizeof m->error, "%s", err.msg);
        CS_WARN("executor",
                "executor=%s event=shuffle_migration_failed shuffle=%d map=%d from=%s error=%s",
                cs_log_value(x->opt->executor_id), it->st.shuffle_id, it->st.map_id,
                cs_log_value(it->st.executor_id), cs_log_quote(err.msg));
    }
    CS_INFO("executor", "executor=%s event=shuffle_migration_requested outputs=%d%s",
            cs_log_value(x->opt->executor_id), m->num_items,
            ms->to_fallback ? " to=fallback_storage" : "");
    if (ms->to_fallback) {
        m->fallback = x->fallback;
        if (!x->fallback) /* the driver has a path, this executor not: cannot happen by conf */
            for (int i = 0; i < m->num_items; i++)
                if (m->items[i].rc == 0) {
                    m->items[i].rc = CS_EINVAL;
                    snprintf(m->error, sizeof m->error, "executor %s has no fallback storage",
                             x->opt->executor_id);
                }
    }
    cs_error err;
    cs_error_clear(&err);
    pthread_mutex_lock(&x->lock);
    if (!x->migrator && !x->stopping) {
        shuffle_block_source src = cs_block_fetcher_source(x->fetcher);
        x->migrator = cs_shuffle_migrator_new(&src, x->local_dir, x->opt->executor_id,
                                              on_migration_done, x, &err);
    }
    if (x->migrator) {
        cs_shuffle_migrator_submit(x->migrator, m);
        m = NULL;
    }
    bool stopping = x->stopping;
    pthread_mutex_unlock(&x->lock);
    if (!m) return;
    /* not copied at all: the executor is stopping, or the thread could not start */
    if (stopping) cs_error_set(&err, CS_ECANCELLED, "executor %s is stopping", x->opt->executor_id);
    for (int i = 0; i < m->num_items; i++)
        if (m->items[i].rc == 0) m->items[i].rc = err.code ? err.code : CS_EIO;
    if (!m->error[0]) snprintf(m->error, sizeof m->error, "%s", err.msg);
    CS_WARN("executor", "executor=%s event=shuffle_migration_failed outputs=%d error=%s",
            cs_log_value(x->opt->executor_id), m->num_items, cs_log_quote(m->error));
    on_migration_done(x, m);
    cs_shuffle_migration_free(m);
}

/* Migration thread: one MigrateRddBlocks done. */
static void on_rdd_migration_done(void *arg, const rdd_migration *m)
{
    executor *x = arg;
    Cspark__BlockStatus *ok = cs_xcalloc((size_t)m->num_items + 1, sizeof *ok);
    Cspark__BlockStatus **okp = cs_xcalloc((size_t)m->num_items + 1, sizeof *okp);
    Cspark__CachedBlock *bad = cs_xcalloc((size_t)m->num_items + 1, sizeof *bad);
    Cspark__CachedBlock **badp = cs_xcalloc((size_t)m->num_items + 1, sizeof *badp);
    Cspark__RddBlocksMigrated rm = CSPARK__RDD_BLOCKS_MIGRATED__INIT;
    for (int i = 0; i < m->num_items; i++) {
        const rdd_migration_item *it = &m->items[i];
        if (it->rc == 0) {
            Cspark__BlockStatus *b = &ok[rm.n_migrated];
            cspark__block_status__init(b);
            b->rdd_id = it->st.rdd_id;
            b->partition = it->st.partition;
            b->storage_level = it->st.level;
            b->memory_size = it->st.memory_size;
            b->disk_size = it->st.disk_size;
            okp[rm.n_migrated++] = b;
        } else {
            Cspark__CachedBlock *b = &bad[rm.n_failed];
            cspark__cached_block__init(b);
            b->rdd_id = it->loc.rdd_id;
            b->partition = it->loc.partition;
            b->executor_id = (char *)it->loc.executor_id;
            badp[rm.n_failed++] = b;
        }
    }
    rm.source_executor_id = (char *)m->source;
    rm.migrated = okp;
    rm.failed = badp;
    rm.error = (char *)m->error;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_RDD_BLOCKS_MIGRATED;
    env.rdd_blocks_migrated = &rm;
    cs_rpc_send(x->driver, &env);
    free(ok);
    free(okp);
    free(bad);
    free(badp);
}

void cs_executor_on_migrate_rdd_blocks(executor *x, const Cspark__MigrateRddBlocks *mr)
{
    rdd_migration *m = cs_rdd_migration_new((int)mr->n_blocks);
    for (size_t i = 0; i < mr->n_blocks; i++) {
        const Cspark__CachedBlock *cb = mr->blocks[i];
        rdd_migration_item *it = &m->items[i];
        it->loc.rdd_id = cb->rdd_id;
        it->loc.partition = cb->partition;
        snprintf(it->loc.executor_id, sizeof it->loc.executor_id, "%s", cs_pb_str(cb->executor_id));
        snprintf(it->loc.host, sizeof it->loc.host, "%s", cs_pb_str(cb->host));
        it->loc.port = cb->port;
        it->level = i < mr->n_storage_levels ? mr->storage_levels[i] : 0;
    }
    if (m->num_items > 0) snprintf(m->source, sizeof m->source, "%s", m->items[0].loc.executor_id);
    CS_INFO("executor", "executor=%s event=rdd_block_migration_requested blocks=%d from=%s",
            cs_log_value(x->opt->executor_id), m->num_items, cs_log_value(m->source));
    cs_error err;
    cs_error_clear(&err);
    pthread_mutex_lock(&x->lock);
    if (!x->rdd_migrator && !x->stopping && x->bm && x->fetcher)
        x->rdd_migrator = cs_rdd_migrator_new(x->fetcher, x->bm, x->opt->executor_id,
                                              on_rdd_migration_done, x, &err);
    if (x->rdd_migrator) {
        cs_rdd_migrator_submit(x->rdd_migrator, m);
        m = NULL;
    }
    bool stopping = x->stopping;
    pthread_mutex_unlock(&x->lock);
    if (!m) return;
    /* not copied at all: the executor is stopping, or the thread could not start */
    if (stopping || !err.code)
        cs_error_set(&err, CS_ECANCELLED, "executor %s is stopping", x->opt->executor_id);
    for (int i = 0; i < m->num_items; i++)
        m->items[i].rc = err.code;
    snprintf(m->error, sizeof m->error, "%s", err.msg);
    CS_WARN("executor", "executor=%s event=rdd_block_migration_failed blocks=%d error=%s",
            cs_log_value(x->opt->executor_id), m->num_items, cs_log_quote(m->error));
    on_rdd_migration_done(x, m);
    cs_rdd_migration_free(m);
}
