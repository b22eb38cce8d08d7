/*
 * event_log_reader.h — reads an event log as Spark's EventLogFileReader does, for the history
 * server (src/history): a single file (`<app>`, `<app>.inprogress`, `<app>.zstd[.inprogress]`)
 * or a rolled directory (`eventlog_v2_<app>/`, Spark's RollingEventLogFilesWriter layout, as
 * event_log.c writes it with spark.eventLog.rolling.enabled: its `events_<n>_<app>[.zstd]` files in
 * index order make one stream, and `appstatus_<app>.inprogress` says it is still being written).
 * Files named `.zstd` are decompressed (zstd frames, as Spark's ZStdCompressionCodec writes and
 * reads them); Spark's other codecs (.lz4, .lzf, .snappy: Java stream formats) are refused with a
 * clear error. Local paths only.
 *
 * Thread-safe (no shared state). Ownership: the FILE* is the caller's (fclose).
 */
#ifndef CSPARK_SCHED_EVENT_LOG_READER_H
#define CSPARK_SCHED_EVENT_LOG_READER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/err.h"

/* What a directory entry is as an event log. */
typedef struct cs_event_log_info {
    bool is_log;      /* a regular file, or a directory named eventlog_v2_* */
    bool rolled;      /* a rolled directory */
    bool inprogress;  /* `.inprogress`, or a rolled directory whose appstatus is in progress */
    int64_t size;     /* bytes (a rolled directory: of its event files) */
    int64_t mtime_ms; /* the newest modification */
} cs_event_log_info;

/* Looks at path (a file or a directory in the log directory). 0, or CS_EIO when it cannot be
 * read; info->is_log false for anything else. */
int cs_event_log_info_read(const char *path, cs_event_log_info *info, cs_error *err);

/* Opens the log at path for reading its lines (decompressed, rolled files in order); NULL with
 * err naming the file on error (missing, unreadable, a codec cspark cannot read). */
FILE *cs_event_log_open_read(const char *path, cs_error *err);

#endif /* CSPARK_SCHED_EVENT_LOG_READER_H */
