/* operator.h — cspark-operator's controller: serves SparkApplication and ScheduledSparkApplication
 * objects (sparkoperator.k8s.io/v1beta2) as the Kubeflow Spark operator does, submitting each
 * through cspark's own submit code (app_submit.h) and writing its state, driver and executors into
 * the object's status subresource, with Kubernetes Events on the object.
 *
 * Three watches (kube_watch.h) keep the applications, the scheduled applications
 * (scheduled_app.h) and the pods the operator launched (label
 * sparkoperator.k8s.io/launched-by-spark-operator=true) in memory; one thread — the caller's —
 * takes the Lease (leader_lease.h) and, while it holds it, reconciles every application at least
 * once a second and whenever a watch reports a change: the state machine (app_state.h) says what
 * to do, this file does it. Everything it does is idempotent (a submission adopts what a previous
 * try created), so an operator restarted at any point, or a second replica taking over, carries on
 * without duplicating a driver.
 *
 * Ownership: options are borrowed for the call; stop is polled between rounds.
 */
#ifndef CSPARK_OPERATOR_OPERATOR_H
#define CSPARK_OPERATOR_OPERATOR_H

#include <signal.h>

#include "common/err.h"

typedef struct op_options {
    const char *master;          /* k8s://URL: the API server (also the drivers' master) */
    const char *namespace_;      /* the applications' namespace; "" = every namespace */
    const char *lease_namespace; /* where the Lease lives; NULL = the client's namespace */
    const char *identity;        /* the holder identity in the Lease */
    int lease_duration_s;
    char **confs; /* "key=value" settings of the operator's own API client (--conf) */
    int nconfs;
} op_options;

/* Runs until *stop is set. Returns 0, or a negative code with err set when the API server
 * cannot be reached or the resources are not installed at the start. */
int cs_operator_run(const op_options *o, volatile sig_atomic_t *stop, cs_error *err);

#endif
