/*
 * coarse_decommission.c — executors leaving on purpose (see coarse_backend.h): removal by
 * dynamic allocation (StopExecutor at once, to executors running no task), decommissioning asked by
 * the driver or by the executor itself (no new tasks; DecommissionExecutor), and once a
 * decommissioning executor is drained, its map outputs and cached partitions moved to live
 * executors (MigrateShuffle and MigrateRddBlocks, one batch of each per peer, as Spark's
 * BlockManagerDecommissioner) and StopExecutor sent once every batch is answered and no running
 * stage reads from it. With no live executor and spark.storage.decommission.fallbackStorage.path
 * set, the leaving executor copies its own map outputs there (Spark's FallbackStorage) and they
 * are registered at the placeholder executor "fallback".
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/coarse_backend_internal.h"
#include "common/log.h"
#include "exec/fallback_storage.h"
#include "plan/task_codec.h"

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

void cs_coarse_send_stop(rpc_conn *c)
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
        CS_INFO("driver", "event=executor_decommissioning executor=%s reason=%s",
                cs_log_value(e->id), cs_log_quote(reason));
    e->decommissioning = true;
    snprintf(e->lost_reason, sizeof e->lost_reason, "Executor decommission: %s", reason);
    if (e->conn) send_decommission(e->conn, e->id, reason);
}

void cs_coarse_backend_remove_executors(coarse_backend *b, const char *const *ids, int n,
                                        bool decommission, const char *reason)
{
    pthread_mutex_lock(&b->lock);
    for (int k = 0; k < n; k++) {
        int i = cs_coarse_find_exec(b, ids[k]);
        if (i < 0) continue;
        exec_info *e = &b->execs[i];
        if (!e->alive || !e->conn || e->removing || e->decommissioning) continue;
        if (decommission) {
            start_decommission(e, reason);
        } else {
            e->removing = true;
            snprintf(e->lost_reason, sizeof e->lost_reason, "Executor killed by driver: %s",
                     reason);
            CS_INFO("driver", "event=executor_kill executor=%s reason=%s", cs_log_value(e->id),
                    cs_log_quote(reason));
            cs_coarse_send_stop(e->conn);
        }
    }
    pthread_mutex_unlock(&b->lock);
}

int cs_coarse_backend_kill_idle(coarse_backend *b, const char *const *ids, int n,
                                const char *reason, bool *killed)
{
    char(*names)[64] = cs_xcalloc((size_t)n + 1, sizeof *names);
    const char **chosen = cs_xcalloc((size_t)n + 1, sizeof *chosen);
    int nchosen = 0;
    pthread_mutex_lock(&b->lock);
    for (int k = 0; k < n; k++) {
        killed[k] = true; /* gone or going already: as good as killed */
        int i = cs_coarse_find_exec(b, ids[k]);
        if (i < 0) continue;
        exec_info *e = &b->execs[i];
        if (!e->alive || !e->conn || e->removing || e->decommissioning) continue;
        if (e->free < e->cores) { /* a task holds cores: launched since it was found idle */
            CS_INFO("driver", "event=executor_kill_refused executor=%s reason=%s",
                    cs_log_value(e->id), cs_log_quote("it runs tasks"));
            killed[k] = false;
            continue;
        }
        e->removing = true; /* offered no task from now on: it stays idle */
        snprintf(e->lost_reason, sizeof e->lost_reason, "Executor killed by driver: %s", reason);
        snprintf(names[nchosen], sizeof names[nchosen], "%s", e->id);
        chosen[nchosen] = names[nchosen];
        nchosen++;
    }
    pthread_mutex_unlock(&b->lock);
    if (nchosen > 0 && b->opt.removing) b->opt.removing(b->opt.hooks_arg, chosen, nchosen);
    pthread_mutex_lock(&b->lock);
    for (int k = 0; k < nchosen; k++) {
        int i = cs_coarse_find_exec(b, chosen[k]);
        exec_info *e = i < 0 ? NULL : &b->execs[i];
        if (!e || !e->alive || !e->conn) continue; /* gone meanwhile */
        CS_INFO("driver", "event=executor_kill executor=%s reason=%s", cs_log_value(e->id),
                cs_log_quote(reason));
        cs_coarse_send_stop(e->conn);
    }
    pthread_mutex_unlock(&b->lock);
    free(chosen);
    free(names);
    return nchosen;
}

bool cs_coarse_backend_exit_expected(coarse_backend *b, const char *executor_id)
{
    pthread_mutex_lock(&b->lock);
    int i = cs_coarse_find_exec(b, executor_id);
    bool expected = i >= 0 && (b->execs[i].removing || b->execs[i].decommissioning);
    pthread_mutex_unlock(&b->lock);
    return expected;
}

/* The executor asked to decommission itself (its pod is being deleted): echo, so that it knows
 * no more tasks will come. */
void cs_coarse_on_decommission(coarse_backend *b, rpc_conn *c,
                               const Cspark__DecommissionExecutor *d)
{
    pthread_mutex_lock(&b->lock);
    exec_info *e = cs_coarse_exec_of_conn(b, c);
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
void cs_coarse_on_drained(coarse_backend *b, rpc_conn *c)
{
    pthread_mutex_lock(&b->lock);
    exec_info *e = cs_coarse_exec_of_conn(b, c);
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

/* One MigrateShuffle to p with every batches-th output from k on: p is a peer, or (to_fallback)
 * the leaving executor itself, which copies them to the fallback storage. Lock held. */
static void send_outputs(exec_info *p, const cs_map_status *outs, int nouts, int k, int batches,
                         const char *from, bool to_fallback)
{
    Cspark__MigrateShuffle ms = CSPARK__MIGRATE_SHUFFLE__INIT;
    ms.to_fallback = to_fallback;
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
    CS_INFO("driver", "event=shuffle_migration from=%s to=%s map_outputs=%zu", cs_log_value(from),
            ms.to_fallback ? "fallback_storage" : cs_log_value(p->id), ms.n_outputs);
    cs_rpc_send(p->conn, &env);
    for (size_t m = 0; m < ms.n_outputs; m++)
        cs_map_status_pb_clear(&pbs[m]);
    free(pbs);
    free(ptrs);
}

/* One MigrateRddBlocks to peer p with every batches-th cached partition of e from k on. Lock
 * held. */
static void send_rdd_blocks(exec_info *p, const exec_info *e, const cs_block_status *blocks,
                            int nblocks, int k, int batches)
{
    Cspark__MigrateRddBlocks mr = CSPARK__MIGRATE_RDD_BLOCKS__INIT;
    Cspark__CachedBlock *pbs = cs_xcalloc((size_t)nblocks, sizeof *pbs);
    Cspark__CachedBlock **ptrs = cs_xcalloc((size_t)nblocks, sizeof *ptrs);
    int32_t *levels = cs_xcalloc((size_t)nblocks, sizeof *levels);
    for (int m = k; m < nblocks; m += batches) {
        Cspark__CachedBlock *cb = &pbs[mr.n_blocks];
        cspark__cached_block__init(cb);
        cb->rdd_id = blocks[m].rdd_id;
        cb->partition = blocks[m].partition;
        cb->executor_id = (char *)e->id;
        cb->host = (char *)e->host;
        cb->port = e->block_port;
        levels[mr.n_blocks] = blocks[m].level;
        ptrs[mr.n_blocks++] = cb;
    }
    mr.blocks = ptrs;
    mr.n_storage_levels = mr.n_blocks;
    mr.storage_levels = levels;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_MIGRATE_RDD_BLOCKS;
    env.migrate_rdd_blocks = &mr;
    CS_INFO("driver", "event=rdd_block_migration from=%s to=%s blocks=%zu", cs_log_value(e->id),
            cs_log_value(p->id), mr.n_blocks);
    cs_rpc_send(p->conn, &env);
    free(pbs);
    free(ptrs);
    free(levels);
}

/* The drained executor's map outputs and cached partitions go to live executors, round-robin,
 * one MigrateShuffle and one MigrateRddBlocks per peer. */
static void migrate_outputs(void *arg)
{
    drained *d = arg;
    coarse_backend *b = d->b;
    char id[64];
    snprintf(id, sizeof id, "%s", d->id);
    free(d);
    cs_map_status *outs = NULL;
    cs_block_status *blocks = NULL;
    int nouts = b->migrate_shuffles && b->base.sched
                    ? cs_scheduler_outputs_on(b->base.sched, id, &outs)
                    : 0;
    int nblocks = b->migrate_rdd_blocks && b->base.sched
                      ? cs_scheduler_blocks_on(b->base.sched, id, &blocks)
                      : 0;
    pthread_mutex_lock(&b->lock);
    int at = cs_coarse_find_exec(b, id);
    exec_info *e = at >= 0 ? &b->execs[at] : NULL;
    int *peers = cs_xcalloc((size_t)b->num_execs + 1, sizeof *peers);
    int npeers = 0;
    for (int i = 0; i < b->num_execs; i++) {
        const exec_info *p = &b->execs[i];
        if (p != e && p->alive && p->conn && !p->removing && !p->decommissioning)
            peers[npeers++] = i;
    }
    CS_INFO("driver", "event=executor_drained executor=%s map_outputs=%d rdd_blocks=%d peers=%d",
            cs_log_value(id), nouts, nblocks, npeers);
    if (e && e->alive && (nouts > 0 || nblocks > 0) && npeers > 0) {
        int batches = npeers < nouts ? npeers : nouts;
        for (int k = 0; k < batches; k++) {
            send_outputs(&b->execs[peers[k]], outs, nouts, k, batches, id, false);
            e->migrations++;
        }
        batches = npeers < nblocks ? npeers : nblocks;
        for (int k = 0; k < batches; k++) {
            send_rdd_blocks(&b->execs[peers[k]], e, blocks, nblocks, k, batches);
            e->migrations++;
        }
    } else if (e && e->alive && e->conn && nouts > 0 && b->fallback_storage) {
        /* no live executor: the leaving one copies its own outputs to the fallback storage (its
         * cached partitions are recomputed when needed, as Spark's) */
        send_outputs(e, outs, nouts, 0, 1, id, true);
        e->migrations++;
    } else if (e && e->alive) {
        if (nouts > 0 || nblocks > 0)
            CS_WARN("driver",
                    "event=block_migration_skipped executor=%s map_outputs=%d rdd_blocks=%d "
                    "reason=%s",
                    cs_log_value(id), nouts, nblocks,
                    cs_log_quote("no live executor to take them"));
        else if (!b->migrate_shuffles && !b->migrate_rdd_blocks)
            CS_INFO("driver", "event=block_migration_skipped executor=%s reason=%s",
                    cs_log_value(id), cs_log_quote("spark.storage.decommission.enabled is off"));
        finish_decommission(b, e);
    }
    pthread_mutex_unlock(&b->lock);
    for (int m = 0; m < nouts; m++)
        cs_map_status_free(&outs[m]);
    free(outs);
    free(blocks);
    free(peers);
}

/* One migration batch of the decommissioning executor `source` answered: once all are, it may
 * stop. */
static void migration_answered(coarse_backend *b, const char *source)
{
    pthread_mutex_lock(&b->lock);
    int i = cs_coarse_find_exec(b, source);
    if (i >= 0 && b->execs[i].migrations > 0 && --b->execs[i].migrations == 0) {
        CS_INFO("driver", "event=block_migration_done executor=%s", cs_log_value(source));
        finish_decommission(b, &b->execs[i]);
    }
    pthread_mutex_unlock(&b->lock);
}

/* A peer stored cached partitions of a decommissioning executor: later tasks read them there. */
void cs_coarse_on_rdd_migrated(coarse_backend *b, rpc_conn *c, const Cspark__RddBlocksMigrated *rm)
{
    pthread_mutex_lock(&b->lock);
    exec_info *peer = cs_coarse_exec_of_conn(b, c);
    const char *source = rm->source_executor_id;
    int si = source && *source ? cs_coarse_find_exec(b, source) : -1;
    if (!peer || si < 0) {
        pthread_mutex_unlock(&b->lock);
        return;
    }
    char to[64], to_host[256], from_host[256];
    snprintf(to, sizeof to, "%s", peer->id);
    snprintf(to_host, sizeof to_host, "%s", peer->host);
    snprintf(from_host, sizeof from_host, "%s", b->execs[si].host);
    cs_block_holder dst = {.executor_id = to, .host = to_host, .port = peer->block_port};
    cs_block_holder src = {
        .executor_id = source, .host = from_host, .port = b->execs[si].block_port};
    pthread_mutex_unlock(&b->lock);
    for (size_t i = 0; i < rm->n_migrated && b->base.sched; i++) {
        const Cspark__BlockStatus *pb = rm->migrated[i];
        cs_block_status st = {.rdd_id = pb->rdd_id,
                              .partition = pb->partition,
                              .level = pb->storage_level,
                              .memory_size = pb->memory_size,
                              .disk_size = pb->disk_size};
        cs_scheduler_block_moved(b->base.sched, &src, &dst, &st);
    }
    if (rm->n_failed)
        CS_WARN("driver", "event=rdd_block_migration_failed from=%s to=%s blocks=%zu error=%s",
                cs_log_value(source), cs_log_value(to), rm->n_failed,
                cs_log_quote(rm->error ? rm->error : ""));
    migration_answered(b, source);
}

/* A peer copied map outputs of a decommissioning executor: later stages read them there. */
void cs_coarse_on_migrated(coarse_backend *b, rpc_conn *c, const Cspark__ShuffleMigrated *sm)
{
    pthread_mutex_lock(&b->lock);
    exec_info *peer = cs_coarse_exec_of_conn(b, c);
    if (!peer) {
        pthread_mutex_unlock(&b->lock);
        return;
    }
    char to[64], host[256];
    snprintf(to, sizeof to, "%s", sm->fallback ? CS_FALLBACK_EXECUTOR_ID : peer->id);
    /* Spark's FALLBACK_BLOCK_MANAGER_ID: a placeholder location every executor reads through
     * its fallback storage (exec/fallback_storage.h) */
    snprintf(host, sizeof host, "%s", sm->fallback ? "remote" : peer->host);
    int port = sm->fallback ? 7337 : peer->block_port;
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
        CS_WARN("driver", "event=shuffle_migration_failed from=%s to=%s map_outputs=%zu error=%s",
                cs_log_value(source ? source : "?"), cs_log_value(to), sm->n_failed,
                cs_log_quote(sm->error ? sm->error : ""));
    if (source) migration_answered(b, source);
}

/* Decommissioned executors whose shuffle files have moved exit once no running stage attempt
 * was given their location (its tasks may still fetch from them). Lock held; released around
 * the scheduler queries. */
void cs_coarse_stop_unread(coarse_backend *b)
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
        CS_INFO("driver", "event=executor_decommissioned executor=%s action=stop",
                cs_log_value(e->id));
        cs_coarse_send_stop(e->conn);
    }
}
