/*
 * k8s_backend.c — executor pods for a k8s:// master (see k8s_backend.h), after Spark's
 * ExecutorPodsAllocator, snapshot sources and ExecutorPodsLifecycleManager:
 *
 *  - allocator thread: every spark.kubernetes.allocation.batch.delay (1 s), or at once when a
 *    snapshot shows the previous batch, creates up to spark.kubernetes.allocation.batch.size (10)
 *    pods until spark.executor.instances are alive. A batch whose pods have not all been seen in
 *    a snapshot blocks the next one; a pod unseen after spark.kubernetes.allocation.executor.timeout
 *    (600 s, at least 5 × batch delay) is deleted and replaced.
 *  - snapshots: one label-selected watch (spark-app-selector=<app>, spark-role=executor) that
 *    lists first and re-lists after 410 Gone (src/kube/kube_watch.c).
 *  - lifecycle: a Failed or Succeeded pod (any container terminated non-zero counts as failed,
 *    spark.kubernetes.executor.checkAllContainers) or a deleted one is an executor lost, with the
 *    exit code explained and the pod's reason and message; failed pods are deleted
 *    (spark.kubernetes.executor.deleteOnTermination); failures beyond
 *    spark.executor.maxNumFailures fail every job and the driver exits 11.
 *  - stop: StopExecutor to every executor, then delete the executor pods, the executor
 *    ConfigMap and (client mode) the authentication Secret.
 */
#define _GNU_SOURCE
#include "cluster/k8s/k8s_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api/context.h"
#include "cluster/coarse_backend.h"
#include "cluster/exit_codes.h"
#include "cluster/k8s/k8s_pod_spec.h"
#include "common/clock.h"
#include "common/log.h"
#include "kube/kube_client.h"
#include "kube/kube_config.h"
#include "kube/kube_watch.h"

typedef struct exec_pod {
    int id;
    char name[256];
    int64_t created_ms;
    bool seen; /* appeared in a snapshot */
    bool done; /* removed: failed, succeeded or deleted */
} exec_pod;

typedef struct k8s_backend {
    sched_backend base;
    coarse_backend *coarse;
    cspark_context *sc;
    kube_client *kc;
    k8s_app app;
    bool app_ready;
    json_t *driver_pod; /* owner of everything we create; NULL in client mode without one */
    char driver_url[600];
    char *secret;
    char exec_app_file[512];
    int target, batch_size, cores;
    int64_t batch_delay_ms, executor_timeout_ms;
    int max_failures, failures, exit_code;
    bool delete_on_termination, check_all_containers, delete_service;
    bool created_secret, created_exec_cm, in_driver_pod;

    pthread_mutex_t lock;
    pthread_cond_t cond;
    exec_pod *pods;
    int npods, cap;
    int next_id;
    kube_watch *watch;
    pthread_t allocator;
    bool allocator_started, stopping;
} k8s_backend;

static int64_t mono_ms(void)
{
    return cs_now_ns() / 1000000;
}

static exec_pod *find_pod(k8s_backend *b, int id)
{
    for (int i = 0; i < b->npods; i++)
        if (b->pods[i].id == id) return &b->pods[i];
    return NULL;
}

/* ---- lifecycle --------------------------------------------------------------------------- */

/* Exit code and explanation of a finished pod: the executor container's terminated state (or any
 * container's non-zero one with checkAllContainers), plus the pod's reason and message. */
static bool pod_failure(k8s_backend *b, const json_t *pod, char *why, size_t cap, bool *failed)
{
    const json_t *st = json_object_get(pod, "status");
    const char *phase = json_string_value(json_object_get(st, "phase"));
    int code = -1;
    bool terminated = false;
    const json_t *cs = json_object_get(st, "containerStatuses");
    for (size_t i = 0; i < json_array_size(cs); i++) {
        const json_t *c = json_array_get(cs, i);
        const json_t *t = json_object_get(json_object_get(c, "state"), "terminated");
        if (!t) continue;
        int ec = (int)json_integer_value(json_object_get(t, "exitCode"));
        const char *name = json_string_value(json_object_get(c, "name"));
        bool mine = name && strcmp(name, "spark-kubernetes-executor") == 0;
        if (mine || (b->check_all_containers && ec != 0)) {
            terminated = true;
            if (mine || code <= 0) code = ec;
        }
    }
    bool finished = (phase && (strcmp(phase, "Failed") == 0 || strcmp(phase, "Succeeded") == 0)) ||
                    (terminated && phase && strcmp(phase, "Running") == 0 && (code != 0 || b->check_all_containers));
    if (!finished) return false;
    *failed = !(phase && strcmp(phase, "Succeeded") == 0) || code != 0;
    char explained[256];
    if (code >= 0) describe_exit_code(code, explained, sizeof explained);
    else snprintf(explained, sizeof explained, "exit code -1 (unknown: no terminated container)");
    const char *reason = json_string_value(json_object_get(st, "reason"));
    const char *message = json_string_value(json_object_get(st, "message"));
    snprintf(why, cap, "The executor pod %s ended with %s; pod phase %s%s%s%s%s",
             json_string_value(json_object_get(json_object_get(pod, "metadata"), "name")), explained,
             phase ? phase : "?", reason ? ", reason " : "", reason ? reason : "",
             message ? ", message: " : "", message ? message : "");
    return true;
}

static int pod_exec_id(const json_t *pod)
{
    const char *id = json_string_value(json_object_get(
        json_object_get(json_object_get(pod, "metadata"), "labels"), "spark-exec-id"));
    return id ? atoi(id) : -1;
}

/* Called with the lock held; releases it around API calls and scheduler notifications. */
static void executor_gone(k8s_backend *b, exec_pod *p, const char *why, bool failed, bool delete_pod)
{
    if (p->done) return;
    p->done = true;
    int id = p->id;
    char name[256];
    snprintf(name, sizeof name, "%s", p->name);
    bool abort_now = false;
    if (failed && !b->stopping) {
        b->failures++;
        if (b->failures >= b->max_failures && !b->exit_code) {
            b->exit_code = 11;
            abort_now = true;
        }
    }
    bool stopping = b->stopping;
    int failures = b->failures, max = b->max_failures;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    if (!stopping) {
        CS_WARN("k8s", "event=executor_pod_ended executor=%d pod=%s failed=%s failures=%d max=%d reason=\"%s\"",
                id, name, failed ? "true" : "false", failures, max, why);
        char sid[32];
        snprintf(sid, sizeof sid, "%d", id);
        coarse_backend_executor_exited(b->coarse, sid, why);
        if (abort_now) {
            char msg[1200];
            snprintf(msg, sizeof msg,
                     "Max number of executor failures (%d) reached (spark.executor.maxNumFailures); "
                     "the last: %s", max, why);
            scheduler_abort(b->base.sched, msg);
        }
        if (delete_pod && b->delete_on_termination) {
            cs_error err;
            kube_delete(b->kc, "pods", b->app.namespace_, name, -1, &err);
        }
    }
    pthread_mutex_lock(&b->lock);
}

static void on_pod(k8s_backend *b, const char *type, const json_t *pod)
{
    int id = pod_exec_id(pod);
    if (id < 0) return;
    exec_pod *p = find_pod(b, id);
    if (!p || p->done) return;
    p->seen = true;
    if (strcmp(type, "DELETED") == 0) {
        executor_gone(b, find_pod(b, id), "The executor pod was deleted (by a user or the framework)", false, false);
        return;
    }
    char why[1024];
    bool failed = false;
    if (pod_failure(b, pod, why, sizeof why, &failed)) {
        executor_gone(b, find_pod(b, id), why, failed, true);
        return;
    }
    const json_t *md = json_object_get(pod, "metadata");
    const char *phase = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
    if (json_object_get(md, "deletionTimestamp") && !(phase && strcmp(phase, "Running") == 0))
        executor_gone(b, find_pod(b, id), "The executor pod is being deleted", false, false);
}

static void on_watch(void *arg, const char *type, const json_t *obj)
{
    k8s_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    if (strcmp(type, "RELIST") == 0) {
        /* a full snapshot: anything of ours it does not hold, once seen, is gone */
        const json_t *items = json_object_get(obj, "items");
        char *present = cs_xcalloc((size_t)b->npods + 1, 1);
        for (size_t i = 0; i < json_array_size(items); i++) {
            const json_t *pod = json_array_get(items, i);
            int id = pod_exec_id(pod);
            for (int k = 0; k < b->npods; k++)
                if (b->pods[k].id == id) present[k] = 1;
            on_pod(b, "MODIFIED", pod);
        }
        int n = b->npods;
        for (int k = 0; k < n; k++) {
            if (present[k] || !b->pods[k].seen || b->pods[k].done) continue;
            executor_gone(b, &b->pods[k], "The executor pod is missing from a full snapshot", false, false);
        }
        free(present);
    } else {
        on_pod(b, type, obj);
    }
    pthread_cond_broadcast(&b->cond); /* a new snapshot: the allocator may go on */
    pthread_mutex_unlock(&b->lock);
}

/* ---- allocation --------------------------------------------------------------------------- */

static int create_executor_pod(k8s_backend *b, cs_error *err)
{
    pthread_mutex_lock(&b->lock);
    int id = b->next_id++;
    pthread_mutex_unlock(&b->lock);
    json_t *pod = k8s_executor_pod(b->sc->conf, &b->app, id, b->cores, b->driver_pod, b->driver_url, err);
    if (!pod) return err->code ? err->code : CS_EINVAL;
    const char *name = json_string_value(json_object_get(json_object_get(pod, "metadata"), "name"));
    exec_pod p = {.id = id, .created_ms = mono_ms()};
    snprintf(p.name, sizeof p.name, "%s", name ? name : "");
    /* registered before the create call: the watch may report the pod before it returns */
    pthread_mutex_lock(&b->lock);
    if (b->npods == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 16;
        b->pods = cs_xrealloc(b->pods, (size_t)b->cap * sizeof *b->pods);
    }
    b->pods[b->npods++] = p;
    pthread_mutex_unlock(&b->lock);
    json_t *created = NULL;
    int rc = kube_create(b->kc, "pods", b->app.namespace_, pod, &created, err);
    json_decref(pod);
    json_decref(created);
    if (rc < 0) {
        pthread_mutex_lock(&b->lock);
        exec_pod *q = find_pod(b, id);
        if (q) q->done = true;
        pthread_mutex_unlock(&b->lock);
        return rc;
    }
    CS_INFO("k8s", "event=executor_pod_created executor=%d pod=%s", id, p.name);
    return 0;
}

static void timed_wait(k8s_backend *b, int64_t ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_sec += ms / 1000;
    ts.tv_nsec += (ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&b->cond, &b->lock, &ts);
}

static void *allocator_main(void *arg)
{
    k8s_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    while (!b->stopping) {
        int64_t now = mono_ms();
        int alive = 0, unseen = 0;
        for (int i = 0; i < b->npods; i++) {
            exec_pod *p = &b->pods[i];
            if (p->done) continue;
            if (!p->seen && now - p->created_ms > b->executor_timeout_ms) {
                char name[256];
                snprintf(name, sizeof name, "%s", p->name);
                CS_WARN("k8s", "event=executor_pod_timeout executor=%d pod=%s waited_ms=%lld", p->id, name,
                        (long long)(now - p->created_ms));
                p->done = true; /* forgotten, deleted, and requested again below */
                pthread_mutex_unlock(&b->lock);
                cs_error err;
                kube_delete(b->kc, "pods", b->app.namespace_, name, 0, &err);
                pthread_mutex_lock(&b->lock);
                continue;
            }
            alive++;
            unseen += !p->seen;
        }
        if (!unseen && alive < b->target && !b->exit_code) {
            int n = b->target - alive < b->batch_size ? b->target - alive : b->batch_size;
            pthread_mutex_unlock(&b->lock);
            for (int i = 0; i < n; i++) {
                cs_error err;
                cs_error_clear(&err);
                if (create_executor_pod(b, &err) < 0) {
                    CS_ERROR("k8s", "event=executor_pod_create_failed error=\"%s\"", err.msg);
                    if (err.code == CS_EAUTH || strstr(err.msg, "forbidden") || strstr(err.msg, "does not exist")) {
                        scheduler_abort(b->base.sched, err.msg); /* retrying cannot help */
                        pthread_mutex_lock(&b->lock);
                        b->exit_code = 1;
                        pthread_mutex_unlock(&b->lock);
                    }
                    break;
                }
            }
            pthread_mutex_lock(&b->lock);
            continue; /* re-evaluate at once: the batch is now unseen */
        }
        timed_wait(b, b->batch_delay_ms);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

/* ---- sched_backend ----------------------------------------------------------------------- */

static void k8s_launch(sched_backend *base, const task_desc *t)
{
    k8s_backend *b = (k8s_backend *)base;
    coarse_backend_base(b->coarse)->launch(coarse_backend_base(b->coarse), t);
}

static int k8s_total_cores(sched_backend *base)
{
    k8s_backend *b = (k8s_backend *)base;
    return coarse_backend_base(b->coarse)->total_cores(coarse_backend_base(b->coarse));
}

static void k8s_cancel_all(sched_backend *base)
{
    k8s_backend *b = (k8s_backend *)base;
    coarse_backend_base(b->coarse)->cancel_all(coarse_backend_base(b->coarse));
}

static void k8s_stop(sched_backend *base)
{
    k8s_backend *b = (k8s_backend *)base;
    pthread_mutex_lock(&b->lock);
    b->stopping = true;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    if (b->allocator_started) pthread_join(b->allocator, NULL);
    if (b->coarse) {
        /* executors exit 0 on StopExecutor; their pods are deleted after, as Spark's stop() */
        coarse_backend_stop_executors(b->coarse);
        coarse_backend_wait_disconnected(b->coarse, 3000);
    }
    if (b->watch) kube_watch_stop(b->watch);
    if (b->kc && b->app_ready) {
        cs_error err;
        char sel[300];
        snprintf(sel, sizeof sel, "spark-app-selector=%s,spark-role=executor", b->app.app_id);
        if (kube_delete_collection(b->kc, "pods", b->app.namespace_, sel, -1, &err) < 0)
            CS_WARN("k8s", "event=cleanup_failed what=executor_pods error=\"%s\"", err.msg);
        if (b->created_exec_cm) kube_delete(b->kc, "configmaps", b->app.namespace_, b->app.exec_conf_map_name, -1, &err);
        if (b->created_secret) kube_delete(b->kc, "secrets", b->app.namespace_, b->app.auth_secret_name, -1, &err);
        if (b->in_driver_pod) {
            /* cluster mode: what the submit client made for this driver goes with it, so only
             * the completed driver pod (and its log) remains */
            if (b->delete_service)
                kube_delete(b->kc, "services", b->app.namespace_, b->app.driver_svc_name, -1, &err);
            kube_delete(b->kc, "configmaps", b->app.namespace_, b->app.conf_map_name, -1, &err);
            kube_delete(b->kc, "secrets", b->app.namespace_, b->app.auth_secret_name, -1, &err);
        }
    }
    if (b->coarse) {
        sched_backend *cb = coarse_backend_base(b->coarse);
        cb->sched = b->base.sched;
        cb->stop(cb);
    }
    if (b->app_ready) k8s_app_free(&b->app);
    json_decref(b->driver_pod);
    kube_client_free(b->kc);
    free(b->pods);
    free(b->secret);
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->cond);
    free(b);
}

/* The job's .so as executors load it: from their ConfigMap (shipped by us), or from the image
 * for local:// paths outside the conf directory. *bytes is malloc'd when it must be shipped. */
static int app_for_executors(k8s_backend *b, uint8_t **bytes, size_t *len, cs_error *err)
{
    const char *resource = conf_get(b->sc->conf, "cspark.app.resource");
    const char *file = conf_get(b->sc->conf, "cspark.app.file");
    if (resource && strncmp(resource, "local://", 8) == 0 && strncmp(resource + 8, "/opt/spark/conf/", 16) != 0) {
        snprintf(b->exec_app_file, sizeof b->exec_app_file, "%s", resource + 8);
        return 0;
    }
    if (!file) return cs_error_set(err, CS_EINVAL, "the application file is unknown (cspark.app.file)");
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        if (fd >= 0) close(fd);
        return cs_error_set(err, CS_EIO, "cannot read the application file %s: %s", file, strerror(errno));
    }
    *len = (size_t)st.st_size;
    *bytes = cs_xmalloc(*len ? *len : 1);
    size_t got = 0;
    while (got < *len) {
        ssize_t n = read(fd, *bytes + got, *len - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    close(fd);
    if (got != *len) return cs_error_set(err, CS_EIO, "cannot read the application file %s", file);
    snprintf(b->exec_app_file, sizeof b->exec_app_file, "/opt/spark/conf/%s",
             b->app.upload_name ? b->app.upload_name : "app.so");
    return 0;
}

static int read_settings(k8s_backend *b, cs_error *err)
{
    const cs_conf *c = b->sc->conf;
    int64_t v;
    if (conf_get_int(c, "spark.executor.instances", "2", &v, err) < 0) return err->code;
    b->target = (int)(v < 0 ? 0 : v);
    if (conf_get_int(c, "spark.executor.cores", "1", &v, err) < 0) return err->code;
    b->cores = (int)(v < 1 ? 1 : v);
    if (conf_get_int(c, "spark.kubernetes.allocation.batch.size", "10", &v, err) < 0) return err->code;
    if (v < 1) return cs_error_set(err, CS_EINVAL, "invalid value for spark.kubernetes.allocation.batch.size: '%lld' (expected a positive integer)", (long long)v);
    b->batch_size = (int)v;
    if (conf_get_duration_ms(c, "spark.kubernetes.allocation.batch.delay", "1s", CS_MS, &b->batch_delay_ms, err) < 0) return err->code;
    if (b->batch_delay_ms <= 100)
        return cs_error_set(err, CS_EINVAL, "invalid value for spark.kubernetes.allocation.batch.delay: '%s' (must be greater than 100ms)",
                            conf_get(c, "spark.kubernetes.allocation.batch.delay"));
    if (conf_get_duration_ms(c, "spark.kubernetes.allocation.executor.timeout", "600s", CS_MS, &b->executor_timeout_ms, err) < 0) return err->code;
    if (b->executor_timeout_ms < 5 * b->batch_delay_ms) b->executor_timeout_ms = 5 * b->batch_delay_ms;
    char dflt[16];
    snprintf(dflt, sizeof dflt, "%d", 2 * b->target > 3 ? 2 * b->target : 3);
    if (conf_get_int(c, "spark.executor.maxNumFailures", dflt, &v, err) < 0) return err->code;
    b->max_failures = (int)(v < 1 ? 1 : v);
    if (conf_get_bool(c, "spark.kubernetes.executor.deleteOnTermination", "true", &b->delete_on_termination, err) < 0) return err->code;
    if (conf_get_bool(c, "spark.kubernetes.executor.checkAllContainers", "true", &b->check_all_containers, err) < 0) return err->code;
    if (conf_get_bool(c, "spark.kubernetes.driver.service.deleteOnTermination", "true", &b->delete_service, err) < 0) return err->code;
    return 0;
}

sched_backend *k8s_backend_new(cspark_context *sc, const char *secret, cs_error *err)
{
    k8s_backend *b = cs_xcalloc(1, sizeof *b);
    b->base.launch = k8s_launch;
    b->base.total_cores = k8s_total_cores;
    b->base.cancel_all = k8s_cancel_all;
    b->base.stop = k8s_stop;
    b->sc = sc;
    b->next_id = 1;
    b->secret = secret ? cs_xstrdup(secret) : NULL;
    pthread_mutex_init(&b->lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&b->cond, &ca);
    pthread_condattr_destroy(&ca);
    uint8_t *app_bytes = NULL;
    size_t app_len = 0;
    json_t *obj = NULL;

    if (read_settings(b, err) < 0) goto fail;
    bool in_driver_pod = conf_get(sc->conf, "spark.kubernetes.submitInDriver") != NULL;
    b->in_driver_pod = in_driver_pod;
    kube_config kcfg;
    memset(&kcfg, 0, sizeof kcfg);
    /* in the driver pod: spark.kubernetes.driver.master, else the pod's in-cluster configuration
     * (KUBERNETES_SERVICE_HOST/PORT and the service account), which is what Spark's default
     * https://kubernetes.default.svc names */
    const char *master = conf_get(sc->conf, in_driver_pod ? "spark.kubernetes.driver.master" : "spark.master");
    if (kube_config_load(sc->conf, master,
                         in_driver_pod ? "spark.kubernetes.authenticate.driver.mounted" : "spark.kubernetes.authenticate",
                         &kcfg, err) < 0)
        goto fail;
    b->kc = kube_client_new(&kcfg, sc->conf, "spark.kubernetes.driver", err);
    kube_config_free(&kcfg);
    if (!b->kc) goto fail;
    const char *resource = conf_get(sc->conf, "cspark.app.resource");
    if (k8s_app_init(&b->app, sc->conf, conf_get(sc->conf, "cspark.app.entry"), resource ? resource : "", 0, NULL, err) < 0)
        goto fail;
    b->app_ready = true;

    const char *driver_pod_name = conf_get(sc->conf, "spark.kubernetes.driver.pod.name");
    if (driver_pod_name && kube_get(b->kc, "pods", b->app.namespace_, driver_pod_name, &b->driver_pod, err) < 0) {
        cs_error_prefix(err, "cannot find the driver pod %s (spark.kubernetes.driver.pod.name)", driver_pod_name);
        goto fail;
    }

    /* executors reach the driver here; they load the job from their ConfigMap or the image */
    if (app_for_executors(b, &app_bytes, &app_len, err) < 0) goto fail;
    const char *host = conf_get(sc->conf, "spark.driver.host");
    const char *bind = conf_get(sc->conf, "spark.driver.bindAddress");
    if (!host) host = "127.0.0.1";
    if (!bind) bind = in_driver_pod ? "0.0.0.0" : host;
    int64_t port = 0;
    if (conf_get_int(sc->conf, "spark.driver.port", in_driver_pod ? "7078" : "0", &port, err) < 0) goto fail;
    coarse_options o = {.bind_host = bind, .port = (int)port, .secret = secret, .app_file = b->exec_app_file};
    b->coarse = coarse_backend_new(sc, &o, err);
    if (!b->coarse) goto fail;
    snprintf(b->driver_url, sizeof b->driver_url, "spark://CoarseGrainedScheduler@%s:%d", host,
             coarse_backend_port(b->coarse));

    /* the Secret executors read the authentication secret from (the submit client made it in
     * cluster mode), and the executor ConfigMap */
    if (secret && !in_driver_pod) {
        cs_conf *c2 = conf_clone(sc->conf);
        conf_set(c2, "spark.authenticate.secret", secret);
        obj = k8s_auth_secret(c2, &b->app, err);
        conf_free(c2);
        if (!obj || (b->driver_pod && k8s_set_owner(obj, b->driver_pod, err) < 0) ||
            kube_create(b->kc, "secrets", b->app.namespace_, obj, NULL, err) < 0)
            goto fail;
        json_decref(obj);
        obj = NULL;
        b->created_secret = true;
    }
    obj = k8s_executor_configmap(sc->conf, &b->app, app_bytes, app_len, err);
    if (!obj || (b->driver_pod && k8s_set_owner(obj, b->driver_pod, err) < 0) ||
        kube_create(b->kc, "configmaps", b->app.namespace_, obj, NULL, err) < 0)
        goto fail;
    json_decref(obj);
    obj = NULL;
    b->created_exec_cm = true;
    free(app_bytes);
    return &b->base;
fail:
    json_decref(obj);
    free(app_bytes);
    k8s_stop(&b->base);
    return NULL;
}

int k8s_backend_start(sched_backend *base, cs_error *err)
{
    k8s_backend *b = (k8s_backend *)base;
    coarse_backend_base(b->coarse)->sched = b->base.sched;
    char sel[300];
    snprintf(sel, sizeof sel, "spark-app-selector=%s,spark-role=executor", b->app.app_id);
    b->watch = kube_watch_start(b->kc, "pods", b->app.namespace_, sel, on_watch, b, err);
    if (!b->watch) return err->code ? err->code : CS_EIO;
    b->allocator_started = pthread_create(&b->allocator, NULL, allocator_main, b) == 0;
    CS_INFO("k8s", "event=allocator_started app=%s namespace=%s target=%d batch=%d driver_url=%s",
            b->app.app_id, b->app.namespace_, b->target, b->batch_size, b->driver_url);
    return 0;
}

int k8s_backend_wait_registered(sched_backend *base, double ratio, int64_t timeout_ms)
{
    k8s_backend *b = (k8s_backend *)base;
    int want = (int)(ratio * b->target + 0.999999);
    return coarse_backend_wait_registered(b->coarse, want, timeout_ms);
}

int k8s_backend_exit_code(sched_backend *base)
{
    k8s_backend *b = (k8s_backend *)base;
    pthread_mutex_lock(&b->lock);
    int rc = b->exit_code;
    pthread_mutex_unlock(&b->lock);
    return rc;
}
