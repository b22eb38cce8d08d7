/* event_log.h — Spark's event log: every listener event as one JSON line, for the history server.
 *
 * The file is `<dir>/<app_id>.inprogress` while the application runs and is renamed to
 * `<dir>/<app_id>` by cs_event_log_close, exactly where and how Spark's EventLoggingListener writes
 * it (uncompressed, single file), so Spark's history server (spark.history.fs.logDirectory)
 * replays cspark applications. The first line is SparkListenerLogStart; each event passed to
 * cs_event_log_listener becomes one line with Spark's JsonProtocol event and field names
 * (json_protocol.h). Writes go
 * through a buffered stream flushed at every job end, application end and close. Installed by
 * cs_listener_bus_new (listener.c) when spark.eventLog.enabled=true.
 *
 * Ownership: cs_event_log_open* return a log owned by the caller, finished and freed with
 * cs_event_log_close (exactly once). cs_event_log_listener must only be called from one thread at a
 * time (the bus's dispatch thread). Strings in events are borrowed during the call.
 */
#ifndef CSPARK_SCHED_EVENT_LOG_H
#define CSPARK_SCHED_EVENT_LOG_H

#include <stdbool.h>

#include "common/conf.h"
#include "common/err.h"
#include "sched/listener.h"

typedef struct event_log event_log;

/* Opens the log from conf: spark.eventLog.dir (default file:/tmp/spark-events; accepts
 * file:/x, file:///x, file://localhost/x and plain paths), spark.eventLog.overwrite (default
 * false), spark.eventLog.buffer.kb (default 100k), spark.redaction.regex (default
 * "(?i)secret|password|token|access[.]key"), spark.eventLog.compress (default true, as Spark 4;
 * spark.eventLog.compression.codec zstd, the only codec written: others are refused naming the
 * key), spark.eventLog.rolling.enabled (default true, as Spark 4: the eventlog_v2_<app>/ layout)
 * and spark.eventLog.rolling.maxFileSize (default 128m, at least 10m). The directory must exist
 * and be writable: errors
 * name spark.eventLog.dir and the path. The app id is sanitised as Spark does for file names
 * (' ', ':', '/' -> '-'; '.', '$', '{', '}', '\'', '"' -> '_'; lower case). If the final file
 * already exists and overwrite is false: CS_EEXIST. Returns NULL on error. */
event_log *cs_event_log_open(const cs_conf *conf, const char *app_id, cs_error *err);

/* The listener: arg is the event_log. I/O errors are logged once (WARN) and writing stops. */
void cs_event_log_listener(void *arg, const cs_event *ev);

/* Flushes, closes and renames `<app>.inprogress` to `<app>`. Returns 0, or CS_EIO (err filled)
 * if a write, the close or the rename failed; the log is freed in every case. NULL is a no-op. */
int cs_event_log_close(event_log *el, cs_error *err);

/* Path currently written (the .inprogress name until close). Borrowed until cs_event_log_close. */
const char *cs_event_log_path(const event_log *el);

#endif /* CSPARK_SCHED_EVENT_LOG_H */
