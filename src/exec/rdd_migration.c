/*
 * rdd_migration.c — cached partitions of a decommissioning executor copied into this executor's
 * block manager, and the thread that runs MigrateRddBlocks requests (see rdd_migration.h). A
 * block is fetched whole (as a task on another executor reads a cached partition), decoded and
 * stored through a block writer, batch by batch, exactly as a task's tee stores a partition it
 * computes; a block this executor already holds is reported as stored. Called by the executor's
 * decommissioning code (src/exec/executor_decommission.c).
 */
#define _GNU_SOURCE
#include "exec/rdd_migration.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "storage/memory_store.h"

int cs_rdd_migrate_block(block_fetcher *f, block_manager *bm, const cs_block_location *loc,
                         int level, cs_block_status *st, cs_error *err)
{
    uint8_t *bytes = NULL;
    size_t len = 0;
    cs_block_data data = {0};
    int rc = cs_block_fetcher_fetch_rdd_block(f, loc->host, loc->port, loc->executor_id,
                                              loc->rdd_id, loc->partition, &bytes, &len, err);
    if (rc < 0) goto done;
    rc = cs_block_data_decode(bytes, len, &data, err);
    if (rc < 0) {
        rc = cs_error_prefix(err, "block rdd_%d_%d from executor %s", loc->rdd_id, loc->partition,
                             loc->executor_id);
        goto done;
    }
    block_writer *w = cs_block_manager_writer(bm, loc->rdd_id, loc->partition, level);
    for (int i = 0; i < data.n; i++)
        cs_block_writer_add(w, &data.batches[i]);
    if (cs_block_writer_commit(w, st)) goto done;
    /* not stored by this writer: held already (stored meanwhile by a task here), or no room */
    block_reader *held = cs_block_manager_get(bm, loc->rdd_id, loc->partition);
    if (held) {
        cs_block_reader_free(held);
        *st = (cs_block_status){.rdd_id = loc->rdd_id,
                                .partition = loc->partition,
                                .level = level,
                                .memory_size = data.bytes};
        goto done;
    }
    rc = cs_error_set(err, CS_EIO,
                      "block rdd_%d_%d from executor %s (%lld bytes) was not stored: no room for "
                      "it at its storage level",
                      loc->rdd_id, loc->partition, loc->executor_id, (long long)data.bytes);
done:
    free(bytes);
    cs_block_data_free(&data);
    return rc;
}

rdd_migration *cs_rdd_migration_new(int num_items)
{
    rdd_migration *m = cs_xcalloc(1, sizeof *m);
    m->num_items = num_items > 0 ? num_items : 0;
    m->items = cs_xcalloc((size_t)m->num_items + 1, sizeof *m->items);
    return m;
}

void cs_rdd_migration_free(rdd_migration *m)
{
    if (!m) return;
    free(m->items);
    free(m);
}

typedef struct queued {
    struct queued *next;
    rdd_migration *m;
} queued;

struct rdd_migrator {
    block_fetcher *fetcher;
    block_manager *bm;
    char *log_id;
    rdd_migration_done_fn done;
    void *arg;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    queued *head, *tail;
    atomic_int stopping;
};

static void run_one(rdd_migrator *mg, rdd_migration *m)
{
    for (int i = 0; i < m->num_items && !mg->stopping; i++) {
        rdd_migration_item *it = &m->items[i];
        cs_error err;
        cs_error_clear(&err);
        it->rc = cs_rdd_migrate_block(mg->fetcher, mg->bm, &it->loc, it->level, &it->st, &err);
        if (it->rc < 0) {
            if (!m->error[0]) snprintf(m->error, sizeof m->error, "%s", err.msg);
            CS_WARN("executor",
                    "executor=%s event=rdd_block_migration_failed block=rdd_%d_%d from=%s "
                    "error=%s",
                    mg->log_id, it->loc.rdd_id, it->loc.partition,
                    cs_log_value(it->loc.executor_id), cs_log_quote(err.msg));
            continue;
        }
        CS_INFO("executor",
                "executor=%s event=rdd_block_migrated block=rdd_%d_%d from=%s memory=%lld "
                "disk=%lld",
                mg->log_id, it->loc.rdd_id, it->loc.partition, cs_log_value(it->loc.executor_id),
                (long long)it->st.memory_size, (long long)it->st.disk_size);
    }
}

static void *migrator_main(void *arg)
{
    rdd_migrator *mg = arg;
    for (;;) {
        pthread_mutex_lock(&mg->lock);
        while (!mg->head && !mg->stopping)
            pthread_cond_wait(&mg->cond, &mg->lock);
        if (mg->stopping) {
            pthread_mutex_unlock(&mg->lock);
            break;
        }
        queued *q = mg->head;
        mg->head = q->next;
        if (!mg->head) mg->tail = NULL;
        pthread_mutex_unlock(&mg->lock);

        run_one(mg, q->m);
        if (!mg->stopping) mg->done(mg->arg, q->m);
        cs_rdd_migration_free(q->m);
        free(q);
    }
    return NULL;
}

rdd_migrator *cs_rdd_migrator_new(block_fetcher *f, block_manager *bm, const char *log_id,
                                  rdd_migration_done_fn done, void *arg, cs_error *err)
{
    if (!f || !bm || !done) {
        cs_error_set(err, CS_EINVAL, "rdd block migrator: bad arguments");
        return NULL;
    }
    rdd_migrator *mg = cs_xcalloc(1, sizeof *mg);
    mg->fetcher = f;
    mg->bm = bm;
    mg->log_id = cs_xstrdup(log_id ? log_id : "");
    mg->done = done;
    mg->arg = arg;
    pthread_mutex_init(&mg->lock, NULL);
    pthread_cond_init(&mg->cond, NULL);
    int e = pthread_create(&mg->thread, NULL, migrator_main, mg);
    if (e != 0) {
        cs_error_set(err, CS_EIO, "cannot start the rdd block migration thread: %s", strerror(e));
        pthread_mutex_destroy(&mg->lock);
        pthread_cond_destroy(&mg->cond);
        free(mg->log_id);
        free(mg);
        return NULL;
    }
    return mg;
}

void cs_rdd_migrator_submit(rdd_migrator *mg, rdd_migration *m)
{
    queued *q = cs_xcalloc(1, sizeof *q);
    q->m = m;
    pthread_mutex_lock(&mg->lock);
    if (mg->tail)
        mg->tail->next = q;
    else
        mg->head = q;
    mg->tail = q;
    pthread_cond_signal(&mg->cond);
    pthread_mutex_unlock(&mg->lock);
}

void cs_rdd_migrator_free(rdd_migrator *mg)
{
    if (!mg) return;
    pthread_mutex_lock(&mg->lock);
    mg->stopping = 1;
    pthread_cond_broadcast(&mg->cond);
    pthread_mutex_unlock(&mg->lock);
    pthread_join(mg->thread, NULL);
    while (mg->head) {
        queued *q = mg->head;
        mg->head = q->next;
        cs_rdd_migration_free(q->m);
        free(q);
    }
    pthread_mutex_destroy(&mg->lock);
    pthread_cond_destroy(&mg->cond);
    free(mg->log_id);
    free(mg);
}
