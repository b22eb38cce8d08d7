/*
 * k8s_backend.c — the glue of the Kubernetes scheduler backend (Spark's
 * KubernetesClusterSchedulerBackend, see k8s_backend.h): creates the driver endpoint (the coarse
 * backend), the executor ConfigMap and (client mode) the authentication Secret, starts the
 * snapshot sources and the allocator, and plugs into the coarse backend as its hooks
 * (request_total, removing, stopping, stopped: the scheduler drives the coarse backend itself);
 * refuses executors whose pods were given up; on stop tells executors to exit and deletes what
 * the application created.
 * The concepts live one per file beside it (docs/kubernetes-backend.md):
 *   k8s_settings.c          every key honoured, read once
 *   k8s_allocator.c         ExecutorPodsAllocator: the pure round and the allocator thread
 *   k8s_statefulset.c       StatefulSetPodsAllocator: the executors as one StatefulSet
 *   k8s_snapshots_store.c   ExecutorPodsSnapshotsStore: the executor pod table
 *   k8s_watch_source.c      ExecutorPodsWatchSnapshotSource
 *   k8s_polling_source.c    ExecutorPodsPollingSnapshotSource
 *   k8s_lifecycle_manager.c ExecutorPodsLifecycleManager
 *   k8s_claims.c            on-demand PersistentVolumeClaims: reuse, creation, deletion
 *   k8s_executor_roll.c     ExecutorRollDriverPlugin: one executor decommissioned per interval
 * Dynamic allocation: the allocation manager sets the target (request_total); executors it
 * removes (remove_executors) are told over RPC to exit or decommission, their pods get
 * spark.kubernetes.executor.decommissionLabel when set, and the allocator deletes pods still there
 * after spark.kubernetes.dynamicAllocation.deleteGracePeriod.
 * Stop: StopExecutor to every executor, then delete the executor pods (unless
 * deleteOnTermination=false), the on-demand claims (ownPersistentVolumeClaim), the executor
 * ConfigMap and (client mode) the authentication Secret.
 */
#define _GNU_SOURCE
#include "cluster/k8s/k8s_backend.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/k8s/k8s_backend_internal.h"
#include "cluster/k8s/k8s_claims.h"
#include "cluster/k8s/k8s_lifecycle_manager.h"
#include "cluster/k8s/k8s_snapshot_sources.h"
#include "cluster/k8s/k8s_statefulset.h"
#include "common/app_file.h"
#include "common/clock.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/shutdown.h"
#include "common/strutil.h"
#include "common/sync.h"
#include "kube/kube_config.h"

/* ---- sched_backend ----------------------------------------------------------------------- */

/* Dynamic allocation's target: the allocator creates or deletes pending pods to follow it. */
static void k8s_request_total(void *arg, int total)
{
    k8s_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    b->target = total < 0 ? 0 : total;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
}

/* Spark's doKillExecutors / decommissionExecutors: the pods are labelled (decommissionLabel)
 * before the coarse backend tells the executors over RPC, and deleted after deleteGracePeriod if
 * still there (the allocator's round). */
static void k8s_removing(void *arg, const char *const *ids, int n)
{
    k8s_backend *b = arg;
    /* labelled first, so that the label is there before the executor can end its pod */
    for (int k = 0; k < n; k++) {
        char *end;
        long id = strtol(ids[k], &end, 10);
        if (*end || id < 0 || id > INT32_MAX) continue;
        char name[256] = "";
        pthread_mutex_lock(&b->lock);
        k8s_exec_pod *p = cs_k8s_pods_find(&b->pods, (int)id);
        if (p && !p->done) {
            cs_k8s_allocator_removing(&b->set, p, cs_mono_ms());
            snprintf(name, sizeof name, "%s", p->name);
        }
        pthread_mutex_unlock(&b->lock);
        if (name[0]) cs_k8s_label_decommissioning(b, name);
    }
}

void cs_k8s_label_decommissioning(k8s_backend *b, const char *name)
{
    if (!b->set.decom_label) return;
    json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "labels", b->set.decom_label,
                              b->set.decom_label_value ? b->set.decom_label_value : "");
    cs_error err;
    cs_error_clear(&err);
    if (cs_kube_patch_merge(b->kc, "pods", b->app.namespace_, name, patch, NULL, &err) < 0 &&
        err.code != CS_ENOTFOUND)
        CS_WARN("k8s", "event=decommission_label_failed pod=%s error=%s", cs_log_value(name),
                cs_log_quote(err.msg));
    json_decref(patch);
}

/* deleteOnTermination=false: every executor pod still without the label gets
 * spark-exec-inactive=true, so that later watches and polls ignore it. */
static void label_kept_pods(k8s_backend *b)
{
    cs_error err;
    cs_error_clear(&err);
    char *sel = cs_k8s_executor_selector(b, true);
    json_t *list = NULL;
    if (cs_kube_list(b->kc, "pods", b->app.namespace_, sel, NULL, &list, &err) < 0) {
        CS_WARN("k8s", "event=cleanup_failed what=label_inactive error=%s", cs_log_quote(err.msg));
        free(sel);
        return;
    }
    free(sel);
    json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "spark-exec-inactive", "true");
    const json_t *items = json_object_get(list, "items");
    for (size_t i = 0; i < json_array_size(items); i++) {
        const char *name = json_string_value(
            json_object_get(json_object_get(json_array_get(items, i), "metadata"), "name"));
        if (name &&
            cs_kube_patch_merge(b->kc, "pods", b->app.namespace_, name, patch, NULL, &err) < 0 &&
            err.code != CS_ENOTFOUND)
            CS_WARN("k8s", "event=label_inactive_failed pod=%s error=%s", cs_log_value(name),
                    cs_log_quote(err.msg));
    }
    json_decref(patch);
    json_decref(list);
}

/* The task reaper gave up on this executor's tasks: its pod is deleted now (the executor, whose
 * connection the driver closed, also exits by itself after the reaper's grace). */
static void k8s_kill(void *arg, const char *executor_id)
{
    k8s_backend *b = arg;
    char *end;
    long id = strtol(executor_id, &end, 10);
    if (*end || id < 0 || id > INT32_MAX) return;
    char name[256] = "";
    pthread_mutex_lock(&b->lock);
    k8s_exec_pod *p = cs_k8s_pods_find(&b->pods, (int)id);
    if (p && !p->done) snprintf(name, sizeof name, "%s", p->name);
    pthread_mutex_unlock(&b->lock);
    if (!name[0]) return;
    CS_WARN("k8s", "event=executor_pod_delete executor=%s pod=%s reason=task_reaper", executor_id,
            name);
    cs_error err;
    cs_error_clear(&err);
    if (cs_kube_delete(b->kc, "pods", b->app.namespace_, name, -1, &err) < 0 &&
        err.code != CS_ENOTFOUND)
        CS_WARN("k8s", "event=executor_pod_delete_failed pod=%s error=\"%s\"", name, err.msg);
}

/* The backend stops (the coarse backend's stopping hook, or a failed creation): the allocator and
 * the sources end, executors are told to stop, then what the application created goes. */
static void k8s_stopping(void *arg)
{
    k8s_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    b->stopping = true;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    cs_k8s_roll_stop(b);
    cs_k8s_allocator_stop(b); /* already, in general: the context's first step (app_stopping) */
    cs_k8s_polling_source_stop(b);
    cs_k8s_lifecycle_stop(b); /* from now on each update is handled as it comes */
    if (b->coarse) {
        /* executors exit 0 on StopExecutor; their pods are deleted after, as Spark's stop() */
        cs_coarse_backend_stop_executors(b->coarse);
        cs_coarse_backend_wait_disconnected(b->coarse, cs_shutdown_grace_ms(3000));
    }
    cs_k8s_watch_source_stop(b);
    if (b->kc && b->app_ready) {
        cs_error err;
        cs_k8s_statefulset_delete(b); /* its pods go with it (a pod deletion alone: recreated) */
        /* with deleteOnTermination=false the finished executor pods stay (for their logs), as
         * Spark's stop(); they are owned by the driver pod when there is one */
        if (b->set.delete_on_termination) {
            char *sel = cs_k8s_executor_selector(b, false);
            /* a busy API server stops deleting when the request times out: each retry deletes
             * what is left (three attempts; none more once a second signal hurries the stop) */
            int rc = 0;
            for (int attempt = 0; attempt < 3; attempt++) {
                cs_error_clear(&err);
                rc = cs_kube_delete_collection(b->kc, "pods", b->app.namespace_, sel, -1, &err);
                if (rc == 0 || err.code != CS_ETIMEOUT || cs_shutdown_hurried()) break;
                CS_WARN("k8s", "event=cleanup_retry what=executor_pods attempt=%d error=%s",
                        attempt + 1, cs_log_quote(err.msg));
            }
            if (rc < 0)
                CS_WARN("k8s", "event=cleanup_failed what=executor_pods error=%s",
                        cs_log_quote(err.msg));
            free(sel);
        } else {
            label_kept_pods(b); /* including those that ended while stopping */
        }
        cs_k8s_claims_delete_all(b);
        if (b->created_exec_cm)
            cs_kube_delete(b->kc, "configmaps", b->app.namespace_, b->app.exec_conf_map_name, -1,
                           &err);
        if (b->created_secret)
            cs_kube_delete(b->kc, "secrets", b->app.namespace_, b->app.auth_secret_name, -1, &err);
        if (b->set.in_driver_pod) {
            /* cluster mode: what the submit client made for this driver goes with it, so only
             * the completed driver pod (and its log) remains */
            if (b->set.delete_service)
                cs_kube_delete(b->kc, "services", b->app.namespace_, b->app.driver_svc_name, -1,
                               &err);
            cs_kube_delete(b->kc, "configmaps", b->app.namespace_, b->app.conf_map_name, -1, &err);
            cs_kube_delete(b->kc, "secrets", b->app.namespace_, b->app.auth_secret_name, -1, &err);
        }
    }
}

/* After the driver endpoint closed: nothing calls into b any more. */
static void k8s_stopped(void *arg)
{
    k8s_backend *b = arg;
    if (b->app_ready) cs_k8s_app_free(&b->app);
    if (b->uploaded) cs_files_upload_abort(&b->upload); /* the application is over */
    cs_conf_free(b->exec_conf);
    json_decref(b->driver_pod);
    cs_kube_client_free(b->kc);
    cs_k8s_pods_free(&b->pods);
    cs_k8s_settings_free(&b->set);
    cs_k8s_failures_free(&b->failures);
    cs_k8s_event_batch_free(&b->events);
    free(b->local_dir);
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->cond);
    free(b);
}

/* Spark's isExecutorExcluded: an executor whose pod was already given up (deleted as excess or
 * timed out, or ended) may not register — its pod is going away. Unknown ids (forgotten after
 * deletedExecutorsCacheTimeout, or not ours) are refused too. */
static bool admit_executor(void *arg, const char *executor_id)
{
    k8s_backend *b = arg;
    char *end;
    long id = strtol(executor_id, &end, 10);
    if (*end || id < 0 || id > INT32_MAX) return false;
    pthread_mutex_lock(&b->lock);
    k8s_exec_pod *p = cs_k8s_pods_find(&b->pods, (int)id);
    bool ok = p && !p->done;
    if (ok) p->registered = true; /* Spark's scheduler-known executors: never timed out */
    pthread_mutex_unlock(&b->lock);
    if (!ok)
        CS_WARN("k8s", "event=executor_refused executor=%s reason=\"its pod was %s\"",
                cs_log_value(executor_id),
                p ? "given up (deleted or ended)" : "not requested by this driver");
    return ok;
}

/* The job's .so as executors load it: from their ConfigMap (shipped by us), from the image
 * for local:// paths outside the conf directory, or fetched by each executor from where the
 * submit client uploaded it (an s3a:// or shared file: URI); the engine's own library, which the
 * image holds, for spark-internal (cspark-sql). *bytes is malloc'd when it must be shipped. */
static int app_for_executors(k8s_backend *b, uint8_t **bytes, size_t *len, cs_error *err)
{
    const char *resource = cs_conf_get(b->conf, "cspark.app.resource");
    const char *file = cs_conf_get(b->conf, "cspark.app.file");
    if (resource && strcmp(resource, CS_APP_SPARK_INTERNAL) == 0) {
        snprintf(b->exec_app_file, sizeof b->exec_app_file, "%s", resource);
        return 0;
    }
    if (resource && strncmp(resource, "local://", 8) == 0 &&
        strncmp(resource + 8, "/opt/spark/conf/", 16) != 0) {
        snprintf(b->exec_app_file, sizeof b->exec_app_file, "%s", resource + 8);
        return 0;
    }
    if (resource && (strncmp(resource, "s3a://", 6) == 0 || strncmp(resource, "file:", 5) == 0)) {
        /* uploaded through spark.kubernetes.file.upload.path: executors fetch it from there */
        snprintf(b->exec_app_file, sizeof b->exec_app_file, "%s", resource);
        return 0;
    }
    if (!file)
        return cs_error_set(err, CS_EINVAL, "the application file is unknown (cspark.app.file)");
    if (cs_read_file(file, bytes, len, err) < 0) return err->code;
    snprintf(b->exec_app_file, sizeof b->exec_app_file, "/opt/spark/conf/%s",
             b->app.upload_name ? b->app.upload_name : "app.so");
    return 0;
}

/* Files the submit client shipped in the driver's ConfigMap (spark.files / spark.archives entries
 * local:///opt/spark/conf/<key>) go on in the executors' ConfigMap, mounted at the same path. */
static int reship_entry(k8s_backend *b, const char *entry, cs_error *err)
{
    const char *prefix = "local://" K8S_CONF_DIR "/";
    if (strncmp(entry, prefix, strlen(prefix)) != 0) return 0;
    const char *hash = strrchr(entry, '#');
    char *path = hash ? cs_xstrndup(entry + 8, (size_t)(hash - entry - 8)) : cs_xstrdup(entry + 8);
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = cs_read_file(path, &data, &len, err);
    if (rc == 0)
        rc = cs_k8s_app_add_shipped(&b->app, path + strlen(K8S_CONF_DIR) + 1, data, len, err);
    free(path);
    return rc;
}

/* Client mode: the local entries of spark.files / spark.archives are the driver's own paths,
 * which executor pods cannot read (Spark serves them from the driver's file server). They go
 * through spark.kubernetes.file.upload.path when it is set — removed again when the application
 * ends — else in the executors' ConfigMap (local:///opt/spark/conf/<name>, within
 * spark.kubernetes.configMap.maxSize). Executors are given the rewritten lists (b->exec_conf);
 * the driver keeps its own copies, fetched at start. */
static int ship_client_files(k8s_backend *b, cs_error *err)
{
    static const char *const keys[] = {"spark.files", "spark.archives"};
    bool any = false;
    for (int i = 0; i < 2; i++)
        any = any || cs_files_has_local(cs_conf_get(b->conf, keys[i]));
    if (b->set.in_driver_pod || !any) return 0; /* cluster mode: the submit client shipped them */
    const char *base = cs_conf_get(b->conf, "spark.kubernetes.file.upload.path");
    if (base && *base) {
        if (cs_files_upload_begin(&b->upload, base, err) < 0) return err->code;
        b->uploaded = true;
    }
    b->exec_conf = cs_conf_clone(b->conf);
    return cs_k8s_ship_file_lists(b->conf, b->exec_conf, b->uploaded ? &b->upload : NULL, &b->app,
                                  err);
}

static int reship_files(k8s_backend *b, cs_error *err)
{
    static const char *const keys[] = {"spark.files", "spark.archives"};
    for (int i = 0; i < 2; i++) {
        for (const char *p = cs_conf_get(b->conf, keys[i]); p && *p;) {
            const char *comma = strchr(p, ',');
            size_t n = comma ? (size_t)(comma - p) : strlen(p);
            char *e = cs_str_trim_dup(p, n);
            int rc = *e ? reship_entry(b, e, err) : 0;
            free(e);
            if (rc < 0) return rc;
            p = comma ? comma + 1 : NULL;
        }
    }
    return 0;
}

sched_backend *cs_k8s_backend_new(const cluster_env *env, const char *secret, cs_error *err)
{
    k8s_backend *b = cs_xcalloc(1, sizeof *b);
    b->conf = env->conf;
    b->local_dir = env->local_dir ? cs_xstrdup(env->local_dir) : NULL;
    b->next_id = 1;
    pthread_mutex_init(&b->lock, NULL);
    cs_cond_init_monotonic(&b->cond);
    uint8_t *app_bytes = NULL;
    size_t app_len = 0;
    json_t *obj = NULL;

    /* every executor key is checked first, before anything is created or looked up */
    const char *resource = cs_conf_get(b->conf, "cspark.app.resource");
    if (cs_k8s_app_init(&b->app, b->conf, cs_conf_get(b->conf, "cspark.app.entry"),
                        resource ? resource : "", 0, NULL, err) < 0)
        goto fail;
    b->app_ready = true;
    if (cs_k8s_executor_check(b->conf, &b->app, &b->on_demand_claims, err) < 0 ||
        cs_k8s_settings_read(b->conf, &b->set, err) < 0 ||
        cs_k8s_roll_settings_read(b->conf, &b->roll, err) < 0)
        goto fail;
    b->failures.validity_ms = b->set.failures_validity_ms;
    if (b->set.statefulset && b->on_demand_claims) {
        /* Spark turns them into the set's volumeClaimTemplates; cspark does not yet */
        cs_error_set(err, CS_EINVAL,
                     "spark.kubernetes.allocation.pods.allocator=statefulset: OnDemand executor "
                     "claims (spark.kubernetes.executor.volumes.persistentVolumeClaim.*."
                     "options.claimName=OnDemand) are not supported with it; use direct");
        goto fail;
    }
    const k8s_settings *s = &b->set;
    b->pods.check_all_containers = s->check_all_containers;
    cs_k8s_store_add_subscriber(&b->pods, cs_k8s_lifecycle_on_snapshot, b);
    /* with dynamic allocation the allocation manager sets the first target */
    b->target = env->dynamic_allocation ? 0 : s->executor_instances;
    cs_token_bucket_init(&b->tokens, s->max_create_rate, s->max_create_rate, cs_mono_ms());
    kube_config kcfg;
    memset(&kcfg, 0, sizeof kcfg);
    if (cs_kube_config_load(b->conf, s->api_master,
                            s->in_driver_pod ? "spark.kubernetes.authenticate.driver.mounted"
                                             : "spark.kubernetes.authenticate",
                            &kcfg, err) < 0)
        goto fail;
    b->kc = cs_kube_client_new(&kcfg, b->conf, "spark.kubernetes.driver", err);
    cs_kube_config_free(&kcfg);
    if (!b->kc) goto fail;

    if (s->driver_pod_name && cs_kube_get(b->kc, "pods", b->app.namespace_, s->driver_pod_name,
                                          &b->driver_pod, err) < 0) {
        cs_error_prefix(err, "cannot find the driver pod %s (spark.kubernetes.driver.pod.name)",
                        s->driver_pod_name);
        goto fail;
    }

    /* executors reach the driver here; they load the job from their ConfigMap or the image */
    if (app_for_executors(b, &app_bytes, &app_len, err) < 0 || ship_client_files(b, err) < 0)
        goto fail;
    coarse_options o = {.bind_host = s->bind_host,
                        .port = (int)s->driver_port,
                        .secret = secret,
                        .app_file = b->exec_app_file,
                        .exec_conf = b->exec_conf,
                        .admit = admit_executor,
                        .request_total = k8s_request_total,
                        .removing = k8s_removing,
                        .stopping = k8s_stopping,
                        .stopped = k8s_stopped,
                        .kill = k8s_kill,
                        .reports_exits = true,
                        .hooks_arg = b};
    b->coarse = cs_coarse_backend_new(env, &o, err);
    if (!b->coarse) goto fail;
    b->backend = cs_coarse_backend_base(b->coarse);
    /* spark.kubernetes.executor.useDriverPodIP: the driver pod's IP instead of its Service */
    const char *pod_ip =
        json_string_value(json_object_get(json_object_get(b->driver_pod, "status"), "podIP"));
    const char *host = s->use_driver_pod_ip && pod_ip && *pod_ip ? pod_ip : s->driver_host;
    snprintf(b->driver_url, sizeof b->driver_url,
             strchr(host, ':') ? "spark://CoarseGrainedScheduler@[%s]:%d"
                               : "spark://CoarseGrainedScheduler@%s:%d",
             host, cs_coarse_backend_port(b->coarse));

    /* the Secret executors read the authentication secret from (the submit client made it in
     * cluster mode), and the executor ConfigMap */
    if (secret && !s->in_driver_pod) {
        cs_conf *c2 = cs_conf_clone(b->conf);
        cs_conf_set(c2, "spark.authenticate.secret", secret);
        obj = cs_k8s_auth_secret(c2, &b->app, err);
        cs_conf_free(c2);
        if (!obj || (b->driver_pod && cs_k8s_set_owner(obj, b->driver_pod, err) < 0) ||
            cs_kube_create(b->kc, "secrets", b->app.namespace_, obj, NULL, err) < 0)
            goto fail;
        json_decref(obj);
        obj = NULL;
        b->created_secret = true;
    }
    if (reship_files(b, err) < 0) goto fail;
    if (s->disable_exec_configmap) { /* Spark: no executor ConfigMap at all */
        if (app_bytes) {
            cs_error_set(err, CS_EINVAL,
                         "spark.kubernetes.executor.disableConfigMap=true: executors would get the "
                         "application from their ConfigMap; give it as local://PATH (in the "
                         "image or a volume) or through spark.kubernetes.file.upload.path");
            goto fail;
        }
        free(app_bytes);
        return b->backend;
    }
    obj = cs_k8s_executor_configmap(b->conf, &b->app, app_bytes, app_len, err);
    if (!obj || (b->driver_pod && cs_k8s_set_owner(obj, b->driver_pod, err) < 0) ||
        cs_kube_create(b->kc, "configmaps", b->app.namespace_, obj, NULL, err) < 0)
        goto fail;
    json_decref(obj);
    obj = NULL;
    b->created_exec_cm = true;
    free(app_bytes);
    return b->backend;
fail:
    json_decref(obj);
    free(app_bytes);
    if (b->backend) {
        b->backend->stop(b->backend); /* the hooks stop and free b */
    } else {
        k8s_stopping(b);
        k8s_stopped(b);
    }
    return NULL;
}

static bool pod_ready(const json_t *pod)
{
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(pod, "status"), "conditions"), i, c)
    {
        const char *type = json_string_value(json_object_get(c, "type"));
        const char *status = json_string_value(json_object_get(c, "status"));
        if (type && status && !strcmp(type, "Ready")) return !strcmp(status, "True");
    }
    return false;
}

/* Spark's ExecutorPodsAllocator.start: the first executors wait up to
 * spark.kubernetes.allocation.driver.readinessTimeout for the driver pod to be Ready (its
 * Service then resolves), and are requested anyway after it. */
static void wait_driver_ready(k8s_backend *b)
{
    if (!b->driver_pod) return;
    const char *name =
        json_string_value(json_object_get(json_object_get(b->driver_pod, "metadata"), "name"));
    int64_t start = cs_mono_ms(), deadline = start + b->set.driver_readiness_timeout_ms;
    bool ready = false;
    for (;;) {
        json_t *pod = NULL;
        cs_error err;
        cs_error_clear(&err);
        if (name && cs_kube_get(b->kc, "pods", b->app.namespace_, name, &pod, &err) == CS_OK)
            ready = pod_ready(pod);
        json_decref(pod);
        if (ready || cs_mono_ms() >= deadline || cs_shutdown_requested()) break;
        int64_t left = deadline - cs_mono_ms();
        cs_sleep_ms(left < 100 ? left : 100);
    }
    CS_INFO("k8s", "event=driver_readiness pod=%s ready=%s waited_ms=%lld timeout_ms=%lld",
            cs_log_value(name ? name : ""), ready ? "true" : "false",
            (long long)(cs_mono_ms() - start), (long long)b->set.driver_readiness_timeout_ms);
}

int cs_k8s_backend_start(sched_backend *base, cs_error *err)
{
    k8s_backend *b = cs_coarse_backend_launcher(base);
    const k8s_settings *s = &b->set;
    wait_driver_ready(b);
    cs_k8s_lifecycle_start(b);
    if (s->enable_watcher && cs_k8s_watch_source_start(b, err) < 0) return err->code;
    if (s->enable_polling) cs_k8s_polling_source_start(b);
    cs_k8s_allocator_start(b);
    if (cs_k8s_roll_start(b) < 0)
        return cs_error_set(err, CS_EIO, "cannot start the executor roller thread");
    CS_INFO("k8s",
            "event=allocator_started app=%s namespace=%s target=%d batch=%d driver_url=%s watch=%s "
            "poll_interval_ms=%lld max_pending=%lld max_create_rate=%g",
            cs_log_value(b->app.app_id), cs_log_value(b->app.namespace_), b->target, s->batch_size,
            cs_log_value(b->driver_url), s->enable_watcher ? "on" : "off",
            s->enable_polling ? (long long)s->poll_interval_ms : -1LL, (long long)s->max_pending,
            s->max_create_rate);
    return 0;
}

int cs_k8s_backend_wait_registered(sched_backend *base, double ratio, int64_t timeout_ms)
{
    k8s_backend *b = cs_coarse_backend_launcher(base);
    int want = (int)(ratio * b->target + 0.999999);
    /* in slices, so that an application failed meanwhile (maxNumFailures, allocation limit)
     * stops waiting at once */
    int64_t deadline = cs_mono_ms() + timeout_ms;
    for (;;) {
        int64_t left = deadline - cs_mono_ms();
        int n = cs_coarse_backend_wait_registered(b->coarse, want,
                                                  left < 200 ? (left > 0 ? left : 0) : 200);
        if (n >= want || left <= 200 || cs_k8s_backend_exit_code(base) || cs_shutdown_requested())
            return n;
    }
}

void cs_k8s_backend_app_stopping(sched_backend *base)
{
    cs_k8s_roll_stop(cs_coarse_backend_launcher(base)); /* no executor rolled from now on */
    cs_k8s_allocator_stop(cs_coarse_backend_launcher(base));
}

int cs_k8s_backend_exit_code(sched_backend *base)
{
    k8s_backend *b = cs_coarse_backend_launcher(base);
    pthread_mutex_lock(&b->lock);
    int rc = b->exit_code;
    pthread_mutex_unlock(&b->lock);
    return rc;
}

const cs_conf *cs_k8s_backend_conf(sched_backend *base)
{
    return ((k8s_backend *)cs_coarse_backend_launcher(base))->conf;
}
