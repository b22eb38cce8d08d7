/*
 * fallback_storage.c — map outputs copied to and read from the fallback storage (see
 * fallback_storage.h): whole files streamed through a 1 MiB buffer into cs_fs writers (committed
 * at once: nothing half-written is ever visible), and a reduce block read as its two index
 * offsets and that byte range of the data file. Called by the executor's shuffle migration
 * (copy), its block fetcher (reads) and the driver's context stop (clean-up).
 */
#define _GNU_SOURCE
#include "exec/fallback_storage.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf_entries.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "fs/fs.h"

#define COPY_BUFFER (1 << 20)

struct cs_fallback_storage {
    char *app_dir; /* <path><appId>/ */
};

static const char *PATH_KEY = "spark.storage.decommission.fallbackStorage.path";

/* The application's directory under the configured path ("" when unset), into buf. */
static int app_dir_of(const cs_conf *conf, const char *app_id, char *buf, size_t cap, cs_error *err)
{
    buf[0] = '\0';
    const char *path = cs_conf_entry_string(conf, PATH_KEY);
    if (!path || !*path) return 0;
    size_t n = strlen(path);
    if (path[n - 1] != '/')
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for %s: '%s' (Path should end with separator.)",
                            PATH_KEY, path);
    cs_error uerr = {0};
    if (cs_fs_check_uri(path, &uerr) < 0)
        return cs_error_set(err, CS_EINVAL, "invalid value for %s: %s", PATH_KEY, uerr.msg);
    if (!app_id || !*app_id)
        return cs_error_set(err, CS_EINVAL, "%s is set but the application has no id", PATH_KEY);
    snprintf(buf, cap, "%s%s/", path, app_id);
    return 0;
}

int cs_fallback_storage_open(const cs_conf *conf, const char *app_id, cs_fallback_storage **out,
                             cs_error *err)
{
    char dir[4096];
    *out = NULL;
    int rc = app_dir_of(conf, app_id, dir, sizeof dir, err);
    if (rc < 0 || !dir[0]) return rc;
    cs_fallback_storage *fb = cs_xcalloc(1, sizeof *fb);
    fb->app_dir = cs_xstrdup(dir);
    *out = fb;
    return 0;
}

void cs_fallback_storage_free(cs_fallback_storage *fb)
{
    if (!fb) return;
    free(fb->app_dir);
    free(fb);
}

/* <app dir><shuffleId>/<the local file's name> */
static void remote_name(const cs_fallback_storage *fb, int shuffle_id, const char *local, char *buf,
                        size_t cap)
{
    const char *base = strrchr(local, '/');
    snprintf(buf, cap, "%s%d/%s", fb->app_dir, shuffle_id, base ? base + 1 : local);
}

/* Copies the local file `from` to uri `to`, visible only once whole. */
static int copy_file(const char *from, const char *to, cs_error *err)
{
    int fd = open(from, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cs_error_set(err, errno == ENOENT ? CS_ENOTFOUND : CS_EIO, "cannot open %s: %s",
                            from, strerror(errno));
    int rc = 0;
    uint8_t *buf = NULL;
    cs_fs_writer *w = NULL;
    cs_fs_pending *pending = NULL;
    if (cs_fs_is_local(to)) { /* as Hadoop's copyFromLocalFile, the parent directories */
        char *parent = cs_xstrdup(cs_fs_local_path(to));
        int mk = cs_make_dirs(dirname(parent));
        free(parent);
        if (mk < 0) {
            rc = cs_error_set(err, CS_EIO, "cannot create the directory of %s: %s", to,
                              strerror(errno));
            goto done;
        }
    }
    w = cs_fs_create(to, NULL, NULL, err);
    if (!w) {
        rc = err->code ? err->code : CS_EIO;
        goto done;
    }
    buf = cs_xmalloc(COPY_BUFFER);
    for (;;) {
        ssize_t k = read(fd, buf, COPY_BUFFER);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            rc = cs_error_set(err, CS_EIO, "cannot read %s: %s", from, strerror(errno));
            goto done;
        }
        if (k == 0) break;
        if ((rc = cs_fs_write(w, buf, (size_t)k, err)) < 0) goto done;
    }
    rc = cs_fs_writer_finish(w, &pending, err);
    w = NULL;
    if (rc == 0 && pending) rc = cs_fs_pending_commit(pending, err);
done:
    if (w) cs_fs_writer_abort(w);
    cs_fs_pending_free(pending);
    free(buf);
    close(fd);
    return rc;
}

int cs_fallback_storage_copy(const cs_fallback_storage *fb, const char *local_dir,
                             const cs_map_status *st, cs_error *err)
{
    char data[4096], index[4096], to[4608];
    cs_shuffle_file_paths(local_dir, st->shuffle_id, st->map_id, data, index, sizeof data);
    remote_name(fb, st->shuffle_id, data, to, sizeof to);
    int rc = copy_file(data, to, err);
    if (rc == 0) {
        remote_name(fb, st->shuffle_id, index, to, sizeof to);
        rc = copy_file(index, to, err);
    }
    if (rc < 0)
        return cs_error_prefix(err, "shuffle %d map %d not copied to the fallback storage",
                               st->shuffle_id, st->map_id);
    return 0;
}

/* Reads exactly n bytes of uri from offset into buf. */
static int read_range(const char *uri, uint64_t offset, uint8_t *buf, size_t n, cs_error *err)
{
    cs_fs_reader *r = cs_fs_open(uri, offset, n, UINT64_MAX, err);
    if (!r) return err->code ? err->code : CS_EIO;
    size_t got = 0;
    int rc = 0;
    while (got < n) {
        ssize_t k = cs_fs_read(r, buf + got, n - got, err);
        if (k < 0) {
            rc = (int)k;
            break;
        }
        if (k == 0) {
            rc = cs_error_set(err, CS_EIO, "%s: %zu bytes at offset %llu, the file ends after %zu",
                              uri, n, (unsigned long long)offset, got);
            break;
        }
        got += (size_t)k;
    }
    cs_fs_reader_close(r);
    return rc;
}

static uint64_t be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

static int fallback_fetch(void *arg, const cs_map_status *st, int reduce_id, uint8_t **out,
                          size_t *len, cs_error *err)
{
    const cs_fallback_storage *fb = arg;
    *out = NULL;
    *len = 0;
    char data[512], index[512], uri[4608];
    cs_shuffle_file_paths("", st->shuffle_id, st->map_id, data, index, sizeof data);
    remote_name(fb, st->shuffle_id, index, uri, sizeof uri);
    uint8_t offs[16];
    int rc = read_range(uri, (uint64_t)reduce_id * 8, offs, sizeof offs, err);
    if (rc < 0) goto failed;
    uint64_t start = be64(offs), end = be64(offs + 8);
    if (end < start || end - start > SIZE_MAX / 2) {
        rc = cs_error_set(err, CS_EIO, "%s: bad offsets %llu..%llu for reduce %d", uri,
                          (unsigned long long)start, (unsigned long long)end, reduce_id);
        goto failed;
    }
    size_t n = (size_t)(end - start);
    if (n == 0) return 0;
    remote_name(fb, st->shuffle_id, data, uri, sizeof uri);
    uint8_t *buf = cs_xmalloc(n);
    rc = read_range(uri, start, buf, n, err);
    if (rc < 0) {
        free(buf);
        goto failed;
    }
    *out = buf;
    *len = n;
    return 0;
failed:
    return cs_error_prefix(err, "shuffle %d map %d reduce %d from the fallback storage",
                           st->shuffle_id, st->map_id, reduce_id);
}

shuffle_block_source cs_fallback_storage_source(cs_fallback_storage *fb)
{
    shuffle_block_source s;
    memset(&s, 0, sizeof s);
    s.fetch = fallback_fetch;
    s.arg = fb;
    return s;
}

int cs_fallback_storage_clean_up(const cs_conf *conf, const char *app_id, cs_error *err)
{
    bool clean = false;
    char dir[4096];
    if (cs_conf_entry_bool(conf, "spark.storage.decommission.fallbackStorage.cleanUp", &clean,
                           err) < 0)
        return err->code;
    if (!clean) return 0;
    int rc = app_dir_of(conf, app_id, dir, sizeof dir, err);
    if (rc < 0 || !dir[0]) return rc;
    rc = cs_fs_delete(dir, true, err);
    if (rc == 0) CS_INFO("storage", "event=fallback_storage_cleaned dir=%s", cs_log_value(dir));
    return rc;
}
