/*
 * shuffle_migration.h — copying map outputs from a decommissioning executor to this one (the
 * peer side of Spark's shuffle block migration). cs_shuffle_migrate_output fetches every non-empty
 * reduce block of one map output through a shuffle_block_source (the executor's block fetcher,
 * which reads from the leaving executor's block server at st->host:st->port), appends them in
 * reduce order to a temporary data file, writes the index (num_reduces + 1 big-endian u64
 * offsets) and renames both into place (index last) under the names a map task uses
 * (cs_shuffle_file_paths), so the block server and local reads serve them from then on. One block
 * is in memory at a time. A shuffle_migrator runs MigrateShuffle requests one after another, in
 * arrival order, on its own thread (fetching blocks), and reports each when done. Used by the
 * executor (src/exec/executor.c); owned by the executor's decommissioning code.
 *
 * Ownership: statuses, the source and local_dir are borrowed for the call. A shuffle_migration
 * given to cs_shuffle_migrator_submit becomes the migrator's; done borrows it for the callback.
 */
#ifndef CSPARK_EXEC_SHUFFLE_MIGRATION_H
#define CSPARK_EXEC_SHUFFLE_MIGRATION_H

#include <stdatomic.h>

#include "common/err.h"
#include "exec/fallback_storage.h"
#include "shuffle/shuffle.h"

/* Copies the map output st describes (shuffle_id, map_id, num_reduces, sizes, location) into
 * local_dir. Every fetched block must agree with the size st gives it
 * (cs_map_status_size_agrees) and pass its checksums (cs_recio_verify; CS_EPROTO otherwise);
 * empty blocks are not fetched; the index is written from the fetched lengths. An existing output
 * of the same shuffle and map in local_dir is replaced (as a retried map task replaces it). On
 * failure nothing is left in local_dir: the temporary files are removed (and a data file already
 * renamed, with the index it would have replaced). cancel (may be NULL) is checked before each
 * block: when it becomes non-zero the copy stops with CS_ECANCELLED. Returns 0, or a negative code
 * with err naming the shuffle and map (and, for a fetch failure, whatever the source's message
 * says: the block fetcher names block and peer). */
int cs_shuffle_migrate_output(const shuffle_block_source *src, const cs_map_status *st,
                              const char *local_dir, const atomic_int *cancel, cs_error *err);

/* One MigrateShuffle request. */
typedef struct shuffle_migration_item {
    cs_map_status st; /* owned: st.sizes is freed with the migration */
    int rc;           /* in: 0 = copy it; < 0 = already failed (not copied, not logged: the
                         submitter logs why). out: 0 copied, < 0 failed */
} shuffle_migration_item;

typedef struct shuffle_migration {
    shuffle_migration_item *items;
    int num_items;
    char error[1024]; /* out (or in, with a preset failure): the first failure's reason, "" none */
    const cs_fallback_storage *fallback; /* non-NULL: this executor's own outputs are copied
                                          * there (borrowed until the migrator is freed) */
} shuffle_migration;

/* num_items zeroed items (rc = 0) and an empty error; never NULL. */
shuffle_migration *cs_shuffle_migration_new(int num_items);
void cs_shuffle_migration_free(shuffle_migration *m); /* the items' sizes too; NULL is fine */

/* Called on the migrator's thread when every item of m has been tried (each copied one is logged
 * event=shuffle_migrated, each failed one event=shuffle_migration_failed); m is borrowed for the
 * call and freed after it. */
typedef void (*shuffle_migration_done_fn)(void *arg, const shuffle_migration *m);

typedef struct shuffle_migrator shuffle_migrator;
/* Starts the migrator's thread. src is copied (its arg, like local_dir, is borrowed until
 * cs_shuffle_migrator_free);
 * log_id (copied) names this executor in its log lines (event=shuffle_migrated and
 * event=shuffle_migration_failed). NULL + err if the thread cannot be started. */
shuffle_migrator *cs_shuffle_migrator_new(const shuffle_block_source *src, const char *local_dir,
                                          const char *log_id, shuffle_migration_done_fn done,
                                          void *arg, cs_error *err);
/* Queues m (ownership moves to the migrator); migrations run one at a time in submit order. */
void cs_shuffle_migrator_submit(shuffle_migrator *mg, shuffle_migration *m);
/* Stops the thread: the output being copied is abandoned at its next block (its files removed)
 * and migrations not finished are dropped without their done callback. NULL is fine. */
void cs_shuffle_migrator_free(shuffle_migrator *mg);

#endif /* CSPARK_EXEC_SHUFFLE_MIGRATION_H */
