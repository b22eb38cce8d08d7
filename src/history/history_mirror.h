/* history_mirror.h — a local copy of an object-store event log directory, for the history server
 * (Spark's FsHistoryProvider reads spark.history.fs.logDirectory=s3a://bucket/prefix through
 * Hadoop's FileSystem; cspark's provider scans the copy). See history_mirror.c for how a sync
 * works. Used by programs/history_main.c: sync before every scan, remove from the cleaner.
 *
 * Ownership: the mirror owns its local directory (a fresh one under TMPDIR, removed by free).
 * Not thread-safe: one thread syncs and removes.
 */
#ifndef CSPARK_HISTORY_MIRROR_H
#define CSPARK_HISTORY_MIRROR_H

#include "common/err.h"

typedef struct history_mirror history_mirror;

/* uri: the store's directory (s3a://bucket/prefix); NULL + err when no local directory can be
 * made. Nothing is fetched until the first sync. */
history_mirror *cs_history_mirror_new(const char *uri, cs_error *err);
void cs_history_mirror_free(history_mirror *m);

/* The local copy's directory (owned by m). */
const char *cs_history_mirror_dir(const history_mirror *m);

/* Brings the copy up to the store: new and changed objects fetched (their mtime the object's
 * LastModified), vanished ones removed. An empty prefix is an empty directory. A listing that
 * fails is an error naming the URI (the copy stays as it was); an object that cannot be fetched is
 * logged and tried again at the next sync. */
int cs_history_mirror_sync(history_mirror *m, cs_error *err);

/* Deletes, on the store, what local_path (a file or directory of the copy) mirrors: the cleaner's
 * deletions reach the log directory itself, as Spark's. */
int cs_history_mirror_remove(history_mirror *m, const char *local_path, cs_error *err);

#endif /* CSPARK_HISTORY_MIRROR_H */
