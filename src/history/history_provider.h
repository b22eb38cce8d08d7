/* history_provider.h — the history server's view of an event log directory (Spark's
 * FsHistoryProvider): which applications there are, and each one's UI store, replayed from its
 * log on demand.
 *
 * A scan lists the directory (spark.history.fs.logDirectory): every regular file not starting
 * with '.' is an application's log, `<id>.inprogress` one that is still running, and so is every
 * rolled log's directory `eventlog_v2_<id>/` (running while its appstatus is `.inprogress`); logs
 * may be zstd-compressed (sched/event_log_reader.h). A log's summary
 * (id, name, user, start, end) is read once per size and modification time; a full store is
 * built when a page or REST call asks for the application, kept for the next requests, rebuilt
 * when the log has grown, and at most spark.history.retainedApplications (50) stores are kept
 * (the least recently used goes). cs_history_provider_scan runs at start and every
 * spark.history.fs.update.interval on the server's own thread (programs/history_main.c).
 *
 * Threads: every function is thread-safe (one mutex; a store is built outside it). Ownership:
 * the provider owns its stores; a store given by acquire stays valid until released, even if
 * evicted or replaced meanwhile.
 */
#ifndef CSPARK_HISTORY_PROVIDER_H
#define CSPARK_HISTORY_PROVIDER_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "ui/ui_server.h"

typedef struct history_provider history_provider;

/* dir: a local directory (already resolved from file: URIs). */
history_provider *cs_history_provider_new(const char *dir, int retained_apps);
void cs_history_provider_free(history_provider *hp);

/* Rescans the directory; 0, or CS_EIO when it cannot be listed (the previous listing stays). */
int cs_history_provider_scan(history_provider *hp, cs_error *err);

/* Spark's log cleaner (spark.history.fs.cleaner.*, FsHistoryProvider.cleanLogs), at now_ms: the
 * logs last updated more than max_age_ms ago are deleted, running or not; then, while more than
 * max_num logs remain, the completed ones, oldest first. A rolled log's directory goes whole.
 * Returns how many logs were deleted (they leave the listing at once). */
int cs_history_provider_clean(history_provider *hp, int64_t now_ms, int64_t max_age_ms,
                              int64_t max_num);

/* Called by the cleaner with each log it is about to delete (a file, or a rolled log's directory
 * when is_dir); a non-zero return keeps the log. For a directory that mirrors another store
 * (history_mirror.h), this deletes the original. */
typedef int (*history_remove_fn)(void *arg, const char *path, bool is_dir);
void cs_history_provider_set_remover(history_provider *hp, history_remove_fn fn, void *arg);

/* The ui_provider the server uses (arg is hp). */
ui_provider cs_history_provider_ui(history_provider *hp);

#endif /* CSPARK_HISTORY_PROVIDER_H */
