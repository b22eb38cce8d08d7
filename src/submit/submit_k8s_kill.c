/*
 * submit_k8s_kill.c — `cspark-submit --kill|--status [namespace:]driver-pod --master k8s://...`
 * (Spark's K8SSparkSubmitOperation). See submit_k8s.h.
 *
 * The submission id is `<namespace>:<driver pod name>` or just the pod name (then the namespace is
 * the kubeconfig context's, as Spark's client without a namespace; spark.kubernetes.namespace is
 * not consulted, as in Spark). The name may be a glob (fnmatch: `*`, `?`, `[...]`), e.g.
 * `spark:spark-pi*`. Only pods labelled spark-role=driver are candidates, found with one LIST.
 * --kill deletes each match with the grace period spark.kubernetes.appKillPodDeletionGracePeriod
 * (seconds; unset = the pod's own, 30 s by default); the driver pod owns every other object of
 * the application, so the API server's garbage collector removes the rest. --status prints, per
 * match, the fields of Spark's KubernetesUtils.formatPodState.
 */
#define _GNU_SOURCE
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "kube/kube_client.h"
#include "kube/kube_config.h"
#include "submit/submit_k8s.h"

#define DRIVER_SELECTOR "spark-role=driver"

static const char *jstr(const json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "N/A";
}

static void print_container_state(FILE *out, const json_t *cs)
{
    const json_t *state = json_object_get(cs, "state");
    fprintf(out, "\t\t container name: %s\n", jstr(cs, "name"));
    fprintf(out, "\t\t container image: %s\n", jstr(cs, "image"));
    const json_t *s;
    if ((s = json_object_get(state, "running"))) {
        fprintf(out, "\t\t container state: running\n");
        fprintf(out, "\t\t container started at: %s\n", jstr(s, "startedAt"));
    } else if ((s = json_object_get(state, "terminated"))) {
        fprintf(out, "\t\t container state: terminated\n");
        fprintf(out, "\t\t container started at: %s\n", jstr(s, "startedAt"));
        fprintf(out, "\t\t container finished at: %s\n", jstr(s, "finishedAt"));
        fprintf(out, "\t\t exit code: %lld\n",
                (long long)json_integer_value(json_object_get(s, "exitCode")));
        fprintf(out, "\t\t termination reason: %s\n", jstr(s, "reason"));
    } else if ((s = json_object_get(state, "waiting"))) {
        fprintf(out, "\t\t container state: waiting\n");
        fprintf(out, "\t\t pending reason: %s\n", jstr(s, "reason"));
    } else {
        fprintf(out, "\t\t container state: unknown\n");
    }
}

static void print_pod_status(FILE *out, const json_t *pod)
{
    const json_t *md = json_object_get(pod, "metadata");
    const json_t *spec = json_object_get(pod, "spec");
    const json_t *st = json_object_get(pod, "status");
    fprintf(out, "Application status (driver):\n");
    fprintf(out, "\t pod name: %s\n", jstr(md, "name"));
    fprintf(out, "\t namespace: %s\n", jstr(md, "namespace"));
    fprintf(out, "\t labels: ");
    const char *k;
    const json_t *v;
    bool first = true;
    json_object_foreach((json_t *)json_object_get(md, "labels"), k, v)
    {
        fprintf(out, "%s%s -> %s", first ? "" : ", ", k,
                json_string_value(v) ? json_string_value(v) : "");
        first = false;
    }
    fprintf(out, "%s\n", first ? "N/A" : "");
    fprintf(out, "\t pod uid: %s\n", jstr(md, "uid"));
    fprintf(out, "\t creation time: %s\n", jstr(md, "creationTimestamp"));
    fprintf(out, "\t service account name: %s\n", jstr(spec, "serviceAccountName"));
    fprintf(out, "\t node name: %s\n", jstr(spec, "nodeName"));
    fprintf(out, "\t start time: %s\n", jstr(st, "startTime"));
    fprintf(out, "\t phase: %s\n", jstr(st, "phase"));
    if (json_object_get(md, "deletionTimestamp"))
        fprintf(out, "\t deletion requested: %s\n", jstr(md, "deletionTimestamp"));
    const json_t *css = json_object_get(st, "containerStatuses");
    if (!json_array_size(css)) {
        fprintf(out, "\t container status: N/A\n");
        return;
    }
    fprintf(out, "\t container status:\n");
    for (size_t i = 0; i < json_array_size(css); i++)
        print_container_state(out, json_array_get(css, i));
}

/* Splits "ns:pattern" (ns may be absent). Returns CS_EINVAL for an empty part. */
static int parse_id(const char *id, char **ns, char **pattern, cs_error *err)
{
    *ns = *pattern = NULL;
    const char *colon = strchr(id, ':');
    if (colon) {
        *ns = strndup(id, (size_t)(colon - id));
        *pattern = strdup(colon + 1);
    } else {
        *pattern = strdup(id);
    }
    if (!*pattern || !**pattern || (*ns && !**ns)) {
        free(*ns);
        free(*pattern);
        *ns = *pattern = NULL;
        return cs_error_set(err, CS_EINVAL,
                            "invalid submission id '%s': expected [namespace:]driver-pod-name "
                            "(the name may be a glob such as spark-pi*)",
                            id);
    }
    return 0;
}

int cs_submit_k8s_kill_status(const cs_conf *conf, const char *id, bool kill, FILE *out,
                              cs_error *err)
{
    char *ns = NULL, *pattern = NULL;
    cs_conf *c = NULL;
    kube_client *kc = NULL;
    json_t *list = NULL;
    int rc;
    int64_t grace_ms = -1;

    if ((rc = parse_id(id, &ns, &pattern, err)) < 0) return rc;
    if (kill && cs_conf_get(conf, "spark.kubernetes.appKillPodDeletionGracePeriod")) {
        if ((rc = cs_conf_get_duration_ms(conf, "spark.kubernetes.appKillPodDeletionGracePeriod",
                                          NULL, CS_SEC, &grace_ms, err)) < 0)
            goto out;
    }
    /* Spark's submit operations create their client without a namespace: the context's is used */
    c = cs_conf_clone(conf);
    cs_conf_unset(c, "spark.kubernetes.namespace");
    kube_config kcfg;
    memset(&kcfg, 0, sizeof kcfg);
    if ((rc = cs_kube_config_load(c, cs_conf_get(c, "spark.master"),
                                  "spark.kubernetes.authenticate.submission", &kcfg, err)) < 0)
        goto out;
    kc = cs_kube_client_new(&kcfg, c, "spark.kubernetes.submission", err);
    cs_kube_config_free(&kcfg);
    if (!kc) {
        rc = err->code ? err->code : CS_EIO;
        goto out;
    }
    const char *namespace_ = ns ? ns : cs_kube_client_namespace(kc);
    if ((rc = cs_kube_list(kc, "pods", namespace_, DRIVER_SELECTOR, NULL, &list, err)) < 0)
        goto out;

    const json_t *items = json_object_get(list, "items");
    int matched = 0;
    for (size_t i = 0; i < json_array_size(items); i++) {
        const json_t *pod = json_array_get(items, i);
        const json_t *md = json_object_get(pod, "metadata");
        const char *name = json_string_value(json_object_get(md, "name"));
        if (!name || fnmatch(pattern, name, 0) != 0) continue;
        matched++;
        if (!kill) {
            print_pod_status(out, pod);
            continue;
        }
        const char *app =
            json_string_value(json_object_get(json_object_get(md, "labels"), "spark-app-selector"));
        int grace = grace_ms < 0 ? -1 : (int)(grace_ms / 1000);
        if ((rc = cs_kube_delete(kc, "pods", namespace_, name, grace, err)) < 0) goto out;
        fprintf(out, "Deleting driver pod %s:%s%s%s%s\n", namespace_, name,
                app ? " (application " : "", app ? app : "", app ? ")" : "");
        CS_INFO("submit", "driver=%s namespace=%s app=%s grace=%d event=killed", cs_log_value(name),
                cs_log_value(namespace_), cs_log_value(app ? app : "-"), grace);
    }
    if (!matched) {
        rc =
            cs_error_set(err, CS_ENOTFOUND,
                         "no driver pod (label spark-role=driver) matches '%s' in namespace \"%s\"",
                         pattern, namespace_);
        goto out;
    }
    rc = 0;
out:
    json_decref(list);
    cs_kube_client_free(kc);
    cs_conf_free(c);
    free(ns);
    free(pattern);
    return rc;
}
