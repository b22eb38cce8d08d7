/*
 * submit_k8s.h — cluster-mode submission to Kubernetes (Spark's KubernetesClientApplication):
 * builds the driver's Secret, ConfigMap, pod and headless Service, creates them (or prints them
 * with cspark.kubernetes.dryRun=true), and follows the driver pod until it ends. Called by
 * submit_main.c for k8s:// masters with --deploy-mode cluster.
 */
#ifndef CSPARK_SUBMIT_SUBMIT_K8S_H
#define CSPARK_SUBMIT_SUBMIT_K8S_H

#include "common/conf.h"
#include "common/err.h"
#include "submit/submit_args.h"

/* Returns the process exit status (the driver's, when waiting), or a negative code with err set
 * (nothing left behind). conf is updated with the driver's system properties. */
int submit_k8s_cluster(cs_conf *conf, const submit_args *a, const char *entry, cs_error *err);

#endif
