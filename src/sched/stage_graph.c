/*
 * stage_graph.c — the DAG scheduler's stages (see dag_scheduler_internal.h): a job's result stage
 * is linked to the shuffle-map stages of the shuffles its narrow lineage reads, each created once
 * per application and keyed by shuffle id (parents first, so they get the lower ids, as Spark's
 * getOrCreateShuffleMapStage), with its slot in the map-output tracker (a shuffle_slot in the
 * scheduler's map of live shuffles); and the memory a stage
 * owns until the application stops (or its shuffle is removed: map_output_tracker.c); and the
 * walks of a job's stages (whether a job needs a stage, its attempts in flight), which tell the
 * concurrent jobs' stages apart. Called by
 * dag_scheduler.c with dag_lock held; a slot is added to the map with outputs_lock held too, as
 * other threads read it.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sched/dag_scheduler_internal.h"

static stage *shuffle_stage(scheduler *s, shuffle_dep *dep, int job_id);

/* Collects the shuffle dependencies read by the narrow lineage of rdd (stopping at them; a
 * shuffled node's narrow parents are part of that lineage). */
static void collect_reads(cspark_rdd *rdd, shuffle_dep ***out, int *n, int *cap, cspark_rdd ***seen,
                          int *nseen, int *capseen)
{
    for (int i = 0; i < *nseen; i++)
        if ((*seen)[i] == rdd) return;
    if (*nseen == *capseen) {
        *capseen = *capseen ? *capseen * 2 : 16;
        *seen = cs_xrealloc(*seen, (size_t)*capseen * sizeof **seen);
    }
    (*seen)[(*nseen)++] = rdd;
    if (rdd->num_deps > 0) { /* shuffled nodes and SQL stages (RDD_SQL_EXEC) */
        for (int d = 0; d < rdd->num_deps; d++) {
            bool dup = false;
            for (int i = 0; i < *n; i++)
                dup |= (*out)[i] == rdd->deps[d];
            if (dup) continue;
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 4;
                *out = cs_xrealloc(*out, (size_t)*cap * sizeof **out);
            }
            (*out)[(*n)++] = rdd->deps[d];
        }
        /* and its parents read narrowly, if any (a side already partitioned as it is) */
    }
    for (int p = 0; p < rdd->num_parents; p++)
        collect_reads(rdd->parents[p], out, n, cap, seen, nseen, capseen);
}

void cs_dag_stage_link(scheduler *s, stage *st, int job_id)
{
    int cap = 0, nseen = 0, capseen = 0;
    cspark_rdd **seen = NULL;
    collect_reads(st->rdd, &st->reads, &st->num_reads, &cap, &seen, &nseen, &capseen);
    free(seen);
    st->parents = cs_xcalloc((size_t)st->num_reads + 1, sizeof *st->parents);
    for (int i = 0; i < st->num_reads; i++)
        st->parents[st->num_parents++] = shuffle_stage(s, st->reads[i], job_id);
}

void cs_dag_stage_link_shuffles(scheduler *s, stage *st, shuffle_dep *const *deps, int n,
                                int job_id)
{
    st->reads = cs_xcalloc((size_t)n + 1, sizeof *st->reads);
    st->parents = cs_xcalloc((size_t)n + 1, sizeof *st->parents);
    for (int i = 0; i < n; i++) {
        st->reads[st->num_reads++] = deps[i];
        st->parents[st->num_parents++] = shuffle_stage(s, deps[i], job_id);
    }
}

static stage *shuffle_stage(scheduler *s, shuffle_dep *dep, int job_id)
{
    shuffle_slot *slot = cs_dag_shuffle(s, dep->shuffle_id);
    if (slot) return slot->stage;
    stage *st = cs_xcalloc(1, sizeof *st);
    st->attempt = -1;
    st->rdd = dep->parent;
    st->dep = dep;
    st->num_tasks = dep->parent->num_partitions;
    st->failures = cs_xcalloc((size_t)st->num_tasks + 1, sizeof *st->failures);
    st->attempts = cs_xcalloc((size_t)st->num_tasks + 1, sizeof *st->attempts);
    st->first_job = job_id;
    st->done_once = cs_xcalloc((size_t)st->num_tasks + 1, sizeof *st->done_once);
    st->shuffle_sink.kind = SINK_SHUFFLE;
    st->shuffle_sink.dep = dep;
    slot = cs_xcalloc(1, sizeof *slot);
    slot->stage = st;
    slot->outputs.num_maps = st->num_tasks;
    slot->outputs.maps = cs_xcalloc((size_t)st->num_tasks + 1, sizeof *slot->outputs.maps);
    pthread_mutex_lock(&s->outputs_lock);
    cs_hmap_put(&s->shuffles, (uint64_t)dep->shuffle_id, (uint64_t)(uintptr_t)slot);
    pthread_mutex_unlock(&s->outputs_lock);
    cs_dag_stage_link(s, st, job_id); /* parents first, so they get the lower ids, as in Spark */
    st->id = s->next_stage_id++;
    return st;
}

/* Zeroed memory owned by the stage until the application stops. */
void *cs_dag_stage_alloc(stage *st, size_t n)
{
    if (st->num_allocs == st->cap_allocs) {
        st->cap_allocs = st->cap_allocs ? st->cap_allocs * 2 : 4;
        st->attempt_allocs =
            cs_xrealloc(st->attempt_allocs, (size_t)st->cap_allocs * sizeof(void *));
    }
    return st->attempt_allocs[st->num_allocs++] = cs_xcalloc(1, n);
}

void cs_dag_stage_free(stage *st)
{
    free(st->parents);
    free(st->reads);
    free(st->done_once);
    for (int i = 0; i < st->num_task_sets; i++)
        cs_task_set_free(st->task_sets[i]);
    free(st->task_sets);
    free(st->failures);
    free(st->attempts);
    for (int i = 0; i < st->num_allocs; i++)
        free(st->attempt_allocs[i]);
    free(st->attempt_allocs);
    free(st->name);
    free(st);
}

/* ---- walks of a job's stages (dag_lock held) ---- */

/* Whether st is `from` or a stage `from` reads through its parents (dag_lock held). */
static bool reaches(const stage *from, const stage *st, unsigned epoch)
{
    if (from == st) return true;
    if (from->visit == epoch) return false;
    ((stage *)from)->visit = epoch;
    for (int p = 0; p < from->num_parents; p++)
        if (reaches(from->parents[p], st, epoch)) return true;
    return false;
}

/* Whether job j runs stage st (its result stage or one its result stage waits for). */
bool cs_dag_job_needs(scheduler *s, const job *j, const stage *st)
{
    return reaches(j->final, st, ++s->visit_epoch);
}

bool cs_dag_stage_reaches(scheduler *s, const stage *from, const stage *st)
{
    return reaches(from, st, ++s->visit_epoch);
}

/* Attempts in flight of the stages job j runs (dag_lock held). */
int cs_dag_job_in_flight(scheduler *s, const job *j)
{
    int n = 0;
    unsigned epoch = ++s->visit_epoch;
    stage **todo = cs_xcalloc((size_t)s->next_stage_id + 2, sizeof *todo);
    int ntodo = 0;
    todo[ntodo++] = j->final;
    j->final->visit = epoch;
    while (ntodo > 0) {
        stage *st = todo[--ntodo];
        n += st->in_flight;
        for (int p = 0; p < st->num_parents; p++)
            if (st->parents[p]->visit != epoch) {
                st->parents[p]->visit = epoch;
                todo[ntodo++] = st->parents[p];
            }
    }
    free(todo);
    return n;
}
