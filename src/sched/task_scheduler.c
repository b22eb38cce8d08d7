/*
 * task_scheduler.c — Spark's TaskSchedulerImpl over task sets (see task_scheduler.h): the pool in
 * FIFO order and the offer rounds; the attempts' state machine and delay scheduling are the task
 * set manager's (task_set_manager.c). Called by the DAG scheduler (submit, add, remove) and by
 * the backends (offers). Also cs_scheduler_options_read: the scheduler's settings (stage
 * attempts, the result size limit, the task reaper, the locality waits).
 */
#include "sched/task_scheduler.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/conf_entries.h"
#include "common/log.h"
#include "common/shutdown.h"
#include "sched/scheduler.h"

/* A pool of FAIR scheduling (Spark's Pool under the root pool): its sets are taken in FIFO order,
 * the pools by Spark's FairSchedulingAlgorithm. Made on first use, as Spark's
 * FairSchedulableBuilder makes a pool an allocation file does not name: minShare 0, weight 1. */
typedef struct sched_pool {
    char *name;
    int min_share, weight;
    int running; /* attempts of its sets given to executors and not ended yet */
} sched_pool;

struct cs_task_scheduler {
    pthread_mutex_t lock;
    cs_locality_waits waits;
    int max_task_failures;
    bool fair;         /* spark.scheduler.mode=FAIR: pools share the cores (else one FIFO queue) */
    sched_pool *pools; /* [0] is "default"; every set belongs to one (cs_task_set_pool) */
    int npools, cap_pools;
    cs_task_set **pool; /* FIFO order: job id, then stage id */
    int npool, cap_pool;
    int npending; /* attempts pending in the pool's sets */
    unsigned rr;  /* the offer each round starts at, so that executors take turns */
    /* the executors alive, as the offers tell them (owned copies of their ids and hosts); the
     * view's epoch changes with them, so that task sets recompute their levels then only */
    cs_offer *alive;
    int cap_alive;
    cs_alive_executors alive_view;
};

/* Spark's spark.locality.wait.* keys, nearest level first. */
static const char *const wait_keys[] = {"spark.locality.wait.process", "spark.locality.wait.node",
                                        "spark.locality.wait.rack"};

int cs_locality_waits_read(const cs_conf *conf, cs_locality_waits *w, cs_error *err)
{
    int64_t *out[] = {&w->process_ms, &w->node_ms, &w->rack_ms};
    for (int i = 0; i < 3; i++) {
        if (cs_conf_entry_duration_ms(conf, wait_keys[i], out[i], err) < 0) return err->code;
        if (*out[i] < 0)
            return cs_error_set(err, CS_EINVAL,
                                "invalid value for %s: '%lld ms' (expected a duration >= 0)",
                                wait_keys[i], (long long)*out[i]);
    }
    return 0;
}

/* Frees the copies of the executors alive (lock held). */
static void forget_executors(cs_task_scheduler *ts)
{
    for (int i = 0; i < ts->alive_view.n; i++) {
        free((char *)ts->alive[i].executor_id);
        free((char *)ts->alive[i].host);
    }
    ts->alive_view.n = 0;
}

static bool same_text(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Spark's executorAdded / executorLost as the offers tell them: a backend offers every executor
 * that can take tasks, so one offered for the first time was added, and one no longer offered was
 * lost (or is decommissioning or being removed: no longer alive for locality, as Spark's
 * isExecutorAlive). When they changed, the epoch does, and task sets with preferences recompute
 * their levels. Lock held. */
static void note_executors(cs_task_scheduler *ts, const cs_offer *offers, int n)
{
    if (n == ts->alive_view.n) {
        int i = 0;
        while (i < n && same_text(offers[i].executor_id, ts->alive[i].executor_id) &&
               same_text(offers[i].host, ts->alive[i].host))
            i++;
        if (i == n) return;
    }
    forget_executors(ts);
    if (n > ts->cap_alive) {
        ts->cap_alive = n;
        ts->alive = cs_xrealloc(ts->alive, (size_t)n * sizeof *ts->alive);
    }
    for (int i = 0; i < n; i++)
        ts->alive[i] = (cs_offer){cs_xstrdup(offers[i].executor_id),
                                  offers[i].host ? cs_xstrdup(offers[i].host) : NULL, 0};
    ts->alive_view.execs = ts->alive;
    ts->alive_view.n = n;
    ts->alive_view.epoch++;
}

/* The index of the pool named name, made with Spark's defaults when new. Lock held. */
static int pool_index(cs_task_scheduler *ts, const char *name)
{
    for (int i = 0; i < ts->npools; i++)
        if (strcmp(ts->pools[i].name, name) == 0) return i;
    if (ts->npools == ts->cap_pools) {
        ts->cap_pools = ts->cap_pools ? ts->cap_pools * 2 : 4;
        ts->pools = cs_xrealloc(ts->pools, (size_t)ts->cap_pools * sizeof *ts->pools);
    }
    ts->pools[ts->npools] = (sched_pool){cs_xstrdup(name), 0, 1, 0};
    return ts->npools++;
}

cs_task_scheduler *cs_task_scheduler_new(const cs_locality_waits *waits, int max_task_failures)
{
    cs_task_scheduler *ts = cs_xcalloc(1, sizeof *ts);
    pthread_mutex_init(&ts->lock, NULL);
    ts->waits = *waits;
    ts->max_task_failures = max_task_failures;
    pool_index(ts, CS_DEFAULT_POOL);
    return ts;
}

void cs_task_scheduler_use_fair(cs_task_scheduler *ts)
{
    ts->fair = true;
}

void cs_task_scheduler_free(cs_task_scheduler *ts)
{
    if (!ts) return;
    pthread_mutex_destroy(&ts->lock);
    forget_executors(ts);
    free(ts->alive);
    free(ts->pool);
    for (int i = 0; i < ts->npools; i++)
        free(ts->pools[i].name);
    free(ts->pools);
    free(ts);
}

cs_task_set *cs_task_scheduler_submit(cs_task_scheduler *ts, int job_id, int stage_id, int attempt,
                                      int num_tasks, int *failures, int *attempts, int64_t now_ms)
{
    cs_task_set *m = cs_task_set_new(job_id, stage_id, attempt, num_tasks, ts->max_task_failures,
                                     &ts->waits, failures, attempts, now_ms);
    pthread_mutex_lock(&ts->lock);
    if (ts->npool == ts->cap_pool) {
        ts->cap_pool = ts->cap_pool ? ts->cap_pool * 2 : 8;
        ts->pool = cs_xrealloc(ts->pool, (size_t)ts->cap_pool * sizeof *ts->pool);
    }
    int at = ts->npool; /* after every set of a lower (job, stage) */
    while (at > 0 && (cs_task_set_job(ts->pool[at - 1]) > job_id ||
                      (cs_task_set_job(ts->pool[at - 1]) == job_id &&
                       cs_task_set_stage(ts->pool[at - 1]) > stage_id)))
        at--;
    memmove(ts->pool + at + 1, ts->pool + at, (size_t)(ts->npool - at) * sizeof *ts->pool);
    ts->pool[at] = m;
    ts->npool++;
    pthread_mutex_unlock(&ts->lock);
    return m;
}

void cs_task_scheduler_set_pool(cs_task_scheduler *ts, cs_task_set *m, const char *pool)
{
    pthread_mutex_lock(&ts->lock);
    cs_task_set_set_pool(m, pool_index(ts, pool && *pool ? pool : CS_DEFAULT_POOL));
    pthread_mutex_unlock(&ts->lock);
}

void cs_task_scheduler_task_ended(cs_task_scheduler *ts, const cs_task_set *m)
{
    pthread_mutex_lock(&ts->lock);
    sched_pool *p = &ts->pools[cs_task_set_pool(m)];
    if (p->running > 0) p->running--;
    pthread_mutex_unlock(&ts->lock);
}

void cs_task_scheduler_add(cs_task_scheduler *ts, cs_task_set *m, const task_desc *const *t,
                           const int *indexes, int n)
{
    pthread_mutex_lock(&ts->lock);
    cs_task_set_add(m, t, indexes, n);
    ts->npending += n;
    pthread_mutex_unlock(&ts->lock);
}

int cs_task_scheduler_remove(cs_task_scheduler *ts, cs_task_set *m, const task_desc ***out)
{
    *out = NULL;
    pthread_mutex_lock(&ts->lock);
    int at = 0;
    while (at < ts->npool && ts->pool[at] != m)
        at++;
    if (at == ts->npool) {
        pthread_mutex_unlock(&ts->lock);
        return 0;
    }
    memmove(ts->pool + at, ts->pool + at + 1, (size_t)(ts->npool - at - 1) * sizeof *ts->pool);
    ts->npool--;
    int n = cs_task_set_pending(m);
    if (n > 0) *out = cs_xcalloc((size_t)n, sizeof **out);
    n = cs_task_set_withdraw(m, n > 0 ? *out : NULL);
    ts->npending -= n;
    pthread_mutex_unlock(&ts->lock);
    return n;
}

/* The executors alive for a set whose levels depend on them (cs_alive_fn): checked against this
 * round's offers once per round, on the first call. */
typedef struct offer_round {
    cs_task_scheduler *ts;
    const cs_offer *offers;
    int n;
    bool noted;
} offer_round;

static const cs_alive_executors *alive_this_round(void *arg)
{
    offer_round *r = arg;
    if (!r->noted) {
        note_executors(r->ts, r->offers, r->n);
        r->noted = true;
    }
    return &r->ts->alive_view;
}

/* Spark's FairSchedulingAlgorithm: whether pool a goes before pool b. A pool running fewer tasks
 * than its minShare is needy and goes first (the lower running / minShare first among needy
 * ones); otherwise the lower running / weight first; ties by name. */
static bool fair_before(const sched_pool *a, const sched_pool *b)
{
    bool a_needy = a->running < a->min_share, b_needy = b->running < b->min_share;
    if (a_needy != b_needy) return a_needy;
    double ra, rb;
    if (a_needy) {
        ra = a->running / (double)(a->min_share > 1 ? a->min_share : 1);
        rb = b->running / (double)(b->min_share > 1 ? b->min_share : 1);
    } else {
        ra = a->running / (double)a->weight;
        rb = b->running / (double)b->weight;
    }
    if (ra != rb) return ra < rb;
    return strcmp(a->name, b->name) < 0;
}

/* The order task sets are offered cores in this round (Spark's getSortedTaskSetQueue, sorted once
 * per round): FIFO, the pool's sets by job then stage; FAIR, the pools by fair_before, each
 * pool's sets FIFO. order gets ts->npool indexes into ts->pool. Lock held. */
static void offer_order(cs_task_scheduler *ts, int *order)
{
    if (!ts->fair) {
        for (int i = 0; i < ts->npool; i++)
            order[i] = i;
        return;
    }
    int *pools = cs_xcalloc((size_t)ts->npools, sizeof *pools);
    for (int i = 0; i < ts->npools; i++) { /* insertion sort: few pools */
        int at = i;
        while (at > 0 && fair_before(&ts->pools[i], &ts->pools[pools[at - 1]])) {
            pools[at] = pools[at - 1];
            at--;
        }
        pools[at] = i;
    }
    int n = 0;
    for (int p = 0; p < ts->npools; p++)
        for (int i = 0; i < ts->npool; i++)
            if (cs_task_set_pool(ts->pool[i]) == pools[p]) order[n++] = i;
    free(pools);
}

/* Spark's rule for a barrier task set: every one of its tasks launches in this round, or none
 * does ("Skip current round of resource offers for barrier stage"): only a set whose tasks are
 * all pending, with as many free cores in the round (and room in out). The tasks' addresses
 * ("host:port" of their offers, in partition order) go to their shared cs_barrier_launch before
 * any is handed out. Lock held. */
static int offer_barrier(cs_task_scheduler *ts, cs_task_set *m, cs_offer *offers, int n, int start,
                         int64_t now_ms, cs_task_assignment *out, int room)
{
    int want = cs_task_set_barrier(m), free_cores = 0;
    for (int i = 0; i < n; i++)
        free_cores += offers[i].free_cores > 0 ? offers[i].free_cores : 0;
    if (cs_task_set_pending(m) != want || free_cores < want || room < want) {
        if (cs_task_set_pending(m) == want)
            CS_DEBUG("scheduler", "stage=%d event=barrier_offer_skipped tasks=%d free_cores=%d",
                     cs_task_set_stage(m), want, free_cores);
        return 0;
    }
    int nout = 0, launched;
    do {
        launched = cs_task_set_offer_pass(m, offers, n, start, CS_LOCALITY_ANY, now_ms, out + nout,
                                          want - nout);
        nout += launched;
    } while (launched > 0 && nout < want);
    ts->npending -= nout;
    ts->pools[cs_task_set_pool(m)].running += nout;
    cs_barrier_launch *b = nout > 0 ? out[0].t->barrier : NULL;
    if (!b) return nout;
    /* partition order: the tasks' partitions are 0..want-1 */
    const cs_offer **where = cs_xcalloc((size_t)want + 1, sizeof *where);
    for (int i = 0; i < nout; i++)
        if (out[i].t->partition >= 0 && out[i].t->partition < want)
            where[out[i].t->partition] = &offers[out[i].offer];
    size_t at = 0;
    b->addresses[0] = '\0';
    for (int p = 0; p < want; p++) {
        const cs_offer *o = where[p];
        int w = snprintf(b->addresses + at, b->addresses_cap - at, "%s%s:%d", p ? "," : "",
                         o && o->host ? o->host : "localhost", o ? o->port : 0);
        if (w < 0 || (size_t)w >= b->addresses_cap - at) break;
        at += (size_t)w;
    }
    free(where);
    return nout;
}

int cs_task_scheduler_resource_offers(cs_task_scheduler *ts, cs_offer *offers, int n,
                                      int64_t now_ms, cs_task_assignment *out, int max)
{
    if (n <= 0 || max <= 0) return 0;
    int nout = 0;
    offer_round round = {ts, offers, n, false};
    pthread_mutex_lock(&ts->lock);
    int start = (int)(ts->rr++ % (unsigned)n);
    int *order = cs_xcalloc((size_t)ts->npool + 1, sizeof *order);
    offer_order(ts, order);
    for (int s = 0; s < ts->npool && nout < max; s++) {
        cs_task_set *m = ts->pool[order[s]];
        if (cs_task_set_barrier(m) > 0) {
            nout += offer_barrier(ts, m, offers, n, start, now_ms, out + nout, max - nout);
            continue;
        }
        int nlevels;
        const cs_locality_level *levels =
            cs_task_set_locality_levels(m, alive_this_round, &round, &nlevels);
        for (int l = 0; l < nlevels && nout < max; l++) {
            int launched;
            do {
                launched = cs_task_set_offer_pass(m, offers, n, start, levels[l], now_ms,
                                                  out + nout, max - nout);
                nout += launched;
                ts->npending -= launched;
                ts->pools[cs_task_set_pool(m)].running += launched;
            } while (launched > 0 && nout < max); /* a pass with no launch: no core or task left */
        }
    }
    free(order);
    pthread_mutex_unlock(&ts->lock);
    return nout;
}

bool cs_task_scheduler_has_pending(cs_task_scheduler *ts)
{
    pthread_mutex_lock(&ts->lock);
    bool any = ts->npending > 0;
    pthread_mutex_unlock(&ts->lock);
    return any;
}

/* ---- the scheduler's settings (scheduler.h), read once by the context (api/context.c) ---- */

int cs_scheduler_options_read(const cs_conf *conf, scheduler_options *o, cs_error *err)
{
    int64_t attempts = 4, max_result = 0;
    if (cs_conf_get_int(conf, "spark.stage.maxConsecutiveAttempts", "4", &attempts, err) < 0)
        return err->code;
    if (attempts < 1)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.stage.maxConsecutiveAttempts: '%lld' "
                            "(expected an integer >= 1)",
                            (long long)attempts);
    if (cs_conf_entry_size(conf, "spark.driver.maxResultSize", &max_result, err) < 0)
        return err->code;
    if (cs_task_reaper_timeout(conf, &o->task_kill_timeout_ms, err) < 0) return err->code;
    if (cs_locality_waits_read(conf, &o->locality_waits, err) < 0) return err->code;
    if (cs_conf_entry_string(conf, "spark.scheduler.allocation.file"))
        return cs_error_set(err, CS_EINVAL,
                            "spark.scheduler.allocation.file is not supported: cspark reads no "
                            "allocation file (FAIR pools are made on first use with minShare 0 and "
                            "weight 1); unset it");
    const char *mode = cs_conf_entry_string(conf, "spark.scheduler.mode");
    if (strcasecmp(mode, "FIFO") != 0 && strcasecmp(mode, "FAIR") != 0)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.scheduler.mode: '%s' (expected FIFO or FAIR)",
                            mode);
    o->fair = strcasecmp(mode, "FAIR") == 0;
    int64_t checks = 40;
    if (cs_conf_entry_duration_ms(conf, "spark.barrier.sync.timeout", &o->barrier_sync_timeout_ms,
                                  err) < 0 ||
        cs_conf_entry_duration_ms(conf, "spark.scheduler.barrier.maxConcurrentTasksCheck.interval",
                                  &o->barrier_check_interval_ms, err) < 0 ||
        cs_conf_entry_int(conf, "spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures",
                          &checks, err) < 0)
        return err->code;
    o->barrier_check_max_failures = (int)checks;
    o->task_reaper = o->task_kill_timeout_ms >= 0;
    o->max_stage_attempts = (int)attempts;
    o->max_result_size = max_result;
    return 0;
}
