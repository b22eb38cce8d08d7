/*
 * local_backend.c — worker-thread pool for local mode (see local_backend.h). Tasks wait in a
 * FIFO queue; each of the N workers pops one, runs it on its own thread and hands the result to
 * the scheduler. Workers are started lazily on the first launch, so a context that runs no job
 * costs no threads. The `local` row of the cluster manager registry is at the end.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/local/local_backend.h"
#include "common/err.h"
#include "exec/task_context.h"
#include "storage/block_manager.h"

typedef struct queued {
    struct queued *next;
    const task_desc *task;
} queued;

typedef struct local_backend {
    sched_backend base;
    exec_env env;
    int threads;
    pthread_t *workers;
    bool started, stopping;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    queued *head, *tail;
    queued *free_nodes; /* recycled queue nodes */
} local_backend;

static void *worker_main(void *arg)
{
    local_backend *b = arg;
    cs_task_thread_init();
    for (;;) {
        pthread_mutex_lock(&b->lock);
        while (!b->head && !b->stopping)
            pthread_cond_wait(&b->cond, &b->lock);
        if (!b->head) {
            pthread_mutex_unlock(&b->lock);
            cs_task_thread_fini();
            return NULL;
        }
        queued *q = b->head;
        b->head = q->next;
        if (!b->head) b->tail = NULL;
        const task_desc *t = q->task;
        q->next = b->free_nodes;
        b->free_nodes = q;
        pthread_mutex_unlock(&b->lock);

        task_result r;
        cs_task_result_init(&r);
        cs_scheduler_task_started(b->base.sched, t, b->env.executor_id, b->env.host);
        cs_task_run(&b->env, t, &r);
        cs_scheduler_task_done(b->base.sched, t, &r);
    }
}

static void local_launch(sched_backend *base, const task_desc *t)
{
    local_backend *b = (local_backend *)base;
    pthread_mutex_lock(&b->lock);
    if (!b->started) {
        b->started = true;
        for (int i = 0; i < b->threads; i++)
            pthread_create(&b->workers[i], NULL, worker_main, b);
    }
    queued *q = b->free_nodes;
    if (q)
        b->free_nodes = q->next;
    else
        q = cs_xmalloc(sizeof *q);
    q->next = NULL;
    q->task = t;
    if (b->tail)
        b->tail->next = q;
    else
        b->head = q;
    b->tail = q;
    pthread_cond_signal(&b->cond);
    pthread_mutex_unlock(&b->lock);
}

static void local_cancel_all(sched_backend *base)
{
    local_backend *b = (local_backend *)base;
    pthread_mutex_lock(&b->lock);
    queued *q = b->head;
    b->head = b->tail = NULL;
    pthread_mutex_unlock(&b->lock);
    while (q) {
        queued *next = q->next;
        cs_scheduler_task_failed(b->base.sched, q->task, "%s", CS_TASK_CANCELLED);
        pthread_mutex_lock(&b->lock);
        q->next = b->free_nodes;
        b->free_nodes = q;
        pthread_mutex_unlock(&b->lock);
        q = next;
    }
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
    bool started = b->started;
    pthread_mutex_unlock(&b->lock);
    if (started)
        for (int i = 0; i < b->threads; i++)
            pthread_join(b->workers[i], NULL);
    while (b->free_nodes) {
        queued *q = b->free_nodes;
        b->free_nodes = q->next;
        free(q);
    }
    while (b->head) {
        queued *q = b->head;
        b->head = q->next;
        free(q);
    }
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->cond);
    free(b->workers);
    cs_block_manager_free(b->env.block_manager);
    free(b);
}

static void local_remove_rdd(sched_backend *base, int rdd_id)
{
    local_backend *b = (local_backend *)base;
    if (b->env.block_manager) cs_block_manager_remove_rdd(b->env.block_manager, rdd_id);
}

sched_backend *cs_local_backend_new(int threads, const exec_env *env)
{
    local_backend *b = cs_xcalloc(1, sizeof *b);
    b->base.launch = local_launch;
    b->base.total_cores = local_total_cores;
    b->base.cancel_all = local_cancel_all;
    b->base.stop = local_stop;
    b->base.remove_rdd = local_remove_rdd;
    b->env = *env;
    b->threads = threads > 0 ? threads : 1;
    b->workers = cs_xcalloc((size_t)b->threads, sizeof *b->workers);
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

/* The executor is the driver: tasks read shuffle blocks from its own local directory and keep
 * cached partitions in its block manager (owned by the backend from here). */
static sched_backend *local_create(const cluster_env *env, cs_error *err)
{
    block_manager_options bo = {.local_dir = env->local_dir,
                                .executor_memory = env->local_memory,
                                .slots = env->master->threads > 0 ? env->master->threads : 1,
                                .checksum = env->shuffle_checksum};
    if (cs_block_manager_options_read(env->conf, &bo, err) < 0) return NULL;
    exec_env xenv = {.executor_id = "driver",
                     .host = "localhost",
                     .local_dir = env->local_dir,
                     .task_memory_budget = env->task_memory_budget,
                     .shuffle_compress = env->shuffle_compress,
                     .shuffle_checksum = env->shuffle_checksum,
                     .blocks = cs_shuffle_local_source(env->local_dir),
                     .broadcasts = env->broadcasts, /* tasks read the driver's copies */
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
