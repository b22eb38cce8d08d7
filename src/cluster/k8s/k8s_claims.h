/*
 * k8s_claims.h — the executors' on-demand PersistentVolumeClaims (the claim half of Spark's
 * ExecutorPodsAllocator: getReusablePVCs, replacePVCsIfNeeded, the PVC counter of
 * waitToReusePersistentVolumeClaim, and the claim deletion of
 * KubernetesClusterSchedulerBackend.stop).
 *
 * A volume
 * spark.kubernetes.executor.volumes.persistentVolumeClaim.<name>.options.claimName=OnDemand gives
 * each executor pod a claim `<pod>-pvc-<i>` (built by cs_k8s_executor_pvcs). The allocator, for
 * each batch of new pods:
 *  1. with spark.kubernetes.driver.ownPersistentVolumeClaim and reusePersistentVolumeClaim (both
 *     true by default) and a driver pod, LISTs the application's claims (spark-app-selector) and
 *     keeps those no pod holds any more and not being deleted (cs_k8s_claims_reusable_new: a pod
 *     holds its claims until it is gone or finished, as the snapshots say);
 *  2. before each pod, with waitToReusePersistentVolumeClaim too, stops the batch while no claim is
 *     reusable and as many claims were created as executors may exist (cs_k8s_claims_must_wait);
 *  3. gives the pod a reusable claim of the same storage class and size in place of each new one
 *     (cs_k8s_claims_reuse), so a replaced executor gets its predecessor's claim and its data;
 *  4. creates the pod, then the claims left, each owned by the driver pod (ownPersistentVolumeClaim
 *     and a driver pod) or else by its executor pod (cs_k8s_claims_create); a failed claim deletes
 *     the pod again.
 * At stop, with ownPersistentVolumeClaim, every claim labelled with the application is deleted
 * (cs_k8s_claims_delete_all); claims owned by executor pods go with them (garbage collector).
 *
 * The choice of claims is pure (the table, the listed claims and the settings it is given) and
 * unit-tested (tests/unit/k8s/test_k8s_claims.c); the API calls are made by the allocator thread
 * and the backend's stop, without the backend's lock.
 *
 * Ownership: json_t results named *_new are new references; arguments are borrowed.
 */
#ifndef CSPARK_CLUSTER_K8S_CLAIMS_H
#define CSPARK_CLUSTER_K8S_CLAIMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "cluster/k8s/k8s_settings.h"
#include "cluster/k8s/k8s_snapshots_store.h"
#include "common/err.h"

/* True when a pod of t that still holds its claims mounts claim. */
bool cs_k8s_claim_held(const k8s_pod_table *t, const char *claim);
/* The listed claims (items of a PersistentVolumeClaimList) that no pod of t holds and that are not
 * being deleted, in list order: a new array sharing the items. */
json_t *cs_k8s_claims_reusable_new(const json_t *items, const k8s_pod_table *t);
/* Spark's replacePVCsIfNeeded: each claim of to_create with a claim of the same storage class and
 * size (as quantities) in reusable leaves to_create, and the volume of pod that named it takes
 * the reusable claim's name, which leaves reusable. Returns how many claims were reused. */
int cs_k8s_claims_reuse(json_t *pod, json_t *to_create, json_t *reusable);
/* True when claims may be reused: ownPersistentVolumeClaim, reusePersistentVolumeClaim and a
 * driver pod (Spark's getReusablePVCs). */
bool cs_k8s_claims_reusing(const k8s_settings *s, bool driver_pod);
/* Spark's wait rule: with claims reused and waitToReusePersistentVolumeClaim, no new executor
 * while none of the reusable claims is left and created (claims so far) >= s->max_pvcs. */
bool cs_k8s_claims_must_wait(const k8s_settings *s, bool driver_pod, size_t reusable,
                             int64_t created);

struct k8s_backend;
/* The application's claims (label spark-app-selector), as a new array of items; an empty array
 * when they cannot be listed (logged, as Spark: nothing is reused then). */
json_t *cs_k8s_claims_list_new(struct k8s_backend *b);
/* Creates the claims of the executor pod exec_pod (as the API server returned it: its uid owns
 * the claims unless the driver pod does). A claim that exists already (a retried create) counts
 * as created. Lock not held; takes it to count the claims. */
int cs_k8s_claims_create(struct k8s_backend *b, const json_t *exec_pod, const json_t *claims,
                         cs_error *err);
/* With ownPersistentVolumeClaim: deletes every claim labelled with the application (stop). */
void cs_k8s_claims_delete_all(struct k8s_backend *b);

#endif
