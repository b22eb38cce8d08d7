/* kubesim's controllers (controllers.c): the `kubernetes` Service and Endpoints in default, and
 * per namespace the `default` ServiceAccount and the `kube-root-ca.crt` ConfigMap, as a real
 * cluster keeps them. Started once by main.c after the server listens; main.c frees the state
 * with ks_controllers_free after the store, whose observers point at it. */
#ifndef KUBESIM_CONTROLLERS_H
#define KUBESIM_CONTROLLERS_H

#include "store.h"

typedef struct ks_controllers_opts {
    ks_store *store;
    const char *ca_pem;  /* the serving CA (PEM), NULL over plain HTTP: no kube-root-ca.crt */
    const char *address; /* where the API server listens, for the kubernetes Endpoints */
    int port;
} ks_controllers_opts;

typedef struct ks_controllers ks_controllers;

/* The controllers' state, or NULL when out of memory. */
ks_controllers *ks_controllers_start(const ks_controllers_opts *o);
/* Frees the state: only once nothing can call the observers (after ks_store_free). NULL is fine. */
void ks_controllers_free(ks_controllers *c);

#endif
