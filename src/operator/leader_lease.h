/* leader_lease.h — leader election over a coordination.k8s.io/v1 Lease, as client-go's
 * leaderelection: the holder renews spec.renewTime; another candidate takes the Lease (with the
 * resourceVersion it read, so two candidates never both win) once renewTime + leaseDurationSeconds
 * is past. Called by the controller's thread (operator.c) before each round: only the holder acts.
 *
 * Ownership: the client is borrowed and outlives the lease; names are copied.
 */
#ifndef CSPARK_OPERATOR_LEADER_LEASE_H
#define CSPARK_OPERATOR_LEADER_LEASE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/err.h"
#include "kube/kube_client.h"

typedef struct op_lease {
    kube_client *kc;
    char ns[128], name[128], identity[256];
    int duration_s;
    bool held;
} op_lease;

void cs_operator_lease_init(op_lease *l, kube_client *kc, const char *ns, const char *name,
                            const char *identity, int duration_s);
/* Takes or renews the Lease at wall time now_ms; *held says whether this candidate holds it now.
 * Returns 0, or a negative code with err set when the API server could not be asked (then *held
 * is false: a leader that cannot renew stops acting). */
int cs_operator_lease_try(op_lease *l, int64_t now_ms, bool *held, cs_error *err);

#endif
