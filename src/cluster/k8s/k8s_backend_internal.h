/*
 * k8s_backend_internal.h — private to src/cluster/k8s/: the state the Kubernetes backend's parts
 * share (the backend glue k8s_backend.c, the allocator, the snapshots store and its sources, the
 * lifecycle manager, the on-demand claims). Nothing outside this folder includes it.
 *
 * Lock: one mutex (lock) guards the pod table, target, failures, exit_code, stopping and the
 * claim count (pvcs_created); cond is broadcast on every snapshot, target change and stop. API
 * calls and scheduler notifications are made with the lock released.
 *
 * Ownership: the backend owns everything here; settings strings, the kube client, the coarse
 * backend, the app identity and the driver pod are released by the glue's stop.
 */
#ifndef CSPARK_CLUSTER_K8S_BACKEND_INTERNAL_H
#define CSPARK_CLUSTER_K8S_BACKEND_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>

#include <jansson.h>

#include "cluster/coarse_backend.h"
#include "cluster/k8s/k8s_allocator.h"
#include "cluster/k8s/k8s_event_batch.h"
#include "cluster/k8s/k8s_executor_roll.h"
#include "cluster/k8s/k8s_failures.h"
#include "cluster/k8s/k8s_pod_spec.h"
#include "cluster/k8s/k8s_settings.h"
#include "cluster/k8s/k8s_snapshots_store.h"
#include "common/token_bucket.h"
#include "fs/shipped_files.h"
#include "kube/kube_client.h"
#include "kube/kube_watch.h"
#include "sched/scheduler.h"

typedef struct k8s_backend {
    coarse_backend *coarse; /* the driver endpoint, driven by the scheduler (we are its hooks) */
    sched_backend *backend; /* coarse's sched_backend: ->sched is the scheduler */
    const cs_conf *conf;    /* the application's, borrowed */
    char *local_dir;        /* the driver's local dir (owned copy): kept executor logs */
    k8s_settings set;
    kube_client *kc;
    k8s_app app;
    bool app_ready;
    json_t *driver_pod; /* owner of everything we create; NULL in client mode without one */
    char driver_url[600];
    char exec_app_file[512];
    bool created_secret, created_exec_cm;
    cs_conf *exec_conf;     /* client mode with local spark.files: what executors are given */
    cs_files_upload upload; /* ... shipped through spark.kubernetes.file.upload.path */
    bool uploaded;

    pthread_mutex_t lock;
    pthread_cond_t cond;
    k8s_pod_table pods;
    int target;             /* executors wanted: spark.executor.instances or dynamic allocation's */
    int next_id;            /* the next executor id to request */
    k8s_failures failures;  /* executor failures that count (failuresValidityInterval) */
    int exit_code;          /* 11 after maxNumFailures, 1 after a fatal creation error, else 0 */
    cs_token_bucket tokens; /* cspark.kubernetes.allocation.maxCreateRate */
    bool stopping;          /* the backend stops: the snapshot sources end */
    bool allocator_stopping;  /* the application stops: the allocator ends (before stopping) */
    int on_demand_claims;     /* OnDemand claims per executor pod */
    int64_t pvcs_created;     /* claims created so far (Spark's PVC_COUNTER) */
    unsigned round_updates;   /* the table's updates at the allocator's last round */
    bool statefulset_created; /* k8s_statefulset.c: the executors' StatefulSet exists */

    kube_watch *watch;
    pthread_t allocator, poller, lifecycle;
    bool allocator_started, poller_started, lifecycle_started;
    k8s_event_batch events; /* updates waiting for the lifecycle manager's next round */

    k8s_roll_settings roll; /* executor rolling (k8s_executor_roll.h) */
    pthread_t roller;
    bool roller_started, roller_stopping;
} k8s_backend;

/* Puts spark.kubernetes.executor.decommissionLabel (when set) on the pod of an executor being
 * decommissioned; a pod already gone is no error. Lock not held. */
void cs_k8s_label_decommissioning(k8s_backend *b, const char *pod_name);

#endif
