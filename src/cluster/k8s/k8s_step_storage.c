/* k8s_step_storage.c — the feature steps that add volumes and what they carry (Spark's
 * MountSecretsFeatureStep, EnvSecretsFeatureStep, MountVolumesFeatureStep, LocalDirsFeatureStep,
 * HadoopConf{Driver,Executor}FeatureStep and the conf-map part of BasicDriverFeatureStep / the
 * executor conf map).
 * Called only through the step lists of k8s_pod_spec.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/k8s/k8s_steps.h"
#include "common/conf_entries.h"
#include "common/strutil.h"

static void add_volume(k8s_pod_ctx *ctx, json_t *vol)
{
    cs_k8s_upsert_by(cs_k8s_child_arr(cs_k8s_child_obj(ctx->pod, "spec"), "volumes"), "name", vol);
}

static void add_mount(k8s_pod_ctx *ctx, json_t *mount)
{
    cs_k8s_upsert_by(cs_k8s_child_arr(ctx->container, "volumeMounts"), "mountPath", mount);
}

static bool abs_path_ok(const char *p)
{
    return p && p[0] == '/';
}

/* ---- secrets ------------------------------------------------------------------------------ */

int cs_k8s_step_mount_secrets(k8s_pod_ctx *ctx, cs_error *err)
{
    char prefix[96];
    snprintf(prefix, sizeof prefix, "spark.kubernetes.%s.secrets.", ctx->role);
    json_t *m = cs_k8s_conf_prefixed(ctx->conf, prefix);
    const char *name;
    json_t *v;
    int rc = CS_OK;
    json_object_foreach(m, name, v)
    {
        const char *path = json_string_value(v);
        if (!cs_k8s_is_dns1123_subdomain(name)) {
            rc = cs_error_set(err, CS_EINVAL, "invalid key %s%s: '%s' is not a valid Secret name",
                              prefix, name, name);
            break;
        }
        if (!abs_path_ok(path)) {
            rc = cs_error_set(err, CS_EINVAL,
                              "invalid value for %s%s: '%s' (expected an absolute mount path)",
                              prefix, name, path);
            break;
        }
        char vol[300];
        snprintf(vol, sizeof vol, "%s-volume", name);
        add_volume(ctx, json_pack("{s:s, s:{s:s}}", "name", vol, "secret", "secretName", name));
        add_mount(ctx, json_pack("{s:s, s:s}", "name", vol, "mountPath", path));
    }
    json_decref(m);
    return rc;
}

int cs_k8s_step_env_secrets(k8s_pod_ctx *ctx, cs_error *err)
{
    char prefix[96];
    snprintf(prefix, sizeof prefix, "spark.kubernetes.%s.secretKeyRef.", ctx->role);
    json_t *m = cs_k8s_conf_prefixed(ctx->conf, prefix);
    const char *env;
    json_t *v;
    int rc = CS_OK;
    json_object_foreach(m, env, v)
    {
        const char *ref = json_string_value(v);
        const char *colon = strchr(ref, ':');
        if (!colon || colon == ref || !colon[1]) {
            rc = cs_error_set(err, CS_EINVAL,
                              "invalid value for %s%s: '%s' (expected <secret name>:<key>)", prefix,
                              env, ref);
            break;
        }
        char *secret = cs_xstrndup(ref, (size_t)(colon - ref));
        cs_k8s_env_secret_ref(ctx->container, env, secret, colon + 1);
        free(secret);
    }
    json_decref(m);
    return rc;
}

/* ---- volumes ------------------------------------------------------------------------------ */

static const char *const VOLUME_TYPES[] = {"hostPath", "emptyDir", "persistentVolumeClaim", "nfs",
                                           NULL};

/* Collects spark.kubernetes.<role>.volumes.<type>.<name>.<rest> into
 * {"<type>.<name>": {rest: value}} preserving key order. */
static int collect_volumes(k8s_pod_ctx *ctx, const char *prefix, json_t *out, cs_error *err)
{
    json_t *m = cs_k8s_conf_prefixed(ctx->conf, prefix);
    const char *k;
    json_t *v;
    int rc = CS_OK;
    json_object_foreach(m, k, v)
    {
        const char *dot1 = strchr(k, '.');
        const char *dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
        if (!dot1 || !dot2 || dot2 == dot1 + 1 || !dot2[1]) {
            rc = cs_error_set(err, CS_EINVAL,
                              "invalid key %s%s (expected %s<type>.<name>.mount.path and similar)",
                              prefix, k, prefix);
            break;
        }
        char *id = cs_xstrndup(k, (size_t)(dot2 - k));
        json_t *entry = json_object_get(out, id);
        if (!entry) {
            entry = json_object();
            json_object_set_new(out, id, entry);
        }
        json_object_set(entry, dot2 + 1, v);
        free(id);
    }
    json_decref(m);
    return rc;
}

static const char *opt(json_t *e, const char *name)
{
    return json_string_value(json_object_get(e, name));
}

/* A size as the API server accepts it: a quantity above zero. */
static int check_size(const char *prefix, const char *id, const char *size, cs_error *err)
{
    long double v;
    if (cs_k8s_parse_quantity(size, &v) && v > 0) return CS_OK;
    return cs_error_set(err, CS_EINVAL,
                        "invalid value for %s%s.options.sizeLimit: '%s' (expected a positive "
                        "quantity such as 10Gi or 500M)",
                        prefix, id, size);
}

/* An OnDemand claim's options: sizeLimit required, storageClass a StorageClass name ("" = no
 * class, as Kubernetes; absent = the cluster's default class). */
static int check_on_demand(const char *prefix, const char *id, json_t *e, cs_error *err)
{
    const char *size = opt(e, "options.sizeLimit"), *sc = opt(e, "options.storageClass");
    if (!size)
        return cs_error_set(err, CS_EINVAL,
                            "%s%s.options.sizeLimit is required with claimName=OnDemand", prefix,
                            id);
    if (sc && *sc && !cs_k8s_is_dns1123_subdomain(sc))
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for %s%s.options.storageClass: '%s' (expected a "
                            "StorageClass name: lowercase letters, digits, '-' and '.', at most "
                            "253 characters)",
                            prefix, id, sc);
    return check_size(prefix, id, size, err);
}

/* What an OnDemand claim's name starts with, into buf, as Spark: `<prefix>-driver` for the driver
 * (whatever its pod's name), the pod's name for an executor. */
static void claims_base(char *buf, size_t cap, const k8s_app *app, bool driver,
                        const char *pod_name)
{
    if (driver)
        snprintf(buf, cap, "%s-driver", app->prefix);
    else
        snprintf(buf, cap, "%s", pod_name ? pod_name : "");
}

static int build_volume(k8s_pod_ctx *ctx, const char *prefix, int index, const char *id, json_t *e,
                        cs_error *err)
{
    const char *dot = strchr(id, '.');
    char *type = cs_xstrndup(id, (size_t)(dot - id));
    const char *name = dot + 1;
    int rc = CS_OK;
    json_t *vol = NULL, *mount = NULL;
    bool known = false;
    for (int i = 0; VOLUME_TYPES[i]; i++)
        if (!strcmp(type, VOLUME_TYPES[i])) known = true;
    if (!known) {
        rc = cs_error_set(err, CS_EINVAL,
                          "unsupported volume type '%s' in %s%s.* (expected hostPath, emptyDir, "
                          "persistentVolumeClaim or nfs)",
                          type, prefix, id);
        goto done;
    }
    if (!cs_k8s_is_dns1123_label(name)) {
        rc = cs_error_set(err, CS_EINVAL,
                          "invalid volume name '%s' in %s%s.* (expected a DNS-1123 label)", name,
                          prefix, id);
        goto done;
    }
    const char *path = opt(e, "mount.path");
    if (!abs_path_ok(path)) {
        rc = cs_error_set(err, CS_EINVAL, "%s%s.mount.path is %s (expected an absolute path)",
                          prefix, id, path ? "not absolute" : "missing");
        goto done;
    }
    mount = json_pack("{s:s, s:s}", "name", name, "mountPath", path);
    if (opt(e, "mount.subPath"))
        json_object_set(mount, "subPath", json_object_get(e, "mount.subPath"));
    if (opt(e, "mount.subPathExpr"))
        json_object_set(mount, "subPathExpr", json_object_get(e, "mount.subPathExpr"));
    const char *ro = opt(e, "mount.readOnly");
    if (ro) {
        char what[400];
        bool b;
        snprintf(what, sizeof what, "%s%s.mount.readOnly", prefix, id);
        if ((rc = cs_conf_parse_bool(what, ro, &b, err))) goto done;
        json_object_set_new(mount, "readOnly", json_boolean(b));
    }
    vol = json_pack("{s:s}", "name", name);
    json_t *src = json_object();
    if (!strcmp(type, "hostPath")) {
        if (!abs_path_ok(opt(e, "options.path"))) {
            rc = cs_error_set(err, CS_EINVAL,
                              "%s%s.options.path is required (an absolute host path)", prefix, id);
            json_decref(src);
            goto done;
        }
        json_object_set_new(src, "path", json_string(opt(e, "options.path")));
        if (opt(e, "options.type"))
            json_object_set_new(src, "type", json_string(opt(e, "options.type")));
    } else if (!strcmp(type, "emptyDir")) {
        if (opt(e, "options.medium"))
            json_object_set_new(src, "medium", json_string(opt(e, "options.medium")));
        if (opt(e, "options.sizeLimit")) {
            if ((rc = check_size(prefix, id, opt(e, "options.sizeLimit"), err))) {
                json_decref(src);
                goto done;
            }
            json_object_set_new(src, "sizeLimit", json_string(opt(e, "options.sizeLimit")));
        }
    } else if (!strcmp(type, "persistentVolumeClaim")) {
        const char *claim = opt(e, "options.claimName");
        if (!claim || !*claim) {
            rc = cs_error_set(err, CS_EINVAL, "%s%s.options.claimName is required", prefix, id);
            json_decref(src);
            goto done;
        }
        cs_sbuf b = CS_SBUF_INIT;
        if (!strcmp(claim, "OnDemand")) {
            if ((rc = check_on_demand(prefix, id, e, err))) {
                json_decref(src);
                goto done;
            }
            /* one claim per pod, built by cs_k8s_{driver,executor}_pvcs and created by
             * cspark-submit (the driver's) or the backend (an executor's) */
            char base[300];
            claims_base(base, sizeof base, ctx->app, ctx->driver, ctx->pod_name);
            cs_sbuf_printf(&b, "%s-pvc-%d", base, index);
        } else {
            char num[16];
            snprintf(num, sizeof num, "%d", ctx->exec_id);
            const char *p = claim, *hit;
            while (!ctx->driver && (hit = strstr(p, "SPARK_EXECUTOR_ID")) != NULL) {
                cs_sbuf_append(&b, p, (size_t)(hit - p));
                cs_sbuf_puts(&b, num);
                p = hit + strlen("SPARK_EXECUTOR_ID");
            }
            cs_sbuf_puts(&b, p);
        }
        json_object_set_new(src, "claimName", json_string(cs_sbuf_str(&b)));
        cs_sbuf_free(&b);
        if (json_is_true(json_object_get(mount, "readOnly")))
            json_object_set_new(src, "readOnly", json_true());
    } else { /* nfs */
        const char *server = opt(e, "options.server"), *p = opt(e, "options.path");
        if (!server || !*server || !abs_path_ok(p)) {
            rc = cs_error_set(err, CS_EINVAL,
                              "%s%s.options.server and .options.path are required for nfs", prefix,
                              id);
            json_decref(src);
            goto done;
        }
        json_object_set_new(src, "server", json_string(server));
        json_object_set_new(src, "path", json_string(p));
        if (json_is_true(json_object_get(mount, "readOnly")))
            json_object_set_new(src, "readOnly", json_true());
    }
    json_object_set_new(vol, type, src);
    add_volume(ctx, vol);
    add_mount(ctx, mount);
    vol = mount = NULL;
done:
    json_decref(vol);
    json_decref(mount);
    free(type);
    return rc;
}

int cs_k8s_step_volumes(k8s_pod_ctx *ctx, cs_error *err)
{
    char prefix[96];
    snprintf(prefix, sizeof prefix, "spark.kubernetes.%s.volumes.", ctx->role);
    json_t *vols = json_object();
    int rc = collect_volumes(ctx, prefix, vols, err);
    const char *id;
    json_t *e;
    if (rc == CS_OK) {
        int index = 0;
        json_object_foreach(vols, id, e)
        {
            if ((rc = build_volume(ctx, prefix, index++, id, e, err))) break;
        }
    }
    json_decref(vols);
    return rc;
}

/* ---- local dirs --------------------------------------------------------------------------- */

int cs_k8s_step_local_dirs(k8s_pod_ctx *ctx, cs_error *err)
{
    cs_sbuf dirs = CS_SBUF_INIT;
    json_t *vols = json_object_get(json_object_get(ctx->pod, "spec"), "volumes");
    json_t *mounts = json_object_get(ctx->container, "volumeMounts");
    size_t i, j;
    json_t *v, *m;
    /* user volumes named spark-local-dir-* are the local dirs */
    json_array_foreach(vols, i, v)
    {
        const char *n = json_string_value(json_object_get(v, "name"));
        if (!n || !cs_str_starts_with(n, "spark-local-dir-")) continue;
        json_array_foreach(mounts, j, m)
        {
            const char *mn = json_string_value(json_object_get(m, "name"));
            if (mn && !strcmp(mn, n)) {
                if (dirs.len) cs_sbuf_putc(&dirs, ',');
                cs_sbuf_puts(&dirs, json_string_value(json_object_get(m, "mountPath")));
            }
        }
    }
    if (!dirs.len) {
        bool tmpfs = false;
        int rc = cs_conf_entry_bool(ctx->conf, "spark.kubernetes.local.dirs.tmpfs", &tmpfs, err);
        if (rc) return rc;
        const char *list = cs_conf_get(ctx->conf, "spark.local.dir");
        char dflt[96];
        snprintf(dflt, sizeof dflt, "/var/data/spark-%s", ctx->app->unique_id);
        char *copy = cs_xstrdup(list && *list ? list : dflt), *save = NULL;
        int n = 0;
        for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
            size_t tl = strlen(t);
            const char *tt = cs_str_trim(t, &tl);
            if (!tl) continue;
            char *dir = cs_xstrndup(tt, tl);
            if (dir[0] != '/') {
                free(dir);
                free(copy);
                cs_sbuf_free(&dirs);
                return cs_error_set(err, CS_EINVAL,
                                    "invalid value for spark.local.dir: '%s' (expected absolute "
                                    "paths separated by commas)",
                                    list);
            }
            char name[32];
            snprintf(name, sizeof name, "spark-local-dir-%d", ++n);
            json_t *src = json_object();
            if (tmpfs) json_object_set_new(src, "medium", json_string("Memory"));
            add_volume(ctx, json_pack("{s:s, s:o}", "name", name, "emptyDir", src));
            add_mount(ctx, json_pack("{s:s, s:s}", "name", name, "mountPath", dir));
            if (dirs.len) cs_sbuf_putc(&dirs, ',');
            cs_sbuf_puts(&dirs, dir);
            free(dir);
        }
        free(copy);
    }
    if (dirs.len) cs_k8s_env_value(ctx->container, "SPARK_LOCAL_DIRS", cs_sbuf_str(&dirs));
    cs_sbuf_free(&dirs);
    return CS_OK;
}

/* ---- conf map ----------------------------------------------------------------------------- */

int cs_k8s_step_conf_map(k8s_pod_ctx *ctx, cs_error *err)
{
    const char *cm = ctx->app->conf_map_name, *vol = "spark-conf-volume-driver";
    if (!ctx->driver) {
        bool disabled = false;
        int rc = cs_conf_entry_bool(ctx->conf, "spark.kubernetes.executor.disableConfigMap",
                                    &disabled, err);
        if (rc) return rc;
        if (disabled) return CS_OK;
        cm = ctx->app->exec_conf_map_name;
        vol = "spark-conf-volume-exec";
    }
    add_volume(ctx, json_pack("{s:s, s:{s:s}}", "name", vol, "configMap", "name", cm));
    add_mount(ctx, json_pack("{s:s, s:s}", "name", vol, "mountPath", K8S_CONF_DIR));
    return CS_OK;
}

/* ---- Hadoop configuration ---------------------------------------------------------------- */

/* spark.kubernetes.hadoop.configMapName (Spark's HadoopConfDriverFeatureStep and
 * HadoopConfExecutorFeatureStep): the named ConfigMap's files are mounted at /opt/hadoop/conf in
 * the driver and every executor, and HADOOP_CONF_DIR points there. The ConfigMap is the user's:
 * cspark neither creates nor deletes it. */
int cs_k8s_step_hadoop_conf(k8s_pod_ctx *ctx, cs_error *err)
{
    const char *cm = cs_conf_get(ctx->conf, "spark.kubernetes.hadoop.configMapName");
    if (!cm) return CS_OK;
    if (!cs_k8s_is_dns1123_subdomain(cm))
        return cs_error_set(
            err, CS_EINVAL,
            "invalid value for spark.kubernetes.hadoop.configMapName: '%s' (expected "
            "the name of a ConfigMap)",
            cm);
    add_volume(
        ctx, json_pack("{s:s, s:{s:s}}", "name", K8S_HADOOP_CONF_VOLUME, "configMap", "name", cm));
    add_mount(ctx, json_pack("{s:s, s:s}", "name", K8S_HADOOP_CONF_VOLUME, "mountPath",
                             K8S_HADOOP_CONF_DIR));
    cs_k8s_env_value(ctx->container, "HADOOP_CONF_DIR", K8S_HADOOP_CONF_DIR);
    return CS_OK;
}

/* ---- on-demand claims --------------------------------------------------------------------- */

/* One claim, as Spark's MountVolumesFeatureStep makes it: the user's labels (and annotations)
 * with the spark-app-selector label, which no user label overrides; NULL with err on a bad
 * label or annotation. */
static json_t *claim_new(const cs_conf *conf, const k8s_app *app, const char *prefix,
                         const char *id, json_t *e, const char *name, int exec_id, bool rwo,
                         cs_error *err)
{
    json_t *labels = json_object(), *ann = json_object();
    char lp[400];
    snprintf(lp, sizeof lp, "%s%s.label.", prefix, id);
    int rc = cs_k8s_merge_user_map(labels, conf, lp, app, exec_id, true, err);
    snprintf(lp, sizeof lp, "%s%s.annotation.", prefix, id);
    if (rc == CS_OK) rc = cs_k8s_merge_user_map(ann, conf, lp, app, exec_id, false, err);
    if (rc != CS_OK) {
        json_decref(labels);
        json_decref(ann);
        return NULL;
    }
    json_object_set_new(labels, "spark-app-selector", json_string(app->app_id));
    json_t *pvc = json_pack("{s:s, s:s, s:{s:s, s:s, s:o}, s:{s:[s], s:{s:{s:s}}}}", "apiVersion",
                            "v1", "kind", "PersistentVolumeClaim", "metadata", "name", name,
                            "namespace", app->namespace_, "labels", labels, "spec", "accessModes",
                            rwo ? "ReadWriteOnce" : "ReadWriteOncePod", "resources", "requests",
                            "storage", opt(e, "options.sizeLimit"));
    if (json_object_size(ann))
        json_object_set(json_object_get(pvc, "metadata"), "annotations", ann);
    json_decref(ann);
    if (opt(e, "options.storageClass"))
        json_object_set_new(json_object_get(pvc, "spec"), "storageClassName",
                            json_string(opt(e, "options.storageClass")));
    return pvc;
}

/* The OnDemand claims of a pod of role ("driver" / "executor") whose claims are named
 * `<base>-pvc-<index>`; exec_id for the executor's label and annotation templates. */
static json_t *pod_pvcs(const cs_conf *conf, const k8s_app *app, bool driver, const char *base,
                        int exec_id, cs_error *err)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "spark.kubernetes.%s.volumes.", driver ? "driver" : "executor");
    bool rwo = false;
    if (cs_conf_entry_bool(conf, "spark.kubernetes.legacy.useReadWriteOnceAccessMode", &rwo, err))
        return NULL;
    k8s_pod_ctx ctx = {.conf = conf, .app = app, .role = driver ? "driver" : "executor"};
    json_t *vols = json_object(), *out = json_array();
    int rc = collect_volumes(&ctx, prefix, vols, err);
    const char *id;
    json_t *e;
    int index = -1; /* position among all the pod's volumes, as in the pod */
    json_object_foreach(vols, id, e)
    {
        index++;
        const char *claim = opt(e, "options.claimName");
        if (rc != CS_OK || !cs_str_starts_with(id, "persistentVolumeClaim.") || !claim ||
            strcmp(claim, "OnDemand"))
            continue;
        if ((rc = check_on_demand(prefix, id, e, err)) != CS_OK) break;
        char name[512];
        snprintf(name, sizeof name, "%s-pvc-%d", base, index);
        json_t *pvc = claim_new(conf, app, prefix, id, e, name, exec_id, rwo, err);
        if (!pvc) {
            rc = err->code ? err->code : CS_EINVAL;
            break;
        }
        json_array_append_new(out, pvc);
    }
    json_decref(vols);
    if (rc != CS_OK) {
        json_decref(out);
        return NULL;
    }
    return out;
}

json_t *cs_k8s_executor_pvcs(const cs_conf *conf, const k8s_app *app, const json_t *exec_pod,
                             cs_error *err)
{
    json_t *md = json_object_get(exec_pod, "metadata");
    const char *pod = json_string_value(json_object_get(md, "name"));
    const char *exec_id =
        json_string_value(json_object_get(json_object_get(md, "labels"), "spark-exec-id"));
    if (!pod || !exec_id) {
        cs_error_set(err, CS_EINVAL, "cs_k8s_executor_pvcs: not an executor pod built by cspark");
        return NULL;
    }
    return pod_pvcs(conf, app, false, pod, atoi(exec_id), err);
}

json_t *cs_k8s_driver_pvcs(const cs_conf *conf, const k8s_app *app, cs_error *err)
{
    char base[300];
    claims_base(base, sizeof base, app, true, NULL);
    return pod_pvcs(conf, app, true, base, 0, err);
}
