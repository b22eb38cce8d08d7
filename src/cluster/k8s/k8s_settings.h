/*
 * k8s_settings.h — every configuration key the driver's Kubernetes backend honours, read once
 * and checked when the backend is created (Spark 4.1's names and defaults; docs/kubernetes-
 * backend.md describes the rules in prose). The allocator, the snapshots store and its sources,
 * the lifecycle manager and the backend glue read these values, never the conf itself.
 *
 * Allocator (k8s_allocator.c, Spark's ExecutorPodsAllocator):
 *  - spark.executor.instances (2): executors wanted; dynamic allocation replaces it as the target.
 *  - spark.executor.cores (1): cores of each executor pod.
 *  - spark.kubernetes.allocation.batch.size (10): pods created per round, at least 1.
 *  - spark.kubernetes.allocation.batch.delay (1s, must be > 100ms): time between rounds; a round
 *    also runs at once when a snapshot shows the previous batch.
 *  - spark.kubernetes.allocation.driver.readinessTimeout (1s, bare number = seconds): before the
 *    first executors, wait this long at most for the driver pod (when there is one) to be Ready.
 *  - spark.kubernetes.allocation.pods.allocator (direct): statefulset makes the executors one
 *    StatefulSet whose replicas follow the target (k8s_statefulset.c); other values are refused.
 *  - spark.kubernetes.allocation.executor.timeout (600s, at least 5 × batch.delay): a request not
 *    seen in any snapshot (nor registered) for that long is deleted and made again; a pod once
 *    seen is never timed out, however long it stays Pending (Spark's newlyCreatedExecutors).
 *  - spark.kubernetes.allocation.maxPendingPods (Int.Max, positive): pending + unseen pods cap;
 *    spark.kubernetes.allocation.maxPendingPodsPerRp (Int.Max) caps them per resource profile,
 *    and cspark has one, so the smaller of the two applies.
 *  - spark.kubernetes.allocation.maximum (Int.Max, positive): creating more pods than this in the
 *    application's life fails it.
 *  - cspark.kubernetes.allocation.maxCreateRate (50 pods/s, burst one second's worth; <= 0 off).
 *  - spark.dynamicAllocation.executorIdleTimeout (60s): requests not seen yet and Pending pods
 *    older than this are deleted when the pods outnumber the target.
 *  - spark.kubernetes.dynamicAllocation.deleteGracePeriod (5s): pods of executors removed by
 *    dynamic allocation still there after this are deleted.
 *  - spark.kubernetes.executor.decommissionLabel / decommissionLabelValue: put on the pods of
 *    executors being removed, before they are told to go.
 *
 * On-demand claims (k8s_claims.c, the PVC part of Spark's ExecutorPodsAllocator):
 *  - spark.kubernetes.driver.ownPersistentVolumeClaim (true): the claims are owned by the driver
 *    pod when there is one (else by their executor pod), and deleted when the driver stops.
 *  - spark.kubernetes.driver.reusePersistentVolumeClaim (true, with ownPersistentVolumeClaim and
 *    a driver pod): a new executor takes a claim of the same storage class and size that no pod
 *    holds any more, instead of a new one.
 *  - spark.kubernetes.driver.waitToReusePersistentVolumeClaim (false, with both above): once as
 *    many claims were created as executors may exist (spark.executor.instances, or
 *    spark.dynamicAllocation.maxExecutors), new executors wait for a claim to be free.
 *
 * Snapshot sources (k8s_watch_source.c, k8s_polling_source.c):
 *  - spark.kubernetes.executor.enableApiWatcher (true): one label-selected watch.
 *  - spark.kubernetes.executor.enableApiPolling (true), apiPollingInterval (30s, positive): a
 *    full LIST without spark-exec-inactive pods every interval.
 *
 * Lifecycle manager (k8s_lifecycle_manager.c, Spark's ExecutorPodsLifecycleManager):
 *  - spark.kubernetes.executor.checkAllContainers (true): any container terminated non-zero ends
 *    the executor.
 *  - spark.kubernetes.executor.deleteOnTermination (true): ended pods are deleted, else labelled
 *    spark-exec-inactive=true and kept (also at stop).
 *  - spark.kubernetes.executor.missingPodDetectDelta (30s): an executor absent from a full
 *    snapshot this long after it was first seen is removed (exit -1).
 *  - spark.kubernetes.executor.eventProcessingInterval (1s, positive): the lifecycle manager
 *    handles the updates gathered since its previous round this long after it
 *    (k8s_event_batch.h).
 *  - spark.kubernetes.executor.deletedExecutorsCacheTimeout (180, bare number = seconds): removed
 *    executors are remembered this long.
 *  - spark.executor.maxNumFailures (max(3, 2 × executor.instances), with dynamic allocation
 *    2 × dynamicAllocation.maxExecutors): failures reaching it fail every job; the driver exits 11.
 *  - spark.executor.failuresValidityInterval (none): failures older than this no longer count
 *    toward maxNumFailures (k8s_failures.h).
 *
 * Backend glue (k8s_backend.c):
 *  - spark.kubernetes.submitInDriver: set by a cluster-mode submit, the driver runs in its pod.
 *  - spark.kubernetes.driver.master (in the driver pod) or spark.master: the API server.
 *  - spark.kubernetes.driver.pod.name: owner of everything the driver creates.
 *  - spark.driver.host (this host's reachable address, common/localaddr.h, as Spark's
 *    Utils.localHostName), spark.driver.bindAddress (0.0.0.0 in the driver pod, else the host),
 *    spark.driver.port (7078 in the driver pod, else any free port: conf_entries.c's scoped
 *    defaults).
 *  - refused keys (common/conf_k8s_keys.h) stop the backend, as they stop cspark-submit.
 *  - spark.kubernetes.executor.useDriverPodIP (false): executors reach the driver at its pod's
 *    IP (when there is a driver pod) instead of its Service's name.
 *  - spark.kubernetes.executor.disableConfigMap (false): no executor ConfigMap is made (nor
 *    mounted); the application must then reach executors as local://PATH or an upload.
 *  - spark.kubernetes.driver.service.deleteOnTermination (true): cluster mode deletes the driver
 *    Service, ConfigMap and Secret the submit client made when the driver stops.
 *
 * Executor rolling (spark.kubernetes.executor.rollInterval, rollPolicy,
 * minTasksPerExecutorBeforeRolling) is read by k8s_executor_roll.c (k8s_executor_roll.h).
 *
 * Every default is its key's entry in common/conf_entries.c.
 *
 * Ownership: a k8s_settings is a caller-owned value; its strings are owned by it and released
 * with cs_k8s_settings_free. Called on the context's thread when the backend is created.
 */
#ifndef CSPARK_CLUSTER_K8S_SETTINGS_H
#define CSPARK_CLUSTER_K8S_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"

typedef struct k8s_settings {
    /* allocator */
    int executor_instances, cores, batch_size;
    int64_t batch_delay_ms, executor_timeout_ms, driver_readiness_timeout_ms;
    int64_t max_pending, allocation_maximum;
    double max_create_rate;
    int64_t idle_timeout_ms, delete_grace_ms;
    bool statefulset; /* spark.kubernetes.allocation.pods.allocator=statefulset */
    char *decom_label, *decom_label_value; /* NULL: no label */
    /* on-demand claims */
    bool own_pvc, reuse_pvc, wait_to_reuse_pvc;
    int64_t max_pvcs; /* claims that may exist: executor.instances or maxExecutors */
    /* snapshot sources */
    bool enable_watcher, enable_polling;
    int64_t poll_interval_ms;
    /* lifecycle manager */
    bool check_all_containers, delete_on_termination;
    int64_t missing_delta_ms, deleted_cache_ms;
    int max_failures;
    int64_t failures_validity_ms; /* <= 0: every failure counts */
    int64_t event_interval_ms;    /* between the lifecycle manager's rounds */
    /* backend glue */
    bool in_driver_pod, delete_service, disable_exec_configmap, use_driver_pod_ip;
    const char *api_master;      /* borrowed from the conf */
    const char *driver_pod_name; /* borrowed from the conf, NULL: none */
    const char *driver_host, *bind_host;
    char local_host[64]; /* this host's address: driver_host when spark.driver.host is unset */
    int64_t driver_port;
} k8s_settings;

/* Reads and checks every key above from conf (borrowed strings stay valid while conf lives).
 * CS_EINVAL with a message naming the key on a bad value. */
int cs_k8s_settings_read(const cs_conf *conf, k8s_settings *s, cs_error *err);
void cs_k8s_settings_free(k8s_settings *s);

#endif
