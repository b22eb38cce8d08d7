/*
 * shipped_files.c — fetching spark.files / spark.archives into a process's files directory and
 * the name -> local path registry behind cspark_files_get (see shipped_files.h). The upload side
 * is shipped_upload.c, the unpacking of archives archive_unpack.c.
 *
 * A file is fetched to "<dir>/.<name>.part" and renamed to "<dir>/<name>" when complete, so a
 * path in the registry always names a whole file. local:// entries are registered in place.
 * Archives are fetched to "<dir>/.fetch-<file name>", unpacked into "<dir>/<name>/" and the fetched
 * copy removed.
 */
#define _GNU_SOURCE
#include "fs/shipped_files.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/log.h"
#include "common/strutil.h"
#include "fs/codec.h"
#include "fs/fs.h"

#define FETCH_CHUNK (4u << 20)

typedef struct shipped {
    char *name, *path;
} shipped;

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static shipped *reg;
static size_t reg_n;
static char *reg_lists; /* the lists fetched, to make a second fetch a no-op */
static char *reg_root;  /* the directory they were fetched into */
static char **reg_py;   /* the Python path entries of spark.submit.pyFiles among them */
static size_t reg_py_n;

const char *cs_files_lookup(const char *name)
{
    const char *p = NULL;
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < reg_n && name; i++)
        if (strcmp(reg[i].name, name) == 0) p = reg[i].path;
    pthread_mutex_unlock(&reg_lock);
    return p;
}

void cs_files_clear(void)
{
    pthread_mutex_lock(&reg_lock);
    for (size_t i = 0; i < reg_n; i++) {
        free(reg[i].name);
        free(reg[i].path);
    }
    free(reg);
    reg = NULL;
    reg_n = 0;
    free(reg_lists);
    reg_lists = NULL;
    free(reg_root);
    reg_root = NULL;
    for (size_t i = 0; i < reg_py_n; i++)
        free(reg_py[i]);
    free(reg_py);
    reg_py = NULL;
    reg_py_n = 0;
    pthread_mutex_unlock(&reg_lock);
}

char *cs_files_root(void)
{
    pthread_mutex_lock(&reg_lock);
    char *r = cs_xstrdup(reg_root);
    pthread_mutex_unlock(&reg_lock);
    return r;
}

size_t cs_files_python_includes(char ***out)
{
    pthread_mutex_lock(&reg_lock);
    size_t n = reg_py_n;
    *out = cs_xcalloc(n + 1, sizeof **out);
    for (size_t i = 0; i < n; i++)
        (*out)[i] = cs_xstrdup(reg_py[i]);
    pthread_mutex_unlock(&reg_lock);
    return n;
}

/* One spark.submit.pyFiles entry shipped here: a .py file's directory, or the .zip / .egg
 * itself, remembered as a Python path entry (once). */
static int python_include_cb(const char *entry, void *arg)
{
    (void)arg;
    char nbuf[1024];
    const char *name = cs_files_entry_name(entry, nbuf, sizeof nbuf);
    const char *path = cs_files_lookup(name);
    if (!path) return 0; /* not shipped: the process's PYTHONPATH has it */
    char *inc = cs_xstrdup(path);
    if (cs_str_ends_with(inc, ".py")) {
        char *slash = strrchr(inc, '/');
        if (slash && slash != inc) *slash = '\0';
    }
    pthread_mutex_lock(&reg_lock);
    bool have = false;
    for (size_t i = 0; i < reg_py_n && !have; i++)
        have = strcmp(reg_py[i], inc) == 0;
    if (!have) {
        reg_py = cs_xrealloc(reg_py, (reg_py_n + 1) * sizeof *reg_py);
        reg_py[reg_py_n++] = inc;
        inc = NULL;
    }
    pthread_mutex_unlock(&reg_lock);
    free(inc);
    return 0;
}

static void registry_add(const char *name, const char *path)
{
    pthread_mutex_lock(&reg_lock);
    reg = cs_xrealloc(reg, (reg_n + 1) * sizeof *reg);
    reg[reg_n].name = cs_xstrdup(name);
    reg[reg_n].path = cs_xstrdup(path);
    reg_n++;
    pthread_mutex_unlock(&reg_lock);
}

bool cs_files_is_remote(const char *uri)
{
    return uri && cs_str_starts_with(uri, "s3a://");
}

const char *cs_files_entry_name(const char *entry, char *buf, size_t cap)
{
    const char *hash = strrchr(entry, '#');
    size_t n = hash ? (size_t)(hash - entry) : strlen(entry);
    if (hash && hash[1]) {
        snprintf(buf, cap, "%s", hash + 1);
        return buf;
    }
    while (n > 0 && entry[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && entry[start - 1] != '/')
        start--;
    snprintf(buf, cap, "%.*s", (int)(n - start), entry + start);
    return buf;
}

/* The URI part of an entry (without #fragment), malloc'd. */
static char *entry_uri(const char *entry)
{
    const char *hash = strrchr(entry, '#');
    return hash ? cs_xstrndup(entry, (size_t)(hash - entry)) : cs_xstrdup(entry);
}

static bool name_ok(const char *name)
{
    return *name && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 && !strchr(name, '/');
}

/* An --archives entry must have a name it can be unpacked by. */
static int check_archive_name(const char *key, const char *entry, const char *uri, cs_error *err)
{
    if (cs_files_is_archive_name(uri)) return 0;
    return cs_error_set(err, CS_EINVAL,
                        "%s: cannot unpack '%s': only .zip, .jar, .tar, .tar.gz and .tgz archives "
                        "(or .tar with a .bz2, .zst or .lz4 codec) are supported",
                        key, entry);
}

int cs_files_fetch_one(const char *uri, const char *dest, cs_error *err)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.part", dest);
    cs_fs_reader *r = cs_fs_open(uri, 0, UINT64_MAX, UINT64_MAX, err);
    if (!r) return err->code ? err->code : CS_EIO;
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        cs_fs_reader_close(r);
        return cs_error_set(err, CS_EIO, "cannot create %s: %s", tmp, strerror(errno));
    }
    uint8_t *buf = cs_xmalloc(FETCH_CHUNK);
    int rc = 0;
    for (;;) {
        ssize_t n = cs_fs_read(r, buf, FETCH_CHUNK, err);
        if (n < 0) {
            rc = err->code ? err->code : CS_EIO;
            break;
        }
        if (n == 0) break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(fd, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR) continue;
            if (w < 0) {
                rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", tmp, strerror(errno));
                break;
            }
            off += w;
        }
        if (rc < 0) break;
    }
    free(buf);
    cs_fs_reader_close(r);
    if (close(fd) < 0 && rc == 0)
        rc = cs_error_set(err, CS_EIO, "cannot write %s: %s", tmp, strerror(errno));
    if (rc == 0 && rename(tmp, dest) < 0)
        rc = cs_error_set(err, CS_EIO, "cannot rename %s: %s", tmp, strerror(errno));
    if (rc < 0) unlink(tmp);
    return rc;
}

/* One entry of a list into dir. */
static int fetch_entry(const char *key, const char *entry, bool archive, int64_t max_unpacked,
                       const char *dir, cs_error *err)
{
    char nbuf[1024];
    const char *name = cs_files_entry_name(entry, nbuf, sizeof nbuf);
    if (!name_ok(name))
        return cs_error_set(err, CS_EINVAL, "%s: entry '%s' has no file name", key, entry);
    if (cs_files_lookup(name))
        return cs_error_set(err, CS_EINVAL,
                            "%s: '%s' is shipped twice under the name '%s' (give one a "
                            "#name)",
                            key, entry, name);
    char *uri = entry_uri(entry);
    char path[4096];
    int rc = 0;
    if (cs_str_starts_with(uri, "local://") && !archive) { /* in the image: used in place */
        const char *p = uri + 8;
        if (access(p, R_OK) < 0)
            rc = cs_error_set(err, CS_ENOTFOUND, "%s: %s: %s", key, entry, strerror(errno));
        else
            registry_add(name, p);
        free(uri);
        return rc;
    }
    const char *src = cs_str_starts_with(uri, "local://") ? uri + 8 : uri;
    if (!cs_fs_is_local(src) && !cs_files_is_remote(src)) {
        free(uri);
        return cs_error_set(err, CS_EINVAL,
                            "%s: cannot fetch '%s': only local paths, file:, local:// and s3a:// "
                            "URIs can be shipped",
                            key, entry);
    }
    if (archive) {
        if (check_archive_name(key, entry, uri, err) < 0) {
            free(uri);
            return err->code;
        }
        char fetched[4096], base[1024]; /* the URI's own name keeps the extension (#alias) */
        snprintf(fetched, sizeof fetched, "%s/.fetch-%s", dir,
                 cs_files_entry_name(src, base, sizeof base));
        snprintf(path, sizeof path, "%s/%s", dir, name);
        const char *local = cs_fs_local_path(src);
        if (!local) {
            rc = cs_files_fetch_one(src, fetched, err);
            local = fetched;
        }
        if (rc == 0) rc = cs_files_unpack(local, path, max_unpacked, err);
        unlink(fetched);
    } else {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        rc = cs_files_fetch_one(src, path, err);
    }
    if (rc < 0) {
        cs_error_prefix(err, "%s: cannot fetch %s", key, entry);
    } else {
        registry_add(name, path);
        CS_INFO("files", "key=%s uri=%s path=%s event=fetched", key, cs_log_quote(uri),
                cs_log_quote(path));
    }
    free(uri);
    return rc;
}

/* Calls fn on each non-empty trimmed entry of a comma list; stops at the first error. */
static int each_entry(const char *list, int (*fn)(const char *entry, void *arg), void *arg)
{
    const char *p = list;
    while (p && *p) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char *e = cs_str_trim_dup(p, n);
        int rc = *e ? fn(e, arg) : 0;
        free(e);
        if (rc < 0) return rc;
        p = comma ? comma + 1 : NULL;
    }
    return 0;
}

typedef struct fetch_ctx {
    const char *key, *dir;
    bool archive;
    int64_t max_unpacked; /* cspark.archives.maxUnpackedBytes */
    cs_error *err;
} fetch_ctx;

static int fetch_cb(const char *entry, void *arg)
{
    fetch_ctx *c = arg;
    return fetch_entry(c->key, entry, c->archive, c->max_unpacked, c->dir, c->err);
}

int cs_files_fetch_all(const cs_conf *conf, const char *dir, cs_error *err)
{
    const char *files = cs_conf_get(conf, "spark.files");
    const char *archives = cs_conf_get(conf, "spark.archives");
    if ((!files || !*files) && (!archives || !*archives)) return 0;
    int64_t max_unpacked;
    if (cs_conf_get_size(conf, "cspark.archives.maxUnpackedBytes", "10g", CS_BYTE, &max_unpacked,
                         err) < 0)
        return err->code;
    cs_sbuf lb = CS_SBUF_INIT;
    cs_sbuf_printf(&lb, "%s\n%s", files ? files : "", archives ? archives : "");
    char *lists = cs_sbuf_detach(&lb, NULL);
    pthread_mutex_lock(&reg_lock);
    bool same = reg_lists && strcmp(reg_lists, lists) == 0;
    pthread_mutex_unlock(&reg_lock);
    if (same) {
        free(lists);
        return 0;
    }
    cs_files_clear();
    if (cs_make_dirs(dir) < 0) {
        free(lists);
        return cs_error_set(err, CS_EIO, "cannot create the files directory %s: %s", dir,
                            strerror(errno));
    }
    fetch_ctx f = {"spark.files", dir, false, max_unpacked, err};
    int rc = each_entry(files, fetch_cb, &f);
    fetch_ctx a = {"spark.archives", dir, true, max_unpacked, err};
    if (rc == 0) rc = each_entry(archives, fetch_cb, &a);
    if (rc < 0) {
        cs_files_clear();
        free(lists);
        return rc;
    }
    pthread_mutex_lock(&reg_lock);
    reg_lists = lists;
    reg_root = cs_xstrdup(dir);
    pthread_mutex_unlock(&reg_lock);
    each_entry(cs_conf_get(conf, "spark.submit.pyFiles"), python_include_cb, NULL);
    return 0;
}

/* ---- checks before submission -------------------------------------------------------------- */

typedef struct check_ctx {
    const char *key;
    bool archives;
    cs_error *err;
} check_ctx;

static int check_cb(const char *entry, void *arg)
{
    check_ctx *c = arg;
    char nbuf[1024];
    const char *name = cs_files_entry_name(entry, nbuf, sizeof nbuf);
    if (!name_ok(name))
        return cs_error_set(c->err, CS_EINVAL, "%s: entry '%s' has no file name", c->key, entry);
    char *uri = entry_uri(entry);
    int rc = 0;
    if (c->archives) rc = check_archive_name(c->key, entry, uri, c->err);
    const char *path = rc == 0 ? cs_fs_local_path(uri) : NULL;
    struct stat st;
    if (path && (stat(path, &st) < 0 || access(path, R_OK) < 0))
        rc = cs_error_set(c->err, errno == ENOENT ? CS_ENOTFOUND : CS_EIO, "%s: %s: %s", c->key,
                          path, strerror(errno));
    else if (path && !S_ISREG(st.st_mode))
        rc = cs_error_set(c->err, CS_EINVAL, "%s: %s is not a regular file", c->key, path);
    else if (rc == 0 && !path && !cs_str_starts_with(uri, "local://") && !cs_files_is_remote(uri))
        rc = cs_error_set(c->err, CS_EINVAL,
                          "%s: cannot ship '%s': only local paths, file:, local:// and s3a:// "
                          "URIs are supported",
                          c->key, entry);
    else if (rc == 0 && cs_files_is_remote(uri))
        rc = cs_fs_check_uri(uri, c->err);
    free(uri);
    return rc;
}

int cs_files_check_list(const char *key, const char *list, bool archives, cs_error *err)
{
    check_ctx c = {key, archives, err};
    return each_entry(list, check_cb, &c);
}

int cs_files_each_entry(const char *list, int (*fn)(const char *entry, void *arg), void *arg)
{
    return each_entry(list, fn, arg);
}

/* ---- rewriting the local entries of a list ------------------------------------------------- */

typedef struct rewrite_ctx {
    const char *key;
    cs_files_rewrite_fn fn;
    void *arg;
    cs_sbuf out;
    cs_error *err;
} rewrite_ctx;

static int rewrite_cb(const char *entry, void *arg)
{
    rewrite_ctx *c = arg;
    if (c->out.len) cs_sbuf_putc(&c->out, ',');
    const char *hash = strrchr(entry, '#');
    char *uri = entry_uri(entry);
    const char *path = cs_fs_local_path(uri);
    int rc = 0;
    if (path) {
        char nbuf[1024], *to = NULL;
        rc = c->fn(path, cs_files_entry_name(uri, nbuf, sizeof nbuf), &to, c->arg, c->err);
        if (rc < 0) {
            cs_error_prefix(c->err, "%s", c->key);
        } else {
            cs_sbuf_puts(&c->out, to);
            if (hash) cs_sbuf_puts(&c->out, hash);
        }
        free(to);
    } else { /* local:// and s3a:// entries stay as they are */
        cs_sbuf_puts(&c->out, entry);
    }
    free(uri);
    return rc;
}

int cs_files_rewrite_local(const char *key, const char *list, cs_files_rewrite_fn fn, void *arg,
                           char **out, cs_error *err)
{
    rewrite_ctx c = {key, fn, arg, CS_SBUF_INIT, err};
    if (each_entry(list, rewrite_cb, &c) < 0) {
        cs_sbuf_free(&c.out);
        *out = NULL;
        return err->code ? err->code : CS_EIO;
    }
    *out = cs_sbuf_detach(&c.out, NULL);
    return 0;
}

bool cs_files_has_local(const char *list)
{
    for (const char *p = list; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        char *e = cs_str_trim_dup(p, n), *uri = entry_uri(e);
        bool local = *uri && cs_fs_local_path(uri) != NULL;
        free(uri);
        free(e);
        if (local) return true;
        p = comma ? comma + 1 : NULL;
    }
    return false;
}
