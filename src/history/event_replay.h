/* event_replay.h — reads Spark's JSON event log back into listener events (Spark's
 * ReplayListenerBus): the history server replays an application's log into a UI store, the same
 * store the live driver builds from the same events.
 *
 * Each line is one JSON object with Spark's JsonProtocol names (as event_log.c writes them and as
 * Spark writes them); it becomes one cs_event handed to a listener_fn. Unknown events (and
 * cspark's own, which Spark's history server skips too) are ignored. Lines are read in chunks and
 * held only up to 64 MiB, so memory stays bounded however long a line is; a line that is not JSON
 * (invalid UTF-8 included) or longer than that is skipped, and the replay then logs one WARN
 * naming the log, how many lines it skipped and the first one's number — except the half-written
 * last line of a log still being written, which is expected. A read error fails the replay with
 * the line it stopped after. A log is a single file or a rolled directory, uncompressed or zstd
 * (sched/event_log_reader.h opens it as one stream of lines).
 *
 * Thread-safe (no shared state). The events handed to fn, and what they point to, are borrowed for
 * the duration of the call.
 */
#ifndef CSPARK_HISTORY_EVENT_REPLAY_H
#define CSPARK_HISTORY_EVENT_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"
#include "sched/listener.h"

/* What a log says about its application without a full replay (for listings). */
typedef struct replay_summary {
    char *app_id, *app_name, *user, *spark_version; /* malloc'd, NULL when absent */
    int64_t start_ms, end_ms;
    bool ended; /* SparkListenerApplicationEnd seen */
} replay_summary;

void cs_replay_summary_free(replay_summary *s);

/* What reading a log met (cs_replay_each_line fills it). */
typedef struct replay_stats {
    int64_t lines;          /* lines read */
    int64_t not_json;       /* lines that were not a JSON object */
    int64_t overlong;       /* lines over the cap, skipped unread */
    int64_t first_bad_line; /* 1-based number of the first skipped line, 0: none */
    int64_t last_not_json;  /* number of the last line that was not JSON */
    bool last_unterminated; /* the log ends without a newline */
    int read_error;         /* errno of a failed read, 0: none */
} replay_stats;

/* Calls fn(ctx, line, len) for each line of f (newline and trailing CRs removed; empty lines
 * skipped), holding at most max_line bytes: longer lines are counted in st->overlong and never
 * held. Stops at the first non-zero fn result and returns it; a read error is left in
 * st->read_error. (For the replay and its fuzzer.) */
int cs_replay_each_line(FILE *f, size_t max_line,
                        int (*fn)(void *ctx, const char *line, size_t len), void *ctx,
                        replay_stats *st);

/* Replays one line (without its newline). *version receives the log's Spark version when the
 * line is SparkListenerLogStart (malloc'd; caller frees). Returns true when the line was an event
 * (delivered or deliberately ignored), false when it was not JSON. */
bool cs_replay_line(const char *line, size_t len, listener_fn fn, void *arg, char **version);

/* Replays the whole log at path (a file or a rolled directory). 0, or CS_EIO / CS_EUNSUPPORTED
 * with err. */
int cs_replay_file(const char *path, listener_fn fn, void *arg, char **version, cs_error *err);

/* Reads only the application's start and end (and the version) from path, quickly: lines are
 * parsed only when they name one of those events. 0 or an error. */
int cs_replay_summary_read(const char *path, replay_summary *out, cs_error *err);

#endif /* CSPARK_HISTORY_EVENT_REPLAY_H */
