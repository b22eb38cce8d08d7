/*
 * k8s_statefulset.h — Spark's StatefulSetPodsAllocator
 * (spark.kubernetes.allocation.pods.allocator=statefulset): the executors are the pods of one
 * StatefulSet, spark-s-<app id>-0 (one resource profile), whose replicas follow the executor
 * target; the StatefulSet controller creates and recreates its pods.
 *
 * The set's pod template is the executor pod cspark builds (k8s_pod_spec.h: labels, container,
 * volumes, the executor ConfigMap) without what differs per pod: no name, no spark-exec-id label,
 * no hostname (the controller gives each pod its name as hostname), no owner (the set is the
 * pods' controller, the driver pod the set's owner), restartPolicy Always (the only one a
 * StatefulSet takes), and SPARK_EXECUTOR_ID=EXECID: the executor takes <ordinal + 1> from its
 * pod name <set>-<ordinal> (src/programs/executor_main.c), which the driver finds in the pod's
 * apps.kubernetes.io/pod-index label (cs_k8s_pod_exec_id). The driver records executors
 * 1..replicas in its pod table as it scales up, so that their pods' snapshots and their
 * registration are accepted as for the direct allocator. Scaling down removes the highest
 * ordinals, as the StatefulSet controller does; an executor whose pod failed comes back under
 * the same id, which the driver refuses (it was given up), as the direct allocator never reuses
 * an id.
 *
 * Called by the allocator (cs_k8s_allocator_start, in place of the direct allocator's thread)
 * and by the backend's stop (cs_k8s_statefulset_delete). The thread uses the backend's lock,
 * condition and allocator fields as the direct allocator does.
 *
 * Ownership: cs_k8s_statefulset_new returns a new object the caller releases (json_decref).
 */
#ifndef CSPARK_CLUSTER_K8S_STATEFULSET_H
#define CSPARK_CLUSTER_K8S_STATEFULSET_H

#include <jansson.h>

#include "cluster/k8s/k8s_pod_spec.h"
#include "common/conf.h"
#include "common/err.h"

struct k8s_backend;

#define K8S_STATEFULSET_NAME_SIZE 64

/* The set's name: spark-s-<app id>-0, as Spark's setName for resource profile 0. */
void cs_k8s_statefulset_name(const k8s_app *app, char out[K8S_STATEFULSET_NAME_SIZE]);

/* The StatefulSet with `replicas` executor pods of `cores` cores, owned by driver_pod when it is
 * not NULL; NULL with err on a pod-spec error. */
json_t *cs_k8s_statefulset_new(const cs_conf *conf, const k8s_app *app, int replicas, int cores,
                               const json_t *driver_pod, const char *driver_url, cs_error *err);

/* The allocator thread's body in statefulset mode: creates the set at the first target, then
 * patches its replicas whenever the target changes, until the allocator is told to stop. */
void *cs_k8s_statefulset_main(void *backend);

/* Deletes the set (its pods go with it), if it was created; the backend's stop. */
void cs_k8s_statefulset_delete(struct k8s_backend *b);

#endif
