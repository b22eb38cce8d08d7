/* k8s_pod_spec.c — application identity, the pod builders (ordered feature steps), the driver
 * Service, conf ConfigMaps, auth Secret and owner references (see k8s_pod_spec.h), plus the
 * jansson helpers shared by the step files (k8s_steps.h).
 *
 * Called by cspark-submit (cluster mode and dry run) and the k8s scheduler backend.
 */
#include "cluster/k8s/k8s_pod_spec.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "cluster/k8s/k8s_steps.h"
#include "common/app_file.h"
#include "common/conf_entries.h"
#include "common/fsutil.h"
#include "common/strutil.h"
#include "exec/shuffle_recovery.h"
#include "fs/fs.h"
#include "fs/shipped_files.h"

/* ---- shared helpers ----------------------------------------------------------------------- */

json_t *cs_k8s_child_obj(json_t *parent, const char *key)
{
    json_t *v = json_object_get(parent, key);
    if (!json_is_object(v)) {
        v = json_object();
        json_object_set_new(parent, key, v);
    }
    return v;
}

json_t *cs_k8s_child_arr(json_t *parent, const char *key)
{
    json_t *v = json_object_get(parent, key);
    if (!json_is_array(v)) {
        v = json_array();
        json_object_set_new(parent, key, v);
    }
    return v;
}

void cs_k8s_upsert_by(json_t *arr, const char *field, json_t *item)
{
    const char *want = json_string_value(json_object_get(item, field));
    size_t i;
    json_t *e;
    if (want) {
        json_array_foreach(arr, i, e)
        {
            const char *have = json_string_value(json_object_get(e, field));
            if (have && !strcmp(have, want)) {
                json_array_set_new(arr, i, item);
                return;
            }
        }
    }
    json_array_append_new(arr, item);
}

void cs_k8s_env_set_new(json_t *container, json_t *env_entry)
{
    cs_k8s_upsert_by(cs_k8s_child_arr(container, "env"), "name", env_entry);
}

void cs_k8s_env_value(json_t *container, const char *name, const char *value)
{
    cs_k8s_env_set_new(container, json_pack("{s:s, s:s}", "name", name, "value", value));
}

void cs_k8s_env_field_ref(json_t *container, const char *name, const char *field_path)
{
    cs_k8s_env_set_new(container,
                       json_pack("{s:s, s:{s:{s:s, s:s}}}", "name", name, "valueFrom", "fieldRef",
                                 "apiVersion", "v1", "fieldPath", field_path));
}

void cs_k8s_env_secret_ref(json_t *container, const char *name, const char *secret, const char *key)
{
    cs_k8s_env_set_new(container, json_pack("{s:s, s:{s:{s:s, s:s}}}", "name", name, "valueFrom",
                                            "secretKeyRef", "name", secret, "key", key));
}

static void replace_all(cs_sbuf *b, const char *s, const char *pat, const char *rep)
{
    size_t pl = strlen(pat);
    const char *p;
    while ((p = strstr(s, pat)) != NULL) {
        cs_sbuf_append(b, s, (size_t)(p - s));
        cs_sbuf_puts(b, rep);
        s = p + pl;
    }
    cs_sbuf_puts(b, s);
}

char *cs_k8s_subst(const char *s, const k8s_app *app, int exec_id)
{
    char num[32];
    cs_sbuf a = CS_SBUF_INIT, b = CS_SBUF_INIT, c = CS_SBUF_INIT;
    replace_all(&a, s, "{{APP_ID}}", app->app_id);
    if (exec_id >= 0) {
        snprintf(num, sizeof num, "%d", exec_id);
        replace_all(&b, a.data ? a.data : "", "{{EXECUTOR_ID}}", num);
    } else {
        cs_sbuf_puts(&b, a.data ? a.data : "");
    }
    replace_all(&c, b.data ? b.data : "", "{{SPARK_VERSION}}", K8S_SPARK_VERSION);
    cs_sbuf_free(&a);
    cs_sbuf_free(&b);
    if (!c.data) cs_sbuf_puts(&c, "");
    return cs_sbuf_detach(&c, NULL);
}

typedef struct prefixed_arg {
    const char *prefix;
    size_t len;
    json_t *out;
} prefixed_arg;

static void collect_prefixed(void *arg, const char *key, const char *value)
{
    prefixed_arg *a = arg;
    if (strncmp(key, a->prefix, a->len) == 0 && key[a->len])
        json_object_set_new(a->out, key + a->len, json_string(value));
}

json_t *cs_k8s_conf_prefixed(const cs_conf *conf, const char *prefix)
{
    prefixed_arg a = {prefix, strlen(prefix), json_object()};
    cs_conf_foreach(conf, collect_prefixed, &a);
    return a.out;
}

const char *cs_k8s_role_conf(const cs_conf *conf, const char *role, const char *rest)
{
    char key[256];
    snprintf(key, sizeof key, "spark.kubernetes.%s.%s", role, rest);
    return cs_conf_get(conf, key);
}

/* ---- application identity ----------------------------------------------------------------- */

static char *dup_or(const char *s, const char *dflt)
{
    return cs_xstrdup(s && *s ? s : dflt);
}

void cs_k8s_app_free(k8s_app *app)
{
    if (!app) return;
    free(app->app_name);
    free(app->namespace_);
    free(app->prefix);
    free(app->name_label);
    free(app->driver_pod_name);
    free(app->driver_svc_name);
    free(app->conf_map_name);
    free(app->exec_conf_map_name);
    free(app->auth_secret_name);
    free(app->main_class);
    free(app->resource);
    free(app->upload_name);
    for (int i = 0; i < app->argc; i++)
        free(app->argv[i]);
    free(app->argv);
    for (int i = 0; i < app->n_shipped; i++) {
        free(app->shipped[i].key);
        free(app->shipped[i].data);
    }
    free(app->shipped);
    memset(app, 0, sizeof *app);
}

int cs_k8s_app_add_shipped(k8s_app *app, const char *key, uint8_t *data, size_t len, cs_error *err)
{
    bool valid = *key && strcmp(key, ".") != 0 && strcmp(key, "..") != 0;
    for (const char *p = key; *p && valid; p++)
        valid = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                *p == '-' || *p == '_' || *p == '.';
    bool taken = !strcmp(key, "spark.properties") || !strcmp(key, "pod-spec-template.yml") ||
                 (app->upload_name && !strcmp(key, app->upload_name));
    for (int i = 0; i < app->n_shipped && !taken; i++)
        taken = !strcmp(key, app->shipped[i].key);
    if (!valid || taken) {
        free(data);
        return cs_error_set(err, CS_EINVAL,
                            "cannot ship '%s' in the ConfigMap (%s); set "
                            "spark.kubernetes.file.upload.path to ship it there",
                            key, valid ? "the name is taken" : "not a valid ConfigMap key");
    }
    app->shipped = cs_xrealloc(app->shipped, (size_t)(app->n_shipped + 1) * sizeof *app->shipped);
    app->shipped[app->n_shipped++] = (struct k8s_shipped_file){cs_xstrdup(key), data, len};
    return 0;
}

int cs_k8s_ship_in_configmap(const char *path, const char *name, char **to, void *arg,
                             cs_error *err)
{
    uint8_t *data = NULL;
    size_t len = 0;
    if (cs_read_file(path, &data, &len, err) < 0 ||
        cs_k8s_app_add_shipped(arg, name, data, len, err) < 0)
        return err->code;
    cs_sbuf b = CS_SBUF_INIT;
    cs_sbuf_printf(&b, "local://%s/%s", K8S_CONF_DIR, name);
    *to = cs_sbuf_detach(&b, NULL);
    return 0;
}

int cs_k8s_ship_file_lists(const cs_conf *from, cs_conf *to, struct cs_files_upload *u,
                           k8s_app *app, cs_error *err)
{
    static const char *const keys[] = {"spark.files", "spark.archives"};
    for (int i = 0; i < 2; i++) {
        const char *list = cs_conf_get(from, keys[i]);
        char *out = NULL;
        if (!list || !*list) continue;
        int rc =
            u ? cs_files_upload_list(u, keys[i], list, &out, err)
              : cs_files_rewrite_local(keys[i], list, cs_k8s_ship_in_configmap, app, &out, err);
        if (rc < 0) return err->code;
        cs_conf_set(to, keys[i], out);
        free(out);
    }
    return 0;
}

static bool is_hex_id(const char *s, size_t n)
{
    if (strlen(s) != n) return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f'))) return false;
    return true;
}

/* A resource pods find without it being shipped: in the image (local://, spark-internal) or at
 * a URI they fetch. */
static bool is_local_uri(const char *r)
{
    return cs_str_starts_with(r, "local://") || strcmp(r, CS_APP_SPARK_INTERNAL) == 0 ||
           cs_str_starts_with(r, "http://") || cs_str_starts_with(r, "https://") ||
           cs_str_starts_with(r, "s3a://") || cs_str_starts_with(r, "hdfs://");
}

/* Basename of a shipped resource, made a valid ConfigMap key ([-._a-zA-Z0-9]+). */
static char *upload_key(const char *resource)
{
    const char *base = strrchr(resource, '/');
    base = base ? base + 1 : resource;
    char *k = cs_xstrdup(*base ? base : "app.so");
    for (char *p = k; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '_' || *p == '.'))
            *p = '_';
    if (!strcmp(k, "spark.properties") || !strcmp(k, ".") || !strcmp(k, "..")) {
        free(k);
        k = cs_xstrdup("app.so");
    }
    return k;
}

int cs_k8s_app_init(k8s_app *app, const cs_conf *conf, const char *main_class, const char *resource,
                    int argc, char *const *argv, cs_error *err)
{
    int rc = CS_OK;
    memset(app, 0, sizeof *app);
    const char *id = cs_conf_get(conf, "spark.app.id");
    if (id && cs_str_starts_with(id, "spark-") && is_hex_id(id + 6, 32)) {
        memcpy(app->app_id, id, K8S_APP_ID_SIZE);
    } else if ((rc = cs_k8s_new_app_id(app->app_id, err)) != CS_OK) {
        return rc;
    }
    const char *uid = cs_conf_get(conf, "cspark.kubernetes.uniqueId");
    if (uid && is_hex_id(uid, K8S_UNIQUE_ID_SIZE - 1)) {
        memcpy(app->unique_id, uid, K8S_UNIQUE_ID_SIZE);
    } else if ((rc = cs_k8s_new_unique_id(app->unique_id, err)) != CS_OK) {
        return rc;
    }
    app->app_name = dup_or(cs_conf_get(conf, "spark.app.name"), "spark");
    app->namespace_ = cs_xstrdup(cs_conf_entry_string(conf, "spark.kubernetes.namespace"));
    if (!cs_k8s_is_dns1123_label(app->namespace_)) {
        rc = cs_error_set(err, CS_EINVAL,
                          "invalid value for spark.kubernetes.namespace: '%s' (expected a DNS-1123 "
                          "label: at most 63 lowercase letters, digits and '-')",
                          app->namespace_);
        goto fail;
    }
    const char *rp = cs_conf_get(conf, "cspark.kubernetes.resourceNamePrefix");
    if (rp && cs_k8s_is_dns1123_subdomain(rp) && strlen(rp) <= K8S_POD_PREFIX_MAX)
        app->prefix = cs_xstrdup(rp);
    else
        app->prefix = cs_k8s_resource_prefix(app->app_name, app->unique_id);
    const char *epp = cs_conf_get(conf, "spark.kubernetes.executor.podNamePrefix");
    if (epp && !(cs_k8s_is_dns1123_subdomain(epp) && strlen(epp) <= K8S_POD_PREFIX_MAX)) {
        rc = cs_error_set(err, CS_EINVAL,
                          "invalid value for spark.kubernetes.executor.podNamePrefix: '%s' "
                          "(expected a DNS-1123 subdomain of at most %d characters: lowercase "
                          "letters, digits, '-' and '.')",
                          epp, K8S_POD_PREFIX_MAX);
        goto fail;
    }
    app->name_label = cs_k8s_app_name_label(app->app_name);
    const char *dpn = cs_conf_get(conf, "spark.kubernetes.driver.pod.name");
    if (dpn && !cs_k8s_is_dns1123_subdomain(dpn)) {
        rc =
            cs_error_set(err, CS_EINVAL,
                         "invalid value for spark.kubernetes.driver.pod.name: '%s' (expected a "
                         "DNS-1123 subdomain: lowercase letters, digits, '-' and '.', at most 253)",
                         dpn);
        goto fail;
    }
    app->driver_pod_name = dpn ? cs_xstrdup(dpn) : cs_k8s_driver_pod_name(app->prefix);
    app->driver_svc_name = cs_k8s_driver_service_name(app->prefix, app->unique_id);
    app->conf_map_name = cs_k8s_driver_configmap_name(app->unique_id);
    app->exec_conf_map_name = cs_k8s_executor_configmap_name(app->unique_id);
    app->auth_secret_name = cs_k8s_auth_secret_name(app->unique_id);
    app->main_class = main_class ? cs_xstrdup(main_class) : NULL;
    app->resource = resource ? cs_xstrdup(resource) : NULL;
    if (resource && !is_local_uri(resource)) app->upload_name = upload_key(resource);
    app->argc = argc > 0 ? argc : 0;
    app->argv = cs_xcalloc((size_t)app->argc + 1, sizeof *app->argv);
    for (int i = 0; i < app->argc; i++)
        app->argv[i] = cs_xstrdup(argv[i]);
    return CS_OK;
fail:
    cs_k8s_app_free(app);
    return rc;
}

void cs_k8s_add_driver_system_properties(cs_conf *c, const k8s_app *app)
{
    char buf[512];
    cs_conf_set(c, "spark.app.id", app->app_id);
    cs_conf_set(c, "cspark.kubernetes.uniqueId", app->unique_id);
    cs_conf_set(c, "cspark.kubernetes.resourceNamePrefix", app->prefix);
    cs_conf_set(c, "spark.kubernetes.driver.pod.name", app->driver_pod_name);
    cs_conf_set_if_missing(c, "spark.kubernetes.executor.podNamePrefix", app->prefix);
    snprintf(buf, sizeof buf, "%s.%s.svc", app->driver_svc_name, app->namespace_);
    cs_conf_set(c, "spark.driver.host", buf);
    cs_conf_entry_set_defaults_in(c, CS_CONF_IN_DRIVER_POD); /* the driver's ports: 7078, 7079 */
    cs_conf_set(c, "spark.kubernetes.submitInDriver", "true");
    cs_k8s_driver_credentials_properties(c);
}

int cs_k8s_pod_memory_mib(const cs_conf *conf, const char *role, int64_t *heap_mib,
                          int64_t *total_mib, cs_error *err)
{
    char key[128];
    int64_t mem, over, min_over;
    double factor;
    int rc;
    snprintf(key, sizeof key, "spark.%s.memory", role);
    if ((rc = cs_conf_get_size(conf, key, "1g", CS_MiB, &mem, err)) != CS_OK) return rc;
    mem /= CS_MiB;
    snprintf(key, sizeof key, "spark.%s.memoryOverhead", role);
    rc = cs_conf_get_size(conf, key, NULL, CS_MiB, &over, err);
    if (rc == CS_ENOTFOUND) {
        snprintf(key, sizeof key, "spark.%s.memoryOverheadFactor", role);
        const char *fkey =
            cs_conf_contains(conf, key) ? key : "spark.kubernetes.memoryOverheadFactor";
        if ((rc = cs_conf_get_double(conf, fkey, "0.1", &factor, err)) != CS_OK) return rc;
        if (!(factor > 0 && factor <= 1000))
            return cs_error_set(err, CS_EINVAL,
                                "invalid value for %s: '%s' (expected a factor greater than 0)",
                                fkey, cs_conf_get(conf, fkey));
        snprintf(key, sizeof key, "spark.%s.minMemoryOverhead", role);
        if ((rc = cs_conf_get_size(conf, key, "384m", CS_MiB, &min_over, err)) != CS_OK) return rc;
        over = (int64_t)(factor * (double)mem);
        min_over /= CS_MiB;
        if (over < min_over) over = min_over;
    } else if (rc != CS_OK) {
        return rc;
    } else {
        over /= CS_MiB;
    }
    if (!strcmp(role, "executor")) { /* off-heap memory lives in the container too */
        bool off = false;
        int64_t off_size = 0;
        if ((rc = cs_conf_get_bool(conf, "spark.memory.offHeap.enabled", "false", &off, err)))
            return rc;
        if (off) {
            if ((rc = cs_conf_get_size(conf, "spark.memory.offHeap.size", "0", CS_BYTE, &off_size,
                                       err)))
                return rc;
            over += (off_size + CS_MiB - 1) / CS_MiB;
        }
    }
    if (heap_mib) *heap_mib = mem;
    if (total_mib) *total_mib = mem + over;
    return CS_OK;
}

/* ---- pod builders ------------------------------------------------------------------------- */

static const k8s_step_fn DRIVER_STEPS[] = {
    cs_k8s_step_template,        cs_k8s_step_basic,       cs_k8s_step_driver_credentials,
    cs_k8s_step_mount_secrets,   cs_k8s_step_env_secrets, cs_k8s_step_volumes,
    cs_k8s_step_local_dirs,      cs_k8s_step_conf_map,    cs_k8s_step_hadoop_conf,
    cs_k8s_step_batch_scheduler,
};
static const k8s_step_fn EXECUTOR_STEPS[] = {
    cs_k8s_step_template,    cs_k8s_step_basic,       cs_k8s_step_mount_secrets,
    cs_k8s_step_env_secrets, cs_k8s_step_volumes,     cs_k8s_step_local_dirs,
    cs_k8s_step_conf_map,    cs_k8s_step_hadoop_conf, cs_k8s_step_batch_scheduler,
};

/* New object with the keys of `order` first (when present), then the rest in their order. */
static json_t *reordered(json_t *obj, const char *const *order)
{
    json_t *out = json_object();
    for (int i = 0; order[i]; i++) {
        json_t *v = json_object_get(obj, order[i]);
        if (v) json_object_set(out, order[i], v);
    }
    json_object_update_missing(out, obj);
    return out;
}

static json_t *run_steps(k8s_pod_ctx *ctx, const k8s_step_fn *steps, size_t n, cs_error *err)
{
    static const char *const top[] = {"apiVersion", "kind", "metadata", "spec", NULL};
    static const char *const meta[] = {"name",        "namespace",       "labels",
                                       "annotations", "ownerReferences", NULL};
    int rc = CS_OK;
    for (size_t i = 0; i < n && rc == CS_OK; i++)
        rc = steps[i](ctx, err);
    free(ctx->pod_name);
    if (rc != CS_OK) {
        json_decref(ctx->pod);
        return NULL;
    }
    /* readable dry-run output: identity first, whatever order the template had */
    json_t *pod = reordered(ctx->pod, top);
    json_object_set_new(pod, "metadata", reordered(json_object_get(pod, "metadata"), meta));
    json_decref(ctx->pod);
    return pod;
}

json_t *cs_k8s_driver_pod(const cs_conf *conf, const k8s_app *app, cs_error *err)
{
    k8s_pod_ctx ctx = {.conf = conf, .app = app, .driver = true, .role = "driver", .exec_id = -1};
    ctx.pod_name = cs_xstrdup(app->driver_pod_name);
    return run_steps(&ctx, DRIVER_STEPS, sizeof DRIVER_STEPS / sizeof DRIVER_STEPS[0], err);
}

json_t *cs_k8s_executor_pod(const cs_conf *conf, const k8s_app *app, int exec_id, int cores,
                            const json_t *driver_pod, const char *driver_url, cs_error *err)
{
    if (exec_id < 0) {
        cs_error_set(err, CS_EINVAL, "invalid executor id %d", exec_id);
        return NULL;
    }
    k8s_pod_ctx ctx = {.conf = conf,
                       .app = app,
                       .driver = false,
                       .role = "executor",
                       .exec_id = exec_id,
                       .cores = cores,
                       .driver_url = driver_url};
    const char *epp = cs_conf_get(conf, "spark.kubernetes.executor.podNamePrefix");
    ctx.pod_name = cs_k8s_executor_pod_name(epp ? epp : app->prefix, exec_id);
    json_t *pod =
        run_steps(&ctx, EXECUTOR_STEPS, sizeof EXECUTOR_STEPS / sizeof EXECUTOR_STEPS[0], err);
    if (pod && driver_pod &&
        json_string_value(json_object_get(json_object_get(driver_pod, "metadata"), "uid"))) {
        if (cs_k8s_set_owner(pod, driver_pod, err) != CS_OK) {
            json_decref(pod);
            return NULL;
        }
    }
    return pod;
}

int cs_k8s_executor_check(const cs_conf *conf, const k8s_app *app, int *on_demand, cs_error *err)
{
    json_t *pod = cs_k8s_executor_pod(conf, app, 1, 1, NULL, NULL, err);
    json_t *claims = pod ? cs_k8s_executor_pvcs(conf, app, pod, err) : NULL;
    json_decref(pod);
    if (!claims) return err->code ? err->code : CS_EINVAL;
    if (on_demand) *on_demand = (int)json_array_size(claims);
    json_decref(claims);
    /* as Spark's KubernetesLocalDiskShuffleDataIO: "Ephemeral PVCs are required" */
    bool reuse = false;
    if (!cs_shuffle_recovery_enabled(conf)) return CS_OK;
    if (cs_conf_entry_bool(conf, "spark.kubernetes.driver.reusePersistentVolumeClaim", &reuse,
                           err) < 0)
        return err->code;
    if (!reuse)
        return cs_error_set(err, CS_EINVAL,
                            "spark.shuffle.sort.io.plugin.class=%s needs "
                            "spark.kubernetes.driver.reusePersistentVolumeClaim=true (executors "
                            "recover shuffle files from reused claims)",
                            CS_SHUFFLE_IO_K8S_LOCAL_DISK);
    return CS_OK;
}

int cs_k8s_executor_check_conf(const cs_conf *conf, cs_error *err)
{
    k8s_app app;
    if (cs_k8s_app_init(&app, conf, NULL, NULL, 0, NULL, err) < 0) return err->code;
    int rc = cs_k8s_executor_check(conf, &app, NULL, err);
    cs_k8s_app_free(&app);
    return rc;
}

int cs_k8s_set_owner(json_t *obj, const json_t *driver_pod, cs_error *err)
{
    json_t *md = json_object_get(driver_pod, "metadata");
    const char *name = json_string_value(json_object_get(md, "name"));
    const char *uid = json_string_value(json_object_get(md, "uid"));
    if (!name || !uid || !*uid)
        return cs_error_set(
            err, CS_EINVAL,
            "cannot set an owner reference: the driver pod has no metadata.name/uid "
            "(use the pod returned by the API server)");
    json_t *ref = json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "apiVersion", "v1", "kind", "Pod",
                            "name", name, "uid", uid, "controller", 1, "blockOwnerDeletion", 1);
    cs_k8s_upsert_by(cs_k8s_child_arr(cs_k8s_child_obj(obj, "metadata"), "ownerReferences"), "uid",
                     ref);
    return CS_OK;
}

/* ---- service ------------------------------------------------------------------------------ */

static json_t *port_new(const char *name, int64_t port)
{
    return json_pack("{s:s, s:I, s:I, s:s}", "name", name, "port", (json_int_t)port, "targetPort",
                     (json_int_t)port, "protocol", "TCP");
}

/* A port of a pod, whose default is Spark's on Kubernetes (conf_entries.c); 0 cannot be. */
static int conf_port(const cs_conf *conf, const char *key, int64_t *out, cs_error *err)
{
    int rc = cs_conf_entry_int_in(conf, key, CS_CONF_IN_DRIVER_POD, out, err);
    if (rc == CS_OK && (*out < 1 || *out > 65535))
        rc = cs_error_set(err, CS_EINVAL, "invalid value for %s: %lld (expected a port 1-65535)",
                          key, (long long)*out);
    return rc;
}

int cs_k8s_driver_ports(const cs_conf *conf, int64_t ports[3], cs_error *err)
{
    int rc;
    if ((rc = conf_port(conf, "spark.driver.port", &ports[0], err))) return rc;
    if ((rc = conf_port(conf, "spark.driver.blockManager.port", &ports[1], err))) return rc;
    return conf_port(conf, "spark.ui.port", &ports[2], err);
}

json_t *cs_k8s_driver_service(const cs_conf *conf, const k8s_app *app, cs_error *err)
{
    int64_t ports[3];
    if (cs_k8s_driver_ports(conf, ports, err) != CS_OK) return NULL;
    json_t *selector = cs_k8s_role_labels_new(conf, app, true, -1, err);
    if (!selector) return NULL;
    json_t *labels = json_pack("{s:s}", "spark-app-selector", app->app_id);
    json_t *annotations = json_object();
    json_t *svc = NULL;
    if (cs_k8s_merge_user_map(labels, conf, "spark.kubernetes.driver.service.label.", app, -1, true,
                              err) != CS_OK ||
        cs_k8s_merge_user_map(annotations, conf, "spark.kubernetes.driver.service.annotation.", app,
                              -1, false, err) != CS_OK) {
        json_decref(labels);
        json_decref(annotations);
        json_decref(selector);
        return NULL;
    }
    const char *policy =
        cs_conf_entry_string(conf, "spark.kubernetes.driver.service.ipFamilyPolicy");
    const char *fams = cs_conf_entry_string(conf, "spark.kubernetes.driver.service.ipFamilies");
    json_t *families = json_array();
    char *copy = cs_xstrdup(fams), *save = NULL;
    for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save))
        json_array_append_new(families, json_string(t));
    free(copy);
    svc = json_pack("{s:s, s:s, s:{s:s, s:s, s:o, s:o}, s:{s:s, s:o, s:s, s:o, s:[o,o,o]}}",
                    "apiVersion", "v1", "kind", "Service", "metadata", "name", app->driver_svc_name,
                    "namespace", app->namespace_, "labels", labels, "annotations", annotations,
                    "spec", "clusterIP", "None", "selector", selector, "ipFamilyPolicy", policy,
                    "ipFamilies", families, "ports", port_new("driver-rpc-port", ports[0]),
                    port_new("blockmanager", ports[1]), port_new("spark-ui", ports[2]));
    if (json_object_size(annotations) == 0)
        json_object_del(json_object_get(svc, "metadata"), "annotations");
    return svc;
}

/* ---- config maps and secrets -------------------------------------------------------------- */

/* Keys never written into a ConfigMap (its readers are the namespace's ConfigMap readers):
 * credentials, which pods get from Secrets (cs_k8s_add_conf_secrets) or from the driver over the
 * authenticated RPC. */
static bool excluded_key(const char *k)
{
    return cs_conf_entry_is_secret(k) || cs_str_starts_with(k, "spark.authenticate.secret") ||
           !strcmp(k, "spark.kubernetes.authenticate.submission.oauthToken") ||
           !strcmp(k, "spark.kubernetes.authenticate.driver.oauthToken") ||
           !strcmp(k, "spark.kubernetes.authenticate.oauthToken");
}

static void copy_allowed(void *arg, const char *key, const char *value)
{
    if (!excluded_key(key)) cs_conf_set((cs_conf *)arg, key, value);
}

static int read_small_file(const char *path, char **out, size_t *len, cs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cs_error_set(err, errno == ENOENT ? CS_ENOTFOUND : CS_EIO, "cannot read %s: %s",
                            path, strerror(errno));
    cs_sbuf b = CS_SBUF_INIT;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        cs_sbuf_append(&b, buf, n);
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) {
        cs_sbuf_free(&b);
        return cs_error_set(err, CS_EIO, "cannot read %s", path);
    }
    cs_sbuf_putc(&b, '\0');
    *len = b.len - 1;
    *out = cs_sbuf_detach(&b, NULL);
    return CS_OK;
}

bool cs_k8s_template_is_remote(const char *path)
{
    return strstr(path, "://") && strncmp(path, "file:", 5) != 0 && strncmp(path, "local:", 6) != 0;
}

int cs_k8s_read_template(const char *path, char **out, size_t *len, cs_error *err)
{
    if (!cs_k8s_template_is_remote(path)) {
        const char *local = path;
        if (strncmp(local, "file://", 7) == 0)
            local += 7;
        else if (strncmp(local, "file:", 5) == 0)
            local += 5;
        return read_small_file(local, out, len, err);
    }
    uint8_t *bytes = NULL;
    int rc = cs_fs_get(path, &bytes, len, err); /* s3a://, as Spark downloads a remote template */
    if (rc < 0) return rc;
    *out = (char *)bytes;
    return CS_OK;
}

char *cs_k8s_base64_new(const uint8_t *p, size_t n)
{
    size_t out_len = 4 * ((n + 2) / 3);
    char *out = cs_xmalloc(out_len + 1);
    size_t o = 0;
    /* EVP_EncodeBlock takes an int length: encode in chunks that are a multiple of 3 */
    const size_t chunk = 3 * 1024 * 1024;
    for (size_t i = 0; i < n; i += chunk) {
        size_t m = n - i < chunk ? n - i : chunk;
        o += (size_t)EVP_EncodeBlock((unsigned char *)out + o, p + i, (int)m);
    }
    out[o] = '\0';
    return out;
}

static json_t *configmap_new(const cs_conf *conf, const k8s_app *app, const char *name, bool driver,
                             const uint8_t *so, size_t len, cs_error *err)
{
    int64_t max;
    if (cs_conf_entry_size(conf, "spark.kubernetes.configMap.maxSize", &max, err)) return NULL;
    cs_conf *c = cs_conf_new();
    cs_conf_foreach(conf, copy_allowed, c);
    char *tpl = NULL;
    size_t tlen = 0;
    const char *tpath = cs_conf_get(conf, "spark.kubernetes.executor.podTemplateFile");
    if (driver && tpath && strcmp(tpath, K8S_EXEC_TEMPLATE_PATH) != 0) {
        if (cs_k8s_read_template(tpath, &tpl, &tlen, err) != CS_OK) {
            cs_error_prefix(err, "spark.kubernetes.executor.podTemplateFile");
            cs_conf_free(c);
            return NULL;
        }
        cs_conf_set(c, "spark.kubernetes.executor.podTemplateFile", K8S_EXEC_TEMPLATE_PATH);
    }
    if (driver) cs_k8s_add_driver_system_properties(c, app);
    size_t plen = 0;
    char *props = cs_conf_to_properties(c, &plen);
    cs_conf_free(c);
    plen += tlen; /* the template travels in the same map */
    size_t total = plen + (so ? len : 0), files = 0;
    for (int i = 0; i < app->n_shipped; i++)
        files += app->shipped[i].len;
    total += files;
    if ((int64_t)total > max && files > 0) {
        cs_error_set(err, CS_EINVAL,
                     "config map %s too large: spark.properties and templates (%zu bytes) + %s "
                     "(%zu bytes) + --files/--archives (%zu bytes) = %zu bytes exceeds "
                     "spark.kubernetes.configMap.maxSize (%lld bytes); set "
                     "spark.kubernetes.file.upload.path (an s3a:// or shared path) to ship them "
                     "there",
                     name, plen, app->upload_name ? app->upload_name : "the application",
                     so ? len : 0, files, total, (long long)max);
        free(props);
        free(tpl);
        return NULL;
    }
    if ((int64_t)total > max) {
        if (so)
            cs_error_set(err, CS_EINVAL,
                         "config map %s too large: spark.properties and templates (%zu bytes) + "
                         "%s (%zu bytes) "
                         "= %zu bytes exceeds spark.kubernetes.configMap.maxSize (%lld bytes); "
                         "set spark.kubernetes.file.upload.path (an s3a:// or shared path) to "
                         "ship it there, or put the job in the image and submit it as "
                         "local:///path",
                         name, plen, app->upload_name ? app->upload_name : "app.so", len, total,
                         (long long)max);
        else
            cs_error_set(err, CS_EINVAL,
                         "config map %s too large: spark.properties is %zu bytes, more than "
                         "spark.kubernetes.configMap.maxSize (%lld bytes)",
                         name, plen, (long long)max);
        free(props);
        free(tpl);
        return NULL;
    }
    json_t *labels = json_pack("{s:s}", "spark-app-selector", app->app_id);
    if (driver) json_object_set_new(labels, "spark-role", json_string("driver"));
    json_t *cm = json_pack("{s:s, s:s, s:{s:s, s:s, s:o}, s:{s:s}}", "apiVersion", "v1", "kind",
                           "ConfigMap", "metadata", "name", name, "namespace", app->namespace_,
                           "labels", labels, "data", "spark.properties", props);
    free(props);
    if (tpl) {
        json_object_set_new(json_object_get(cm, "data"), "pod-spec-template.yml", json_string(tpl));
        free(tpl);
    }
    if (so || app->n_shipped) {
        json_t *bin = json_object();
        if (so) {
            char *b64 = cs_k8s_base64_new(so, len);
            json_object_set_new(bin, app->upload_name ? app->upload_name : "app.so",
                                json_string(b64));
            free(b64);
        }
        for (int i = 0; i < app->n_shipped; i++) {
            char *b64 = cs_k8s_base64_new(app->shipped[i].data, app->shipped[i].len);
            json_object_set_new(bin, app->shipped[i].key, json_string(b64));
            free(b64);
        }
        json_object_set_new(cm, "binaryData", bin);
    }
    return cm;
}

json_t *cs_k8s_driver_configmap(const cs_conf *conf, const k8s_app *app, const uint8_t *app_so,
                                size_t len, cs_error *err)
{
    return configmap_new(conf, app, app->conf_map_name, true, app_so, len, err);
}

json_t *cs_k8s_executor_configmap(const cs_conf *conf, const k8s_app *app, const uint8_t *app_so,
                                  size_t len, cs_error *err)
{
    return configmap_new(conf, app, app->exec_conf_map_name, false, app_so, len, err);
}

json_t *cs_k8s_auth_secret(const cs_conf *conf, const k8s_app *app, cs_error *err)
{
    const char *secret = cs_conf_get(conf, "spark.authenticate.secret");
    char gen[65];
    if (!secret || !*secret) {
        unsigned char raw[32];
        if (RAND_bytes(raw, sizeof raw) != 1) {
            cs_error_set(err, CS_EIO, "cannot generate spark.authenticate.secret");
            return NULL;
        }
        for (size_t i = 0; i < sizeof raw; i++)
            snprintf(gen + 2 * i, 3, "%02x", raw[i]);
        secret = gen;
    }
    char *b64 = cs_k8s_base64_new((const uint8_t *)secret, strlen(secret));
    json_t *s = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:s, s:{s:s}}", "apiVersion", "v1",
                          "kind", "Secret", "metadata", "name", app->auth_secret_name, "namespace",
                          app->namespace_, "labels", "spark-app-selector", app->app_id, "type",
                          "Opaque", "data", K8S_AUTH_SECRET_KEY, b64);
    free(b64);
    return s;
}

bool cs_k8s_has_conf_secrets(const cs_conf *conf)
{
    int n;
    const cs_conf_entry *e = cs_conf_entries(&n);
    for (int i = 0; i < n; i++)
        if (e[i].secret && e[i].secret_env && cs_conf_get(conf, e[i].key)) return true;
    return false;
}

void cs_k8s_add_conf_secrets(json_t *secret, const cs_conf *conf)
{
    json_t *data = json_object_get(secret, "data");
    int n;
    const cs_conf_entry *e = cs_conf_entries(&n);
    for (int i = 0; i < n; i++) {
        const char *v = e[i].secret && e[i].secret_env ? cs_conf_get(conf, e[i].key) : NULL;
        if (!v) continue;
        char *b64 = cs_k8s_base64_new((const uint8_t *)v, strlen(v));
        json_object_set_new(data, e[i].secret_env, json_string(b64));
        free(b64);
    }
}

void cs_k8s_env_conf_secrets(json_t *container, const cs_conf *conf, const k8s_app *app)
{
    int n;
    const cs_conf_entry *e = cs_conf_entries(&n);
    for (int i = 0; i < n; i++)
        if (e[i].secret && e[i].secret_env && cs_conf_get(conf, e[i].key))
            cs_k8s_env_secret_ref(container, e[i].secret_env, app->auth_secret_name,
                                  e[i].secret_env);
}
