/* k8s_step_batch_scheduler.c — the batch schedulers' feature steps, as Spark's VolcanoFeatureStep
 * and YuniKornFeatureStep. A Spark user turns them on with
 * spark.kubernetes.{driver,executor}.pod.featureSteps naming Spark's classes
 * (org.apache.spark.deploy.k8s.features.VolcanoFeatureStep / YuniKornFeatureStep); cspark runs
 * its own version of those two and refuses every other class (a JVM class cannot run here).
 *
 *  - Volcano: the driver's step makes the PodGroup `<app id>-podgroup`
 *    (scheduling.volcano.sh/v1beta1) from spark.kubernetes.scheduler.volcano.podGroupTemplateFile
 *    (or an empty one), which cspark-submit creates before the driver pod and then gives the
 *    driver pod as owner; every pod of a role with the step is annotated
 *    scheduling.k8s.io/group-name=<the PodGroup>. cspark addition: when the template sets no
 *    spec.minResources, they are the driver pod's requests plus the initial executors' (Volcano
 *    then admits the application only when all of it fits, the reason teams use PodGroups).
 *  - YuniKorn: pods are annotated yunikorn.apache.org/app-id=<app id>, as Spark. cspark
 *    addition, when the user set no task groups: the driver pod carries YuniKorn's gang
 *    annotations, task-groups (spark-driver: 1 × the driver's requests, spark-executor:
 *    initial executors × an executor's requests) and task-group-name; executors name theirs.
 *
 * Called by the step lists of k8s_pod_spec.c (the annotations) and by cspark-submit (the
 * PodGroup). Every json_t * returned is owned by the caller; conf and app are borrowed.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/k8s/k8s_naming.h"
#include "cluster/k8s/k8s_steps.h"
#include "common/conf_entries.h"
#include "kube/kube_yaml.h"

#define STEP_CLASS_PREFIX "org.apache.spark.deploy.k8s.features."
#define VOLCANO_GROUP_ANNOTATION "scheduling.k8s.io/group-name"
#define YUNIKORN_APP_ANNOTATION "yunikorn.apache.org/app-id"
#define YUNIKORN_TASK_GROUPS "yunikorn.apache.org/task-groups"
#define YUNIKORN_TASK_GROUP_NAME "yunikorn.apache.org/task-group-name"
#define TEMPLATE_KEY "spark.kubernetes.scheduler.volcano.podGroupTemplateFile"

static const struct {
    const char *name;
    unsigned flag;
} STEP_CLASSES[] = {
    {"VolcanoFeatureStep", K8S_FEATURE_VOLCANO},
    {"YuniKornFeatureStep", K8S_FEATURE_YUNIKORN},
};

int cs_k8s_feature_steps(const cs_conf *conf, const char *role, unsigned *steps, cs_error *err)
{
    *steps = 0;
    const char *v = cs_k8s_role_conf(conf, role, "pod.featureSteps");
    if (!v) return CS_OK;
    const char *p = v;
    while (*p) {
        while (*p == ',' || *p == ' ')
            p++;
        size_t n = strcspn(p, ", ");
        if (n == 0) break;
        bool known = false;
        size_t plen = strlen(STEP_CLASS_PREFIX);
        for (size_t i = 0; i < sizeof STEP_CLASSES / sizeof STEP_CLASSES[0]; i++) {
            const char *cls = STEP_CLASSES[i].name;
            if (n == plen + strlen(cls) && !strncmp(p, STEP_CLASS_PREFIX, plen) &&
                !strncmp(p + plen, cls, strlen(cls))) {
                *steps |= STEP_CLASSES[i].flag;
                known = true;
            }
        }
        if (!known)
            return cs_error_set(
                err, CS_EINVAL,
                "spark.kubernetes.%s.pod.featureSteps: '%.*s' is not supported by "
                "cspark (a JVM feature step class cannot run in cspark; the built-in "
                "ones are " STEP_CLASS_PREFIX "VolcanoFeatureStep and " STEP_CLASS_PREFIX
                "YuniKornFeatureStep); remove it",
                role, (int)n, p);
        p += n;
    }
    return CS_OK;
}

/* ---- requests ---------------------------------------------------------------------------------
 */

/* Spark's initial executor count: spark.executor.instances (2), or with dynamic allocation the
 * largest of minExecutors, initialExecutors and executor.instances. */
static int initial_executors(const cs_conf *conf, int64_t *n, cs_error *err)
{
    bool dynamic = false;
    int64_t instances = 0, min = 0, initial = 0;
    if (cs_conf_entry_bool(conf, "spark.dynamicAllocation.enabled", &dynamic, err) < 0 ||
        cs_conf_entry_int(conf, "spark.executor.instances", &instances, err) < 0)
        return err->code;
    if (!dynamic) {
        *n = instances;
        return CS_OK;
    }
    if (cs_conf_entry_int(conf, "spark.dynamicAllocation.minExecutors", &min, err) < 0 ||
        cs_conf_entry_int(conf, "spark.dynamicAllocation.initialExecutors", &initial, err) < 0)
        return err->code;
    *n = min > initial ? min : initial;
    if (cs_conf_get(conf, "spark.executor.instances") && instances > *n) *n = instances;
    return CS_OK;
}

/* Adds count × the requests of every container of pod into sums ({resource: number}). */
static void add_requests(json_t *sums, const json_t *pod, int64_t count)
{
    const json_t *containers = json_object_get(json_object_get(pod, "spec"), "containers");
    size_t i;
    const json_t *c;
    json_array_foreach(containers, i, c)
    {
        const char *name;
        json_t *q;
        json_t *requests = json_object_get(json_object_get(c, "resources"), "requests");
        json_object_foreach(requests, name, q)
        {
            long double v = 0;
            if (!json_is_string(q) || !cs_k8s_parse_quantity(json_string_value(q), &v)) continue;
            json_t *have = json_object_get(sums, name);
            double total = (have ? json_real_value(have) : 0) + (double)(v * (long double)count);
            json_object_set_new(sums, name, json_real(total));
        }
    }
}

/* {resource: number} as Kubernetes quantities: cpu in millicores, byte-sized values in Mi when
 * whole, the rest as integers (rounded up). New reference. */
static json_t *quantities_new(const json_t *sums)
{
    json_t *out = json_object();
    const char *name;
    json_t *v;
    char buf[64];
    json_object_foreach((json_t *)sums, name, v)
    {
        double x = json_real_value(v);
        if (!strcmp(name, "cpu"))
            snprintf(buf, sizeof buf, "%lldm", (long long)ceil(x * 1000 - 1e-6));
        else if (x >= 1048576 && fmod(x, 1048576) == 0)
            snprintf(buf, sizeof buf, "%lldMi", (long long)(x / 1048576));
        else
            snprintf(buf, sizeof buf, "%lld", (long long)ceil(x - 1e-9));
        json_object_set_new(out, name, json_string(buf));
    }
    return out;
}

/* The requests of one executor pod as cspark builds it (id 1, spark.executor.cores). */
static json_t *executor_pod_new(const cs_conf *conf, const k8s_app *app, cs_error *err)
{
    int64_t cores = 1;
    if (cs_conf_entry_int(conf, "spark.executor.cores", &cores, err) < 0) return NULL;
    return cs_k8s_executor_pod(conf, app, 1, (int)cores, NULL, NULL, err);
}

/* ---- Volcano ----------------------------------------------------------------------------------
 */

static void pod_group_name(const k8s_app *app, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s-podgroup", app->app_id);
}

int cs_k8s_volcano_pod_group(const cs_conf *conf, const k8s_app *app, const json_t *driver_pod,
                             json_t **out, cs_error *err)
{
    unsigned steps = 0;
    *out = NULL;
    int rc = cs_k8s_feature_steps(conf, "driver", &steps, err);
    if (rc < 0 || !(steps & K8S_FEATURE_VOLCANO)) return rc;
    const char *path = cs_conf_get(conf, TEMPLATE_KEY);
    json_t *pg = NULL, *exec_pod = NULL;
    if (path && *path) {
        if (!(pg = cs_kube_yaml_load_file(path, KUBE_YAML_TYPED, err)))
            return cs_error_prefix(err, TEMPLATE_KEY);
        const char *kind = json_string_value(json_object_get(pg, "kind"));
        if (!json_is_object(pg) || (kind && strcmp(kind, "PodGroup"))) {
            json_decref(pg);
            return cs_error_set(err, CS_EINVAL,
                                "invalid value for " TEMPLATE_KEY
                                ": %s is not a PodGroup (expected kind: PodGroup)",
                                path);
        }
    } else {
        pg = json_object();
    }
    json_object_set_new(pg, "apiVersion", json_string("scheduling.volcano.sh/v1beta1"));
    json_object_set_new(pg, "kind", json_string("PodGroup"));
    json_object_del(pg, "status");
    json_t *meta = cs_k8s_child_obj(pg, "metadata");
    char name[300];
    pod_group_name(app, name, sizeof name);
    json_object_set_new(meta, "name", json_string(name));
    json_object_set_new(meta, "namespace", json_string(app->namespace_));
    json_object_set_new(cs_k8s_child_obj(meta, "labels"), "spark-app-selector",
                        json_string(app->app_id));
    json_t *spec = cs_k8s_child_obj(pg, "spec");
    if (!json_object_get(spec, "minResources")) {
        int64_t n = 0;
        if ((rc = initial_executors(conf, &n, err)) < 0 ||
            !(exec_pod = executor_pod_new(conf, app, err))) {
            rc = err->code ? err->code : CS_EINVAL;
            json_decref(pg);
            return rc;
        }
        json_t *sums = json_object();
        add_requests(sums, driver_pod, 1);
        add_requests(sums, exec_pod, n);
        json_object_set_new(spec, "minResources", quantities_new(sums));
        json_decref(sums);
        json_decref(exec_pod);
    }
    /* readable output: identity first, whatever order the template had */
    *out = json_pack("{s:O, s:O, s:O}", "apiVersion", json_object_get(pg, "apiVersion"), "kind",
                     json_object_get(pg, "kind"), "metadata", meta);
    json_object_update_missing(*out, pg);
    json_decref(pg);
    return CS_OK;
}

/* ---- YuniKorn ---------------------------------------------------------------------------------
 */

/* The driver's task-groups annotation: the driver and the initial executors. */
static int yunikorn_task_groups(k8s_pod_ctx *ctx, json_t *annotations, cs_error *err)
{
    int64_t n = 0;
    int rc = initial_executors(ctx->conf, &n, err);
    if (rc < 0) return rc;
    json_t *exec_pod = executor_pod_new(ctx->conf, ctx->app, err);
    if (!exec_pod) return err->code ? err->code : CS_EINVAL;
    json_t *drv = json_object(), *exe = json_object();
    add_requests(drv, ctx->pod, 1);
    add_requests(exe, exec_pod, 1);
    json_t *groups =
        json_pack("[{s:s, s:i, s:o}, {s:s, s:I, s:o}]", "name", "spark-driver", "minMember", 1,
                  "minResource", quantities_new(drv), "name", "spark-executor", "minMember",
                  (json_int_t)n, "minResource", quantities_new(exe));
    char *text = json_dumps(groups, JSON_COMPACT);
    json_object_set_new(annotations, YUNIKORN_TASK_GROUPS, json_string(text));
    free(text);
    json_decref(groups);
    json_decref(drv);
    json_decref(exe);
    json_decref(exec_pod);
    return CS_OK;
}

int cs_k8s_step_batch_scheduler(k8s_pod_ctx *ctx, cs_error *err)
{
    unsigned steps = 0;
    int rc = cs_k8s_feature_steps(ctx->conf, ctx->role, &steps, err);
    if (rc < 0 || !steps) return rc;
    json_t *annotations = cs_k8s_child_obj(cs_k8s_child_obj(ctx->pod, "metadata"), "annotations");
    if (steps & K8S_FEATURE_VOLCANO) {
        char name[300];
        pod_group_name(ctx->app, name, sizeof name);
        json_object_set_new(annotations, VOLCANO_GROUP_ANNOTATION, json_string(name));
    }
    if (steps & K8S_FEATURE_YUNIKORN) {
        json_object_set_new(annotations, YUNIKORN_APP_ANNOTATION, json_string(ctx->app->app_id));
        /* the user's own task groups (annotations or template) win */
        if (!json_object_get(annotations, YUNIKORN_TASK_GROUP_NAME)) {
            json_object_set_new(annotations, YUNIKORN_TASK_GROUP_NAME,
                                json_string(ctx->driver ? "spark-driver" : "spark-executor"));
            if (ctx->driver && !json_object_get(annotations, YUNIKORN_TASK_GROUPS) &&
                (rc = yunikorn_task_groups(ctx, annotations, err)) < 0)
                return rc;
        }
    }
    return CS_OK;
}
