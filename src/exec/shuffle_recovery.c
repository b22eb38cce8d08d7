/*
 * shuffle_recovery.c — an executor taking over the shuffle files earlier executors of its
 * application left on a reused volume (see shuffle_recovery.h): the marker that says whose a
 * local directory is, the scan of the sibling directories, and the move of each complete map
 * output into this executor's directory, where its block server serves it.
 */
#define _GNU_SOURCE
#include "exec/shuffle_recovery.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf_entries.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "plan/task_codec.h"
#include "shuffle/shuffle.h"

#define MARKER ".cspark-app-id"
#define EXECUTOR_DIR_PREFIX "cspark-executor-"

bool cs_shuffle_recovery_enabled(const cs_conf *conf)
{
    const char *v = cs_conf_entry_string(conf, "spark.shuffle.sort.io.plugin.class");
    return v && strcmp(v, CS_SHUFFLE_IO_K8S_LOCAL_DISK) == 0;
}

int cs_shuffle_recovery_mark(const char *local_dir, const char *app_id, cs_error *err)
{
    char path[4096 + sizeof MARKER + 1];
    snprintf(path, sizeof path, "%s/" MARKER, local_dir);
    /* open and locked until the process ends, however it ends: the kernel drops the lock then */
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return cs_error_set(err, CS_EIO, "cannot write %s: %s", path, strerror(errno));
    size_t len = strlen(app_id);
    if (flock(fd, LOCK_EX | LOCK_NB) < 0 || write(fd, app_id, len) != (ssize_t)len) {
        int e = errno;
        close(fd);
        return cs_error_set(err, CS_EIO, "cannot write %s: %s", path, strerror(e));
    }
    return 0;
}

/* Whether dir's marker names app_id and its executor is gone (no process holds its lock). */
static bool left_by_gone_executor(const char *dir, const char *app_id)
{
    char path[4096 + sizeof MARKER + 1];
    snprintf(path, sizeof path, "%s/" MARKER, dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[256];
    ssize_t n = read(fd, buf, sizeof buf);
    bool ours = n >= 0 && (size_t)n == strlen(app_id) && memcmp(buf, app_id, (size_t)n) == 0;
    bool gone = ours && flock(fd, LOCK_EX | LOCK_NB) == 0; /* released when fd closes */
    close(fd);
    return gone;
}

/* The reduce sizes of the output whose index is at index_path, checked against the data file's
 * size; NULL when the output is incomplete or corrupt. *num_reduces set. */
static uint64_t *output_sizes(const char *index_path, const char *data_path, int *num_reduces)
{
    uint8_t *ix = NULL;
    size_t len = 0;
    uint64_t *sizes = NULL;
    struct stat st;
    cs_error err;
    cs_error_clear(&err);
    if (cs_read_file(index_path, &ix, &len, &err) < 0 || len < 16 || len % 8 ||
        len / 8 - 1 > (size_t)INT32_MAX || stat(data_path, &st) < 0 || !S_ISREG(st.st_mode))
        goto done;
    size_t n = len / 8 - 1;
    sizes = cs_xmalloc(n * sizeof *sizes);
    uint64_t prev = 0;
    for (size_t i = 0; i <= n; i++) {
        uint64_t v = 0;
        for (int b = 0; b < 8; b++)
            v = (v << 8) | ix[i * 8 + (size_t)b];
        if ((i == 0 && v != 0) || v < prev) {
            free(sizes);
            sizes = NULL;
            goto done;
        }
        if (i > 0) sizes[i - 1] = v - prev;
        prev = v;
    }
    if (prev != (uint64_t)st.st_size) {
        free(sizes);
        sizes = NULL;
        goto done;
    }
    *num_reduces = (int)n;
done:
    free(ix);
    return sizes;
}

typedef struct found {
    cs_map_status *outs;
    int n, cap;
} found;

/* Moves the complete outputs of one earlier executor's directory into local_dir. */
static void take_outputs(const char *from, const char *local_dir, const cs_map_status_opts *opts,
                         found *f)
{
    DIR *d = opendir(from);
    if (!d) {
        CS_WARN("executor", "event=shuffle_recovery_skipped dir=%s error=%s", cs_log_value(from),
                cs_log_quote(strerror(errno)));
        return;
    }
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int sid, mid, used = 0;
        if (sscanf(de->d_name, "shuffle_%d_%d_0.index%n", &sid, &mid, &used) != 2 ||
            de->d_name[used] != '\0' || sid < 0 || mid < 0)
            continue;
        char src_data[4096], src_index[4096], dst_data[4096], dst_index[4096];
        cs_shuffle_file_paths(from, sid, mid, src_data, src_index, sizeof src_data);
        cs_shuffle_file_paths(local_dir, sid, mid, dst_data, dst_index, sizeof dst_data);
        if (access(dst_index, F_OK) == 0) continue; /* taken from another directory already */
        int num_reduces = 0;
        uint64_t *sizes = output_sizes(src_index, src_data, &num_reduces);
        if (!sizes) {
            CS_WARN("executor", "event=shuffle_output_not_recovered file=%s reason=%s",
                    cs_log_value(src_index), cs_log_quote("incomplete or corrupt"));
            continue;
        }
        /* index last, as a map task publishes them */
        if (rename(src_data, dst_data) < 0 || rename(src_index, dst_index) < 0) {
            CS_WARN("executor", "event=shuffle_output_not_recovered file=%s error=%s",
                    cs_log_value(src_index), cs_log_quote(strerror(errno)));
            unlink(dst_data);
            free(sizes);
            continue;
        }
        if (f->n == f->cap) {
            f->cap = f->cap ? f->cap * 2 : 16;
            f->outs = cs_xrealloc(f->outs, (size_t)f->cap * sizeof *f->outs);
        }
        cs_map_status *ms = &f->outs[f->n++];
        memset(ms, 0, sizeof *ms);
        ms->shuffle_id = sid;
        ms->map_id = mid;
        cs_map_status_set_sizes(ms, sizes, num_reduces, opts);
        for (int r = 0; r < num_reduces; r++)
            ms->bytes_written += sizes[r];
        free(sizes);
    }
    closedir(d);
}

int cs_shuffle_recover(const char *local_dir, const char *app_id, const cs_map_status_opts *opts,
                       cs_map_status **out)
{
    found f = {0};
    *out = NULL;
    if (!*app_id) return 0; /* whose files they are cannot be told */
    char *parent = cs_xstrdup(local_dir);
    char *slash = strrchr(parent, '/');
    const char *own = slash ? slash + 1 : parent;
    if (slash == parent)
        parent[1] = '\0';
    else if (slash)
        *slash = '\0';
    char *own_name = cs_xstrdup(own);
    int dirs = 0;
    DIR *d = slash ? opendir(parent) : NULL;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, EXECUTOR_DIR_PREFIX, strlen(EXECUTOR_DIR_PREFIX)) != 0 ||
            strcmp(de->d_name, own_name) == 0)
            continue;
        char from[4096];
        snprintf(from, sizeof from, "%s/%s", parent, de->d_name);
        struct stat st;
        if (lstat(from, &st) < 0 || !S_ISDIR(st.st_mode) || !left_by_gone_executor(from, app_id))
            continue;
        int before = f.n;
        dirs++;
        take_outputs(from, local_dir, opts, &f);
        CS_INFO("executor", "event=shuffle_files_recovered from=%s map_outputs=%d",
                cs_log_value(from), f.n - before);
        cs_remove_local_dir(from, "executor");
    }
    if (d) closedir(d);
    CS_INFO("executor", "event=shuffle_recovery dir=%s earlier_executors=%d map_outputs=%d",
            cs_log_value(parent), dirs, f.n);
    free(own_name);
    free(parent);
    *out = f.outs;
    return f.n;
}

void cs_shuffle_recovered_free(cs_map_status *outs, int n)
{
    for (int i = 0; i < n; i++)
        cs_map_status_free(&outs[i]);
    free(outs);
}

void cs_shuffle_recovery_attach(Cspark__RegisterExecutor *re, const cs_conf *conf,
                                const char *local_dir, const char *app_id)
{
    re->recovered_outputs = NULL;
    re->n_recovered_outputs = 0;
    if (!cs_shuffle_recovery_enabled(conf)) return;
    cs_map_status_opts opts = cs_map_status_default_opts;
    cs_map_status_opts_read(conf, &opts, NULL); /* checked at submission and executor start */
    cs_map_status *outs = NULL;
    int n = cs_shuffle_recover(local_dir, app_id ? app_id : "", &opts, &outs);
    if (n > 0) {
        re->recovered_outputs = cs_xcalloc((size_t)n, sizeof *re->recovered_outputs);
        for (int i = 0; i < n; i++) {
            Cspark__MapStatus *pb = cs_xmalloc(sizeof *pb);
            cspark__map_status__init(pb);
            cs_map_status_encode(&outs[i], pb, NULL);
            re->recovered_outputs[i] = pb;
        }
        re->n_recovered_outputs = (size_t)n;
    }
    cs_shuffle_recovered_free(outs, n);
}

void cs_shuffle_recovery_detach(Cspark__RegisterExecutor *re)
{
    for (size_t i = 0; i < re->n_recovered_outputs; i++) {
        cs_map_status_pb_clear(re->recovered_outputs[i]);
        free(re->recovered_outputs[i]);
    }
    free(re->recovered_outputs);
    re->recovered_outputs = NULL;
    re->n_recovered_outputs = 0;
}
