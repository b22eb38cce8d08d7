/* history_mirror.c — an object-store event log directory (spark.history.fs.logDirectory=
 * s3a://bucket/prefix) kept as a local copy the history provider scans (see history_mirror.h).
 *
 * Spark's FsHistoryProvider reads the directory through Hadoop's FileSystem; cspark's provider
 * reads local files (rolled logs are directories, replay seeks and re-reads), so the history
 * server mirrors the store into a private directory before each scan. A sync lists the prefix
 * with each object's size and LastModified (cs_fs_list_tree), fetches the objects that are new or
 * whose size or time changed (streamed to a hidden temporary file, then renamed into place, the
 * local file's mtime set to the object's LastModified so the provider's order and the cleaner's
 * ages are the store's), and removes local copies of objects that are gone. Objects appear on a
 * store only once complete (a log is a single multipart upload, a rolled log a series of them),
 * so a copy is never of half an object.
 *
 * Ownership: the mirror owns its directory (created by new, removed with everything in it by
 * free). Not thread-safe: the history server's main thread syncs and cleans, one at a time.
 */
#define _GNU_SOURCE
#include "history/history_mirror.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/log.h"
#include "fs/fs.h"

struct history_mirror {
    char *uri; /* normalised, no trailing slash */
    char *dir; /* the local copy */
};

history_mirror *cs_history_mirror_new(const char *uri, cs_error *err)
{
    const char *tmp = getenv("TMPDIR");
    char templ[4096];
    snprintf(templ, sizeof templ, "%s/cspark-history-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(templ)) {
        cs_error_set(err, CS_EIO, "cannot create the local copy of %s under %s: %s", uri,
                     tmp && *tmp ? tmp : "/tmp", strerror(errno));
        return NULL;
    }
    history_mirror *m = cs_xcalloc(1, sizeof *m);
    m->uri = cs_fs_normalize(uri);
    m->dir = cs_xstrdup(templ);
    return m;
}

void cs_history_mirror_free(history_mirror *m)
{
    if (!m) return;
    cs_remove_tree(m->dir);
    free(m->uri);
    free(m->dir);
    free(m);
}

const char *cs_history_mirror_dir(const history_mirror *m)
{
    return m->dir;
}

/* The path of an object below the prefix, or NULL when it is not one we copy (outside the prefix,
 * an empty or `.`/`..` component, which a local path must not be made from). */
static const char *relative_key(const history_mirror *m, const char *object_uri)
{
    size_t n = strlen(m->uri);
    if (strncmp(object_uri, m->uri, n) != 0 || object_uri[n] != '/') return NULL;
    const char *rel = object_uri + n + 1;
    for (const char *c = rel; *c;) {
        size_t len = strcspn(c, "/");
        if (len == 0 || (len == 1 && c[0] == '.') || (len == 2 && c[0] == '.' && c[1] == '.'))
            return NULL;
        c += len + (c[len] == '/');
    }
    return *rel ? rel : NULL;
}

/* Creates the directories of path's parent components. */
static int make_parents(const char *path, cs_error *err)
{
    char *p = cs_xstrdup(path);
    int rc = 0;
    for (char *s = strchr(p + 1, '/'); s && rc == 0; s = strchr(s + 1, '/')) {
        *s = '\0';
        if (mkdir(p, 0755) < 0 && errno != EEXIST)
            rc = cs_error_set(err, CS_EIO, "cannot create %s: %s", p, strerror(errno));
        *s = '/';
    }
    free(p);
    return rc;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Streams the object into local (through a hidden temporary file beside the copy's root), then
 * sets its mtime to the object's. */
static int fetch(const history_mirror *m, const cs_fs_file *f, const char *local, cs_error *err)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s/.fetch-XXXXXX", m->dir);
    int fd = mkstemp(tmp);
    if (fd < 0) return cs_error_set(err, CS_EIO, "cannot create %s: %s", tmp, strerror(errno));
    cs_fs_reader *r = cs_fs_open(f->uri, 0, f->size, f->size, err);
    int rc = r ? 0 : (err->code ? err->code : CS_EIO);
    static const size_t CHUNK = 1 << 20;
    char *buf = r ? cs_xmalloc(CHUNK) : NULL;
    while (rc == 0) {
        ssize_t n = cs_fs_read(r, buf, CHUNK, err);
        if (n < 0) rc = err->code ? err->code : CS_EIO;
        if (n <= 0) break;
        if (write_all(fd, buf, (size_t)n) < 0)
            rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", tmp, strerror(errno));
    }
    free(buf);
    cs_fs_reader_close(r);
    if (close(fd) < 0 && rc == 0)
        rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", tmp, strerror(errno));
    struct timespec times[2] = {
        {.tv_sec = f->mtime_ms / 1000, .tv_nsec = (f->mtime_ms % 1000) * 1000000L},
        {.tv_sec = f->mtime_ms / 1000, .tv_nsec = (f->mtime_ms % 1000) * 1000000L}};
    if (rc == 0 && f->mtime_ms > 0 && utimensat(AT_FDCWD, tmp, times, 0) < 0)
        rc = cs_error_set(err, CS_EIO, "cannot set the time of %s: %s", tmp, strerror(errno));
    if (rc == 0) rc = make_parents(local, err);
    if (rc == 0 && rename(tmp, local) < 0)
        rc = cs_error_set(err, CS_EIO, "cannot rename %s to %s: %s", tmp, local, strerror(errno));
    if (rc != 0) unlink(tmp);
    return rc;
}

static bool up_to_date(const char *local, const cs_fs_file *f)
{
    struct stat st;
    if (stat(local, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != f->size)
        return false;
    int64_t mtime = (int64_t)st.st_mtim.tv_sec * 1000 + st.st_mtim.tv_nsec / 1000000;
    return f->mtime_ms <= 0 || mtime == f->mtime_ms;
}

/* Removes the local files the listing l no longer holds. Both listings are sorted by path, and
 * their relative parts in the same order, so one merge walk pairs them. */
static void prune(const history_mirror *m, const cs_fs_listing *l)
{
    cs_fs_listing here = {0};
    cs_error e = {0};
    if (cs_fs_list_tree(m->dir, &here, &e) < 0) return;
    size_t j = 0;
    for (size_t i = 0; i < here.n; i++) {
        const char *rel = here.v[i].uri + strlen(m->dir) + 1;
        if (strncmp(rel, ".fetch-", 7) == 0) continue; /* a failed fetch's leftover is gone below */
        int cmp = 1;
        while (j < l->n) {
            const char *r = relative_key(m, l->v[j].uri);
            cmp = r ? strcmp(r, rel) : -1;
            if (cmp >= 0) break;
            j++;
        }
        if (cmp != 0) unlink(here.v[i].uri);
    }
    cs_fs_listing_free(&here);
}

/* Removes the empty directories under dir (not dir itself); true when dir is left empty. */
static bool remove_empty_dirs(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return false;
    bool empty = true;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        char p[4200];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && remove_empty_dirs(p) && rmdir(p) == 0)
            continue;
        empty = false;
    }
    closedir(d);
    return empty;
}

int cs_history_mirror_sync(history_mirror *m, cs_error *err)
{
    cs_fs_listing l = {0};
    int rc = cs_fs_list_tree(m->uri, &l, err);
    if (rc == CS_ENOTFOUND) { /* an empty prefix: no log (yet, or any more) */
        l.n = 0;
        rc = 0;
        memset(err, 0, sizeof *err);
    }
    int fetched = 0, failed = 0;
    for (size_t i = 0; rc == 0 && i < l.n; i++) {
        const char *rel = relative_key(m, l.v[i].uri);
        if (!rel) continue;
        char local[4200];
        if ((size_t)snprintf(local, sizeof local, "%s/%s", m->dir, rel) >= sizeof local) continue;
        if (up_to_date(local, &l.v[i])) continue;
        cs_error e = {0};
        if (fetch(m, &l.v[i], local, &e) < 0) {
            /* one unreadable object must not hide the others: it is tried again next time */
            CS_WARN("history", "uri=%s event=fetch_failed error=%s", cs_log_value(l.v[i].uri),
                    cs_log_quote(e.msg));
            failed++;
            continue;
        }
        fetched++;
    }
    if (rc == 0) {
        prune(m, &l);
        remove_empty_dirs(m->dir);
        if (fetched || failed)
            CS_DEBUG("history", "uri=%s event=synced fetched=%d failed=%d", cs_log_value(m->uri),
                     fetched, failed);
    }
    cs_fs_listing_free(&l);
    return rc;
}

int cs_history_mirror_remove(history_mirror *m, const char *local_path, cs_error *err)
{
    size_t n = strlen(m->dir);
    if (strncmp(local_path, m->dir, n) != 0 || local_path[n] != '/')
        return cs_error_set(err, CS_EINVAL, "%s is not in the local copy of %s", local_path,
                            m->uri);
    char *remote = NULL;
    if (asprintf(&remote, "%s/%s", m->uri, local_path + n + 1) < 0)
        return cs_error_set(err, CS_ENOMEM, "out of memory");
    int rc = cs_fs_delete(remote, true, err);
    free(remote);
    return rc;
}
