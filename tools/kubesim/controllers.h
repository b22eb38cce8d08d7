/* kubesim's controllers (controllers.c): the `kubernetes` Service and Endpoints in default, and
 * per namespace the `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap, as a real
 * cluster keeps them. Called once by main.c after the server listens. */
#ifndef KUBESIM_CONTROLLERS_H
#define KUBESIM_CONTROLLERS_H

#include "store.h"

typedef struct ks_controllers_opts {
    ks_store *store;
    const char *ca_pem;  /* the serving CA (PEM), NULL over plain HTTP: no kube-root-ca.crt */
    const char *address; /* where the API server listens, for the kubernetes Endpoints */
    int port;
} ks_controllers_opts;

/* 0, or -1 when out of memory. */
int ks_controllers_start(const ks_controllers_opts *o);

#endif
