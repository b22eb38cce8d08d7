/*
 * submit_k8s.h — cluster-mode submission to Kubernetes (Spark's KubernetesClientApplication):
 * builds the driver's Secret, ConfigMap, pod and headless Service, creates them (or prints them
 * with cspark.kubernetes.dryRun=true), and follows the driver pod until it ends. Called by
 * programs/submit_main.c for k8s:// masters with --deploy-mode cluster. Also --kill and --status
 * (submit_k8s_kill.c).
 */
#ifndef CSPARK_SUBMIT_SUBMIT_K8S_H
#define CSPARK_SUBMIT_SUBMIT_K8S_H

#include <stdbool.h>
#include <stdio.h>

#include "common/conf.h"
#include "common/err.h"
#include "submit/submit_args.h"

/* Returns the process exit status (the driver's, when waiting), or a negative code with err set
 * (nothing left behind). conf is updated with the driver's system properties. */
int cs_submit_k8s_cluster(cs_conf *conf, const submit_args *a, const char *entry, cs_error *err);

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
