/*
 * shipped_upload.c — the submit side of shipped files in cluster mode on Kubernetes (see
 * shipped_files.h): local files go to spark.kubernetes.file.upload.path/spark-upload-<uuid>/,
 * as Spark's KubernetesUtils.uploadAndTransformFileUris, where the driver and executor pods fetch
 * them. The upload directory is new for each submission, so removing it when the submission
 * fails removes exactly what it uploaded. Called by src/submit/submit_k8s.c.
 */
#define _GNU_SOURCE
#include "fs/shipped_files.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "common/log.h"
#include "common/strutil.h"
#include "fs/fs.h"

#define UPLOAD_KEY "spark.kubernetes.file.upload.path"
#define UPLOAD_CHUNK (8u << 20)

int cs_files_upload_begin(cs_files_upload *u, const char *base, cs_error *err)
{
    memset(u, 0, sizeof *u);
    if (!base || !*base)
        return cs_error_set(err, CS_EINVAL,
                            "local files must be shipped but " UPLOAD_KEY
                            " is not set (an s3a:// or shared file: path every pod can read)");
    if (!cs_fs_is_local(base) && !cs_files_is_remote(base))
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for " UPLOAD_KEY ": '%s' (expected an s3a:// URI or a "
                            "file: path every pod can read)",
                            base);
    if (cs_fs_check_uri(base, err) < 0) return cs_error_prefix(err, UPLOAD_KEY);
    cs_fs_status st;
    if (cs_fs_stat(base, &st, err) < 0) return cs_error_prefix(err, UPLOAD_KEY);
    if (cs_fs_is_local(base) && !st.is_dir)
        return cs_error_set(err, CS_ENOTFOUND,
                            UPLOAD_KEY ": %s is not a directory (it must exist and be shared by "
                                       "every pod)",
                            base);
    uint8_t raw[16];
    if (getrandom(raw, sizeof raw, 0) != (ssize_t)sizeof raw)
        return cs_error_set(err, CS_EIO, "getrandom: %s", strerror(errno));
    cs_sbuf b = CS_SBUF_INIT;
    size_t n = strlen(base);
    while (n > 0 && base[n - 1] == '/')
        n--;
    cs_sbuf_printf(&b, "%.*s/spark-upload-", (int)n, base);
    for (size_t i = 0; i < sizeof raw; i++) {
        cs_sbuf_printf(&b, "%02x", raw[i]);
        if (i == 3 || i == 5 || i == 7 || i == 9) cs_sbuf_putc(&b, '-');
    }
    u->dir = cs_sbuf_detach(&b, NULL);
    return 0;
}

int cs_files_upload_file(cs_files_upload *u, const char *path, const char *name, char **uri,
                         cs_error *err)
{
    *uri = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cs_error_set(err, CS_ENOTFOUND, "%s: %s", path, strerror(errno));
    cs_sbuf b = CS_SBUF_INIT;
    cs_sbuf_printf(&b, "%s/%s", u->dir, name);
    char *dest = cs_sbuf_detach(&b, NULL);
    u->made = true; /* even a failed upload may leave a directory or an open upload */
    const char *local_dir = cs_fs_local_path(u->dir);
    if (local_dir && cs_make_dirs(local_dir) < 0) {
        close(fd);
        free(dest);
        return cs_error_set(err, CS_EIO, "cannot create %s (" UPLOAD_KEY "): %s", local_dir,
                            strerror(errno));
    }
    cs_fs_writer *w = cs_fs_create(dest, NULL, NULL, err);
    int rc = w ? 0 : (err->code ? err->code : CS_EIO);
    uint8_t *buf = w ? cs_xmalloc(UPLOAD_CHUNK) : NULL;
    while (rc == 0) {
        ssize_t n = read(fd, buf, UPLOAD_CHUNK);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) rc = cs_error_set(err, CS_EIO, "cannot read %s: %s", path, strerror(errno));
        if (n <= 0) break;
        rc = cs_fs_write(w, buf, (size_t)n, err);
    }
    free(buf);
    close(fd);
    cs_fs_pending *p = NULL;
    if (rc == 0) {
        rc = cs_fs_writer_finish(w, &p, err);
        w = NULL;
    }
    if (rc == 0 && p) rc = cs_fs_pending_commit(p, err);
    if (rc < 0 && p) cs_fs_pending_abort(p, &(cs_error){0});
    cs_fs_pending_free(p);
    cs_fs_writer_abort(w);
    if (rc < 0) {
        cs_error_prefix(err, "cannot upload %s to %s (" UPLOAD_KEY ")", path, dest);
        free(dest);
        return rc;
    }
    CS_INFO("submit", "file=%s uri=%s event=uploaded", cs_log_quote(path), cs_log_quote(dest));
    *uri = dest;
    return 0;
}

static int upload_one(const char *path, const char *name, char **to, void *arg, cs_error *err)
{
    return cs_files_upload_file(arg, path, name, to, err);
}

int cs_files_upload_list(cs_files_upload *u, const char *key, const char *list, char **out,
                         cs_error *err)
{
    return cs_files_rewrite_local(key, list, upload_one, u, out, err);
}

void cs_files_upload_abort(cs_files_upload *u)
{
    if (u->dir && u->made) {
        cs_error e = {0};
        if (cs_fs_delete(u->dir, true, &e) < 0)
            CS_WARN("submit", "uri=%s event=upload_cleanup_failed error=%s", cs_log_quote(u->dir),
                    cs_log_quote(e.msg));
        if (!cs_fs_is_local(u->dir)) cs_fs_abort_uploads_under(u->dir, NULL, 0, &e);
    }
    cs_files_upload_free(u);
}

void cs_files_upload_free(cs_files_upload *u)
{
    free(u->dir);
    memset(u, 0, sizeof *u);
}
