/*
 * submit_k8s.c — see submit_k8s.h. Order of creation, as Spark: the pre-resource (the
 * Volcano PodGroup when the driver's featureSteps include Volcano's, the authentication Secret,
 * and the driver's API-server credentials Secret when spark.kubernetes.authenticate.driver.*
 * name some), the driver ConfigMap (spark.properties and,
 * unless the application is local://, the job's .so or SQL file), then the driver pod, then the
 * headless Service and the driver's OnDemand PersistentVolumeClaims (cs_k8s_driver_pvcs); every
 * object but the pod gets an ownerReference to the driver pod, so deleting
 * the driver removes the application. Before the first object is created, the pod is sent once with
 * dryRun=All, so that an RBAC refusal or an invalid pod is reported with nothing created. If any
 * later step fails, what was created is deleted again. With
 * spark.kubernetes.submission.waitAppCompletion (true) the pod is followed by a watch and its phase
 * reported every spark.kubernetes.report.interval; the exit status is the driver container's.
 *
 * cs_submit_k8s_start (the operator's way in) runs the same creation without waiting, gives the
 * driver pod an extra owner (the SparkApplication), and adopts an object that already exists under
 * the application's names instead of failing: its ids come from the conf (spark.app.id,
 * cspark.kubernetes.uniqueId), so a submission repeated after the submitter died half-way finds
 * what the first one created and completes it.
 */
#define _GNU_SOURCE
#include "submit/submit_k8s.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cluster/k8s/k8s_pod_spec.h"
#include "cluster/k8s/k8s_pod_states.h"
#include "cluster/k8s/k8s_yaml.h"
#include "common/app_file.h"
#include "common/clock.h"
#include "common/conf_entries.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/strutil.h"
#include "common/sync.h"
#include "fs/fs.h"
#include "fs/shipped_files.h"
#include "kube/kube_client.h"
#include "kube/kube_config.h"
#include "kube/kube_watch.h"

/* The job's .so (or SQL file, or Python program), to ship in the driver's ConfigMap. */
static int read_app(const char *path, uint8_t **out, size_t *len, cs_error *err)
{
    /* as a client-mode submit */
    if (!cs_submit_is_sql_file(path) && !cs_submit_is_python_file(path) &&
        cs_app_file_check(path, err) < 0)
        return err->code;
    return cs_read_file(path, out, len, err);
}

/* A Python application's --py-files (spark.submit.pyFiles) travel as --files do: uploaded with
 * u, else in the driver's ConfigMap (local://K8S_CONF_DIR/<name>); the driver pod puts them on
 * the program's PYTHONPATH (programs/python_submit.c). */
static int ship_py_files(cs_conf *conf, cs_files_upload *u, k8s_app *app, cs_error *err)
{
    const char *key = "spark.submit.pyFiles";
    const char *list = cs_conf_get(conf, key);
    char *out = NULL;
    if (!list || !*list) return 0;
    int rc = u ? cs_files_upload_list(u, key, list, &out, err)
               : cs_files_rewrite_local(key, list, cs_k8s_ship_in_configmap, app, &out, err);
    if (rc < 0) return err->code ? err->code : rc;
    cs_conf_set(conf, key, out);
    free(out);
    return 0;
}

/* Local entries of spark.files / spark.archives, and then the application, are uploaded to
 * spark.kubernetes.file.upload.path (Spark's uploadAndTransformFileUris) and the lists rewritten
 * to the uploaded URIs; *app_uri is the uploaded .so (NULL when it stays in the ConfigMap).
 * Nothing is uploaded without an upload path. */
static int upload_local_files(cs_conf *conf, const char *app_path, cs_files_upload *u,
                              char **app_uri, cs_error *err)
{
    static const char *const keys[] = {"spark.files", "spark.archives"};
    const char *base = cs_conf_get(conf, "spark.kubernetes.file.upload.path");
    bool any = cs_files_has_local(cs_conf_get(conf, "spark.submit.pyFiles"));
    for (int i = 0; i < 2; i++)
        any = any || cs_files_has_local(cs_conf_get(conf, keys[i]));
    bool app_local = strncmp(app_path, "local://", 8) != 0 && cs_fs_local_path(app_path);
    if (!base || !*base) return 0; /* small files travel in the ConfigMap */
    if (!any && !app_local) return 0;
    cs_fs_configure(conf); /* spark.hadoop.fs.s3a.* of the application */
    if (cs_files_upload_begin(u, base, err) < 0 ||
        cs_k8s_ship_file_lists(conf, conf, u, NULL, err) < 0 ||
        ship_py_files(conf, u, NULL, err) < 0)
        return err->code;
    if (!app_local) return 0;
    const char *name = strrchr(app_path, '/');
    return cs_files_upload_file(u, cs_fs_local_path(app_path), name ? name + 1 : app_path, app_uri,
                                err);
}

/* ---- following the driver pod ------------------------------------------------------------ */

typedef struct follow {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    char phase[32];
    int exit_code;
    bool done, deleted;
    const char *pod_name;
    char reason[64];    /* the driver container's terminated.reason */
    char message[4096]; /* its terminated.message: the driver's abort reason */
} follow;

/* The driver pod's state by the snapshots' rules (k8s_pod_states.h: the phase decides, a pod
 * being deleted that no longer runs is DELETED); the exit code and message are the driver
 * container's. It is reported deleted when it went without a driver exit code. */
static void on_driver_event(void *arg, const char *type, const json_t *obj)
{
    follow *f = arg;
    const json_t *pod = obj;
    if (strcmp(type, "RELIST") == 0) {
        const json_t *items = json_object_get(obj, "items");
        pod = json_array_size(items) ? json_array_get(items, 0) : NULL;
        if (!pod) return;
    }
    bool deleted_event = strcmp(type, "DELETED") == 0;
    k8s_pod_status status = cs_k8s_pod_status_of(pod, deleted_event, NULL, false);
    pthread_mutex_lock(&f->lock);
    const json_t *st = json_object_get(pod, "status");
    if (!deleted_event) {
        const char *phase = json_string_value(json_object_get(st, "phase"));
        if (phase) snprintf(f->phase, sizeof f->phase, "%s", phase);
        const json_t *cs = json_object_get(st, "containerStatuses");
        for (size_t i = 0; i < json_array_size(cs); i++) {
            const json_t *c = json_array_get(cs, i);
            const char *name = json_string_value(json_object_get(c, "name"));
            const json_t *t = json_object_get(json_object_get(c, "state"), "terminated");
            if (t && name && strcmp(name, "spark-kubernetes-driver") == 0) {
                f->exit_code = (int)json_integer_value(json_object_get(t, "exitCode"));
                const char *msg = json_string_value(json_object_get(t, "message"));
                const char *why = json_string_value(json_object_get(t, "reason"));
                snprintf(f->message, sizeof f->message, "%s", msg ? msg : "");
                snprintf(f->reason, sizeof f->reason, "%s", why ? why : "");
            }
        }
    }
    if (cs_k8s_pod_state_final(status.state)) {
        f->done = true;
        f->deleted = deleted_event || (status.state == K8S_POD_DELETED && f->exit_code < 0);
        if (f->exit_code < 0) f->exit_code = status.state == K8S_POD_SUCCEEDED ? 0 : 1;
    }
    pthread_cond_broadcast(&f->cond);
    pthread_mutex_unlock(&f->lock);
}

static int wait_for_driver(kube_client *kc, const k8s_app *app, const cs_conf *conf, cs_error *err)
{
    int64_t interval = 1000;
    if (cs_conf_entry_duration_ms(conf, "spark.kubernetes.report.interval", &interval, err) < 0)
        return err->code;
    if (interval < 10) interval = 10;
    follow f = {.exit_code = -1, .pod_name = app->driver_pod_name};
    pthread_mutex_init(&f.lock, NULL);
    cs_cond_init_monotonic(&f.cond);
    char field[512];
    snprintf(field, sizeof field, "metadata.name=%s", app->driver_pod_name);
    kube_watch *w =
        cs_kube_watch_start_sel(kc, "pods", app->namespace_, NULL, field, on_driver_event, &f, err);
    if (!w) {
        pthread_mutex_destroy(&f.lock);
        pthread_cond_destroy(&f.cond);
        return err->code ? err->code : CS_EIO;
    }
    char last[32] = "";
    pthread_mutex_lock(&f.lock);
    while (!f.done) {
        if (strcmp(last, f.phase) != 0 || f.phase[0]) {
            /* Spark's LoggingPodStatusWatcher: the phase every report interval */
            CS_INFO("submit", "app=%s driver=%s namespace=%s phase=%s", cs_log_value(app->app_id),
                    cs_log_value(app->driver_pod_name), cs_log_value(app->namespace_),
                    cs_log_value(f.phase[0] ? f.phase : "Pending"));
            snprintf(last, sizeof last, "%s", f.phase);
        }
        cs_cond_wait_ms(&f.cond, &f.lock, interval);
    }
    int code = f.exit_code;
    bool deleted = f.deleted;
    char phase[32], reason[64];
    snprintf(phase, sizeof phase, "%s", f.phase);
    snprintf(reason, sizeof reason, "%s", f.reason);
    char *message = cs_xstrdup(f.message);
    pthread_mutex_unlock(&f.lock);
    cs_kube_watch_stop(w);
    pthread_mutex_destroy(&f.lock);
    pthread_cond_destroy(&f.cond);
    if (deleted)
        CS_WARN("submit", "app=%s driver=%s event=deleted", cs_log_value(app->app_id),
                cs_log_value(app->driver_pod_name));
    else
        CS_INFO("submit", "app=%s driver=%s phase=%s exit_code=%d event=finished",
                cs_log_value(app->app_id), cs_log_value(app->driver_pod_name), cs_log_value(phase),
                code);
    if (code != 0 && !deleted) {
        /* the driver's abort reason, from its termination message: the last lines printed */
        size_t n = strlen(message);
        while (n > 0 && (message[n - 1] == '\n' || message[n - 1] == ' '))
            message[--n] = '\0';
        fflush(stdout);
        if (n > 0)
            fprintf(stderr,
                    "cspark-submit: driver pod %s failed with exit code %d%s%s%s; its termination "
                    "message:\n%s\n",
                    app->driver_pod_name, code, reason[0] ? " (" : "", reason, reason[0] ? ")" : "",
                    message);
        else
            fprintf(stderr, "cspark-submit: driver pod %s failed with exit code %d%s%s%s\n",
                    app->driver_pod_name, code, reason[0] ? " (" : "", reason,
                    reason[0] ? ")" : "");
    }
    free(message);
    return code;
}

/* ---- submission -------------------------------------------------------------------------- */

/* How one submission behaves: cspark-submit's (wait unless told not to, fail on a name taken) or
 * the operator's (never wait, adopt what exists, an extra owner on the driver pod). */
typedef struct submit_mode {
    bool adopt;                  /* an object that already exists is the one a previous try made */
    const json_t *owner;         /* an ownerReference the driver pod also gets; NULL = none */
    submit_k8s_started *started; /* filled on success; NULL = not wanted */
    kube_client *client;         /* borrowed; NULL = one made from the conf for this submission */
} submit_mode;

static const char *object_name(const json_t *obj)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
}

/* cs_kube_create, but with m->adopt an existing object of the same name is taken as created
 * (*made false, *out the stored object). */
static int create_or_adopt(kube_client *kc, const submit_mode *m, const char *resource,
                           const char *ns, const json_t *obj, json_t **out, bool *made,
                           cs_error *err)
{
    *made = false;
    if (cs_kube_create(kc, resource, ns, obj, out, err) == 0) {
        *made = true;
        return 0;
    }
    if (!m->adopt || err->kind != CS_KIND_ALREADY_EXISTS) return err->code ? err->code : CS_EIO;
    if (!out) return 0;
    return cs_kube_get(kc, resource, ns, object_name(obj), out, err);
}

static void delete_created(kube_client *kc, const k8s_app *app, bool secret, const json_t *creds,
                           bool cm, bool pod, const json_t *pod_group)
{
    cs_error err;
    if (pod_group)
        cs_kube_delete(kc, "podgroups", app->namespace_, object_name(pod_group), 0, &err);
    if (pod) cs_kube_delete(kc, "pods", app->namespace_, app->driver_pod_name, 0, &err);
    if (cm) cs_kube_delete(kc, "configmaps", app->namespace_, app->conf_map_name, 0, &err);
    if (creds) cs_kube_delete(kc, "secrets", app->namespace_, object_name(creds), 0, &err);
    if (secret) cs_kube_delete(kc, "secrets", app->namespace_, app->auth_secret_name, 0, &err);
}

/* The driver's OnDemand claims, after its pod and owned by it (Spark's
 * KubernetesClientApplication creates the feature steps' extra resources so): the pod waits
 * unscheduled until they exist. */
static int create_claims(kube_client *kc, const submit_mode *m, const k8s_app *app, json_t *claims,
                         const json_t *driver_pod, cs_error *err)
{
    size_t i;
    json_t *c;
    json_array_foreach(claims, i, c)
    {
        bool made = false;
        if (cs_k8s_set_owner(c, driver_pod, err) < 0 ||
            create_or_adopt(kc, m, "persistentvolumeclaims", app->namespace_, c, NULL, &made, err) <
                0)
            return err->code;
        CS_INFO("submit", "app=%s event=claim_created claim=%s owner=%s", cs_log_value(app->app_id),
                cs_log_value(
                    json_string_value(json_object_get(json_object_get(c, "metadata"), "name"))),
                cs_log_value(app->driver_pod_name));
    }
    return 0;
}

static int own(kube_client *kc, const k8s_app *app, const char *resource, const char *name,
               const json_t *driver_pod, cs_error *err)
{
    json_t *patch = json_pack("{s:{}}", "metadata");
    json_t *meta = json_object_get(patch, "metadata");
    json_t *tmp = json_object();
    int rc = cs_k8s_set_owner(tmp, driver_pod, err);
    if (rc == 0) {
        json_object_set(meta, "ownerReferences",
                        json_object_get(json_object_get(tmp, "metadata"), "ownerReferences"));
        rc = cs_kube_patch_merge(kc, resource, app->namespace_, name, patch, NULL, err);
    }
    json_decref(tmp);
    json_decref(patch);
    return rc;
}

/* POST pods?dryRun=All: authorized, validated and admitted as the real create, persisted never.
 * The client names raw requests by their path; the message is rewritten to read as cs_kube_create's
 * (`cannot create pods in namespace "ns": ...`). */
static int dry_run_pod(kube_client *kc, const k8s_app *app, const json_t *pod, cs_error *err)
{
    char path[2048];
    int rc = cs_kube_resource_path(kc, "pods", app->namespace_, NULL, path, sizeof path - 64, err);
    if (rc < 0) return rc;
    size_t n = strlen(path);
    snprintf(path + n, sizeof path - n, "?dryRun=All&fieldValidation=%s",
             cs_kube_client_field_validation(kc));
    if ((rc = cs_kube_request(kc, "create", "POST", path, pod, NULL, NULL, err)) >= 0) return rc;
    char *at = strstr(err->msg, path);
    if (at) {
        char what[512], msg[sizeof err->msg];
        snprintf(what, sizeof what, "pods in namespace \"%s\"", app->namespace_);
        snprintf(msg, sizeof msg, "%.*s%s%s", (int)(at - err->msg), err->msg, what,
                 at + strlen(path));
        snprintf(err->msg, sizeof err->msg, "%s", msg);
    }
    return rc;
}

static int submit_cluster(cs_conf *conf, const submit_args *a, const char *entry,
                          const submit_mode *m, cs_error *err)
{
    k8s_app app;
    bool app_ready = false, dry_run = false, wait = true, auth = true;
    uint8_t *bytes = NULL;
    size_t len = 0;
    json_t *secret = NULL, *creds = NULL, *cm = NULL, *pod = NULL, *svc = NULL, *created_pod = NULL,
           *pod_group = NULL;
    json_t *claims = NULL; /* the driver's OnDemand claims */
    kube_client *kc = NULL;
    cs_files_upload upload = {0};
    bool submitted = false;
    int rc = CS_EINVAL;

    if (cs_conf_get_bool(conf, "cspark.kubernetes.dryRun", "false", &dry_run, err) < 0 ||
        cs_conf_entry_bool(conf, "spark.kubernetes.submission.waitAppCompletion", &wait, err) < 0)
        goto out;
    if (m->adopt) wait = dry_run = false;
    cs_conf_entry_set_defaults_in(conf, CS_CONF_IN_CLUSTER); /* spark.authenticate=true */
    if (cs_conf_entry_bool(conf, "spark.authenticate", &auth, err) < 0) goto out;
    if (cs_conf_get(conf, "spark.driver.host") || cs_conf_get(conf, "spark.driver.bindAddress")) {
        rc = cs_error_set(err, CS_EINVAL,
                          "spark.driver.host and spark.driver.bindAddress cannot be set in "
                          "cluster mode: the driver pod's address is used");
        goto out;
    }
    /* local --files/--archives (and then the .so) go through spark.kubernetes.file.upload.path */
    char *app_uri = NULL;
    if (!dry_run && upload_local_files(conf, a->app, &upload, &app_uri, err) < 0) goto out;
    if (cs_k8s_app_init(&app, conf, entry, app_uri ? app_uri : a->app, a->app_argc, a->app_argv,
                        err) < 0) {
        free(app_uri);
        goto out;
    }
    app_ready = true;
    if (app_uri) { /* the driver pod fetches the uploaded .so; nothing in the ConfigMap */
        free(app.upload_name);
        app.upload_name = NULL;
        cs_conf_set(conf, "cspark.app.resource", app_uri);
        free(app_uri);
    } else if (strncmp(a->app, "local://", 8) != 0 && read_app(a->app, &bytes, &len, err) < 0) {
        goto out;
    }
    const char *upload_path = cs_conf_get(conf, "spark.kubernetes.file.upload.path");
    /* without an upload path, the local entries travel in the ConfigMaps (the driver's, and from
     * there the executors'), where pods read them at local:///opt/spark/conf/<name> */
    if ((!upload_path || !*upload_path) &&
        (cs_k8s_ship_file_lists(conf, conf, NULL, &app, err) < 0 ||
         ship_py_files(conf, NULL, &app, err) < 0))
        goto out;
    cs_k8s_add_driver_system_properties(conf, &app);

    /* every object is built (and validated) before anything is created */
    bool conf_secrets = cs_k8s_has_conf_secrets(conf); /* for the driver, not its ConfigMap */
    if ((auth || conf_secrets) && !(secret = cs_k8s_auth_secret(conf, &app, err))) goto out;
    if (conf_secrets) cs_k8s_add_conf_secrets(secret, conf);
    if (cs_k8s_driver_credentials_secret(conf, &app, &creds, err) < 0) goto out;
    if (!(cm = cs_k8s_driver_configmap(conf, &app, bytes, len, err))) goto out;
    if (!(pod = cs_k8s_driver_pod(conf, &app, err))) goto out;
    if (!(svc = cs_k8s_driver_service(conf, &app, err))) goto out;
    if (cs_k8s_volcano_pod_group(conf, &app, pod, &pod_group, err) < 0) goto out;
    if (!(claims = cs_k8s_driver_pvcs(conf, &app, err))) goto out;
    /* and the driver's executor pods (volumes, claims), so that a bad key fails here */
    if (cs_k8s_executor_check(conf, &app, NULL, err) < 0) goto out;

    if (dry_run) { /* cspark addition: the manifests, no API server contacted */
        json_t **objs = cs_xcalloc(6 + json_array_size(claims), sizeof *objs);
        int n = 0;
        if (pod_group) objs[n++] = pod_group;
        if (secret) objs[n++] = secret;
        if (creds) objs[n++] = creds;
        objs[n++] = cm;
        objs[n++] = pod;
        objs[n++] = svc;
        for (size_t i = 0; i < json_array_size(claims); i++)
            objs[n++] = json_array_get(claims, i);
        rc = cs_k8s_write_yaml(stdout, objs, n, err) < 0 ? err->code : 0;
        free(objs);
        goto out;
    }

    if (m->client) {
        kc = m->client;
    } else {
        kube_config kcfg;
        memset(&kcfg, 0, sizeof kcfg);
        if (cs_kube_config_load(conf, cs_conf_get(conf, "spark.master"),
                                "spark.kubernetes.authenticate.submission", &kcfg, err) < 0)
            goto out;
        kc = cs_kube_client_new(&kcfg, conf, "spark.kubernetes.submission", err);
        cs_kube_config_free(&kcfg);
        if (!kc) goto out;
    }

    bool made_secret = false, made_creds = false, made_cm = false, made_pod = false,
         made_svc = false, made_pod_group = false;
    /* the pod goes through a server-side dry run first, so that RBAC (403) and validation (422)
     * refusals come before anything exists */
    if (m->owner) {
        json_t *meta = json_object_get(pod, "metadata");
        json_t *refs = json_object_get(meta, "ownerReferences");
        if (!refs) json_object_set_new(meta, "ownerReferences", refs = json_array());
        json_array_append(refs, (json_t *)m->owner);
    }
    /* a dry run of a pod a previous try created is refused as already existing: adopted below */
    if (dry_run_pod(kc, &app, pod, err) < 0 && !(m->adopt && err->kind == CS_KIND_ALREADY_EXISTS))
        goto fail;
    if (pod_group && create_or_adopt(kc, m, "podgroups", app.namespace_, pod_group, NULL,
                                     &made_pod_group, err) < 0)
        goto fail;
    if (secret &&
        create_or_adopt(kc, m, "secrets", app.namespace_, secret, NULL, &made_secret, err) < 0)
        goto fail;
    if (creds &&
        create_or_adopt(kc, m, "secrets", app.namespace_, creds, NULL, &made_creds, err) < 0)
        goto fail;
    if (create_or_adopt(kc, m, "configmaps", app.namespace_, cm, NULL, &made_cm, err) < 0)
        goto fail;
    if (create_or_adopt(kc, m, "pods", app.namespace_, pod, &created_pod, &made_pod, err) < 0)
        goto fail;
    if ((secret && own(kc, &app, "secrets", app.auth_secret_name, created_pod, err) < 0) ||
        (creds && own(kc, &app, "secrets", object_name(creds), created_pod, err) < 0) ||
        (pod_group && own(kc, &app, "podgroups", object_name(pod_group), created_pod, err) < 0) ||
        own(kc, &app, "configmaps", app.conf_map_name, created_pod, err) < 0 ||
        cs_k8s_set_owner(svc, created_pod, err) < 0 ||
        create_or_adopt(kc, m, "services", app.namespace_, svc, NULL, &made_svc, err) < 0 ||
        create_claims(kc, m, &app, claims, created_pod, err) < 0)
        goto fail; /* claims made go with the pod (owned by it) */
    if (m->started) {
        submit_k8s_started *st = m->started;
        snprintf(st->app_id, sizeof st->app_id, "%s", app.app_id);
        snprintf(st->driver_pod, sizeof st->driver_pod, "%s", app.driver_pod_name);
        snprintf(st->driver_service, sizeof st->driver_service, "%s", app.driver_svc_name);
        st->adopted = !made_pod;
    }
    CS_INFO("submit", "app=%s driver=%s namespace=%s event=submitted", cs_log_value(app.app_id),
            cs_log_value(app.driver_pod_name), cs_log_value(app.namespace_));
    if (!m->adopt) /* the operator reports in its log and the application's status */
        fprintf(stderr, "cspark-submit: application %s submitted: driver pod %s:%s\n", app.app_id,
                app.namespace_, app.driver_pod_name);
    submitted = true;
    rc = wait ? wait_for_driver(kc, &app, conf, err) : 0;
    goto out;
fail:
    delete_created(kc, &app, made_secret, made_creds ? creds : NULL, made_cm, made_pod,
                   made_pod_group ? pod_group : NULL); /* nothing half-created stays */
    rc = err->code ? err->code : CS_EIO;
out:
    /* a failed submission leaves no uploaded file; a finished application neither (the upload
     * directory is its own); without waitAppCompletion the driver still needs them */
    if (!submitted || wait) cs_files_upload_abort(&upload);
    cs_files_upload_free(&upload);
    json_decref(secret);
    json_decref(creds);
    json_decref(pod_group);
    json_decref(cm);
    json_decref(pod);
    json_decref(svc);
    json_decref(claims);
    json_decref(created_pod);
    if (kc != m->client) cs_kube_client_free(kc);
    if (app_ready) cs_k8s_app_free(&app);
    free(bytes);
    return rc;
}

int cs_submit_k8s_cluster(cs_conf *conf, const submit_args *a, const char *entry, cs_error *err)
{
    submit_mode m = {.adopt = false, .owner = NULL, .started = NULL, .client = NULL};
    return submit_cluster(conf, a, entry, &m, err);
}

int cs_submit_k8s_start(kube_client *kc, cs_conf *conf, const submit_args *a, const char *entry,
                        const json_t *owner, submit_k8s_started *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    submit_mode m = {.adopt = true, .owner = owner, .started = out, .client = kc};
    return submit_cluster(conf, a, entry, &m, err);
}
