/*
 * local_backend.c — worker-thread pool for local mode (see local_backend.h). Tasks wait in the
 * task scheduler (sched/task_scheduler.h), which places them; each of the N workers, when idle,
 * offers its core as executor "driver" and runs the task it is given on its own thread, then
 * hands the result to the scheduler. revive_offers wakes an idle worker. Workers are started
 * lazily on the first revive, so a context that runs no job costs no threads. The `local` row of
 * the cluster manager registry is at the end.
 *
 * The task reaper (common/shutdown.h): a thread cannot be killed, so a task that ignores its
 * kill past spark.task.reaper.killTimeout is reported failed and its worker is abandoned — it
 * ends when the task returns, reporting nothing, and keeps the task's descriptor (which its task
 * context points into) until then (cs_scheduler_task_retain/release) — and a new worker takes its
 * place. At stop, workers still running an abandoned task are left to the process's exit: the
 * backend is not freed (they use it) and the driver ends with _exit after its cleanup
 * (src/api/app.c).
 *
 * Memory: the tasks run in the driver, so the driver process gets the data limit an executor of
 * the same memory gets from local-cluster (common/memtune.h): spark.executor.memory when set,
 * else spark.driver.memory, plus Spark's overhead; a task allocating beyond it gets NULL from
 * malloc and fails naming the limit, rather than the host's OOM killer ending the driver. It is
 * logged as event=memory_limit; not set in sanitizer builds, or when the process already maps
 * nearly that much or runs under a lower limit (logged with the reason).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/local/local_backend.h"
#include "common/clock.h"
#include "common/err.h"
#include "common/log.h"
#include "common/memtune.h"
#include "common/shutdown.h"
#include "exec/exec_services.h"
#include "exec/task_context.h"
#include "sched/task_scheduler.h"
#include "shuffle/shuffle.h"
#include "storage/block_manager.h"

struct local_backend;

typedef struct worker {
    struct local_backend *b;
    pthread_t thread;
    const task_desc *task; /* the task it runs, NULL when idle (under the lock) */
    bool handed;           /* task was given to it by another worker's round of offers */
    cs_locality_level handed_level;
    bool abandoned; /* the reaper gave up on its task: it ends when the task returns */
    bool finished;  /* abandoned, and its task has returned: joinable */
} worker;

typedef struct local_backend {
    sched_backend base;
    exec_env env;
    int threads;
    worker **workers; /* the N live ones, then the abandoned ones */
    int num_workers;
    bool started, stopping;
    pthread_mutex_t lock;
    pthread_cond_t cond; /* revive_offers and stop wake idle workers */
} local_backend;

/* The task scheduler's next task for worker self, or NULL: the round offers every idle worker's
 * core at once (a barrier stage's tasks launch together or not at all), self takes the first task
 * given and the other idle workers the rest (handed). Lock held (the backend's lock is taken
 * before the task scheduler's, which never calls back). */
static const task_desc *next_task(local_backend *b, worker *self, cs_locality_level *level)
{
    worker **idle = cs_xcalloc((size_t)b->num_workers + 1, sizeof *idle);
    int nidle = 0;
    idle[nidle++] = self;
    for (int i = 0; i < b->num_workers; i++) {
        worker *w = b->workers[i];
        if (w != self && !w->task && !w->abandoned && !w->finished) idle[nidle++] = w;
    }
    cs_offer offer = {b->env.executor_id, b->env.host, nidle, b->env.block_port};
    cs_task_assignment *a = cs_xcalloc((size_t)nidle, sizeof *a);
    int n = cs_task_scheduler_resource_offers(b->base.tasks, &offer, 1, cs_mono_ms(), a, nidle);
    const task_desc *t = NULL;
    if (n > 0) {
        t = a[0].t;
        *level = a[0].level;
    }
    for (int i = 1; i < n; i++) { /* each to an idle worker, which runs it when it wakes */
        idle[i]->task = a[i].t;
        idle[i]->handed = true;
        idle[i]->handed_level = a[i].level;
    }
    if (n > 1) pthread_cond_broadcast(&b->cond);
    free(a);
    free(idle);
    return t;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    local_backend *b = w->b;
    cs_task_thread_init();
    for (;;) {
        pthread_mutex_lock(&b->lock);
        const task_desc *t = NULL;
        cs_locality_level level = CS_LOCALITY_PROCESS_LOCAL;
        for (;;) {
            if (w->handed) { /* given by another worker's round: runs even when stopping */
                t = w->task;
                level = w->handed_level;
                w->handed = false;
                break;
            }
            if (b->stopping || (t = next_task(b, w, &level))) break;
            pthread_cond_wait(&b->cond, &b->lock);
        }
        if (!t) {
            pthread_mutex_unlock(&b->lock);
            break;
        }
        w->task = t;
        pthread_mutex_unlock(&b->lock);

        task_result r;
        cs_task_result_init(&r);
        /* one process holds every block: the task set gives PROCESS_LOCAL, as Spark's local mode */
        cs_scheduler_task_started(b->base.sched, t, b->env.executor_id, b->env.host, level);
        cs_task_run(&b->env, t, &r);
        pthread_mutex_lock(&b->lock);
        w->task = NULL;
        bool abandoned = w->abandoned;
        w->finished = abandoned;
        pthread_mutex_unlock(&b->lock);
        if (abandoned) { /* already reported failed by the reaper */
            cs_task_result_free(&r);
            cs_scheduler_task_release(t);
            cs_shutdown_task_abandoned(-1);
            break;
        }
        cs_scheduler_task_done(b->base.sched, t, &r);
    }
    cs_task_thread_fini();
    return NULL;
}

/* Starts one more worker (lock held). */
static void add_worker(local_backend *b)
{
    worker *w = cs_xcalloc(1, sizeof *w);
    w->b = b;
    b->workers = cs_xrealloc(b->workers, (size_t)(b->num_workers + 1) * sizeof *b->workers);
    b->workers[b->num_workers++] = w;
    if (pthread_create(&w->thread, NULL, worker_main, w) != 0) {
        CS_WARN("local", "event=worker_start_failed");
        b->num_workers--;
        free(w);
    }
}

static void local_revive_offers(sched_backend *base)
{
    local_backend *b = (local_backend *)base;
    pthread_mutex_lock(&b->lock);
    if (!b->started) {
        b->started = true;
        for (int i = 0; i < b->threads; i++)
            add_worker(b);
    }
    pthread_cond_broadcast(&b->cond); /* a task set may have queued many tasks */
    pthread_mutex_unlock(&b->lock);
}

/* Running tasks see their job's cancelled flag (task_desc.cancelled) and stop by themselves. */
static void local_cancel_all(sched_backend *base)
{
    (void)base;
}

/* The task reaper: running tasks that were killed are reported failed and their workers
 * abandoned (a thread cannot be killed); new workers take their places. Tasks of other jobs run
 * on. */
static int local_reap(sched_backend *base, const char *reason)
{
    local_backend *b = (local_backend *)base;
    pthread_mutex_lock(&b->lock);
    int n = 0;
    const task_desc **left = cs_xcalloc((size_t)b->num_workers + 1, sizeof *left);
    for (int i = 0; i < b->num_workers; i++) {
        worker *w = b->workers[i];
        if (w->abandoned || !w->task || !cs_task_desc_cancelled(w->task)) continue;
        w->abandoned = true;
        cs_scheduler_task_retain(w->task); /* before the worker can see abandoned */
        left[n++] = w->task;
    }
    for (int i = 0; i < n && !b->stopping; i++)
        add_worker(b);
    pthread_mutex_unlock(&b->lock);
    for (int i = 0; i < n; i++) {
        cs_shutdown_task_abandoned(1);
        CS_WARN("local", "event=task_abandoned task=%lld stage=%d.%d partition=%d reason=\"%s\"",
                (long long)left[i]->task_id, left[i]->stage_id, left[i]->stage_attempt,
                left[i]->partition, reason);
        cs_scheduler_task_killed(b->base.sched, left[i],
                                 CS_TASK_REAPED "%s; its thread is left running", reason);
    }
    free(left);
    return n;
}

/* Barrier tasks of this process ask the scheduler's coordinator directly. */
static int local_barrier_sync(void *arg, const task_desc *t, int epoch, int method,
                              const char *message, char ***msgs, int *n, cs_error *err)
{
    local_backend *b = arg;
    return cs_scheduler_barrier_sync(b->base.sched, t, epoch, method, message, msgs, n, err);
}

static int local_total_cores(sched_backend *base)
{
    return ((local_backend *)base)->threads;
}

static void local_stop(sched_backend *base)
{
    local_backend *b = (local_backend *)base;
    pthread_mutex_lock(&b->lock);
    b->stopping = true;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    int left = 0;
    for (int i = 0; i < b->num_workers; i++) {
        worker *w = b->workers[i];
        pthread_mutex_lock(&b->lock);
        bool running = w->abandoned ? !w->finished : w->task != NULL && cs_shutdown_exit_pending();
        pthread_mutex_unlock(&b->lock);
        if (running) {
            left++; /* it still runs user code: the process ends without joining it */
            pthread_detach(w->thread);
        } else {
            pthread_join(w->thread, NULL);
        }
    }
    if (left > 0) {
        CS_WARN("local",
                "event=threads_left_running tasks=%d: the driver exits without joining "
                "them",
                left);
        return; /* they use the backend: it stays until the process exits */
    }
    for (int i = 0; i < b->num_workers; i++)
        free(b->workers[i]);
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->cond);
    free(b->workers);
    cs_block_manager_free(b->env.block_manager);
    cs_exec_services_free(b->env.services); /* the tasks' Python workers end */
    free(b);
}

static void local_remove_rdd(sched_backend *base, int rdd_id)
{
    local_backend *b = (local_backend *)base;
    if (b->env.block_manager) cs_block_manager_remove_rdd(b->env.block_manager, rdd_id);
}

static void local_remove_shuffles(sched_backend *base, const int *ids, int n)
{
    local_backend *b = (local_backend *)base;
    cs_shuffle_remove_files(b->env.local_dir, ids, n);
}

sched_backend *cs_local_backend_new(int threads, const exec_env *env)
{
    local_backend *b = cs_xcalloc(1, sizeof *b);
    b->base.revive_offers = local_revive_offers;
    b->base.total_cores = local_total_cores;
    b->base.cancel_all = local_cancel_all;
    b->base.stop = local_stop;
    b->base.reap = local_reap;
    b->base.remove_rdd = local_remove_rdd;
    b->base.remove_shuffles = local_remove_shuffles;
    b->env = *env;
    b->threads = threads > 0 ? threads : 1;
    b->env.cores = b->threads;
    b->env.barrier_sync = local_barrier_sync;
    b->env.barrier_arg = b;
    if (!b->env.services) b->env.services = cs_exec_services_new();
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->cond, NULL);
    return &b->base;
}

/* ---- the cluster manager ------------------------------------------------------------------- */

static bool local_can_create(const char *url)
{
    return strcmp(url, "local") == 0 || strncmp(url, "local[", 6) == 0;
}

static int local_parallelism(const cs_conf *conf, const cs_master *m, int *out, cs_error *err)
{
    *out = m->threads > 0 ? m->threads : 1;
    return 0;
}

/* Limits the driver's data to what an executor of its memory gets (see the file's header). */
static void limit_driver_memory(const cluster_env *env)
{
    const char *key = cs_conf_contains(env->conf, "spark.executor.memory") ? "spark.executor.memory"
                                                                           : "spark.driver.memory";
    int threads = env->master->threads > 0 ? env->master->threads : 1;
    int64_t limit = cs_memtune_data_limit(env->local_memory >> 20, threads);
    const char *why = NULL;
    int rc = cs_memtune_limit_self(limit, &why);
    if (rc < 0) why = "setrlimit failed";
    if (rc != 0) {
        CS_INFO("local", "executor=driver event=memory_limit_not_set memory_mb=%lld reason=%s",
                (long long)(env->local_memory >> 20), cs_log_quote(why));
        return;
    }
    char note[256];
    snprintf(note, sizeof note,
             "the driver, which runs the tasks in local mode, is limited to %lld MiB of memory: "
             "%s %lld MiB plus overhead",
             (long long)(limit >> 20), key, (long long)(env->local_memory >> 20));
    cs_memory_limit_note_set(note);
    CS_INFO("local", "executor=driver event=memory_limit data_limit_mb=%lld key=%s",
            (long long)(limit >> 20), key);
}

/* The executor is the driver: tasks read shuffle blocks from its own local directory and keep
 * cached partitions in its block manager (owned by the backend from here). */
static sched_backend *local_create(const cluster_env *env, cs_error *err)
{
    block_manager_options bo = {.local_dir = env->local_dir,
                                .executor_memory = env->local_memory,
                                .slots = env->master->threads > 0 ? env->master->threads : 1,
                                .checksum = env->shuffle_checksum};
    cs_map_status_opts so;
    if (cs_block_manager_options_read(env->conf, &bo, err) < 0 ||
        cs_map_status_opts_read(env->conf, &so, err) < 0)
        return NULL;
    limit_driver_memory(env);
    exec_env xenv = {.executor_id = "driver",
                     .host = "localhost",
                     .local_dir = env->local_dir,
                     .task_memory_budget = env->task_memory_budget,
                     .shuffle_compress = env->shuffle_compress,
                     .shuffle_in_process = true, /* one process: no map output leaves it */
                     .shuffle_checksum = env->shuffle_checksum,
                     .map_status_opts = so,
                     .blocks = cs_shuffle_local_source(env->local_dir),
                     .broadcasts = env->broadcasts, /* tasks read the driver's copies */
                     .conf = env->conf,
                     .block_manager = cs_block_manager_new(&bo)};
    return cs_local_backend_new(env->master->threads, &xenv);
}

const cluster_manager cs_local_manager = {
    .name = "local",
    .dynamic_allocation = false,
    .can_create = local_can_create,
    .default_parallelism = local_parallelism,
    .create = local_create,
};
