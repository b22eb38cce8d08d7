/*
 * executor_decommission.c — the executor's side of decommissioning (proto/cspark.proto,
 * docs/distributed.md): the signal watcher's SIGTERM / spark.executor.decommission.signal turned
 * into DecommissionExecutor to the driver, the driver's DecommissionExecutor (no more tasks),
 * ExecutorDrained once nothing is queued or running, and MigrateShuffle from the driver: a
 * leaving peer's map outputs copied here on the migration thread (shuffle_migration.c) and
 * answered with ShuffleMigrated. Called by executor.c (its RPC loop, workers and signal
 * watcher); the executor is borrowed for each call (executor_internal.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "exec/executor_internal.h"
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
    CS_INFO("executor", "executor=%s event=shuffle_migration_requested outputs=%d",
            cs_log_value(x->opt->executor_id), m->num_items);
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
