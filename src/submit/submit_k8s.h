/*
 * submit_k8s.h — cluster-mode submission to Kubernetes (Spark's KubernetesClientApplication):
 * builds the driver's Secret, ConfigMap, pod and headless Service, creates them (or prints them
 * with cspark.kubernetes.dryRun=true), and follows the driver pod until it ends. Called by
 * programs/submit_main.c for k8s:// masters with --deploy-mode cluster. Also --kill and --status
 * (submit_k8s_kill.c).
 */
#ifndef CSPARK_SUBMIT_SUBMIT_K8S_H
#define CSPARK_SUBMIT_SUBMIT_K8S_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "common/conf.h"
#include "common/err.h"
#include "kube/kube_client.h"
#include "submit/submit_args.h"

/* Returns the process exit status (the driver's, when waiting), or a negative code with err set
 * (nothing left behind). conf is updated with the driver's system properties. */
int cs_submit_k8s_cluster(cs_conf *conf, const submit_args *a, const char *entry, cs_error *err);

/* What cs_submit_k8s_start created (or found). */
typedef struct submit_k8s_started {
    char app_id[64];          /* spark.app.id: the spark-app-selector label of its pods */
    char driver_pod[256];     /* the driver pod's name */
    char driver_service[256]; /* the driver's headless Service (its port 4040 is the web UI) */
    bool adopted;             /* the driver pod existed already: a previous try created it */
} submit_k8s_started;

/* The operator's submission (src/operator): the objects of cs_submit_k8s_cluster, created through
 * kc (borrowed: the operator's own client, its connections reused) without waiting for the driver;
 * the driver pod also gets owner (an ownerReference, borrowed; NULL = none). The application's
 * names come from conf's spark.app.id and cspark.kubernetes.uniqueId, and an object that already
 * exists under its name is adopted, not refused: a submission repeated with the same conf never
 * makes a second driver. Returns 0 with *out filled, or a negative code with err set (nothing this
 * call created is left behind). */
int cs_submit_k8s_start(kube_client *kc, cs_conf *conf, const submit_args *a, const char *entry,
                        const json_t *owner, submit_k8s_started *out, cs_error *err);

/* --kill (kill=true) or --status of the driver pods matching id = `[namespace:]name`, name a glob
 * (fnmatch) over pods labelled spark-role=driver; no namespace = the kubeconfig context's. --kill
 * deletes each match (grace spark.kubernetes.appKillPodDeletionGracePeriod in seconds, unset =
 * the pod's default) and writes one "Deleting driver pod NS:NAME" line per pod to out; --status
 * writes Spark's "Application status (driver):" block per pod (name, namespace, labels, uid,
 * creation and start time, phase, container states). Returns 0, or a negative code with err set:
 * CS_ENOTFOUND when nothing matches, CS_EINVAL for a malformed id, the kube client's errors. */
int cs_submit_k8s_kill_status(const cs_conf *conf, const char *id, bool kill, FILE *out,
                              cs_error *err);

#endif
