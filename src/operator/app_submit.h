/* app_submit.h — one SparkApplication's spec turned into a cluster-mode submission and submitted
 * through cspark's own submit code (submit/submit_k8s.h: cs_submit_k8s_start), as the Kubeflow
 * operator turns the spec into a spark-submit command line.
 *
 * The submission of attempt N of the application with uid U is deterministic: its spark.app.id and
 * cspark.kubernetes.uniqueId come from (U, N), so the driver pod's name, its ConfigMap, Secret and
 * Service are the same each time it is tried, and a submission repeated after the operator died
 * half-way adopts what the first try created: never a second driver for one attempt. The driver
 * pod's controller is the SparkApplication (deleting it deletes the driver, and the driver's own
 * objects with it), and every pod carries the labels sparkoperator.k8s.io/app-name=<name>,
 * sparkoperator.k8s.io/submission-id=<unique id> and sparkoperator.k8s.io/launched-by-spark-
 * operator=true the operator's pod watch selects on.
 *
 * Called by the controller (operator.c) on its one reconciling thread. Ownership: app is borrowed
 * for the call; *out is a caller-owned value.
 */
#ifndef CSPARK_OPERATOR_APP_SUBMIT_H
#define CSPARK_OPERATOR_APP_SUBMIT_H

#include <jansson.h>

#include "common/err.h"
#include "kube/kube_client.h"
#include "submit/submit_k8s.h"

#define OP_LABEL_APP_NAME "sparkoperator.k8s.io/app-name"
#define OP_LABEL_SUBMISSION "sparkoperator.k8s.io/submission-id"
#define OP_LABEL_LAUNCHED "sparkoperator.k8s.io/launched-by-spark-operator"

/* Submits attempt `attempt` (1, 2, ...) of app (a SparkApplication object) through kc (the
 * operator's client, borrowed) to the API server of master (k8s://URL, what the driver is told
 * too). A spec cspark cannot run is CS_EINVAL with one
 * line naming the field and what is expected (the status's errorMessage); the submit code's own
 * errors (a bad sparkConf value, RBAC, an invalid pod) pass through. */
int cs_operator_submit(kube_client *kc, const json_t *app, int attempt, const char *master,
                       submit_k8s_started *out, cs_error *err);

#endif
