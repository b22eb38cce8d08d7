/*
 * map_output_tracker.c — Spark's MapOutputTrackerMaster as other threads see it (see
 * scheduler.h): the map outputs registered at an executor (decommissioning copies them), an
 * output moved to another executor, outputs a new executor recovered from a reused volume,
 * whether a running stage reads from an executor, every output with its shuffle's activity
 * (shuffle tracking), and a shuffle's partition sizes (adaptive execution's
 * MapOutputStatistics); and, for decommissioning too, the cached partitions at an executor and
 * one moved to another executor (the block registry); and the removal of shuffles no job will
 * read again (Spark's ContextCleaner). The job thread registers and unregisters outputs in
 * dag_scheduler.c; everything here holds outputs_lock (the removal dag_lock too).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/clock.h"
#include "common/log.h"
#include "sched/block_registry.h"
#include "sched/dag_scheduler_internal.h"

void cs_dag_bury(scheduler *s, cs_map_status *ms)
{
    if (!ms) return;
    if (s->num_graveyard == s->cap_graveyard) {
        s->cap_graveyard = s->cap_graveyard ? s->cap_graveyard * 2 : 16;
        s->graveyard = cs_xrealloc(s->graveyard, (size_t)s->cap_graveyard * sizeof *s->graveyard);
    }
    s->graveyard[s->num_graveyard++] = ms;
}

shuffle_slot *cs_dag_shuffle(const scheduler *s, int shuffle_id)
{
    uint64_t v;
    if (shuffle_id < 0 || !cs_hmap_get(&s->shuffles, (uint64_t)shuffle_id, &v)) return NULL;
    return (shuffle_slot *)(uintptr_t)v;
}

static int by_id(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int *cs_dag_live_shuffles(const scheduler *s, int *n)
{
    int *ids = cs_xcalloc(cs_hmap_size(&s->shuffles) + 1, sizeof *ids);
    size_t pos = 0;
    uint64_t key, val;
    *n = 0;
    while (cs_hmap_next(&s->shuffles, &pos, &key, &val))
        ids[(*n)++] = (int)key;
    qsort(ids, (size_t)*n, sizeof *ids, by_id);
    return ids;
}

void cs_dag_shuffles_free(scheduler *s)
{
    size_t pos = 0;
    uint64_t key, val;
    while (cs_hmap_next(&s->shuffles, &pos, &key, &val)) {
        shuffle_slot *slot = (shuffle_slot *)(uintptr_t)val;
        cs_dag_stage_free(slot->stage);
        cs_dag_outputs_clear(&slot->outputs);
        free(slot);
    }
    cs_hmap_free(&s->shuffles);
}

int cs_scheduler_outputs_on(scheduler *s, const char *executor_id, cs_map_status **out)
{
    int n = 0, cap = 0, nlive;
    *out = NULL;
    pthread_mutex_lock(&s->outputs_lock);
    int *live = cs_dag_live_shuffles(s, &nlive);
    for (int k = 0; k < nlive; k++) {
        map_outputs *o = &cs_dag_shuffle(s, live[k])->outputs;
        for (int m = 0; o->maps && m < o->num_maps; m++) {
            const cs_map_status *ms = o->maps[m];
            if (!ms || strcmp(ms->executor_id, executor_id) != 0) continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                *out = cs_xrealloc(*out, (size_t)cap * sizeof **out);
            }
            cs_map_status_copy(&(*out)[n++], ms);
        }
    }
    pthread_mutex_unlock(&s->outputs_lock);
    free(live);
    return n;
}

void cs_scheduler_output_moved(scheduler *s, int shuffle_id, int map_id, const char *from,
                               const char *to, const char *host, int port)
{
    pthread_mutex_lock(&s->outputs_lock);
    shuffle_slot *slot = cs_dag_shuffle(s, shuffle_id);
    map_outputs *o = slot ? &slot->outputs : NULL;
    cs_map_status *old =
        o && o->maps && map_id >= 0 && map_id < o->num_maps ? o->maps[map_id] : NULL;
    if (old && strcmp(old->executor_id, from) == 0) {
        cs_map_status *ms = cs_xmalloc(sizeof *ms);
        cs_map_status_copy(ms, old);
        snprintf(ms->executor_id, sizeof ms->executor_id, "%s", to);
        snprintf(ms->host, sizeof ms->host, "%s", host);
        ms->port = port;
        cs_dag_bury(s, old); /* attempts that started before still read the old one */
        o->maps[map_id] = ms;
        CS_INFO("scheduler", "event=map_output_moved shuffle=%d map=%d from=%s to=%s", shuffle_id,
                map_id, cs_log_value(from), cs_log_value(to));
    }
    pthread_mutex_unlock(&s->outputs_lock);
}

typedef struct recovered {
    scheduler *s;
    cs_map_status *outs;
    int n;
} recovered;

/* After the completions queued before (the previous holder's loss among them). */
static void register_recovered(void *arg)
{
    recovered *r = arg;
    scheduler *s = r->s;
    int taken = 0;
    pthread_mutex_lock(&s->outputs_lock);
    for (int i = 0; i < r->n; i++) {
        cs_map_status *ms = &r->outs[i];
        int sid = ms->shuffle_id, m = ms->map_id;
        shuffle_slot *slot = cs_dag_shuffle(s, sid);
        map_outputs *o = slot ? &slot->outputs : NULL;
        const stage *st = slot ? slot->stage : NULL;
        if (!o || !o->maps || !st || !st->dep || m < 0 || m >= o->num_maps ||
            ms->num_reduces != st->dep->partitioner.num_partitions) {
            CS_WARN("scheduler",
                    "event=map_output_not_recovered shuffle=%d map=%d executor=%s "
                    "reason=%s",
                    sid, m, cs_log_value(ms->executor_id),
                    cs_log_quote("no such map output in this application"));
            cs_map_status_free(ms);
            continue;
        }
        cs_map_status *copy = cs_xmalloc(sizeof *copy);
        *copy = *ms; /* moves the sizes */
        if (o->maps[m])
            cs_dag_bury(s, o->maps[m]); /* attempts that started before still read the old one */
        else
            o->available++;
        o->maps[m] = copy;
        taken++;
        CS_INFO("scheduler", "event=map_output_recovered shuffle=%d map=%d executor=%s", sid, m,
                cs_log_value(copy->executor_id));
    }
    pthread_mutex_unlock(&s->outputs_lock);
    if (r->n)
        CS_INFO("scheduler", "event=shuffle_recovered executor=%s map_outputs=%d registered=%d",
                cs_log_value(r->outs[0].executor_id), r->n, taken);
    free(r->outs);
    free(r);
}

void cs_scheduler_outputs_recovered(scheduler *s, cs_map_status *outs, int n)
{
    recovered *r = cs_xmalloc(sizeof *r);
    *r = (recovered){.s = s, .outs = outs, .n = n};
    cs_scheduler_after_completions(s, register_recovered, r);
}

bool cs_dag_stage_reads_from(const stage *st, const char *executor_id)
{
    if (!st || !st->running || !st->inputs) return false;
    for (int i = 0; i < st->num_reads; i++)
        for (int m = 0; m < st->inputs[i].num_maps; m++) {
            const cs_map_status *ms = st->inputs[i].maps[m];
            if (ms && strcmp(ms->executor_id, executor_id) == 0) return true;
        }
    return false;
}

bool cs_scheduler_reads_from(scheduler *s, const char *executor_id)
{
    pthread_mutex_lock(&s->outputs_lock);
    bool used = false;
    for (int i = 0; !used && i < s->num_jobs; i++)
        used = cs_dag_stage_reads_from(s->jobs[i]->final, executor_id);
    size_t pos = 0;
    uint64_t key, val;
    while (!used && cs_hmap_next(&s->shuffles, &pos, &key, &val))
        used = cs_dag_stage_reads_from(((shuffle_slot *)(uintptr_t)val)->stage, executor_id);
    pthread_mutex_unlock(&s->outputs_lock);
    return used;
}

void cs_scheduler_shuffle_holdings(scheduler *s, void (*fn)(void *, const char *, bool), void *arg)
{
    pthread_mutex_lock(&s->outputs_lock);
    size_t pos = 0;
    uint64_t key, val; /* any order: the caller counts holdings per executor */
    while (cs_hmap_next(&s->shuffles, &pos, &key, &val)) {
        const shuffle_slot *slot = (const shuffle_slot *)(uintptr_t)val;
        const map_outputs *o = &slot->outputs;
        for (int m = 0; o->maps && m < o->num_maps; m++)
            if (o->maps[m]) fn(arg, o->maps[m]->executor_id, slot->active);
    }
    pthread_mutex_unlock(&s->outputs_lock);
}

/* Shuffle tracking: the shuffles this job writes or reads are active while it runs.
 * outputs_lock held. */
void cs_dag_mark_active_shuffles(scheduler *s, stage *st, bool active)
{
    for (int p = 0; p < st->num_parents; p++) {
        stage *parent = st->parents[p];
        shuffle_slot *slot = parent->dep ? cs_dag_shuffle(s, parent->dep->shuffle_id) : NULL;
        if (slot) {
            if (slot->active == active) continue;
            slot->active = active;
        }
        cs_dag_mark_active_shuffles(s, parent, active);
    }
}

void cs_dag_mark_jobs_shuffles(scheduler *s)
{
    size_t pos = 0;
    uint64_t key, val;
    while (cs_hmap_next(&s->shuffles, &pos, &key, &val))
        ((shuffle_slot *)(uintptr_t)val)->active = false;
    for (int i = 0; i < s->num_jobs; i++)
        cs_dag_mark_active_shuffles(s, s->jobs[i]->final, true);
}

int cs_scheduler_shuffle_sizes(scheduler *s, int shuffle_id, uint64_t *bytes, int num_partitions)
{
    for (int r = 0; r < num_partitions; r++)
        bytes[r] = 0;
    pthread_mutex_lock(&s->outputs_lock);
    shuffle_slot *slot = cs_dag_shuffle(s, shuffle_id);
    map_outputs *o = slot ? &slot->outputs : NULL;
    int rc = o && o->maps && o->available == o->num_maps ? 0 : CS_ENOTFOUND;
    for (int m = 0; rc == 0 && m < o->num_maps; m++)
        for (int r = 0; r < num_partitions; r++)
            bytes[r] += cs_map_status_raw_size(o->maps[m], r);
    pthread_mutex_unlock(&s->outputs_lock);
    return rc;
}

void cs_dag_outputs_clear(map_outputs *o)
{
    for (int m = 0; o->maps && m < o->num_maps; m++)
        if (o->maps[m]) {
            cs_map_status_free(o->maps[m]);
            free(o->maps[m]);
        }
    free(o->maps);
    memset(o, 0, sizeof *o);
}

/* Whether shuffle dep's map stage can go: no active job runs it and no task of it is in flight
 * (dag_lock held). */
static bool shuffle_unused(scheduler *s, const shuffle_dep *dep)
{
    shuffle_slot *slot = cs_dag_shuffle(s, dep->shuffle_id);
    stage *st = slot ? slot->stage : NULL;
    if (!st) return true;
    if (st->running || st->waiting || st->in_flight > 0) return false;
    for (int i = 0; i < s->num_jobs; i++)
        if (cs_dag_job_needs(s, s->jobs[i], st)) return false;
    for (int i = 0; i < s->num_retained; i++)
        if (cs_dag_stage_reaches(s, s->retained[i], st)) return false;
    return true;
}

bool cs_scheduler_remove_shuffles(scheduler *s, shuffle_dep *const *deps, int n)
{
    if (n <= 0) return true;
    pthread_mutex_lock(&s->dag_lock);
    bool unused = true;
    for (int i = 0; unused && i < n; i++)
        unused = shuffle_unused(s, deps[i]);
    if (!unused) {
        pthread_mutex_unlock(&s->dag_lock);
        CS_INFO("scheduler", "event=shuffles_kept shuffles=%d reason=in_use", n);
        return false;
    }
    int *ids = cs_xcalloc((size_t)n, sizeof *ids);
    int nids = 0;
    pthread_mutex_lock(&s->outputs_lock);
    for (int i = 0; i < n; i++) {
        int sid = deps[i]->shuffle_id;
        shuffle_slot *slot = cs_dag_shuffle(s, sid);
        if (!slot) continue;
        cs_dag_outputs_clear(&slot->outputs);
        cs_dag_stage_free(slot->stage);
        cs_hmap_del(&s->shuffles, (uint64_t)sid);
        free(slot);
        ids[nids++] = sid;
    }
    pthread_mutex_unlock(&s->outputs_lock);
    pthread_mutex_unlock(&s->dag_lock);
    if (nids > 0 && s->backend->remove_shuffles) s->backend->remove_shuffles(s->backend, ids, nids);
    CS_DEBUG("scheduler", "event=shuffles_removed shuffles=%d", nids);
    free(ids);
    return true;
}

/* The block registry is the map-output tracker's sibling for cached partitions (Spark's
 * BlockManagerMaster): unpersisting forgets them there, has the backend drop them and tells the
 * listeners. */
void cs_scheduler_unpersist(scheduler *s, int rdd_id)
{
    cs_block_registry_remove_rdd(s->blocks, rdd_id);
    if (s->backend->remove_rdd) s->backend->remove_rdd(s->backend, rdd_id);
    /* the Storage view forgets it too (Spark's SparkListenerUnpersistRDD) */
    cs_event ev = {.kind = CS_EV_UNPERSIST_RDD, .rdd_id = rdd_id, .job_id = -1};
    cs_listener_bus_post(s->opt.bus, &ev);
}

int cs_scheduler_blocks_on(scheduler *s, const char *executor_id, cs_block_status **out)
{
    return cs_block_registry_blocks_of(s->blocks, executor_id, out);
}

void cs_scheduler_block_moved(scheduler *s, const cs_block_holder *from, const cs_block_holder *to,
                              const cs_block_status *st)
{
    cs_block_registry_update(s->blocks, to->executor_id, st);
    cs_block_status gone = *st;
    gone.level = CSPARK_STORAGE_NONE;
    gone.memory_size = gone.disk_size = 0;
    cs_block_registry_update(s->blocks, from->executor_id, &gone);
    CS_INFO("scheduler", "event=rdd_block_moved block=rdd_%d_%d from=%s to=%s", st->rdd_id,
            st->partition, cs_log_value(from->executor_id), cs_log_value(to->executor_id));
    const cs_block_holder *who[2] = {to, from};
    const cs_block_status *what[2] = {st, &gone};
    for (int i = 0; i < 2; i++) {
        cs_event ev = {.kind = CS_EV_BLOCK_UPDATED,
                       .time_ms = cs_now_ms(),
                       .executor_id = who[i]->executor_id,
                       .host = who[i]->host && *who[i]->host ? who[i]->host : "localhost",
                       .block_port = who[i]->port,
                       .updated_blocks = what[i],
                       .num_updated_blocks = 1};
        cs_listener_bus_post(s->opt.bus, &ev);
    }
}
