/*
 * rdd_migration.h — copying cached partitions from a decommissioning executor to this one (the
 * peer side of Spark's RDD block migration). cs_rdd_migrate_block fetches one block
 * rdd_<id>_<partition> from the leaving executor's block server (a recio stream, as a task on
 * another executor would read it), decodes it and stores it in this executor's block manager at
 * the storage level it had there, so tasks scheduled here read it as if computed here. An
 * rdd_migrator runs MigrateRddBlocks requests one after another, in arrival order, on its own
 * thread, and reports each when done. Used by the executor's decommissioning code
 * (src/exec/executor_decommission.c), which owns the migrator.
 *
 * Ownership: the fetcher and block manager are borrowed until cs_rdd_migrator_free. An
 * rdd_migration given to cs_rdd_migrator_submit becomes the migrator's; done borrows it for the
 * callback.
 */
#ifndef CSPARK_EXEC_RDD_MIGRATION_H
#define CSPARK_EXEC_RDD_MIGRATION_H

#include <stdatomic.h>

#include "blocktransfer/block_fetcher.h"
#include "common/block_status.h"
#include "common/err.h"
#include "plan/task.h"
#include "storage/block_manager.h"

/* Copies block rdd_<loc->rdd_id>_<loc->partition> from loc's executor (its block server at
 * loc->host:loc->port) into bm at level. *st is the stored block's status on success. CS_EIO
 * (fetch failed, or the block manager did not store it: no room at that level, a disk error) or
 * CS_EPROTO (undecodable), with err naming the block and the source. */
int cs_rdd_migrate_block(block_fetcher *f, block_manager *bm, const cs_block_location *loc,
                         int level, cs_block_status *st, cs_error *err);

typedef struct rdd_migration_item {
    cs_block_location loc; /* the block and where it is */
    int level;             /* the storage level to store it at */
    int rc;                /* out: 0 stored (st says how), < 0 failed */
    cs_block_status st;
} rdd_migration_item;

/* One MigrateRddBlocks request. */
typedef struct rdd_migration {
    rdd_migration_item *items;
    int num_items;
    char source[64];  /* the leaving executor (the first item's) */
    char error[1024]; /* out: the first failure's reason, "" none */
} rdd_migration;

/* num_items zeroed items and an empty error; never NULL. */
rdd_migration *cs_rdd_migration_new(int num_items);
void cs_rdd_migration_free(rdd_migration *m); /* NULL is fine */

/* Called on the migrator's thread when every item of m has been tried (each logged
 * event=rdd_block_migrated or event=rdd_block_migration_failed); m is borrowed for the call. */
typedef void (*rdd_migration_done_fn)(void *arg, const rdd_migration *m);

typedef struct rdd_migrator rdd_migrator;
/* Starts the migrator's thread; log_id (copied) names this executor in its log lines. NULL + err
 * if the thread cannot be started. */
rdd_migrator *cs_rdd_migrator_new(block_fetcher *f, block_manager *bm, const char *log_id,
                                  rdd_migration_done_fn done, void *arg, cs_error *err);
/* Queues m (ownership moves to the migrator); migrations run one at a time in submit order. */
void cs_rdd_migrator_submit(rdd_migrator *mg, rdd_migration *m);
/* Stops the thread after the block being copied; migrations not finished are dropped without
 * their done callback. NULL is fine. */
void cs_rdd_migrator_free(rdd_migrator *mg);

#endif /* CSPARK_EXEC_RDD_MIGRATION_H */
