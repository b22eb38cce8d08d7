/*
 * k8s_statefulset.c — Spark's StatefulSetPodsAllocator (see k8s_statefulset.h): the StatefulSet
 * built from the executor pod, the thread that makes its replicas follow the target, and its
 * deletion at the end.
 */
#include "cluster/k8s/k8s_statefulset.h"

#include <stdio.h>
#include <string.h>

#include "cluster/k8s/k8s_backend_internal.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/shutdown.h"
#include "common/sync.h"

void cs_k8s_statefulset_name(const k8s_app *app, char out[K8S_STATEFULSET_NAME_SIZE])
{
    snprintf(out, K8S_STATEFULSET_NAME_SIZE, "spark-s-%s-0", app->app_id);
}

/* The executor pod made a template every pod of the set can share (see the header). */
static void make_template(json_t *pod)
{
    json_t *md = json_object_get(pod, "metadata");
    json_object_del(md, "name");
    json_object_del(md, "namespace");
    json_object_del(md, "ownerReferences");
    json_object_del(json_object_get(md, "labels"), "spark-exec-id");
    json_t *spec = json_object_get(pod, "spec");
    json_object_del(spec, "hostname");
    json_object_set_new(spec, "restartPolicy", json_string("Always"));
    size_t i, k;
    json_t *c, *e;
    json_array_foreach(json_object_get(spec, "containers"), i, c)
    {
        json_t *env = json_object_get(c, "env");
        for (k = json_array_size(env); k-- > 0;) {
            e = json_array_get(env, k);
            const char *name = json_string_value(json_object_get(e, "name"));
            if (name && !strcmp(name, "SPARK_EXECUTOR_ID"))
                json_object_set_new(e, "value", json_string("EXECID"));
            else if (name && !strcmp(name, "SPARK_EXECUTOR_ATTRIBUTE_EXECUTOR_ID"))
                json_array_remove(env, k); /* per pod: the executor's own id */
        }
    }
}

json_t *cs_k8s_statefulset_new(const cs_conf *conf, const k8s_app *app, int replicas, int cores,
                               const json_t *driver_pod, const char *driver_url, cs_error *err)
{
    json_t *pod = cs_k8s_executor_pod(conf, app, 1, cores, driver_pod, driver_url, err);
    if (!pod) return NULL;
    make_template(pod);
    char name[K8S_STATEFULSET_NAME_SIZE];
    cs_k8s_statefulset_name(app, name);
    json_t *selector = json_pack("{s:s, s:s, s:s}", "spark-app-selector", app->app_id, "spark-role",
                                 "executor", "spark-exec-resourceprofile-id", "0");
    json_t *labels =
        json_pack("{s:s, s:s}", "spark-app-selector", app->app_id, "spark-role", "executor");
    json_t *set = json_pack("{s:s, s:s, s:{s:s, s:s, s:o}, s:{s:s, s:i, s:{s:o}, s:{s:O, s:O}}}",
                            "apiVersion", "apps/v1", "kind", "StatefulSet", "metadata", "name",
                            name, "namespace", app->namespace_, "labels", labels, "spec",
                            "podManagementPolicy", "Parallel", "replicas", replicas, "selector",
                            "matchLabels", selector, "template", "metadata",
                            json_object_get(pod, "metadata"), "spec", json_object_get(pod, "spec"));
    json_decref(pod);
    if (!set) {
        cs_error_set(err, CS_EINVAL, "cannot build the executors' StatefulSet %s", name);
        return NULL;
    }
    if (driver_pod && cs_k8s_set_owner(set, driver_pod, err) < 0) {
        json_decref(set);
        return NULL;
    }
    return set;
}

/* Creates the set with `replicas`, or patches its replicas once it exists. Lock not held. */
static int apply_replicas(k8s_backend *b, bool created, int replicas, cs_error *err)
{
    char name[K8S_STATEFULSET_NAME_SIZE];
    cs_k8s_statefulset_name(&b->app, name);
    int rc;
    if (!created) {
        json_t *set = cs_k8s_statefulset_new(b->conf, &b->app, replicas, b->set.cores,
                                             b->driver_pod, b->driver_url, err);
        if (!set) return err->code ? err->code : CS_EINVAL;
        rc = cs_kube_create(b->kc, "statefulsets", b->app.namespace_, set, NULL, err);
        json_decref(set);
        if (rc == 0 || err->code != CS_EEXIST) return rc;
        cs_error_clear(err); /* a retried create whose first attempt went through */
    }
    json_t *patch = json_pack("{s:{s:i}}", "spec", "replicas", replicas);
    rc = cs_kube_patch_merge(b->kc, "statefulsets", b->app.namespace_, name, patch, NULL, err);
    json_decref(patch);
    return rc;
}

/* Executors 1..replicas in the pod table (lock held): their pods' snapshots and registrations
 * are then accepted, as for pods the direct allocator created. */
static void record_executors(k8s_backend *b, int replicas)
{
    char name[K8S_STATEFULSET_NAME_SIZE], pod[K8S_STATEFULSET_NAME_SIZE + 16];
    cs_k8s_statefulset_name(&b->app, name);
    for (int id = 1; id <= replicas; id++) {
        if (cs_k8s_pods_find(&b->pods, id)) continue;
        snprintf(pod, sizeof pod, "%s-%d", name, id - 1);
        cs_k8s_pods_add(&b->pods, id, pod, cs_mono_ms());
        if (b->next_id <= id) b->next_id = id + 1;
    }
}

void *cs_k8s_statefulset_main(void *arg)
{
    k8s_backend *b = arg;
    char name[K8S_STATEFULSET_NAME_SIZE];
    cs_k8s_statefulset_name(&b->app, name);
    pthread_mutex_lock(&b->lock);
    int applied = -1;
    while (!b->allocator_stopping) {
        int want = b->target;
        if (want == applied || b->exit_code || cs_shutdown_requested()) {
            cs_cond_wait_ms(&b->cond, &b->lock, b->set.batch_delay_ms);
            continue;
        }
        bool created = b->statefulset_created;
        record_executors(b, want); /* before the pods can be seen */
        pthread_mutex_unlock(&b->lock);
        cs_error err;
        cs_error_clear(&err);
        int rc = apply_replicas(b, created, want, &err);
        pthread_mutex_lock(&b->lock);
        if (rc == 0) {
            CS_INFO("k8s", "event=executor_statefulset_%s statefulset=%s replicas=%d",
                    created ? "scaled" : "created", cs_log_value(name), want);
            b->statefulset_created = true;
            applied = want;
            continue;
        }
        CS_ERROR("k8s", "event=executor_statefulset_failed statefulset=%s replicas=%d error=%s",
                 cs_log_value(name), want, cs_log_quote(err.msg));
        bool fatal = err.code == CS_EAUTH || err.kind == CS_KIND_FORBIDDEN ||
                     err.kind == CS_KIND_NAMESPACE_NOT_FOUND || err.code == CS_EINVAL;
        if (fatal && !b->exit_code) {
            b->exit_code = 1;
            pthread_mutex_unlock(&b->lock);
            cs_scheduler_abort(b->backend->sched, err.msg); /* retrying cannot help */
            pthread_mutex_lock(&b->lock);
        }
        cs_cond_wait_ms(&b->cond, &b->lock, b->set.batch_delay_ms); /* no hot loop on errors */
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

void cs_k8s_statefulset_delete(k8s_backend *b)
{
    if (!b->statefulset_created) return;
    char name[K8S_STATEFULSET_NAME_SIZE];
    cs_k8s_statefulset_name(&b->app, name);
    cs_error err;
    cs_error_clear(&err);
    if (cs_kube_delete(b->kc, "statefulsets", b->app.namespace_, name, -1, &err) < 0)
        CS_WARN("k8s", "event=cleanup_failed what=executor_statefulset error=%s",
                cs_log_quote(err.msg));
    else
        CS_INFO("k8s", "event=executor_statefulset_deleted statefulset=%s", cs_log_value(name));
}
