/* event_log.c — writes listener events as Spark's JSON event log (one object per line).
 *
 * Mirrors Spark's EventLoggingListener: the file `<dir>/<app>.inprogress` starts with
 * SparkListenerLogStart, then one line per event, and is renamed to `<dir>/<app>` when the
 * application ends (cs_event_log_close). What each line says is json_protocol.c's (Spark's
 * JsonProtocol); this file is the writers. Called from the bus's dispatch thread only
 * (listener.c).
 *
 * Where it goes (src/fs): a local directory, written through stdio and renamed at the end as
 * above; or an object store (spark.eventLog.dir=s3a://bucket/prefix), written as a multipart
 * upload in parts of fs.s3a.multipart.size and visible, under its final name, when the
 * application ends. With spark.eventLog.compress=true (the default, as Spark 4) the log is
 * compressed with spark.eventLog.compression.codec (zstd, Spark's default and the one codec cspark
 * writes: Spark's lz4, lzf and snappy are Java stream framings) and named, as Spark does,
 * `<app>.<codec>` (`.inprogress` appended while it is written locally). With
 * spark.eventLog.rolling.enabled=true (the default, as Spark 4) it is a directory of files of at
 * most spark.eventLog.rolling.maxFileSize (below).
 */
#include "sched/event_log.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/log.h"
#include "fs/codec.h"
#include "fs/fs.h"
#include "sched/json_protocol.h"

#define DEFAULT_DIR "file:/tmp/spark-events"
#define KEY_DIR "spark.eventLog.dir"

struct event_log {
    FILE *fp;
    char *buf;         /* stdio buffer */
    cs_fs_writer *w;   /* instead of fp: an object store or a compressed log */
    size_t wlen, wcap; /* bytes of buf waiting for w */
    char *path_inprogress;
    char *path_final;
    bool overwrite;
    bool failed; /* a write failed: stop writing, report at close */
    int saved_errno;

    /* rolling (spark.eventLog.rolling.enabled): Spark's RollingEventLogFilesWriter layout,
     * <dir>/eventlog_v2_<app>/ with events_<n>_<app>[.<codec>] and appstatus_<app>[.inprogress] */
    bool rolling;
    char *roll_dir, *app_name; /* the directory, the sanitised app id */
    const cs_codec *codec;
    int64_t max_file_bytes, file_bytes; /* uncompressed bytes in the current file, as Spark */
    int index;

    cs_json_protocol *protocol; /* events -> Spark's JSON */
    char *line;                 /* serialisation buffer, reused */
    size_t line_cap;
    bool log_block_updates; /* spark.eventLog.logBlockUpdates.enabled */
};

static int roll(event_log *el, cs_error *err);

static void write_failed(event_log *el, const char *msg)
{
    el->failed = true;
    el->saved_errno = EIO;
    CS_WARN("eventlog", "path=%s error=%s event log write failed; no further events will be logged",
            cs_log_value(el->path_inprogress), cs_log_quote(msg));
}

static void write_json(event_log *el, json_t *o)
{
    if (el->failed) return;
    /* json_dumpb into one reused buffer and a single fwrite: json_dumpf writes token by token,
     * which is several times slower on the task-event hot path. */
    size_t n = json_dumpb(o, el->line, el->line_cap, JSON_COMPACT);
    if (n + 1 > el->line_cap) {
        el->line_cap = 2 * (n + 1);
        el->line = cs_xrealloc(el->line, el->line_cap);
        n = json_dumpb(o, el->line, el->line_cap, JSON_COMPACT);
    }
    if (n == 0) return; /* cannot happen for objects we build */
    el->line[n++] = '\n';
    if (el->w) {
        cs_error e;
        /* as Spark: a line that would take the file past maxFileSize starts the next file */
        if (el->rolling && el->file_bytes > 0 && el->file_bytes + (int64_t)n > el->max_file_bytes &&
            roll(el, &e) < 0) {
            write_failed(el, e.msg);
            return;
        }
        el->file_bytes += (int64_t)n;
        if (el->wlen + n > el->wcap) {
            if (el->wlen && cs_fs_write(el->w, el->buf, el->wlen, &e) < 0) {
                el->failed = true;
                el->saved_errno = EIO;
                CS_WARN("eventlog",
                        "path=%s error=%s event log write failed; no further events "
                        "will be logged",
                        cs_log_value(el->path_inprogress), cs_log_quote(e.msg));
                return;
            }
            el->wlen = 0;
        }
        if (n > el->wcap) {
            if (cs_fs_write(el->w, el->line, n, &e) < 0) {
                el->failed = true;
                el->saved_errno = EIO;
            }
            return;
        }
        memcpy(el->buf + el->wlen, el->line, n);
        el->wlen += n;
        return;
    }
    if (fwrite(el->line, 1, n, el->fp) != n) {
        el->failed = true;
        el->saved_errno = errno;
        CS_WARN("eventlog",
                "path=%s error=%s event log write failed; no further events "
                "will be logged",
                cs_log_value(el->path_inprogress), cs_log_quote(strerror(errno)));
    }
}

static void flush_log(event_log *el)
{
    if (el->w) {
        cs_error e;
        if (!el->failed && el->wlen && cs_fs_write(el->w, el->buf, el->wlen, &e) < 0) {
            el->failed = true;
            el->saved_errno = EIO;
        }
        el->wlen = 0;
        return;
    }
    if (!el->failed && fflush(el->fp) != 0) {
        el->failed = true;
        el->saved_errno = errno;
        CS_WARN("eventlog",
                "path=%s error=%s event log flush failed; no further events "
                "will be logged",
                cs_log_value(el->path_inprogress), cs_log_quote(strerror(errno)));
    }
}

void cs_event_log_listener(void *arg, const cs_event *ev)
{
    event_log *el = arg;
    if (ev->kind == CS_EV_LOG_START || ev->kind == CS_EV_EXECUTOR_METRICS)
        return;                            /* written once, at open / not logged, as Spark */
    if (ev->kind == CS_EV_BLOCK_UPDATED) { /* as Spark: only when asked for */
        for (int i = 0; el->log_block_updates && i < ev->num_updated_blocks; i++) {
            json_t *b = cs_json_protocol_block_updated(ev, i);
            write_json(el, b);
            json_decref(b);
        }
        return;
    }
    json_t *o = cs_json_protocol_event(el->protocol, ev);
    if (!o) return;
    write_json(el, o);
    json_decref(o);
    if (ev->kind == CS_EV_JOB_END || ev->kind == CS_EV_APPLICATION_END) flush_log(el);
}

/* ---- open / close --------------------------------------------------------------------------- */

/* file:/x, file:///x, file://localhost/x or a plain path -> malloc'd local path; NULL + err. */
static char *resolve_dir(const char *uri, cs_error *err)
{
    if (strncmp(uri, "file:", 5) == 0) {
        const char *p = uri + 5;
        if (strncmp(p, "//", 2) == 0) {
            p += 2;
            const char *slash = strchr(p, '/');
            size_t hostlen = slash ? (size_t)(slash - p) : strlen(p);
            if (!slash || (hostlen != 0 && !(hostlen == 9 && strncmp(p, "localhost", 9) == 0))) {
                cs_error_set(err, CS_EINVAL,
                             "invalid value for " KEY_DIR ": '%s' (expected a local directory: "
                             "file:/path, file:///path or /path)",
                             uri);
                return NULL;
            }
            p = slash;
        }
        if (*p == '\0') {
            cs_error_set(err, CS_EINVAL, "invalid value for " KEY_DIR ": '%s' (no path)", uri);
            return NULL;
        }
        return cs_xstrdup(p);
    }
    if (strncasecmp(uri, "s3a://", 6) == 0) { /* an object store: checked by src/fs */
        if (cs_fs_check_uri(uri, err) < 0) {
            cs_error_prefix(err, "invalid value for " KEY_DIR);
            return NULL;
        }
        return cs_xstrdup(uri);
    }
    const char *colon = strchr(uri, ':');
    const char *slash = strchr(uri, '/');
    if (colon && (!slash || colon < slash)) {
        cs_error_set(err, CS_EUNSUPPORTED,
                     "unsupported value for " KEY_DIR ": '%s' (expected a local directory "
                     "(file:/path, file:///path or /path) or s3a://bucket/prefix)",
                     uri);
        return NULL;
    }
    if (*uri == '\0') {
        cs_error_set(err, CS_EINVAL, "invalid value for " KEY_DIR ": '' (empty path)");
        return NULL;
    }
    return cs_xstrdup(uri);
}

static char *sanitize_name(const char *id);
static char *join_path(const char *dir, const char *name, const char *suffix);

/* ---- rolling (Spark's RollingEventLogFilesWriter) ------------------------------------------ */

static char *roll_path(const event_log *el, const char *prefix, const char *suffix)
{
    size_t n = strlen(el->roll_dir) + strlen(prefix) + strlen(el->app_name) + strlen(suffix) + 2;
    char *p = cs_xmalloc(n);
    snprintf(p, n, "%s/%s%s%s", el->roll_dir, prefix, el->app_name, suffix);
    return p;
}

/* Starts events_<index+1>_<app>[.<codec>]: written under its final name, as Spark does (the
 * application's status file says whether it is complete). */
static int open_event_file(event_log *el, cs_error *err)
{
    char prefix[32];
    snprintf(prefix, sizeof prefix, "events_%d_", ++el->index);
    char suffix[16] = "";
    if (el->codec)
        snprintf(suffix, sizeof suffix, ".%s", strcmp(el->codec->name, "zstd") ? "lz4" : "zstd");
    char *path = roll_path(el, prefix, suffix);
    bool local = cs_fs_is_local(path);
    el->w = cs_fs_create(path, local ? path : NULL, el->codec, err);
    free(path);
    el->file_bytes = 0;
    if (!el->w) cs_error_prefix(err, "cannot create event log file (" KEY_DIR ")");
    return el->w ? 0 : err->code;
}

/* Finishes the current file (its buffered bytes first) and starts the next. */
static int roll(event_log *el, cs_error *err)
{
    if (el->wlen && cs_fs_write(el->w, el->buf, el->wlen, err) < 0) return err->code;
    el->wlen = 0;
    cs_fs_writer *w = el->w;
    el->w = NULL;
    if (cs_fs_writer_finish(w, NULL, err) < 0) return err->code;
    return open_event_file(el, err);
}

/* <dir>/eventlog_v2_<app>/ with an empty appstatus_<app>.inprogress and the first events file. */
static int open_rolling(event_log *el, const char *dir, const char *uri, const char *app_id,
                        size_t buf_bytes, cs_error *err)
{
    el->app_name = sanitize_name(app_id);
    size_t n = strlen(el->app_name) + 16;
    char *dname = cs_xmalloc(n);
    snprintf(dname, n, "eventlog_v2_%s", el->app_name);
    el->roll_dir = join_path(dir, dname, "");
    free(dname);
    bool local = cs_fs_is_local(el->roll_dir);
    if (local) { /* cs_fs paths of a local directory are plain paths */
        char *p = cs_xstrdup(cs_fs_local_path(el->roll_dir));
        free(el->roll_dir);
        el->roll_dir = p;
    }
    el->path_final = roll_path(el, "appstatus_", "");
    el->path_inprogress = roll_path(el, "appstatus_", ".inprogress");
    cs_fs_status st;
    if (cs_fs_stat(el->path_final, &st, err) < 0 ||
        (!st.exists && cs_fs_stat(el->path_inprogress, &st, err) < 0)) {
        cs_error_prefix(err, "event log (" KEY_DIR "=%s)", uri);
        return err->code;
    }
    if (!st.exists && local && access(el->roll_dir, F_OK) == 0) st.exists = true;
    if (st.exists) {
        if (!el->overwrite)
            return cs_error_set(err, CS_EEXIST,
                                "event log directory %s already exists (" KEY_DIR "=%s); remove "
                                "it or set spark.eventLog.overwrite=true",
                                el->roll_dir, uri);
        if (cs_fs_delete(el->roll_dir, true, err) < 0) return err->code;
    }
    if (local && mkdir(el->roll_dir, 0770) != 0)
        return cs_error_set(err, errno == ENOENT ? CS_ENOTFOUND : CS_EIO,
                            "cannot create event log directory %s (" KEY_DIR
                            "=%s): %s; set " KEY_DIR " to an existing writable directory",
                            el->roll_dir, uri, strerror(errno));
    if (cs_fs_put(el->path_inprogress, "", 0, err) < 0) return err->code;
    el->wcap = buf_bytes;
    el->buf = cs_xmalloc(buf_bytes);
    if (open_event_file(el, err) < 0) return err->code;
    cs_event ls = {.kind = CS_EV_LOG_START, .time_ms = cs_now_ms()};
    json_t *o = cs_json_protocol_event(el->protocol, &ls);
    write_json(el, o);
    json_decref(o);
    CS_INFO("eventlog", "path=%s event=started rolling=true", cs_log_value(el->roll_dir));
    return 0;
}

/* The application completed: appstatus_<app>.inprogress becomes appstatus_<app>. */
static int finish_rolling(event_log *el, cs_error *err)
{
    cs_error e;
    cs_error_clear(&e);
    if (cs_fs_put(el->path_final, "", 0, &e) < 0 ||
        cs_fs_delete(el->path_inprogress, false, &e) < 0) {
        if (err) *err = e;
        return e.code;
    }
    return 0;
}

/* The log through src/fs: `<dir>/<app>[.<codec>]`, staged as `.inprogress` on a local disk and
 * as an invisible multipart upload on an object store. */
static int open_writer(event_log *el, const char *dir, const char *uri, const char *app_id,
                       const cs_codec *codec, size_t buf_bytes, cs_error *err)
{
    char suffix[16] = "";
    if (codec) snprintf(suffix, sizeof suffix, ".%s", strcmp(codec->name, "zstd") ? "lz4" : "zstd");
    char *name = sanitize_name(app_id);
    char *base = join_path(dir, name, suffix);
    free(name);
    bool local = cs_fs_is_local(dir);
    el->path_final = cs_xstrdup(local ? cs_fs_local_path(base) : base);
    size_t n = strlen(el->path_final) + 16;
    el->path_inprogress = cs_xmalloc(n);
    snprintf(el->path_inprogress, n, "%s%s", el->path_final, local ? ".inprogress" : "");
    free(base);
    cs_fs_status st;
    if (cs_fs_stat(el->path_final, &st, err) < 0) {
        cs_error_prefix(err, "event log (" KEY_DIR "=%s)", uri);
        return err->code;
    }
    if (st.exists && !el->overwrite)
        return cs_error_set(err, CS_EEXIST,
                            "event log %s already exists (" KEY_DIR "=%s); remove it or set "
                            "spark.eventLog.overwrite=true",
                            el->path_final, uri);
    el->w = cs_fs_create(el->path_final, local ? el->path_inprogress : NULL, codec, err);
    if (!el->w) {
        cs_error_prefix(err, "cannot create event log (" KEY_DIR "=%s)", uri);
        return err->code;
    }
    el->wcap = buf_bytes;
    el->buf = cs_xmalloc(buf_bytes);
    cs_event ls = {.kind = CS_EV_LOG_START, .time_ms = cs_now_ms()};
    json_t *o = cs_json_protocol_event(el->protocol, &ls);
    write_json(el, o);
    json_decref(o);
    CS_INFO("eventlog", "path=%s event=started", cs_log_value(el->path_inprogress));
    return 0;
}

/* As Spark's Utils.sanitizeDirName. */
static char *sanitize_name(const char *id)
{
    char *s = cs_xstrdup(id);
    for (char *p = s; *p; p++) {
        if (*p == ' ' || *p == ':' || *p == '/')
            *p = '-';
        else if (strchr(".${}'\"", *p))
            *p = '_';
        else if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    }
    return s;
}

static char *join_path(const char *dir, const char *name, const char *suffix)
{
    size_t n = strlen(dir) + strlen(name) + strlen(suffix) + 2;
    char *p = cs_xmalloc(n);
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    snprintf(p, n, "%.*s/%s%s", (int)dl, dir, name, suffix);
    return p;
}

static void free_log(event_log *el)
{
    cs_json_protocol_free(el->protocol);
    cs_fs_writer_abort(el->w);
    free(el->path_inprogress);
    free(el->path_final);
    free(el->roll_dir);
    free(el->app_name);
    free(el->buf);
    free(el->line);
    free(el);
}

event_log *cs_event_log_open(const cs_conf *conf, const char *app_id, cs_error *err)
{
    event_log *el = cs_xcalloc(1, sizeof *el);
    char *dir = NULL, *name = NULL;
    const char *uri = conf ? cs_conf_get(conf, KEY_DIR) : NULL;
    if (!uri) uri = DEFAULT_DIR;
    int64_t buf_bytes = 100 * 1024;
    if (conf &&
        (cs_conf_get_bool(conf, "spark.eventLog.overwrite", "false", &el->overwrite, err) < 0 ||
         cs_conf_get_bool(conf, "spark.eventLog.logBlockUpdates.enabled", "false",
                          &el->log_block_updates, err) < 0))
        goto fail;
    if (conf &&
        cs_conf_get_size(conf, "spark.eventLog.buffer.kb", "100k", CS_KiB, &buf_bytes, err) < 0)
        goto fail;
    if (buf_bytes < 1024) buf_bytes = 1024;
    if (!(el->protocol = cs_json_protocol_new(conf, err))) goto fail;
    if (!app_id || !*app_id) {
        cs_error_set(err, CS_EINVAL, "event log: no application id");
        goto fail;
    }
    if (!(dir = resolve_dir(uri, err))) goto fail;
    bool compress = false;
    const cs_codec *codec = NULL;
    const char *codec_name = "zstd";
    if (conf && cs_conf_get_bool(conf, "spark.eventLog.compress", "true", &compress, err) < 0)
        goto fail;
    if (compress) {
        const char *v = cs_conf_get(conf, "spark.eventLog.compression.codec");
        if (v && *v) codec_name = v;
        /* Spark's lz4, lzf and snappy event logs are Java stream framings (lz4-java's
         * LZ4BlockOutputStream, ...) that cspark neither writes nor reads: refused, rather than
         * written in a framing Spark's History Server cannot read. */
        if (strcasecmp(codec_name, "zstd")) {
            cs_error_set(err, CS_EINVAL,
                         "invalid value for spark.eventLog.compression.codec: '%s' (expected "
                         "zstd: cspark writes event logs uncompressed or with zstd only)",
                         codec_name);
            goto fail;
        }
        codec = cs_codec_for_name(codec_name);
    }
    int64_t max_file = 128 * CS_MiB;
    if (conf &&
        (cs_conf_get_bool(conf, "spark.eventLog.rolling.enabled", "true", &el->rolling, err) < 0 ||
         cs_conf_get_size(conf, "spark.eventLog.rolling.maxFileSize", "128m", CS_BYTE, &max_file,
                          err) < 0))
        goto fail;
    if (el->rolling && max_file < 10 * CS_MiB) { /* Spark's own bound */
        cs_error_set(err, CS_EINVAL,
                     "invalid value for spark.eventLog.rolling.maxFileSize: '%s' (expected a "
                     "size of at least 10m: the max file size of an event log is at least 10 MiB)",
                     cs_conf_get(conf, "spark.eventLog.rolling.maxFileSize"));
        goto fail;
    }
    if (el->rolling) {
        el->codec = codec;
        el->max_file_bytes = max_file;
        if (open_rolling(el, dir, uri, app_id, (size_t)buf_bytes, err) < 0) goto fail;
        free(dir);
        return el;
    }
    if (!cs_fs_is_local(dir) || codec) {
        if (open_writer(el, dir, uri, app_id, codec, (size_t)buf_bytes, err) < 0) goto fail;
        free(dir);
        return el;
    }
    struct stat st;
    if (stat(dir, &st) != 0) {
        cs_error_set(err, errno == ENOENT ? CS_ENOTFOUND : CS_EIO,
                     "event log directory %s (" KEY_DIR "=%s) %s; create it or set " KEY_DIR
                     " to an existing writable directory (spark.eventLog.enabled=true)",
                     dir, uri, errno == ENOENT ? "does not exist" : strerror(errno));
        goto fail;
    }
    if (!S_ISDIR(st.st_mode)) {
        cs_error_set(err, CS_EINVAL,
                     "event log directory %s (" KEY_DIR "=%s) is not a directory; set " KEY_DIR
                     " to an existing writable directory",
                     dir, uri);
        goto fail;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cs_error_set(err, CS_EIO,
                     "event log directory %s (" KEY_DIR "=%s) is not writable; set " KEY_DIR
                     " to a writable directory",
                     dir, uri);
        goto fail;
    }
    name = sanitize_name(app_id);
    el->path_final = join_path(dir, name, "");
    el->path_inprogress = join_path(dir, name, ".inprogress");
    if (!el->overwrite && access(el->path_final, F_OK) == 0) {
        cs_error_set(err, CS_EEXIST,
                     "event log %s already exists (" KEY_DIR "=%s); remove it or set "
                     "spark.eventLog.overwrite=true",
                     el->path_final, uri);
        goto fail;
    }
    int fd = open(el->path_inprogress, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0660);
    if (fd < 0 || !(el->fp = fdopen(fd, "w"))) {
        cs_error_set(err, CS_EIO, "cannot create event log %s (" KEY_DIR "=%s): %s",
                     el->path_inprogress, uri, strerror(errno));
        if (fd >= 0) close(fd);
        goto fail;
    }
    el->buf = cs_xmalloc((size_t)buf_bytes);
    setvbuf(el->fp, el->buf, _IOFBF, (size_t)buf_bytes);
    cs_event ls = {.kind = CS_EV_LOG_START, .time_ms = cs_now_ms()};
    json_t *o = cs_json_protocol_event(el->protocol, &ls);
    write_json(el, o);
    json_decref(o);
    free(dir);
    free(name);
    CS_INFO("eventlog", "path=%s event=started", cs_log_value(el->path_inprogress));
    return el;
fail:
    free(dir);
    free(name);
    free_log(el);
    return NULL;
}

const char *cs_event_log_path(const event_log *el)
{
    return el ? el->path_inprogress : NULL;
}

int cs_event_log_close(event_log *el, cs_error *err)
{
    if (!el) return CS_OK;
    int rc = CS_OK;
    flush_log(el);
    if (el->w) { /* finishing makes it visible under its final name */
        cs_fs_writer *w = el->w;
        el->w = NULL;
        if (el->failed) {
            cs_fs_writer_abort(w);
            rc = cs_error_set(err, CS_EIO, "event log %s: write failed", el->path_final);
        } else if (cs_fs_writer_finish(w, NULL, err) < 0 ||
                   (el->rolling && finish_rolling(el, err) < 0)) {
            rc = err ? err->code : CS_EIO;
        } else {
            CS_INFO("eventlog", "path=%s event=finished", cs_log_value(el->path_final));
        }
        free_log(el);
        return rc;
    }
    if (fclose(el->fp) != 0 && !el->failed) {
        el->failed = true;
        el->saved_errno = errno;
    }
    if (el->failed) {
        rc = cs_error_set(err, CS_EIO, "event log %s: write failed: %s", el->path_inprogress,
                          strerror(el->saved_errno));
    }
    /* Rename even after a write error: a truncated log is still more useful than none. */
    if (!el->overwrite && access(el->path_final, F_OK) == 0) {
        if (rc == CS_OK)
            rc = cs_error_set(err, CS_EEXIST,
                              "event log %s already exists; left %s in place (set "
                              "spark.eventLog.overwrite=true to replace it)",
                              el->path_final, el->path_inprogress);
    } else if (rename(el->path_inprogress, el->path_final) != 0) {
        if (rc == CS_OK)
            rc = cs_error_set(err, CS_EIO, "cannot rename event log %s to %s: %s",
                              el->path_inprogress, el->path_final, strerror(errno));
    } else {
        CS_INFO("eventlog", "path=%s event=finished", cs_log_value(el->path_final));
    }
    free_log(el);
    return rc;
}
