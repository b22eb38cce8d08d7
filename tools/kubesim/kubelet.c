/*
 * kubelet.c — placeholder of the kubesim kubelet while the real one (same file) is being written:
 * it satisfies kubelet.h so kubesim links; pods are neither scheduled nor run yet.
 */
#include "kubelet.h"

#include <stdlib.h>

struct ks_kubelet {
    ks_store *store;
};

ks_kubelet *ks_kubelet_start(ks_store *s, const ks_kubelet_options *opt)
{
    (void)opt;
    ks_kubelet *k = calloc(1, sizeof(*k));
    if (k)
        k->store = s;
    return k;
}

void ks_kubelet_stop(ks_kubelet *k) { free(k); }

char *ks_kubelet_pod_log(ks_kubelet *k, const char *ns, const char *name, const char *container, size_t *len)
{
    (void)k, (void)ns, (void)name, (void)container;
    if (len)
        *len = 0;
    return NULL;
}
