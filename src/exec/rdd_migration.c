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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/serial_worker.h"
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

struct rdd_migrator {
    block_fetcher *fetcher;
    block_manager *bm;
    char *log_id;
    rdd_migration_done_fn done;
    void *arg;
    cs_serial_worker *worker; /* runs one MigrateRddBlocks after another */
};

static void run_one(void *arg, void *item, const atomic_int *stopping)
{
    rdd_migrator *mg = arg;
    rdd_migration *m = item;
    for (int i = 0; i < m->num_items && !*stopping; i++) {
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
    if (!*stopping) mg->done(mg->arg, m);
}

static void free_migration(void *item)
{
    cs_rdd_migration_free(item);
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
    mg->worker = cs_serial_worker_new("rdd block migration", run_one, free_migration, mg, err);
    if (!mg->worker) {
        free(mg->log_id);
        free(mg);
        return NULL;
    }
    return mg;
}

void cs_rdd_migrator_submit(rdd_migrator *mg, rdd_migration *m)
{
    cs_serial_worker_submit(mg->worker, m);
}

void cs_rdd_migrator_free(rdd_migrator *mg)
{
    if (!mg) return;
    cs_serial_worker_free(mg->worker);
    free(mg->log_id);
    free(mg);
}
