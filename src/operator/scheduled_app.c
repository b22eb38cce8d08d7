/* scheduled_app.c — see scheduled_app.h. */
#define _GNU_SOURCE
#include "operator/scheduled_app.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "operator/app_state.h"
#include "operator/cron_schedule.h"

static const char *meta_str(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(json_object_get(obj, "metadata"), key));
}

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

static void patch_status(kube_client *kc, const json_t *sched, json_t *status)
{
    json_t *patch = json_pack("{s:o}", "status", status);
    cs_error err = {0};
    if (cs_kube_patch_merge(kc, "scheduledsparkapplications/status", meta_str(sched, "namespace"),
                            meta_str(sched, "name"), patch, NULL, &err) < 0)
        CS_WARN("operator", "scheduled=%s/%s event=status_failed error=%s",
                cs_log_value(meta_str(sched, "namespace")), cs_log_value(meta_str(sched, "name")),
                cs_log_value(err.msg));
    json_decref(patch);
}

static int by_creation_desc(const void *a, const void *b)
{
    const json_t *x = *(const json_t *const *)a, *y = *(const json_t *const *)b;
    const char *tx = meta_str(x, "creationTimestamp") ?: "",
               *ty = meta_str(y, "creationTimestamp") ?: "";
    int c = strcmp(ty, tx);
    return c ? c : strcmp(meta_str(y, "name") ?: "", meta_str(x, "name") ?: "");
}

static void delete_run(kube_client *kc, const json_t *run)
{
    cs_error err = {0};
    CS_INFO("operator", "run=%s/%s event=deleted", cs_log_value(meta_str(run, "namespace")),
            cs_log_value(meta_str(run, "name")));
    if (cs_kube_delete(kc, "sparkapplications", meta_str(run, "namespace"), meta_str(run, "name"),
                       -1, &err) < 0)
        CS_WARN("operator", "run=%s event=delete_failed error=%s",
                cs_log_value(meta_str(run, "name")), cs_log_value(err.msg));
}

/* Keeps the newest `limit` of runs (sorted newest first), deletes the rest; their names (kept
 * ones) into a new array. */
static json_t *trim_history(kube_client *kc, const json_t **runs, size_t n, int limit)
{
    json_t *names = json_array();
    for (size_t i = 0; i < n; i++) {
        if ((int)i < limit)
            json_array_append_new(names, json_string(meta_str(runs[i], "name")));
        else
            delete_run(kc, runs[i]);
    }
    return names;
}

static int create_run(kube_client *kc, const json_t *sched, int64_t at_ms, char *name, size_t cap)
{
    const char *sname = meta_str(sched, "name");
    snprintf(name, cap, "%s-%lld", sname, (long long)(at_ms / 1000));
    json_t *run =
        json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}, s:[{s:s, s:s, s:s, s:s?, s:b, s:b}]}, s:O}",
                  "apiVersion", "sparkoperator.k8s.io/v1beta2", "kind", "SparkApplication",
                  "metadata", "name", name, "namespace", meta_str(sched, "namespace"), "labels",
                  OP_LABEL_SCHEDULED, sname, "ownerReferences", "apiVersion",
                  "sparkoperator.k8s.io/v1beta2", "kind", "ScheduledSparkApplication", "name",
                  sname, "uid", meta_str(sched, "uid"), "controller", 1, "blockOwnerDeletion", 1,
                  "spec", json_object_get(json_object_get(sched, "spec"), "template"));
    cs_error err = {0};
    int rc =
        run ? cs_kube_create(kc, "sparkapplications", meta_str(sched, "namespace"), run, NULL, &err)
            : CS_EINVAL;
    json_decref(run);
    if (rc < 0 && err.kind == CS_KIND_ALREADY_EXISTS) rc = 0; /* made before a restart */
    if (rc < 0)
        CS_WARN("operator", "scheduled=%s run=%s event=create_failed error=%s", cs_log_value(sname),
                cs_log_value(name), cs_log_value(err.msg));
    else
        CS_INFO("operator", "scheduled=%s run=%s event=run_created", cs_log_value(sname),
                cs_log_value(name));
    return rc;
}

int64_t cs_operator_reconcile_scheduled(kube_client *kc, const json_t *sched, const json_t *apps,
                                        int64_t now_ms)
{
    const json_t *spec = json_object_get(sched, "spec"), *st = json_object_get(sched, "status");
    const char *ns = meta_str(sched, "namespace"), *name = meta_str(sched, "name");
    const char *state = json_string_value(json_object_get(st, "scheduleState"));
    cron_schedule cron;
    cs_error err = {0};
    const char *tz = json_string_value(json_object_get(spec, "timeZone"));
    const char *text = json_string_value(json_object_get(spec, "schedule"));
    int bad = 0;
    if (tz && *tz && strcmp(tz, "UTC") != 0 && strcmp(tz, "Etc/UTC") != 0)
        bad = cs_error_set(&err, CS_EINVAL,
                           "spec.timeZone '%s' is not supported by cspark-operator: schedules "
                           "are in UTC",
                           tz);
    else
        bad = cs_cron_parse(text ? text : "", &cron, &err);
    if (bad < 0) {
        if (!state || strcmp(state, "FailedValidation") != 0)
            patch_status(
                kc, sched,
                json_pack("{s:s, s:s}", "scheduleState", "FailedValidation", "reason", err.msg));
        return 0;
    }

    /* this schedule's runs: ended ones by outcome, newest first, and those still going */
    size_t n = json_object_size(apps), nok = 0, nfail = 0, nlive = 0;
    const json_t **ok = calloc(n + 1, sizeof *ok), **failed = calloc(n + 1, sizeof *failed),
                 **live = calloc(n + 1, sizeof *live);
    const char *key;
    json_t *app;
    json_object_foreach((json_t *)apps, key, app)
    {
        const json_t *labels = json_object_get(json_object_get(app, "metadata"), "labels");
        const char *owner = json_string_value(json_object_get(labels, OP_LABEL_SCHEDULED));
        if (!owner || strcmp(owner, name) != 0 || strcmp(meta_str(app, "namespace") ?: "", ns))
            continue;
        const char *s = json_string_value(json_object_get(
            json_object_get(json_object_get(app, "status"), "applicationState"), "state"));
        if (s && !strcmp(s, "COMPLETED"))
            ok[nok++] = app;
        else if (s && !strcmp(s, "FAILED"))
            failed[nfail++] = app;
        else
            live[nlive++] = app;
    }
    qsort(ok, nok, sizeof *ok, by_creation_desc);
    qsort(failed, nfail, sizeof *failed, by_creation_desc);
    const json_t *lim = json_object_get(spec, "successfulRunHistoryLimit");
    json_t *ok_names =
        trim_history(kc, ok, nok, json_is_integer(lim) ? (int)json_integer_value(lim) : 1);
    lim = json_object_get(spec, "failedRunHistoryLimit");
    json_t *failed_names =
        trim_history(kc, failed, nfail, json_is_integer(lim) ? (int)json_integer_value(lim) : 1);

    json_t *status = json_object();
    if (!json_equal(ok_names, json_object_get(st, "pastSuccessfulRunNames")) &&
        (json_array_size(ok_names) || json_object_get(st, "pastSuccessfulRunNames")))
        json_object_set(status, "pastSuccessfulRunNames", ok_names);
    if (!json_equal(failed_names, json_object_get(st, "pastFailedRunNames")) &&
        (json_array_size(failed_names) || json_object_get(st, "pastFailedRunNames")))
        json_object_set(status, "pastFailedRunNames", failed_names);

    int64_t next = parse_rfc3339(json_string_value(json_object_get(st, "nextRun")));
    if (!next || !state || strcmp(state, "Scheduled") != 0) next = cs_cron_next(&cron, now_ms);
    int64_t wake = next;
    char when[64], run_name[300];
    if (json_is_true(json_object_get(spec, "suspend"))) {
        wake = 0;
    } else if (next > 0 && now_ms >= next) {
        const char *policy = json_string_value(json_object_get(spec, "concurrencyPolicy"));
        bool skip = policy && !strcmp(policy, "Forbid") && nlive > 0;
        if (policy && !strcmp(policy, "Replace"))
            for (size_t i = 0; i < nlive; i++)
                delete_run(kc, live[i]);
        if (!skip && create_run(kc, sched, next, run_name, sizeof run_name) == 0) {
            rfc3339(next, when, sizeof when);
            json_object_set_new(status, "lastRun", json_string(when));
            json_object_set_new(status, "lastRunName", json_string(run_name));
        }
        if (skip)
            CS_INFO("operator", "scheduled=%s/%s event=run_skipped reason=Forbid", cs_log_value(ns),
                    cs_log_value(name));
        if (skip || json_object_get(status, "lastRun")) wake = cs_cron_next(&cron, now_ms);
    }
    if (wake > 0 && wake != parse_rfc3339(json_string_value(json_object_get(st, "nextRun")))) {
        rfc3339(wake, when, sizeof when);
        json_object_set_new(status, "nextRun", json_string(when));
    }
    if (!state || strcmp(state, "Scheduled") != 0) {
        json_object_set_new(status, "scheduleState", json_string("Scheduled"));
        json_object_set_new(status, "reason", json_string(""));
    }
    if (json_object_size(status))
        patch_status(kc, sched, status);
    else
        json_decref(status);
    json_decref(ok_names);
    json_decref(failed_names);
    free(ok);
    free(failed);
    free(live);
    return wake;
}
