/*
 * k8s_executor_logs.c — executors' logs for the driver's web UI on Kubernetes. A live executor's
 * log is its container's (spark-kubernetes-executor: stdout and stderr in one stream), read
 * through the API server's pods/log with the last bytes asked for (deploy/rbac.yaml grants
 * `get` on pods/log). A failed executor's pod is deleted as soon as it ended
 * (spark.kubernetes.executor.deleteOnTermination, true), and its log with it: the lifecycle
 * manager first keeps the end of it in the application's local dir (executor-<id>.log), which
 * the UI serves from then on — so a crash report stays readable, as in local-cluster. Spark's own
 * UI links no executor log on Kubernetes (only a custom spark.ui.custom.executor.log.url).
 *
 * Ownership: the kept files belong to the application's local dir (removed with it); fetched
 * text is appended to the caller's buffer.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/k8s/k8s_executor_logs.h"
#include "cluster/k8s/k8s_pod_spec.h"
#include "common/fsutil.h"
#include "common/log.h"

/* The end of a log the driver keeps or shows (the UI's log page asks for the last bytes). */
#define KEPT_LOG_BYTES ((size_t)4 << 20)

/* Writes text to path (created 0600: a log may hold what tasks printed). */
static int write_kept(const char *path, const cs_sbuf *text, cs_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return cs_error_set(err, CS_EIO, "cannot create %s: %s", path, strerror(errno));
    const char *p = cs_sbuf_str(text);
    size_t left = text->len;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int e = errno;
            close(fd);
            unlink(path);
            return cs_error_set(err, CS_EIO, "cannot write %s: %s", path, strerror(e));
        }
        p += n;
        left -= (size_t)n;
    }
    close(fd);
    return 0;
}

static void kept_path(const k8s_backend *b, int id, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/executor-%d.log", b->local_dir, id);
}

/* GET pods/<pod>/log of the executor container: the last max bytes (the API server's tailLines
 * and limitBytes count from the start of what they select, so the text is cut here). */
static int get_pod_log(k8s_backend *b, const char *pod, size_t max, cs_sbuf *out, cs_error *err)
{
    char path[1024];
    if (cs_kube_resource_path(b->kc, "pods", b->app.namespace_, pod, path, sizeof path, err) < 0)
        return err->code;
    size_t n = strlen(path);
    snprintf(path + n, sizeof path - n, "/log?container=%s&tailLines=100000",
             K8S_EXECUTOR_CONTAINER);
    json_t *text = NULL;
    if (cs_kube_request(b->kc, "get", "GET", path, NULL, NULL, &text, err) < 0) return err->code;
    const char *s = json_string_value(text);
    size_t len = s ? strlen(s) : 0;
    if (len > max) {
        s += len - max;
        len = max;
    }
    if (len) cs_sbuf_append(out, s, len);
    json_decref(text);
    return 0;
}

void cs_k8s_keep_executor_log(k8s_backend *b, int id, const char *pod)
{
    if (!b->local_dir) return;
    cs_sbuf text = CS_SBUF_INIT;
    cs_error err;
    cs_error_clear(&err);
    char path[4096];
    kept_path(b, id, path, sizeof path);
    if (get_pod_log(b, pod, KEPT_LOG_BYTES, &text, &err) < 0 || write_kept(path, &text, &err) < 0)
        CS_WARN("k8s", "event=executor_log_not_kept executor=%d pod=%s error=%s", id,
                cs_log_value(pod), cs_log_quote(err.msg));
    else
        CS_INFO("k8s", "event=executor_log_kept executor=%d pod=%s bytes=%zu", id,
                cs_log_value(pod), text.len);
    cs_sbuf_free(&text);
}

int cs_k8s_fetch_executor_log(sched_backend *base, const char *exec_id, size_t max, cs_sbuf *out,
                              cs_error *err)
{
    k8s_backend *b = cs_coarse_backend_launcher(base);
    char *end;
    long id = strtol(exec_id, &end, 10);
    if (end == exec_id || *end || id < 1 || id > INT32_MAX)
        return cs_error_set(err, CS_ENOTFOUND, "no executor %s", exec_id);
    char path[4096];
    kept_path(b, (int)id, path, sizeof path);
    if (access(path, R_OK) == 0) {
        uint8_t *kept = NULL;
        size_t len = 0;
        if (cs_read_file(path, &kept, &len, err) < 0) return err->code;
        size_t from = len > max ? len - max : 0;
        cs_sbuf_append(out, kept + from, len - from);
        free(kept);
        return 0;
    }
    char pod[256] = "";
    pthread_mutex_lock(&b->lock);
    k8s_exec_pod *p = cs_k8s_pods_find(&b->pods, (int)id);
    if (p) snprintf(pod, sizeof pod, "%s", p->name);
    pthread_mutex_unlock(&b->lock);
    if (!pod[0]) return cs_error_set(err, CS_ENOTFOUND, "no executor %s", exec_id);
    return get_pod_log(b, pod, max, out, err);
}
