/* cs_k8s_step_basic.c — the pod-template step and the basic driver/executor feature steps
 * (Spark's PodTemplate loading, BasicDriverFeatureStep, BasicExecutorFeatureStep,
 * DriverCommandFeatureStep): names, labels, annotations, image, ports, resources, env, args,
 * node selector, scheduler name, service account, restart policy, hostname.
 * Called only through the step lists of k8s_pod_spec.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/k8s/k8s_steps.h"
#include "common/conf_entries.h"
#include "common/log.h"
#include "common/strutil.h"
#include "kube/kube_yaml.h"

/* ---- template ----------------------------------------------------------------------------- */

int cs_k8s_step_template(k8s_pod_ctx *ctx, cs_error *err)
{
    const char *path = cs_k8s_role_conf(ctx->conf, ctx->role, "podTemplateFile");
    const char *cname = cs_k8s_role_conf(ctx->conf, ctx->role, "podTemplateContainerName");
    json_t *pod = NULL;
    if (path && (cs_k8s_template_is_remote(path) || strncmp(path, "file:", 5) == 0)) {
        char *text = NULL;
        size_t len = 0;
        if (cs_k8s_read_template(path, &text, &len, err) == CS_OK)
            pod = cs_kube_yaml_load(path, text, len, KUBE_YAML_TYPED, err);
        free(text);
        if (!pod) return cs_error_prefix(err, "spark.kubernetes.%s.podTemplateFile", ctx->role);
    } else if (path) {
        pod = cs_kube_yaml_load_file(path, KUBE_YAML_TYPED, err);
        if (!pod) return cs_error_prefix(err, "spark.kubernetes.%s.podTemplateFile", ctx->role);
        if (!json_is_object(pod)) {
            json_decref(pod);
            return cs_error_set(err, CS_EINVAL,
                                "spark.kubernetes.%s.podTemplateFile %s: expected a Pod object",
                                ctx->role, path);
        }
        const char *kind = json_string_value(json_object_get(pod, "kind"));
        if (kind && strcmp(kind, "Pod")) {
            json_decref(pod);
            return cs_error_set(err, CS_EINVAL,
                                "spark.kubernetes.%s.podTemplateFile %s: kind is %s, expected Pod",
                                ctx->role, path, kind);
        }
        json_object_del(pod, "status");
    } else {
        pod = json_object();
    }
    json_object_set_new(pod, "apiVersion", json_string("v1"));
    json_object_set_new(pod, "kind", json_string("Pod"));
    json_t *md = cs_k8s_child_obj(pod, "metadata");
    /* fields the API server owns never come from a template */
    static const char *const server_owned[] = {
        "uid",           "resourceVersion",   "creationTimestamp", "generation", "selfLink",
        "managedFields", "deletionTimestamp", "generateName",      NULL};
    for (int i = 0; server_owned[i]; i++)
        json_object_del(md, server_owned[i]);
    json_t *spec = cs_k8s_child_obj(pod, "spec");
    json_t *containers = cs_k8s_child_arr(spec, "containers");
    json_t *chosen = NULL;
    size_t i;
    json_t *c;
    if (cname) {
        json_array_foreach(containers, i, c)
        {
            const char *n = json_string_value(json_object_get(c, "name"));
            if (n && !strcmp(n, cname)) chosen = c;
        }
        if (!chosen && json_array_size(containers) > 0) /* as Spark: warn, take the first */
            CS_WARN("k8s",
                    "key=spark.kubernetes.%s.podTemplateContainerName container=%s "
                    "event=template_container_missing specified container %s not found on pod "
                    "template, falling back to taking the first container",
                    ctx->role, cs_log_value(cname), cs_log_value(cname));
    }
    if (!chosen) chosen = json_array_get(containers, 0);
    if (!json_is_object(chosen)) {
        chosen = json_object();
        json_array_append_new(containers, chosen);
    }
    ctx->pod = pod;
    ctx->container = chosen;
    return CS_OK;
}

/* ---- labels and annotations --------------------------------------------------------------- */

static const char *const RESERVED_LABELS[] = {"spark-app-selector",
                                              "spark-role",
                                              "spark-exec-id",
                                              "spark-exec-resourceprofile-id",
                                              "spark-app-name",
                                              "spark-version",
                                              NULL};

static bool is_reserved(const char *k)
{
    for (int i = 0; RESERVED_LABELS[i]; i++)
        if (!strcmp(k, RESERVED_LABELS[i])) return true;
    return false;
}

int cs_k8s_merge_user_map(json_t *obj, const cs_conf *conf, const char *prefix, const k8s_app *app,
                          int exec_id, bool labels, cs_error *err)
{
    json_t *user = cs_k8s_conf_prefixed(conf, prefix);
    const char *k;
    json_t *v;
    int rc = CS_OK;
    json_object_foreach(user, k, v)
    {
        if (!cs_k8s_is_qualified_name(k)) {
            rc = cs_error_set(err, CS_EINVAL,
                              "invalid key %s%s: '%s' is not a valid Kubernetes %s key (name of "
                              "at most 63 letters, digits, '-', '_', '.' with an optional DNS "
                              "prefix and '/')",
                              prefix, k, k, labels ? "label" : "annotation");
            break;
        }
        if (labels && is_reserved(k)) {
            rc = cs_error_set(err, CS_EINVAL,
                              "%s%s is not allowed: label %s is reserved for Spark bookkeeping",
                              prefix, k, k);
            break;
        }
        char *val = cs_k8s_subst(json_string_value(v), app, exec_id);
        if (labels && !cs_k8s_is_label_value(val)) {
            rc = cs_error_set(err, CS_EINVAL,
                              "invalid value for %s%s: '%s' (expected a label value: at most 63 "
                              "letters, digits, '-', '_', '.', starting and ending alphanumeric)",
                              prefix, k, val);
            free(val);
            break;
        }
        json_object_set_new(obj, k, json_string(val));
        free(val);
    }
    json_decref(user);
    return rc;
}

json_t *cs_k8s_role_labels_new(const cs_conf *conf, const k8s_app *app, bool driver, int exec_id,
                               cs_error *err)
{
    json_t *l = json_object();
    const char *prefix =
        driver ? "spark.kubernetes.driver.label." : "spark.kubernetes.executor.label.";
    if (cs_k8s_merge_user_map(l, conf, prefix, app, driver ? -1 : exec_id, true, err) != CS_OK) {
        json_decref(l);
        return NULL;
    }
    json_object_set_new(l, "spark-app-selector", json_string(app->app_id));
    json_object_set_new(l, "spark-app-name", json_string(app->name_label));
    json_object_set_new(l, "spark-version", json_string(K8S_SPARK_VERSION));
    json_object_set_new(l, "spark-role", json_string(driver ? "driver" : "executor"));
    if (!driver) {
        json_object_set_new(l, "spark-exec-id", json_sprintf("%d", exec_id));
        json_object_set_new(l, "spark-exec-resourceprofile-id", json_string("0"));
    }
    return l;
}

/* ---- basic step --------------------------------------------------------------------------- */

static void add_port(json_t *container, const char *name, int64_t port)
{
    cs_k8s_upsert_by(cs_k8s_child_arr(container, "ports"), "name",
                     json_pack("{s:s, s:I, s:s}", "name", name, "containerPort", (json_int_t)port,
                               "protocol", "TCP"));
}

static int merge_node_selector(k8s_pod_ctx *ctx, json_t *spec)
{
    json_t *ns = cs_k8s_child_obj(spec, "nodeSelector");
    json_t *g = cs_k8s_conf_prefixed(ctx->conf, "spark.kubernetes.node.selector.");
    char prefix[96];
    snprintf(prefix, sizeof prefix, "spark.kubernetes.%s.node.selector.", ctx->role);
    json_t *r = cs_k8s_conf_prefixed(ctx->conf, prefix);
    json_object_update(ns, g);
    json_object_update(ns, r);
    json_decref(g);
    json_decref(r);
    if (json_object_size(ns) == 0) json_object_del(spec, "nodeSelector");
    return CS_OK;
}

static void add_pull_secrets(k8s_pod_ctx *ctx, json_t *spec)
{
    const char *list = cs_conf_get(ctx->conf, "spark.kubernetes.container.image.pullSecrets");
    if (!list) return;
    char *copy = cs_xstrdup(list), *save = NULL;
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
        cs_k8s_upsert_by(cs_k8s_child_arr(spec, "imagePullSecrets"), "name",
                         json_pack("{s:s}", "name", t));
    free(copy);
}

/* cpu request: spark.kubernetes.<role>.request.cores, else `fallback` */
static int set_resources(k8s_pod_ctx *ctx, int64_t total_mib, const char *cpu, cs_error *err)
{
    char mem[32];
    snprintf(mem, sizeof mem, "%lldMi", (long long)total_mib);
    json_t *res = cs_k8s_child_obj(ctx->container, "resources");
    json_t *req = cs_k8s_child_obj(res, "requests");
    json_t *lim = cs_k8s_child_obj(res, "limits");
    json_object_set_new(req, "memory", json_string(mem));
    json_object_set_new(lim, "memory", json_string(mem));
    json_object_set_new(req, "cpu", json_string(cpu));
    const char *limit = cs_k8s_role_conf(ctx->conf, ctx->role, "limit.cores");
    if (limit) json_object_set_new(lim, "cpu", json_string(limit));
    /* custom resources: spark.<role>.resource.<name>.{amount,vendor} -> limits "<vendor>/<name>" */
    char prefix[64];
    snprintf(prefix, sizeof prefix, "spark.%s.resource.", ctx->role);
    json_t *rs = cs_k8s_conf_prefixed(ctx->conf, prefix);
    const char *k;
    json_t *v;
    int rc = CS_OK;
    json_object_foreach(rs, k, v)
    {
        size_t kl = strlen(k);
        if (kl <= 7 || strcmp(k + kl - 7, ".amount")) continue;
        char *name = cs_xstrndup(k, kl - 7);
        char key[256];
        snprintf(key, sizeof key, "%s.vendor", name);
        const char *vendor = json_string_value(json_object_get(rs, key));
        if (!vendor || !*vendor) {
            rc = cs_error_set(err, CS_EINVAL,
                              "%s%s.vendor is required on Kubernetes when %s%s is set (e.g. "
                              "nvidia.com)",
                              prefix, name, prefix, k);
            free(name);
            break;
        }
        char res_name[300];
        snprintf(res_name, sizeof res_name, "%s/%s", vendor, name);
        if (!cs_k8s_is_qualified_name(res_name)) {
            rc = cs_error_set(err, CS_EINVAL,
                              "invalid resource name '%s' from %s%s.vendor and its name", res_name,
                              prefix, name);
            free(name);
            break;
        }
        json_object_set(lim, res_name, v);
        free(name);
    }
    json_decref(rs);
    return rc;
}

static int basic_driver(k8s_pod_ctx *ctx, json_t *spec, cs_error *err)
{
    const cs_conf *conf = ctx->conf;
    const k8s_app *app = ctx->app;
    json_t *c = ctx->container;
    int64_t ports[3], heap, total, cores;
    int rc;
    if ((rc = cs_k8s_driver_ports(conf, ports, err))) return rc;
    add_port(c, "driver-rpc-port", ports[0]);
    add_port(c, "blockmanager", ports[1]);
    add_port(c, "spark-ui", ports[2]);
    if ((rc = cs_k8s_pod_memory_mib(conf, "driver", &heap, &total, err))) return rc;
    const char *req = cs_k8s_role_conf(conf, "driver", "request.cores");
    char cpu[32];
    if (!req) {
        if ((rc = cs_conf_get_int(conf, "spark.driver.cores", "1", &cores, err))) return rc;
        snprintf(cpu, sizeof cpu, "%lld", (long long)cores);
        req = cpu;
    }
    if ((rc = set_resources(ctx, total, req, err))) return rc;

    json_t *drv_env = cs_k8s_conf_prefixed(conf, "spark.kubernetes.driverEnv.");
    const char *k;
    json_t *v;
    json_object_foreach(drv_env, k, v) cs_k8s_env_value(c, k, json_string_value(v));
    json_decref(drv_env);
    cs_k8s_env_value(c, "SPARK_APPLICATION_ID", app->app_id);
    cs_k8s_env_field_ref(c, "SPARK_DRIVER_BIND_ADDRESS", "status.podIP");
    cs_k8s_env_value(c, "SPARK_CONF_DIR", K8S_CONF_DIR);

    json_t *args = json_pack("[s,s,s]", "driver", "--properties-file", K8S_PROPERTIES_FILE);
    if (app->main_class) {
        json_array_append_new(args, json_string("--class"));
        json_array_append_new(args, json_string(app->main_class));
    }
    if (app->upload_name) {
        json_array_append_new(args, json_sprintf("local://%s/%s", K8S_CONF_DIR, app->upload_name));
    } else if (app->resource) {
        json_array_append_new(args, json_string(app->resource));
    }
    for (int i = 0; i < app->argc; i++)
        json_array_append_new(args, json_string(app->argv[i]));
    json_object_set_new(c, "args", args);
    /* the driver writes why it failed to /dev/termination-log; without it the end of its log
     * becomes the message: cspark-submit prints it */
    json_object_set_new(c, "terminationMessagePolicy", json_string("FallbackToLogsOnError"));

    const char *sa = cs_conf_get(conf, "spark.kubernetes.authenticate.driver.serviceAccountName");
    if (sa) json_object_set_new(spec, "serviceAccountName", json_string(sa));
    return CS_OK;
}

/* spark.kubernetes.decommission.script with spark.decommission.enabled: the executor container's
 * preStop hook runs that script, as Spark's BasicExecutorFeatureStep. Left unset, no hook: the
 * cspark image has no /opt/decom.sh, and the SIGTERM of a pod's deletion already decommissions
 * its executor. */
static int decommission_script(k8s_pod_ctx *ctx, cs_error *err)
{
    const char *script = cs_conf_get(ctx->conf, "spark.kubernetes.decommission.script");
    bool decommission = false;
    int rc = cs_conf_entry_bool(ctx->conf, "spark.decommission.enabled", &decommission, err);
    if (rc || !script || !decommission) return rc;
    if (script[0] != '/')
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.kubernetes.decommission.script: '%s' "
                            "(expected an absolute path in the executor image)",
                            script);
    json_object_set_new(ctx->container, "lifecycle",
                        json_pack("{s:{s:{s:[s]}}}", "preStop", "exec", "command", script));
    return CS_OK;
}

static int basic_executor(k8s_pod_ctx *ctx, json_t *spec, cs_error *err)
{
    const cs_conf *conf = ctx->conf;
    const k8s_app *app = ctx->app;
    json_t *c = ctx->container;
    int64_t heap, total, bm_port, cores = ctx->cores;
    int rc;
    if ((rc = cs_conf_entry_int_in(conf, "spark.blockManager.port", CS_CONF_IN_EXECUTOR_POD,
                                   &bm_port, err)))
        return rc;
    add_port(c, "blockmanager", bm_port);
    if ((rc = cs_k8s_pod_memory_mib(conf, "executor", &heap, &total, err))) return rc;
    if (cores <= 0 && (rc = cs_conf_entry_int(conf, "spark.executor.cores", &cores, err)))
        return rc;
    char cpu[32], buf[512];
    snprintf(cpu, sizeof cpu, "%lld", (long long)cores);
    const char *req = cs_k8s_role_conf(conf, "executor", "request.cores");
    if ((rc = set_resources(ctx, total, req ? req : cpu, err))) return rc;

    json_t *user_env = cs_k8s_conf_prefixed(conf, "spark.executorEnv.");
    const char *k;
    json_t *v;
    json_object_foreach(user_env, k, v) cs_k8s_env_value(c, k, json_string_value(v));
    json_decref(user_env);
    if (ctx->driver_url) {
        cs_k8s_env_value(c, "SPARK_DRIVER_URL", ctx->driver_url);
    } else {
        /* the driver pod's port when unset (Spark's DEFAULT_DRIVER_PORT; the submission puts it
         * in the driver's conf, cs_k8s_add_driver_system_properties) */
        int64_t dport;
        if ((rc = cs_conf_entry_int_in(conf, "spark.driver.port", CS_CONF_IN_DRIVER_POD, &dport,
                                       err)))
            return rc;
        snprintf(buf, sizeof buf, "spark://CoarseGrainedScheduler@%s.%s.svc:%lld",
                 app->driver_svc_name, app->namespace_, (long long)dport);
        cs_k8s_env_value(c, "SPARK_DRIVER_URL", buf);
    }
    snprintf(buf, sizeof buf, "%d", ctx->exec_id);
    cs_k8s_env_value(c, "SPARK_EXECUTOR_ID", buf);
    cs_k8s_env_value(c, "SPARK_EXECUTOR_CORES", cpu);
    snprintf(buf, sizeof buf, "%lldm", (long long)heap);
    cs_k8s_env_value(c, "SPARK_EXECUTOR_MEMORY", buf);
    cs_k8s_env_value(c, "SPARK_APPLICATION_ID", app->app_id);
    cs_k8s_env_value(c, "SPARK_RESOURCE_PROFILE_ID", "0");
    cs_k8s_env_field_ref(c, "SPARK_EXECUTOR_POD_IP", "status.podIP");
    cs_k8s_env_field_ref(c, "SPARK_EXECUTOR_POD_NAME", "metadata.name");
    cs_k8s_env_value(c, "SPARK_CONF_DIR", K8S_CONF_DIR);
    cs_k8s_env_value(c, "SPARK_EXECUTOR_ATTRIBUTE_APP_ID", app->app_id);
    snprintf(buf, sizeof buf, "%d", ctx->exec_id);
    cs_k8s_env_value(c, "SPARK_EXECUTOR_ATTRIBUTE_EXECUTOR_ID", buf);
    json_object_set_new(c, "args", json_pack("[s]", "executor"));

    char *host = cs_k8s_executor_hostname(ctx->pod_name);
    json_object_set_new(spec, "hostname", json_string(host));
    free(host);
    const char *sa = cs_conf_get(conf, "spark.kubernetes.authenticate.executor.serviceAccountName");
    if (!sa) sa = cs_conf_get(conf, "spark.kubernetes.authenticate.driver.serviceAccountName");
    if (sa) json_object_set_new(spec, "serviceAccountName", json_string(sa));
    int64_t grace;
    rc = cs_conf_get_duration_ms(conf, "spark.kubernetes.executor.terminationGracePeriodSeconds",
                                 NULL, CS_SEC, &grace, err);
    if (rc == CS_OK)
        json_object_set_new(spec, "terminationGracePeriodSeconds", json_integer(grace / 1000));
    else if (rc != CS_ENOTFOUND)
        return rc;
    return decommission_script(ctx, err);
}

int cs_k8s_step_basic(k8s_pod_ctx *ctx, cs_error *err)
{
    const cs_conf *conf = ctx->conf;
    const k8s_app *app = ctx->app;
    json_t *c = ctx->container;
    int rc;
    /* metadata */
    json_t *md = cs_k8s_child_obj(ctx->pod, "metadata");
    json_object_set_new(md, "name", json_string(ctx->pod_name));
    json_object_set_new(md, "namespace", json_string(app->namespace_));
    json_t *labels = cs_k8s_role_labels_new(conf, app, ctx->driver, ctx->exec_id, err);
    if (!labels) return err ? err->code : CS_EINVAL;
    json_object_update(cs_k8s_child_obj(md, "labels"), labels);
    json_decref(labels);
    char prefix[96];
    snprintf(prefix, sizeof prefix, "spark.kubernetes.%s.annotation.", ctx->role);
    if ((rc = cs_k8s_merge_user_map(cs_k8s_child_obj(md, "annotations"), conf, prefix, app,
                                    ctx->driver ? -1 : ctx->exec_id, false, err)))
        return rc;
    if (json_object_size(json_object_get(md, "annotations")) == 0)
        json_object_del(md, "annotations");

    /* container: name, image, pull policy */
    if (!json_is_string(json_object_get(c, "name")))
        json_object_set_new(
            c, "name", json_string(ctx->driver ? K8S_DRIVER_CONTAINER : K8S_EXECUTOR_CONTAINER));
    const char *image = cs_k8s_role_conf(conf, ctx->role, "container.image");
    if (!image) image = cs_conf_get(conf, "spark.kubernetes.container.image");
    if (!image || !*image)
        return cs_error_set(err, CS_EINVAL,
                            "no container image: set spark.kubernetes.container.image (or "
                            "spark.kubernetes.%s.container.image)",
                            ctx->role);
    char *img = cs_k8s_subst(image, app, -1);
    json_object_set_new(c, "image", json_string(img));
    free(img);
    const char *pp = cs_conf_entry_string(conf, "spark.kubernetes.container.image.pullPolicy");
    if (strcmp(pp, "Always") && strcmp(pp, "IfNotPresent") && strcmp(pp, "Never"))
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.kubernetes.container.image.pullPolicy: '%s' "
                            "(expected Always, IfNotPresent or Never)",
                            pp);
    json_object_set_new(c, "imagePullPolicy", json_string(pp));

    /* pod spec */
    json_t *spec = cs_k8s_child_obj(ctx->pod, "spec");
    json_object_set_new(spec, "restartPolicy", json_string("Never"));
    add_pull_secrets(ctx, spec);
    merge_node_selector(ctx, spec);
    const char *sched = cs_k8s_role_conf(conf, ctx->role, "scheduler.name");
    if (!sched) sched = cs_conf_get(conf, "spark.kubernetes.scheduler.name");
    if (sched) json_object_set_new(spec, "schedulerName", json_string(sched));

    rc = ctx->driver ? basic_driver(ctx, spec, err) : basic_executor(ctx, spec, err);
    if (rc) return rc;

    bool auth = false;
    if ((rc = cs_conf_entry_bool(conf, "spark.authenticate", &auth, err))) return rc;
    if (auth)
        cs_k8s_env_secret_ref(c, "_SPARK_AUTH_SECRET", app->auth_secret_name, K8S_AUTH_SECRET_KEY);
    if (ctx->driver) cs_k8s_env_conf_secrets(c, conf, app); /* credentials kept out of its map */
    return CS_OK;
}
