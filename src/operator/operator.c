/* operator.c — see operator.h. Lock: op->lock guards the two maps the watch threads fill (apps,
 * pods: "namespace/name" -> object); the reconciling thread copies what it needs under it and calls
 * the API server without it. An update is applied only when its resourceVersion is not older than
 * the stored one, so the object a status patch returned is not replaced by a watch event that was
 * already on its way. */
#define _GNU_SOURCE
#include "operator/operator.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "common/clock.h"
#include "common/conf.h"
#include "common/log.h"
#include "common/sync.h"
#include "kube/kube_client.h"
#include "kube/kube_config.h"
#include "kube/kube_watch.h"
#include "operator/app_state.h"
#include "operator/app_submit.h"
#include "operator/leader_lease.h"
#include "operator/scheduled_app.h"

#define OP_COMPONENT "cspark-operator"
#define OP_UI_PORT 4040
/* a driver pod not seen this long after its submission is looked up; missing = gone */
#define OP_DRIVER_GRACE_MS 10000
/* the driver pod's Spark container (the submit code's name; the pod template keeps it) */
#define OP_DRIVER_CONTAINER "spark-kubernetes-driver"

typedef struct op_ctl {
    const op_options *o;
    kube_client *kc;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    json_t *apps, *pods, *scheds; /* guarded by lock */
    bool changed;
} op_ctl;

/* ---- the watches' view ------------------------------------------------------------------ */

static void object_key(const json_t *obj, char *buf, size_t cap)
{
    const json_t *m = json_object_get(obj, "metadata");
    snprintf(buf, cap, "%s/%s", json_string_value(json_object_get(m, "namespace")) ?: "",
             json_string_value(json_object_get(m, "name")) ?: "");
}

static long long version_of(const json_t *obj)
{
    const char *rv =
        json_string_value(json_object_get(json_object_get(obj, "metadata"), "resourceVersion"));
    return rv ? strtoll(rv, NULL, 10) : 0;
}

/* Stores obj (borrowed) under its key unless the stored one is newer. Caller holds the lock. */
static void store(json_t *map, const json_t *obj)
{
    char key[512];
    object_key(obj, key, sizeof key);
    const json_t *old = json_object_get(map, key);
    if (old && version_of(old) > version_of(obj)) return;
    json_object_set(map, key, (json_t *)obj);
}

static void on_event(op_ctl *op, json_t *map, const char *type, const json_t *obj)
{
    pthread_mutex_lock(&op->lock);
    if (strcmp(type, "RELIST") == 0) {
        json_object_clear(map);
        const json_t *items = json_object_get(obj, "items");
        for (size_t i = 0; i < json_array_size(items); i++)
            store(map, json_array_get(items, i));
    } else if (strcmp(type, "DELETED") == 0) {
        char key[512];
        object_key(obj, key, sizeof key);
        json_object_del(map, key);
    } else {
        store(map, obj);
    }
    op->changed = true;
    pthread_cond_broadcast(&op->cond);
    pthread_mutex_unlock(&op->lock);
}

static void on_app_event(void *arg, const char *type, const json_t *obj)
{
    op_ctl *op = arg;
    on_event(op, op->apps, type, obj);
}

static void on_pod_event(void *arg, const char *type, const json_t *obj)
{
    op_ctl *op = arg;
    on_event(op, op->pods, type, obj);
}

static void on_sched_event(void *arg, const char *type, const json_t *obj)
{
    op_ctl *op = arg;
    on_event(op, op->scheds, type, obj);
}

/* ---- writing status and events ----------------------------------------------------------- */

static void rfc3339(int64_t ms, char *buf, size_t cap)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    strftime(buf, cap, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int64_t parse_rfc3339(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!s || !strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) return 0;
    return (int64_t)timegm(&tm) * 1000;
}

static const char *app_ns(const json_t *app)
{
    return json_string_value(json_object_get(json_object_get(app, "metadata"), "namespace"));
}

static const char *app_name(const json_t *app)
{
    return json_string_value(json_object_get(json_object_get(app, "metadata"), "name"));
}

/* Merges status (stolen) into the application's status subresource. */
static void patch_status(op_ctl *op, const json_t *app, json_t *status)
{
    json_t *patch = json_pack("{s:o}", "status", status), *out = NULL;
    cs_error err = {0};
    if (cs_kube_patch_merge(op->kc, "sparkapplications/status", app_ns(app), app_name(app), patch,
                            &out, &err) < 0) {
        CS_WARN("operator", "app=%s/%s event=status_failed error=%s", cs_log_value(app_ns(app)),
                cs_log_value(app_name(app)), cs_log_value(err.msg));
    } else if (out) {
        pthread_mutex_lock(&op->lock);
        store(op->apps, out);
        pthread_mutex_unlock(&op->lock);
    }
    json_decref(out);
    json_decref(patch);
}

/* A Kubernetes Event on the application (type Normal or Warning), as the Kubeflow operator's. */
static void record_event(op_ctl *op, const json_t *app, const char *type, const char *reason,
                         const char *message)
{
    char now[64], gen[300];
    rfc3339(cs_now_ms(), now, sizeof now);
    snprintf(gen, sizeof gen, "%s.", app_name(app));
    const json_t *meta = json_object_get(app, "metadata");
    json_t *ev = json_pack(
        "{s:{s:s}, s:{s:s, s:s, s:s, s:s, s:s?}, s:s, s:s, s:s, s:{s:s}, s:s, s:s, s:i, s:s}",
        "metadata", "generateName", gen, "involvedObject", "apiVersion",
        "sparkoperator.k8s.io/v1beta2", "kind", "SparkApplication", "name", app_name(app),
        "namespace", app_ns(app), "uid", json_string_value(json_object_get(meta, "uid")), "reason",
        reason, "message", message, "type", type, "source", "component", OP_COMPONENT,
        "firstTimestamp", now, "lastTimestamp", now, "count", 1, "reportingComponent",
        OP_COMPONENT);
    cs_error err = {0};
    if (!ev || cs_kube_create(op->kc, "events", app_ns(app), ev, NULL, &err) < 0)
        CS_WARN("operator", "app=%s/%s event=event_failed reason=%s error=%s",
                cs_log_value(app_ns(app)), cs_log_value(app_name(app)), cs_log_value(reason),
                cs_log_value(err.msg));
    json_decref(ev);
}

/* ---- one application ---------------------------------------------------------------------- */

static const json_t *status_of(const json_t *app)
{
    return json_object_get(app, "status");
}

static int int_at(const json_t *obj, const char *key, int dflt)
{
    const json_t *v = json_object_get(obj, key);
    return json_is_integer(v) ? (int)json_integer_value(v) : dflt;
}

/* The driver container's terminated state, or NULL while it has not ended. */
static const json_t *driver_terminated(const json_t *pod)
{
    const json_t *cs = json_object_get(json_object_get(pod, "status"), "containerStatuses");
    for (size_t i = 0; i < json_array_size(cs); i++) {
        const json_t *c = json_array_get(cs, i);
        const char *name = json_string_value(json_object_get(c, "name"));
        if (name && !strcmp(name, OP_DRIVER_CONTAINER))
            return json_object_get(json_object_get(c, "state"), "terminated");
    }
    return NULL;
}

/* The driver container's end, "driver container failed with ExitCode: N, Reason: R" and its
 * termination message (the driver's abort reason), into buf. */
static void driver_failure(const json_t *pod, char *buf, size_t cap)
{
    const json_t *t = driver_terminated(pod);
    if (t) {
        const char *msg = json_string_value(json_object_get(t, "message"));
        int n = snprintf(buf, cap, "driver container failed with ExitCode: %d, Reason: %s",
                         (int)json_integer_value(json_object_get(t, "exitCode")),
                         json_string_value(json_object_get(t, "reason")) ?: "");
        if (msg && *msg && n > 0 && (size_t)n < cap) {
            size_t len = strlen(msg);
            while (len && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
                len--;
            snprintf(buf + n, cap - (size_t)n, ": %.*s", (int)len, msg);
        }
        return;
    }
    const char *reason =
        json_string_value(json_object_get(json_object_get(pod, "status"), "reason"));
    snprintf(buf, cap, "driver pod failed%s%s", reason ? ": " : "", reason ? reason : "");
}

static int64_t generation_of(const json_t *app)
{
    const json_t *g = json_object_get(json_object_get(app, "metadata"), "generation");
    return json_is_integer(g) ? json_integer_value(g) : 0;
}

/* As Kubeflow's: a Running pod whose driver container ended (its sidecars still run), or a Failed
 * one (a sidecar failed), has ended as that container did. */
static op_driver driver_state(const json_t *pod)
{
    const char *phase = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
    if (!phase) return OP_DRIVER_PENDING;
    if (!strcmp(phase, "Running")) {
        const json_t *t = driver_terminated(pod);
        if (!t) return OP_DRIVER_RUNNING;
        return json_integer_value(json_object_get(t, "exitCode")) == 0 ? OP_DRIVER_SUCCEEDED
                                                                       : OP_DRIVER_FAILED;
    }
    if (!strcmp(phase, "Succeeded")) return OP_DRIVER_SUCCEEDED;
    if (!strcmp(phase, "Failed")) {
        const json_t *t = driver_terminated(pod);
        return t && json_integer_value(json_object_get(t, "exitCode")) == 0 ? OP_DRIVER_SUCCEEDED
                                                                            : OP_DRIVER_FAILED;
    }
    return OP_DRIVER_PENDING;
}

static void view_of(const json_t *app, op_app_view *v)
{
    const json_t *st = status_of(app), *spec = json_object_get(app, "spec");
    const json_t *rp = json_object_get(spec, "restartPolicy");
    memset(v, 0, sizeof *v);
    v->state = json_string_value(json_object_get(json_object_get(st, "applicationState"), "state"));
    v->submission_attempts = int_at(st, "submissionAttempts", 0);
    v->execution_attempts = int_at(st, "executionAttempts", 0);
    v->last_submission_ms =
        parse_rfc3339(json_string_value(json_object_get(st, "lastSubmissionAttemptTime")));
    v->termination_ms = parse_rfc3339(json_string_value(json_object_get(st, "terminationTime")));
    v->generation = generation_of(app);
    const json_t *og = json_object_get(st, "observedGeneration");
    v->observed_generation = json_is_integer(og) ? json_integer_value(og) : 0;
    const char *type = json_string_value(json_object_get(rp, "type"));
    v->restart = !type || !strcmp(type, "Never") ? OP_RESTART_NEVER
                 : !strcmp(type, "Always")       ? OP_RESTART_ALWAYS
                                                 : OP_RESTART_ON_FAILURE;
    v->on_failure_retries = int_at(rp, "onFailureRetries", 0);
    v->on_submission_failure_retries = int_at(rp, "onSubmissionFailureRetries", 0);
    /* the Kubeflow operator's defaults: 5 s between tries */
    v->on_failure_interval_ms = (int64_t)int_at(rp, "onFailureRetryInterval", 5) * 1000;
    v->on_submission_failure_interval_ms =
        (int64_t)int_at(rp, "onSubmissionFailureRetryInterval", 5) * 1000;
    const json_t *ttl = json_object_get(spec, "timeToLiveSeconds");
    v->ttl_ms = json_is_integer(ttl) ? json_integer_value(ttl) * 1000 : -1;
}

static void submit(op_ctl *op, const json_t *app, const op_app_view *v, int64_t now)
{
    int attempt = v->submission_attempts + 1;
    submit_k8s_started st;
    cs_error err = {0};
    char when[64], msg[1400];
    rfc3339(now, when, sizeof when);
    if (cs_operator_submit(op->kc, app, attempt, op->o->master, &st, &err) < 0) {
        CS_WARN("operator", "app=%s/%s attempt=%d event=submission_failed error=%s",
                cs_log_value(app_ns(app)), cs_log_value(app_name(app)), attempt,
                cs_log_value(err.msg));
        patch_status(op, app,
                     json_pack("{s:{s:s, s:s}, s:i, s:s, s:I}", "applicationState", "state",
                               "SUBMISSION_FAILED", "errorMessage", err.msg, "submissionAttempts",
                               attempt, "lastSubmissionAttemptTime", when, "observedGeneration",
                               (json_int_t)generation_of(app)));
        snprintf(msg, sizeof msg, "SparkApplication %s failed submission: %s", app_name(app),
                 err.msg);
        record_event(op, app, "Warning", "SparkApplicationSubmissionFailed", msg);
        return;
    }
    CS_INFO("operator", "app=%s/%s attempt=%d driver=%s adopted=%s event=submitted",
            cs_log_value(app_ns(app)), cs_log_value(app_name(app)), attempt,
            cs_log_value(st.driver_pod), st.adopted ? "true" : "false");
    patch_status(op, app,
                 json_pack("{s:{s:s, s:s}, s:i, s:i, s:s, s:n, s:s, s:s, s:{s:s, s:s, s:i}, "
                           "s:n, s:I}",
                           "applicationState", "state", "SUBMITTED", "errorMessage", "",
                           "submissionAttempts", attempt, "executionAttempts",
                           v->execution_attempts + 1, "lastSubmissionAttemptTime", when,
                           "terminationTime", "sparkApplicationId", st.app_id, "submissionID",
                           st.app_id + 6, "driverInfo", "podName", st.driver_pod,
                           "webUIServiceName", st.driver_service, "webUIPort", OP_UI_PORT,
                           "executorState", "observedGeneration", (json_int_t)generation_of(app)));
    snprintf(msg, sizeof msg, "SparkApplication %s was submitted successfully%s", app_name(app),
             st.adopted ? " (its driver pod existed: adopted)" : "");
    record_event(op, app, "Normal", "SparkApplicationSubmitted", msg);
}

static void move_to(op_ctl *op, const json_t *app, const char *state, const json_t *pod,
                    int64_t now)
{
    char when[64], msg[1400], why[1024] = "";
    rfc3339(now, when, sizeof when);
    const char *prev = json_string_value(json_object_get(
                           json_object_get(status_of(app), "applicationState"), "state"))
                           ?: "";
    json_t *as = json_pack("{s:s}", "state", state);
    json_t *st = json_pack("{s:o}", "applicationState", as);
    const char *type = "Normal", *reason = "SparkDriverRunning";
    if (!strcmp(state, "RUNNING")) {
        snprintf(msg, sizeof msg, "Driver %s is running",
                 json_string_value(json_object_get(json_object_get(pod, "metadata"), "name"))
                     ?: "");
    } else if (!strcmp(state, "COMPLETED")) {
        reason = "SparkApplicationCompleted";
        json_object_set_new(st, "terminationTime", json_string(when));
        snprintf(msg, sizeof msg, "SparkApplication %s completed", app_name(app));
    } else if (!strcmp(state, "INVALIDATING")) {
        /* the run of the earlier spec is over: its counts, times and id go, as Kubeflow resets
         * them (the edited spec's attempts count from 1, its retries are its own); its driver
         * stays named in driverInfo until PENDING_RERUN has deleted it */
        reason = "SparkApplicationSpecUpdateProcessed";
        json_object_set_new(as, "errorMessage", json_string(""));
        json_object_set_new(st, "submissionAttempts", json_integer(0));
        json_object_set_new(st, "executionAttempts", json_integer(0));
        json_object_set_new(st, "lastSubmissionAttemptTime", json_null());
        json_object_set_new(st, "sparkApplicationId", json_null());
        json_object_set_new(st, "submissionID", json_null());
        json_object_set_new(st, "terminationTime", json_null());
        json_object_set_new(st, "executorState", json_null());
        json_object_set_new(st, "observedGeneration", json_integer(generation_of(app)));
        snprintf(msg, sizeof msg,
                 "SparkApplication %s was updated (generation %lld): its run is invalidated and "
                 "it will be rerun",
                 app_name(app), (long long)generation_of(app));
    } else if (!strcmp(prev, "INVALIDATING")) { /* PENDING_RERUN of the edited spec */
        reason = "SparkApplicationPendingRerun";
        snprintf(msg, sizeof msg, "SparkApplication %s will be rerun with its updated spec",
                 app_name(app));
    } else if (!strcmp(prev, "SUBMISSION_FAILED")) { /* FAILED after a failed submission */
        type = "Warning";
        reason = "SparkApplicationFailed";
        const char *em = json_string_value(
            json_object_get(json_object_get(status_of(app), "applicationState"), "errorMessage"));
        json_object_set_new(as, "errorMessage", json_string(em ? em : ""));
        json_object_set_new(st, "terminationTime", json_string(when));
        snprintf(msg, sizeof msg, "SparkApplication %s failed: %s", app_name(app), em ? em : "");
    } else { /* FAILED or PENDING_RERUN: the driver ended in failure or is gone */
        if (pod)
            driver_failure(pod, why, sizeof why);
        else
            snprintf(why, sizeof why, "driver pod not found");
        type = "Warning";
        json_object_set_new(as, "errorMessage", json_string(why));
        json_object_set_new(st, "terminationTime", json_string(when));
        reason =
            !strcmp(state, "FAILED") ? "SparkApplicationFailed" : "SparkApplicationPendingRerun";
        snprintf(msg, sizeof msg, "SparkApplication %s %s: %s", app_name(app),
                 !strcmp(state, "FAILED") ? "failed" : "will be rerun", why);
    }
    CS_INFO("operator", "app=%s/%s state=%s event=state", cs_log_value(app_ns(app)),
            cs_log_value(app_name(app)), state);
    patch_status(op, app, st);
    record_event(op, app, type, reason, msg);
}

/* executorState from the executor pods of the current run (label spark-app-selector); an
 * executor no longer seen keeps its last state. Written only when it changed. */
static void update_executors(op_ctl *op, const json_t *app, json_t *pods)
{
    const json_t *st = status_of(app);
    const char *id = json_string_value(json_object_get(st, "sparkApplicationId"));
    if (!id) return;
    const json_t *old = json_object_get(st, "executorState");
    json_t *now = old ? json_deep_copy(old) : json_object();
    const char *key;
    json_t *pod;
    json_object_foreach(pods, key, pod)
    {
        const json_t *labels = json_object_get(json_object_get(pod, "metadata"), "labels");
        const char *sel = json_string_value(json_object_get(labels, "spark-app-selector"));
        const char *role = json_string_value(json_object_get(labels, "spark-role"));
        if (!sel || !role || strcmp(sel, id) != 0 || strcmp(role, "executor") != 0) continue;
        static const char *const names[] = {
            [OP_DRIVER_NONE] = "PENDING",    [OP_DRIVER_PENDING] = "PENDING",
            [OP_DRIVER_RUNNING] = "RUNNING", [OP_DRIVER_SUCCEEDED] = "COMPLETED",
            [OP_DRIVER_FAILED] = "FAILED",   [OP_DRIVER_GONE] = "UNKNOWN"};
        json_object_set_new(
            now, json_string_value(json_object_get(json_object_get(pod, "metadata"), "name")),
            json_string(names[driver_state(pod)]));
    }
    if (old ? json_equal(old, now) : json_object_size(now) == 0)
        json_decref(now);
    else
        patch_status(op, app, json_pack("{s:o}", "executorState", now));
}

/* Deletes the driver pod of the earlier attempt before the rerun, as the Kubeflow operator does;
 * its ConfigMap, Secret, Service and executors are its own and go with it. Once asked (the pod
 * has a deletionTimestamp) the rerun waits for the pod's DELETED event. */
static void delete_driver(op_ctl *op, const json_t *app, const json_t *pod)
{
    const json_t *meta = json_object_get(pod, "metadata");
    const char *name = json_string_value(json_object_get(meta, "name"));
    if (!name || json_object_get(meta, "deletionTimestamp")) return;
    cs_error err = {0};
    CS_INFO("operator", "app=%s/%s driver=%s event=deleting_earlier_driver",
            cs_log_value(app_ns(app)), cs_log_value(app_name(app)), cs_log_value(name));
    if (cs_kube_delete(op->kc, "pods", app_ns(app), name, -1, &err) < 0)
        CS_WARN("operator", "app=%s/%s driver=%s event=driver_delete_failed error=%s",
                cs_log_value(app_ns(app)), cs_log_value(app_name(app)), cs_log_value(name),
                cs_log_value(err.msg));
}

/* Returns when to look at the application again (0: on a change). */
static int64_t reconcile(op_ctl *op, const json_t *app, json_t *pods, int64_t now)
{
    op_app_view v;
    view_of(app, &v);
    const char *driver_name = json_string_value(
        json_object_get(json_object_get(status_of(app), "driverInfo"), "podName"));
    const json_t *pod = NULL;
    json_t *fetched = NULL;
    v.driver = OP_DRIVER_NONE;
    bool running = v.state && (!strcmp(v.state, "SUBMITTED") || !strcmp(v.state, "RUNNING"));
    bool rerun = v.state && !strcmp(v.state, "PENDING_RERUN");
    if (driver_name && (running || rerun)) {
        char key[512];
        snprintf(key, sizeof key, "%s/%s", app_ns(app), driver_name);
        pod = json_object_get(pods, key);
        if (pod) {
            v.driver = driver_state(pod);
        } else if (rerun || now - v.last_submission_ms > OP_DRIVER_GRACE_MS) {
            cs_error err = {0};
            if (cs_kube_get(op->kc, "pods", app_ns(app), driver_name, &fetched, &err) == 0) {
                pod = fetched;
                v.driver = driver_state(pod);
            } else if (err.kind == CS_KIND_NOT_FOUND) {
                v.driver = OP_DRIVER_GONE;
            } else if (rerun) {
                v.driver = OP_DRIVER_PENDING; /* not known to be gone: not rerun yet */
            }
        }
    }
    op_decision d = cs_operator_decide(&v, now);
    switch (d.action) {
    case OP_ACT_SUBMIT:
        submit(op, app, &v, now);
        break;
    case OP_ACT_STATE:
        move_to(op, app, d.next_state, pod, now);
        break;
    case OP_ACT_DELETE: {
        cs_error err = {0};
        CS_INFO("operator", "app=%s/%s event=ttl_expired", cs_log_value(app_ns(app)),
                cs_log_value(app_name(app)));
        if (cs_kube_delete(op->kc, "sparkapplications", app_ns(app), app_name(app), -1, &err) < 0)
            CS_WARN("operator", "app=%s/%s event=delete_failed error=%s", cs_log_value(app_ns(app)),
                    cs_log_value(app_name(app)), cs_log_value(err.msg));
        break;
    }
    case OP_ACT_DELETE_DRIVER:
        delete_driver(op, app, pod);
        break;
    case OP_ACT_NONE:
        if (v.state && (!strcmp(v.state, "SUBMITTED") || !strcmp(v.state, "RUNNING")))
            update_executors(op, app, pods);
        break;
    }
    json_decref(fetched);
    return d.wake_ms;
}

/* ---- the loop ------------------------------------------------------------------------------ */

int cs_operator_run(const op_options *o, volatile sig_atomic_t *stop, cs_error *err)
{
    op_ctl op = {.o = o, .apps = json_object(), .pods = json_object(), .scheds = json_object()};
    pthread_mutex_init(&op.lock, NULL);
    cs_cond_init_monotonic(&op.cond);
    kube_watch *aw = NULL, *pw = NULL, *sw = NULL;
    cs_conf *conf = cs_conf_new();
    cs_conf_set(conf, "spark.master", o->master);
    for (int i = 0; i < o->nconfs; i++) {
        char *eq = strchr(o->confs[i], '=');
        if (!eq) continue; /* checked by the command line */
        *eq = '\0';
        cs_conf_set(conf, o->confs[i], eq + 1);
        *eq = '=';
    }
    kube_config kcfg;
    memset(&kcfg, 0, sizeof kcfg);
    int rc = cs_kube_config_load(conf, o->master, "spark.kubernetes.authenticate.submission", &kcfg,
                                 err);
    if (rc < 0) goto out;
    op.kc = cs_kube_client_new(&kcfg, conf, "spark.kubernetes.submission", err);
    cs_kube_config_free(&kcfg);
    if (!op.kc) {
        rc = err->code ? err->code : CS_EIO;
        goto out;
    }
    char selector[128];
    snprintf(selector, sizeof selector, "%s=true", OP_LABEL_LAUNCHED);
    if (!(aw = cs_kube_watch_start(op.kc, "sparkapplications", o->namespace_, NULL, on_app_event,
                                   &op, err)) ||
        !(pw = cs_kube_watch_start(op.kc, "pods", o->namespace_, selector, on_pod_event, &op,
                                   err))) {
        rc = err->code ? err->code : CS_EIO;
        goto out;
    }
    /* without the ScheduledSparkApplication CRD, SparkApplications are served alone */
    cs_error serr = {0};
    if (!(sw = cs_kube_watch_start(op.kc, "scheduledsparkapplications", o->namespace_, NULL,
                                   on_sched_event, &op, &serr))) {
        if (serr.kind != CS_KIND_NOT_FOUND) {
            *err = serr;
            rc = serr.code ? serr.code : CS_EIO;
            goto out;
        }
        CS_WARN("operator", "event=no_scheduled_crd error=%s", cs_log_value(serr.msg));
    }
    op_lease lease;
    cs_operator_lease_init(
        &lease, op.kc, o->lease_namespace ? o->lease_namespace : cs_kube_client_namespace(op.kc),
        OP_COMPONENT, o->identity, o->lease_duration_s);
    CS_INFO("operator", "identity=%s namespace=%s event=started", cs_log_value(o->identity),
            cs_log_value(*o->namespace_ ? o->namespace_ : "(all)"));
    int64_t next_lease = 0;
    bool held = false;
    while (!*stop) {
        int64_t now = cs_now_ms(), wake = now + 1000;
        if (now >= next_lease) {
            bool was = held;
            cs_error lerr = {0};
            if (cs_operator_lease_try(&lease, now, &held, &lerr) < 0)
                CS_WARN("operator", "event=lease_failed error=%s", cs_log_value(lerr.msg));
            if (held != was)
                CS_INFO("operator", "identity=%s event=%s", cs_log_value(o->identity),
                        held ? "leading" : "following");
            /* renew three times a lease; a follower asks as often */
            next_lease = now + (int64_t)o->lease_duration_s * 1000 / 3;
        }
        if (held) {
            pthread_mutex_lock(&op.lock);
            json_t *apps = json_copy(op.apps), *pods = json_copy(op.pods);
            json_t *scheds = json_copy(op.scheds);
            op.changed = false;
            pthread_mutex_unlock(&op.lock);
            const char *key;
            json_t *app;
            json_object_foreach(apps, key, app)
            {
                if (*stop) break;
                int64_t w = reconcile(&op, app, pods, now);
                if (w > 0 && w < wake) wake = w;
            }
            json_object_foreach(scheds, key, app)
            {
                if (*stop) break;
                int64_t w = cs_operator_reconcile_scheduled(op.kc, app, apps, now);
                if (w > 0 && w < wake) wake = w;
            }
            json_decref(apps);
            json_decref(pods);
            json_decref(scheds);
        }
        pthread_mutex_lock(&op.lock);
        int64_t left = wake - cs_now_ms();
        if (!op.changed && left > 0 && !*stop) cs_cond_wait_ms(&op.cond, &op.lock, left);
        pthread_mutex_unlock(&op.lock);
    }
    rc = 0;
out:
    if (aw) cs_kube_watch_stop(aw);
    if (pw) cs_kube_watch_stop(pw);
    if (sw) cs_kube_watch_stop(sw);
    cs_kube_client_free(op.kc);
    cs_conf_free(conf);
    json_decref(op.apps);
    json_decref(op.pods);
    json_decref(op.scheds);
    pthread_mutex_destroy(&op.lock);
    pthread_cond_destroy(&op.cond);
    return rc;
}
