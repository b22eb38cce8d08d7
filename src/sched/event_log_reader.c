/*
 * event_log_reader.c — event logs as one stream of lines (see event_log_reader.h): the files of
 * a log, in order, each through src/fs with its codec, behind a stdio FILE (fopencookie) so that
 * the replay reads compressed and rolled logs as it reads a plain file. Called by the history
 * server's provider and replay (src/history).
 */
#define _GNU_SOURCE
#include "sched/event_log_reader.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fs/codec.h"
#include "fs/fs.h"

#define ROLLED_PREFIX "eventlog_v2_"
#define EVENTS_PREFIX "events_"
#define STATUS_PREFIX "appstatus_"

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int64_t mtime_ms(const struct stat *st)
{
    return (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
}

/* The codec of one log file by its name without `.inprogress`: NULL for plain; *refused set for
 * a codec of Spark's that cspark cannot read. */
static const cs_codec *codec_of(const char *name, bool *refused)
{
    char base[1024];
    snprintf(base, sizeof base, "%s", name);
    size_t n = strlen(base);
    if (n > 11 && strcmp(base + n - 11, ".inprogress") == 0) base[n - 11] = '\0';
    *refused = false;
    if (has_suffix(base, ".zstd")) return cs_codec_for_name("zstd");
    *refused = has_suffix(base, ".lz4") || has_suffix(base, ".lzf") || has_suffix(base, ".snappy");
    return NULL;
}

typedef struct chain {
    char **files;
    int n, next;
    cs_fs_reader *r;
} chain;

static void chain_free(chain *c)
{
    if (c->r) cs_fs_reader_close(c->r);
    for (int i = 0; i < c->n; i++)
        free(c->files[i]);
    free(c->files);
    free(c);
}

/* Opens the next file of the chain; NULL at the end or on error (errno set). */
static cs_fs_reader *open_next(chain *c, cs_error *err)
{
    if (c->next >= c->n) return NULL;
    const char *path = c->files[c->next++];
    const char *slash = strrchr(path, '/');
    bool refused;
    const cs_codec *codec = codec_of(slash ? slash + 1 : path, &refused);
    if (refused) {
        cs_error_set(err, CS_EUNSUPPORTED,
                     "event log %s is compressed with a codec cspark cannot read (it reads zstd, "
                     "Spark's default, and uncompressed logs)",
                     path);
        return NULL;
    }
    cs_fs_reader *raw = cs_fs_open(path, 0, UINT64_MAX, UINT64_MAX, err);
    if (!raw || !codec) return raw;
    return cs_codec_reader_new(codec, raw, path, err);
}

static ssize_t chain_read(void *cookie, char *buf, size_t size)
{
    chain *c = cookie;
    for (;;) {
        cs_error err;
        cs_error_clear(&err);
        if (!c->r) {
            c->r = open_next(c, &err);
            if (!c->r) {
                if (err.code) errno = EIO;
                return err.code ? -1 : 0;
            }
        }
        ssize_t n = cs_fs_read(c->r, buf, size, &err);
        if (n != 0) {
            if (n < 0) errno = EIO;
            return n < 0 ? -1 : n;
        }
        cs_fs_reader_close(c->r);
        c->r = NULL;
    }
}

static int chain_close(void *cookie)
{
    chain_free(cookie);
    return 0;
}

static int index_of(const char *name)
{
    return atoi(name + strlen(EVENTS_PREFIX));
}

static int by_index(const void *a, const void *b)
{
    const char *x = strrchr(*(char *const *)a, '/') + 1, *y = strrchr(*(char *const *)b, '/') + 1;
    return (index_of(x) > index_of(y)) - (index_of(x) < index_of(y));
}

/* Walks a rolled directory: its event files (sorted by index into *files when files is non-NULL),
 * their size and newest mtime, and whether its status is in progress. */
static int read_rolled(const char *dir, cs_event_log_info *info, char ***files, int *nfiles,
                       cs_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return cs_error_set(err, CS_EIO, "cannot list the event log directory %s: %s", dir,
                            strerror(errno));
    struct dirent *de;
    int n = 0, cap = 0;
    char **v = NULL;
    while ((de = readdir(d))) {
        bool events = strncmp(de->d_name, EVENTS_PREFIX, strlen(EVENTS_PREFIX)) == 0;
        bool status = strncmp(de->d_name, STATUS_PREFIX, strlen(STATUS_PREFIX)) == 0;
        if (!events && !status) continue;
        size_t len = strlen(dir) + strlen(de->d_name) + 2;
        char *path = cs_xmalloc(len);
        snprintf(path, len, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (mtime_ms(&st) > info->mtime_ms) info->mtime_ms = mtime_ms(&st);
            if (status) info->inprogress |= has_suffix(de->d_name, ".inprogress");
            if (events) info->size += (int64_t)st.st_size;
        }
        if (events && files) {
            if (n == cap) {
                cap = cap ? 2 * cap : 8;
                v = cs_xrealloc(v, (size_t)cap * sizeof *v);
            }
            v[n++] = path;
        } else {
            free(path);
        }
    }
    closedir(d);
    if (files) {
        if (n > 1) qsort(v, (size_t)n, sizeof *v, by_index);
        *files = v;
        *nfiles = n;
    }
    return 0;
}

int cs_event_log_info_read(const char *path, cs_event_log_info *info, cs_error *err)
{
    memset(info, 0, sizeof *info);
    struct stat st;
    if (stat(path, &st) != 0)
        return cs_error_set(err, CS_EIO, "cannot read event log %s: %s", path, strerror(errno));
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (S_ISREG(st.st_mode)) {
        info->is_log = true;
        info->size = (int64_t)st.st_size;
        info->mtime_ms = mtime_ms(&st);
        info->inprogress = has_suffix(name, ".inprogress");
        return 0;
    }
    if (!S_ISDIR(st.st_mode) || strncmp(name, ROLLED_PREFIX, strlen(ROLLED_PREFIX)) != 0) return 0;
    info->is_log = info->rolled = true;
    return read_rolled(path, info, NULL, NULL, err);
}

FILE *cs_event_log_open_read(const char *path, cs_error *err)
{
    cs_event_log_info info;
    if (cs_event_log_info_read(path, &info, err) < 0) return NULL;
    if (!info.is_log) {
        cs_error_set(err, CS_EINVAL, "%s is not an event log", path);
        return NULL;
    }
    chain *c = cs_xcalloc(1, sizeof *c);
    if (info.rolled) {
        if (read_rolled(path, &info, &c->files, &c->n, err) < 0) {
            chain_free(c);
            return NULL;
        }
    } else {
        c->files = cs_xcalloc(1, sizeof *c->files);
        c->files[c->n++] = cs_xstrdup(path);
    }
    /* the first file opens now, so that a refused codec or a missing file is this call's error */
    if (c->n > 0 && !(c->r = open_next(c, err))) {
        chain_free(c);
        return NULL;
    }
    FILE *f = fopencookie(c, "r", (cookie_io_functions_t){chain_read, NULL, NULL, chain_close});
    if (!f) {
        cs_error_set(err, CS_EIO, "cannot read event log %s: %s", path, strerror(errno));
        chain_free(c);
    }
    return f;
}
