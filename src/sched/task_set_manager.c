/*
 * task_set_manager.c — Spark's TaskSetManager (see task_set_manager.h for the task attempt's state
 * machine and the delay scheduling rules). Pending attempts are records in one array; the queues
 * (by executor, by host, without preference, all) hold record numbers in FIFO order and skip
 * records already taken (offered or withdrawn) when they reach them, as Spark's pending lists
 * drop finished tasks lazily. Called by the task scheduler (task_scheduler.c, under its lock) and
 * by the DAG scheduler's job thread (failures, successes).
 */
#include "sched/task_set_manager.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

typedef struct pending_rec {
    const task_desc *t;
    int index;
    bool taken;
} pending_rec;

typedef struct rec_queue {
    int *v;
    int head, n, cap;
} rec_queue;

/* The pending attempts that prefer one executor (it holds a cached partition they read). */
typedef struct exec_queue {
    char *executor_id;
    char *host; /* where the executor runs, once known (the block's location or an offer) */
    rec_queue q;
} exec_queue;

struct cs_task_set {
    int job_id, stage_id, attempt, num_tasks, max_failures;
    cs_locality_waits waits;
    /* per index, shared by the stage's attempts when the creator passes them (else owned):
     * counted failures (Spark's numFailures) and the next attempt's number (failures of any kind,
     * as cspark numbers a task's attempts across its stage's attempts) */
    int *failures, *attempts;
    bool owns_counts;
    int *copies_running; /* per index: attempts running (Spark's copiesRunning; speculation) */
    bool zombie;

    pending_rec *recs;
    int nrecs, cap_recs, npending;
    rec_queue all, no_prefs; /* all: the tasks with a preference (Spark's `all` less noPrefs) */
    exec_queue *for_exec;    /* Spark's forExecutor; forHost is the same queues by their host */
    int n_exec;

    cs_locality_level levels[5]; /* valid levels, nearest first */
    int nlevels, cur;            /* cur: Spark's currentLocalityIndex */
    bool levels_stale;           /* tasks were queued since the levels were computed */
    uint64_t levels_epoch;       /* the executors alive they were computed for */
    int64_t last_reset_ms;       /* Spark's lastLocalityWaitResetTime */
    int sched_pool;              /* the task scheduler's pool it is in (FAIR scheduling) */
    int barrier_tasks;           /* a barrier set's task count (all launch at once); 0: none */
};

/* ---- queues ------------------------------------------------------------------------------- */

/* Appends rec; a queue's first allocation takes `hint` records (the set's task count for the
 * queues every task may go to, so that a stage's tasks are queued without reallocation). */
static void queue_push(rec_queue *q, int rec, int hint)
{
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : hint > 16 ? hint : 16;
        q->v = cs_xrealloc(q->v, (size_t)q->cap * sizeof *q->v);
    }
    q->v[q->n++] = rec;
}

/* Drops taken records at the head; true when a pending one remains. */
static bool queue_live(const cs_task_set *m, rec_queue *q)
{
    while (q->head < q->n && m->recs[q->v[q->head]].taken)
        q->head++;
    return q->head < q->n;
}

static exec_queue *exec_queue_of(cs_task_set *m, const char *executor_id, bool create)
{
    for (int i = 0; i < m->n_exec; i++)
        if (strcmp(m->for_exec[i].executor_id, executor_id) == 0) return &m->for_exec[i];
    if (!create) return NULL;
    m->for_exec = cs_xrealloc(m->for_exec, (size_t)(m->n_exec + 1) * sizeof *m->for_exec);
    exec_queue *e = &m->for_exec[m->n_exec++];
    memset(e, 0, sizeof *e);
    e->executor_id = cs_xstrdup(executor_id);
    return e;
}

/* Every record taken: the queues start over (their memory is kept). */
static void reset_queues(cs_task_set *m)
{
    m->nrecs = 0;
    m->all.head = m->all.n = 0;
    m->no_prefs.head = m->no_prefs.n = 0;
    for (int i = 0; i < m->n_exec; i++)
        m->for_exec[i].q.head = m->for_exec[i].q.n = 0;
}

static const task_desc *take(cs_task_set *m, int rec)
{
    pending_rec *r = &m->recs[rec];
    r->taken = true;
    m->copies_running[r->index]++;
    const task_desc *t = r->t;
    if (--m->npending == 0) reset_queues(m);
    return t;
}

/* ---- the set ------------------------------------------------------------------------------ */

cs_task_set *cs_task_set_new(int job_id, int stage_id, int attempt, int num_tasks, int max_failures,
                             const cs_locality_waits *waits, int *failures, int *attempts,
                             int64_t now_ms)
{
    cs_task_set *m = cs_xcalloc(1, sizeof *m);
    m->job_id = job_id;
    m->stage_id = stage_id;
    m->attempt = attempt;
    m->num_tasks = num_tasks;
    m->max_failures = max_failures > 0 ? max_failures : 1;
    m->waits = *waits;
    m->owns_counts = !failures || !attempts;
    m->failures =
        m->owns_counts ? cs_xcalloc((size_t)num_tasks + 1, sizeof *m->failures) : failures;
    m->attempts =
        m->owns_counts ? cs_xcalloc((size_t)num_tasks + 1, sizeof *m->attempts) : attempts;
    m->copies_running = cs_xcalloc((size_t)num_tasks + 1, sizeof *m->copies_running);
    m->levels[0] = CS_LOCALITY_PROCESS_LOCAL; /* the first levels computed start at the nearest */
    m->nlevels = 1;
    m->levels_stale = true;
    m->last_reset_ms = now_ms;
    return m;
}

void cs_task_set_free(cs_task_set *m)
{
    if (!m) return;
    if (m->owns_counts) {
        free(m->failures);
        free(m->attempts);
    }
    free(m->copies_running);
    free(m->recs);
    free(m->all.v);
    free(m->no_prefs.v);
    for (int i = 0; i < m->n_exec; i++) {
        free(m->for_exec[i].executor_id);
        free(m->for_exec[i].host);
        free(m->for_exec[i].q.v);
    }
    free(m->for_exec);
    free(m);
}

int cs_task_set_job(const cs_task_set *m)
{
    return m->job_id;
}

int cs_task_set_stage(const cs_task_set *m)
{
    return m->stage_id;
}

int cs_task_set_pool(const cs_task_set *m)
{
    return m->sched_pool;
}

void cs_task_set_set_pool(cs_task_set *m, int pool)
{
    m->sched_pool = pool;
}

int cs_task_set_attempt(const cs_task_set *m)
{
    return m->attempt;
}

bool cs_task_set_is_zombie(const cs_task_set *m)
{
    return m->zombie;
}

void cs_task_set_set_barrier(cs_task_set *m, int n)
{
    m->barrier_tasks = n;
}

int cs_task_set_barrier(const cs_task_set *m)
{
    return m->barrier_tasks;
}

int cs_task_set_pending(const cs_task_set *m)
{
    return m->npending;
}

int cs_task_set_next_attempt(const cs_task_set *m, int index)
{
    return m->attempts[index];
}

void cs_task_set_add(cs_task_set *m, const task_desc *const *t, const int *indexes, int n)
{
    if (n <= 0) return;
    if (m->nrecs + n > m->cap_recs) {
        int cap = m->cap_recs ? m->cap_recs * 2 : m->num_tasks > 16 ? m->num_tasks : 16;
        m->cap_recs = cap >= m->nrecs + n ? cap : m->nrecs + n;
        m->recs = cs_xrealloc(m->recs, (size_t)m->cap_recs * sizeof *m->recs);
    }
    m->npending += n;
    m->levels_stale = true; /* a level may become valid (Spark adds tasks before computing them) */
    for (int k = 0; k < n; k++) {
        int rec = m->nrecs++;
        m->recs[rec] = (pending_rec){t[k], indexes[k], false};
        for (int i = 0; i < t[k]->num_block_locs; i++) {
            const cs_block_location *l = &t[k]->block_locs[i];
            exec_queue *e = exec_queue_of(m, l->executor_id, true);
            if (!e->host && l->host[0]) e->host = cs_xstrdup(l->host);
            queue_push(&e->q, rec, 16);
        }
        /* a task without preference is dequeued from no_prefs at NO_PREF and at ANY alike */
        queue_push(t[k]->num_block_locs == 0 ? &m->no_prefs : &m->all, rec, m->num_tasks);
    }
}

/* ---- delay scheduling --------------------------------------------------------------------- */

static const cs_offer *alive_executor(const cs_alive_executors *alive, const char *executor_id)
{
    for (int i = 0; i < alive->n; i++)
        if (strcmp(alive->execs[i].executor_id, executor_id) == 0) return &alive->execs[i];
    return NULL;
}

static bool alive_host(const cs_alive_executors *alive, const char *host)
{
    for (int i = 0; i < alive->n; i++)
        if (alive->execs[i].host && strcmp(alive->execs[i].host, host) == 0) return true;
    return false;
}

static int64_t level_wait(const cs_task_set *m, cs_locality_level level)
{
    switch (level) {
    case CS_LOCALITY_PROCESS_LOCAL:
        return m->waits.process_ms;
    case CS_LOCALITY_NODE_LOCAL:
        return m->waits.node_ms;
    case CS_LOCALITY_RACK_LOCAL:
        return m->waits.rack_ms;
    default:
        return 0;
    }
}

/* Spark's getLocalityIndex: the first valid level at least as distant as `level`. */
static int level_index(const cs_task_set *m, cs_locality_level level)
{
    int i = 0;
    while (i < m->nlevels - 1 && level > m->levels[i])
        i++;
    return i;
}

/* Spark's recomputeLocality: the valid levels for these executors alive
 * (computeValidLocalityLevels), the set staying at the level it had reached (or the next valid
 * one). */
static void recompute_locality(cs_task_set *m, const cs_alive_executors *alive)
{
    cs_locality_level previous = m->levels[m->cur];
    bool process = false, node = false;
    for (int i = 0; i < m->n_exec; i++) {
        exec_queue *e = &m->for_exec[i];
        if (!queue_live(m, &e->q)) continue;
        const cs_offer *o = alive_executor(alive, e->executor_id);
        if (o && o->host && (!e->host || strcmp(e->host, o->host) != 0)) {
            free(e->host); /* Spark's executorIdToHost, as the offers tell it */
            e->host = cs_xstrdup(o->host);
        }
        process |= o != NULL;
        node |= e->host && alive_host(alive, e->host);
    }
    int k = 0;
    if (process) m->levels[k++] = CS_LOCALITY_PROCESS_LOCAL;
    if (node) m->levels[k++] = CS_LOCALITY_NODE_LOCAL;
    if (queue_live(m, &m->no_prefs)) m->levels[k++] = CS_LOCALITY_NO_PREF;
    /* RACK_LOCAL: no rack resolver, so no task prefers a rack */
    m->levels[k++] = CS_LOCALITY_ANY;
    m->nlevels = k;
    m->cur = level_index(m, previous);
    m->levels_stale = false;
    m->levels_epoch = alive->epoch;
}

const cs_locality_level *cs_task_set_locality_levels(cs_task_set *m, cs_alive_fn alive, void *arg,
                                                     int *n)
{
    if (m->npending == 0) {
        *n = 0;
        return NULL;
    }
    if (m->n_exec > 0) { /* its levels depend on the executors alive */
        const cs_alive_executors *a = alive(arg);
        if (m->levels_stale || m->levels_epoch != a->epoch) recompute_locality(m, a);
    } else if (m->levels_stale) {
        recompute_locality(m, &(cs_alive_executors){NULL, 0, 0});
    }
    *n = m->nlevels;
    return m->levels;
}

/* Spark's getAllowedLocalityLevel: the most distant level the set may launch at, at now_ms. */
static cs_locality_level allowed_level(cs_task_set *m, int64_t now_ms)
{
    /* a level has tasks left while its queues hold pending records; one computed valid earlier
     * may have none left now */
    while (m->cur < m->nlevels - 1) {
        cs_locality_level level = m->levels[m->cur];
        bool more = false;
        if (level == CS_LOCALITY_PROCESS_LOCAL)
            for (int i = 0; i < m->n_exec && !more; i++)
                more = queue_live(m, &m->for_exec[i].q);
        else if (level == CS_LOCALITY_NODE_LOCAL)
            for (int i = 0; i < m->n_exec && !more; i++)
                more = m->for_exec[i].host && queue_live(m, &m->for_exec[i].q);
        else if (level == CS_LOCALITY_NO_PREF)
            more = queue_live(m, &m->no_prefs);
        if (!more) {
            m->last_reset_ms = now_ms;
            m->cur++;
        } else if (now_ms - m->last_reset_ms >= level_wait(m, level)) {
            m->last_reset_ms += level_wait(m, level);
            m->cur++;
        } else {
            return level;
        }
    }
    return m->levels[m->cur];
}

/* Spark's dequeueTask: the queue whose head is the first pending attempt for this executor
 * allowed at `allowed`, or NULL; *level gets the level it launches at. */
static rec_queue *dequeue(cs_task_set *m, const cs_offer *o, cs_locality_level allowed,
                          cs_locality_level *level)
{
    exec_queue *e = m->n_exec > 0 ? exec_queue_of(m, o->executor_id, false) : NULL;
    if (e && queue_live(m, &e->q)) {
        *level = CS_LOCALITY_PROCESS_LOCAL;
        return &e->q;
    }
    for (int i = 0; i < m->n_exec && allowed >= CS_LOCALITY_NODE_LOCAL && o->host; i++) {
        e = &m->for_exec[i]; /* Spark's forHost(host): the queues of the executors there */
        if (e->host && strcmp(e->host, o->host) == 0 && queue_live(m, &e->q)) {
            *level = CS_LOCALITY_NODE_LOCAL;
            return &e->q;
        }
    }
    if (allowed >= CS_LOCALITY_NO_PREF && queue_live(m, &m->no_prefs)) {
        *level = CS_LOCALITY_PROCESS_LOCAL; /* as Spark reports a task without preference */
        return &m->no_prefs;
    }
    /* RACK_LOCAL would be dequeued here, by the rack of o->host */
    if (allowed >= CS_LOCALITY_ANY && queue_live(m, &m->all)) {
        *level = CS_LOCALITY_ANY;
        return &m->all;
    }
    /* speculation: a copy of a speculatable running task would be dequeued here, at the same
     * levels, once the regular queues are empty (Spark's dequeueSpeculativeTask) */
    return NULL;
}

/* Spark's resourceOffer: the attempt to launch on executor o at most max_locality, or NULL;
 * *level gets the level it launches at. */
static const task_desc *resource_offer(cs_task_set *m, const cs_offer *o,
                                       cs_locality_level max_locality, int64_t now_ms,
                                       cs_locality_level *level)
{
    cs_locality_level allowed = max_locality;
    if (m->barrier_tasks > 0) /* a barrier set's tasks start together, wherever there is room */
        allowed = CS_LOCALITY_ANY;
    else if (max_locality != CS_LOCALITY_NO_PREF) {
        allowed = allowed_level(m, now_ms);
        if (allowed > max_locality) allowed = max_locality;
    }
    rec_queue *q = dequeue(m, o, allowed, level);
    if (!q) return NULL;
    if (max_locality != CS_LOCALITY_NO_PREF) { /* the wait restarts at the level launched at */
        m->cur = level_index(m, *level);
        m->last_reset_ms = now_ms;
    }
    return take(m, q->v[q->head++]); /* off the queue it came from; the others skip it later */
}

int cs_task_set_offer_pass(cs_task_set *m, cs_offer *offers, int n, int start,
                           cs_locality_level max_locality, int64_t now_ms, cs_task_assignment *out,
                           int room)
{
    int launched = 0;
    if (m->zombie) return 0;
    for (int k = 0, i = start; k < n && launched < room && m->npending > 0;
         k++, i = i + 1 < n ? i + 1 : 0) {
        if (offers[i].free_cores <= 0) continue;
        cs_locality_level level;
        const task_desc *t = resource_offer(m, &offers[i], max_locality, now_ms, &level);
        if (!t) continue;
        out[launched++] = (cs_task_assignment){t, i, level};
        offers[i].free_cores--;
    }
    return launched;
}

int cs_task_set_withdraw(cs_task_set *m, const task_desc **out)
{
    m->zombie = true;
    int n = 0;
    for (int i = 0; i < m->nrecs; i++)
        if (!m->recs[i].taken) {
            m->recs[i].taken = true;
            out[n++] = m->recs[i].t;
        }
    m->npending = 0;
    reset_queues(m);
    return n;
}

/* ---- completions -------------------------------------------------------------------------- */

void cs_task_set_succeeded(cs_task_set *m, int index)
{
    if (m->copies_running[index] > 0) m->copies_running[index]--;
}

cs_task_failure_action cs_task_set_failed(cs_task_set *m, int index, cs_failure_kind kind,
                                          int *failures)
{
    if (m->copies_running[index] > 0) m->copies_running[index]--;
    m->attempts[index]++;
    if (kind == CS_FAILURE_UNLAUNCHABLE) { /* Spark's TaskSetManager.abort */
        m->failures[index] = m->max_failures;
        *failures = m->failures[index];
        return CS_TASK_ABORT;
    }
    if (!m->zombie && kind == CS_FAILURE_COUNTED) m->failures[index]++;
    *failures = m->failures[index];
    if (m->failures[index] >= m->max_failures) return CS_TASK_ABORT;
    return m->zombie ? CS_TASK_IGNORE : CS_TASK_RETRY;
}
