/*
 * fs_local.c — the `file:` file system (bare paths too): globs with glob(3) and GLOB_BRACE,
 * directories listed one level with Hadoop's hidden-file rule, ranged reads with pread in 1 MiB
 * pieces (posix_fadvise SEQUENTIAL over the split), and writers that write to a staging file and
 * rename it into place when finished, so a half-written file is never at its final path. Only
 * regular files are inputs: a FIFO or a device is refused by name instead of hanging or reading
 * as empty. Called through fs.c's table.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "fs/fs_internal.h"

/* ---- listing ------------------------------------------------------------------------------ */

/* Adds the visible regular files of a directory, sorted. */
static int add_dir(cs_fs_listing *l, const char *dir, cs_error *err)
{
    DIR *d = opendir(dir);
    if (!d)
        return cs_error_set(err, CS_EIO, "cannot read input directory %s: %s", dir,
                            strerror(errno));
    size_t from = l->n;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (cs_fs_hidden_name(e->d_name)) continue;
        char p[PATH_MAX];
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p) continue;
        struct stat st;
        if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) cs_fs_listing_add(l, p, (uint64_t)st.st_size);
    }
    closedir(d);
    cs_fs_listing_sort(l, from);
    return 0;
}

static int add_path(cs_fs_listing *l, const char *p, bool from_glob, cs_error *err)
{
    struct stat st;
    if (stat(p, &st) < 0) {
        if (errno == ENOENT && !from_glob)
            return cs_error_set(err, CS_ENOTFOUND, "Input path does not exist: file:%s", p);
        if (from_glob) return 0;
        return cs_error_set(err, CS_EIO, "cannot read input path %s: %s", p, strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) return add_dir(l, p, err);
    if (!S_ISREG(st.st_mode))
        return cs_error_set(err, CS_EINVAL,
                            "Input path file:%s is not a regular file (a FIFO, socket or device "
                            "cannot be split into input splits)",
                            p);
    if (access(p, R_OK) < 0)
        return cs_error_set(err, CS_EIO, "cannot read input file %s: %s", p, strerror(errno));
    cs_fs_listing_add(l, p, (uint64_t)st.st_size);
    return 0;
}

static int local_expand(const char *uri, cs_fs_listing *out, cs_error *err)
{
    const char *p = cs_fs_local_path(uri);
    if (!cs_fs_has_glob(p)) return add_path(out, p, false, err);
    glob_t g;
    int rc = glob(p, GLOB_BRACE, NULL, &g);
    if (rc == GLOB_NOMATCH || (rc == 0 && g.gl_pathc == 0)) {
        if (rc == 0) globfree(&g);
        return cs_error_set(err, CS_ENOTFOUND, "Input Pattern file:%s matches 0 files", p);
    }
    if (rc != 0) return cs_error_set(err, CS_EIO, "cannot expand input pattern %s", p);
    int out_rc = 0;
    for (size_t i = 0; i < g.gl_pathc && out_rc == 0; i++) {
        const char *m = g.gl_pathv[i];
        if (m[strlen(m) - 1] == '/') continue;
        out_rc = add_path(out, m, true, err);
    }
    globfree(&g);
    return out_rc;
}

static void add_with_mtime(cs_fs_listing *l, const char *p, const struct stat *st)
{
    cs_fs_listing_add(l, p, (uint64_t)st->st_size);
    l->v[l->n - 1].mtime_ms = (int64_t)st->st_mtim.tv_sec * 1000 + st->st_mtim.tv_nsec / 1000000;
}

/* Adds every regular file under dir (any depth), unsorted. */
static int add_tree(cs_fs_listing *l, const char *dir, cs_error *err)
{
    DIR *d = opendir(dir);
    if (!d) return cs_error_set(err, CS_EIO, "cannot list directory %s: %s", dir, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        char p[PATH_MAX];
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) >= (int)sizeof p) continue;
        struct stat st;
        if (stat(p, &st) < 0) continue; /* removed meanwhile, or a dangling link */
        if (S_ISDIR(st.st_mode))
            rc = add_tree(l, p, err);
        else if (S_ISREG(st.st_mode))
            add_with_mtime(l, p, &st);
    }
    closedir(d);
    return rc;
}

static int local_list_tree(const char *uri, cs_fs_listing *out, cs_error *err)
{
    const char *p = cs_fs_local_path(uri);
    struct stat st;
    if (stat(p, &st) < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return cs_error_set(err, CS_ENOTFOUND, "Path does not exist: file:%s", p);
        return cs_error_set(err, CS_EIO, "cannot read path %s: %s", p, strerror(errno));
    }
    size_t from = out->n;
    if (!S_ISDIR(st.st_mode)) {
        add_with_mtime(out, p, &st);
        return 0;
    }
    int rc = add_tree(out, p, err);
    cs_fs_listing_sort(out, from);
    return rc;
}

static int local_glob(const char *pattern, cs_fs_listing *out, cs_error *err)
{
    const char *p = cs_fs_local_path(pattern);
    glob_t g;
    int rc = glob(p, GLOB_BRACE, NULL, &g);
    if (rc == GLOB_NOMATCH) return 0;
    if (rc != 0) return cs_error_set(err, CS_EIO, "cannot expand pattern %s", p);
    size_t from = out->n;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        struct stat st;
        if (stat(g.gl_pathv[i], &st) < 0) continue;
        cs_fs_listing_add(out, g.gl_pathv[i], S_ISDIR(st.st_mode) ? 0 : (uint64_t)st.st_size);
    }
    globfree(&g);
    cs_fs_listing_sort(out, from);
    return 0;
}

static int local_stat(const char *uri, cs_fs_status *st, cs_error *err)
{
    const char *p = cs_fs_local_path(uri);
    struct stat s;
    if (lstat(p, &s) < 0) {
        if (errno == ENOENT || errno == ENOTDIR) return 0;
        return cs_error_set(err, CS_EIO, "cannot stat %s: %s", p, strerror(errno));
    }
    st->exists = true;
    st->is_dir = S_ISDIR(s.st_mode);
    st->size = st->is_dir ? 0 : (uint64_t)s.st_size;
    return 0;
}

static int local_remove(const char *uri, bool recursive, cs_error *err)
{
    const char *p = cs_fs_local_path(uri);
    struct stat s;
    if (lstat(p, &s) < 0) return 0;
    int rc = S_ISDIR(s.st_mode) && recursive ? cs_remove_tree(p) : remove(p);
    if (rc < 0 && errno != ENOENT)
        return cs_error_set(err, CS_EIO, "cannot delete %s: %s", p, strerror(errno));
    return 0;
}

/* ---- reading ------------------------------------------------------------------------------ */

typedef struct local_reader {
    cs_fs_reader base;
    int fd;
    uint64_t pos, bytes;
    char *path;
} local_reader;

static ssize_t local_read(cs_fs_reader *base, void *buf, size_t n, cs_error *err)
{
    local_reader *r = (local_reader *)base;
    ssize_t k;
    do
        k = pread(r->fd, buf, n, (off_t)r->pos);
    while (k < 0 && errno == EINTR);
    if (k < 0) return cs_error_set(err, CS_EIO, "cannot read %s: %s", r->path, strerror(errno));
    r->pos += (uint64_t)k;
    r->bytes += (uint64_t)k;
    return k;
}

static uint64_t local_bytes(const cs_fs_reader *base)
{
    return ((const local_reader *)base)->bytes;
}

static void local_close(cs_fs_reader *base)
{
    local_reader *r = (local_reader *)base;
    close(r->fd);
    free(r->path);
    free(r);
}

static cs_fs_reader *local_open(const char *uri, uint64_t offset, uint64_t length,
                                uint64_t file_size, cs_error *err)
{
    const char *p = cs_fs_local_path(uri);
    int fd = open(p, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        cs_error_set(err, CS_EIO, "cannot open input file %s: %s", p, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        cs_error_set(err, CS_EINVAL, "input %s is not a regular file", p);
        close(fd);
        return NULL;
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    posix_fadvise(fd, (off_t)offset, length == UINT64_MAX ? 0 : (off_t)length,
                  POSIX_FADV_SEQUENTIAL);
    (void)file_size;
    local_reader *r = cs_xcalloc(1, sizeof *r);
    r->base.read = local_read;
    r->base.bytes = local_bytes;
    r->base.close = local_close;
    r->fd = fd;
    r->pos = offset;
    r->path = cs_xstrdup(p);
    return &r->base;
}

/* ---- writing ------------------------------------------------------------------------------ */

typedef struct local_writer {
    cs_fs_writer base;
    int fd;
    char *staging, *final;
} local_writer;

static int local_write(cs_fs_writer *base, const void *buf, size_t n, cs_error *err)
{
    local_writer *w = (local_writer *)base;
    const uint8_t *p = buf;
    while (n) {
        ssize_t k = write(w->fd, p, n);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0)
            return cs_error_set(err, CS_EIO, "cannot write %s: %s", w->staging, strerror(errno));
        p += k;
        n -= (size_t)k;
    }
    return 0;
}

static void local_writer_free(local_writer *w)
{
    free(w->staging);
    free(w->final);
    free(w);
}

static int local_finish(cs_fs_writer *base, cs_fs_pending **pending, cs_error *err)
{
    local_writer *w = (local_writer *)base;
    *pending = NULL;
    int rc = 0;
    if (close(w->fd) < 0)
        rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", w->staging, strerror(errno));
    else if (rename(w->staging, w->final) < 0)
        rc = cs_error_set(err, CS_EIO, "cannot commit %s: %s", w->final, strerror(errno));
    if (rc < 0) unlink(w->staging);
    local_writer_free(w);
    return rc;
}

static void local_abort(cs_fs_writer *base)
{
    local_writer *w = (local_writer *)base;
    close(w->fd);
    unlink(w->staging);
    local_writer_free(w);
}

static cs_fs_writer *local_create(const char *uri, const char *staging, cs_error *err)
{
    const char *p = cs_fs_local_path(uri);
    local_writer *w = cs_xcalloc(1, sizeof *w);
    w->final = cs_xstrdup(p);
    if (staging) {
        w->staging = cs_xstrdup(cs_fs_local_path(staging));
    } else {
        size_t n = strlen(p) + 32;
        w->staging = cs_xmalloc(n);
        snprintf(w->staging, n, "%s.%d.tmp", p, (int)getpid());
    }
    w->fd = open(w->staging, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (w->fd < 0) {
        cs_error_set(err, CS_EIO, "cannot create %s: %s", w->staging, strerror(errno));
        local_writer_free(w);
        return NULL;
    }
    w->base.write = local_write;
    w->base.finish = local_finish;
    w->base.abort = local_abort;
    return &w->base;
}

static int local_put(const char *uri, const void *data, size_t len, cs_error *err)
{
    cs_fs_writer *w = local_create(uri, NULL, err);
    if (!w) return err ? err->code : CS_EIO;
    if (local_write(w, data, len, err) < 0) {
        local_abort(w);
        return err ? err->code : CS_EIO;
    }
    cs_fs_pending *p;
    return local_finish(w, &p, err);
}

const cs_fs_backend cs_fs_local_backend = {
    .scheme = "file",
    .check_uri = NULL,
    .expand = local_expand,
    .stat = local_stat,
    .remove = local_remove,
    .put = local_put,
    .open = local_open,
    .create = local_create,
    .abort_uploads_under = NULL,
    .list_tree = local_list_tree,
    .glob = local_glob,
};
