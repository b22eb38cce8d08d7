/* kubesim's controllers: what kube-apiserver's bootstrap and kube-controller-manager keep in every
 * real cluster, so that clients see the same objects on kubesim:
 *   - the `kubernetes` Service in default (clusterIP KS_SERVICE_IP, port 443 named https, labels
 *     component=apiserver, provider=kubernetes) and its Endpoints (where the API server listens);
 *   - in every namespace, the ServiceAccount `default` (serviceaccount controller) and the
 *     ConfigMap `kube-root-ca.crt` with the cluster's CA as ca.crt (root-ca-cert-publisher), both
 *     recreated when deleted from a namespace that is not terminating.
 * Started by main.c once the server listens (ks_controllers_start); works through store observers
 * (called without the store lock, so it may write). Ownership: the options' strings are copied;
 * the controller state lives until exit. */
#define _GNU_SOURCE
#include "controllers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ks_controllers {
    ks_store *store;
    char *ca_pem;
} controllers;

static const char *meta(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(json_object_get(o, "metadata"), k));
}

/* 1 when namespace ns exists and is not being deleted */
static int ns_active(ks_store *s, const char *ns)
{
    json_t *n = ks_store_get(s, "namespaces", NULL, ns);
    int ok = n && !json_object_get(json_object_get(n, "metadata"), "deletionTimestamp");
    json_decref(n);
    return ok;
}

static void ensure(ks_store *s, const char *resource, const char *ns, json_t *obj /* stolen */)
{
    json_t *cur = ks_store_get(s, resource, ns, meta(obj, "name"));
    if (cur || !ns_active(s, ns)) {
        json_decref(cur);
        json_decref(obj);
        return;
    }
    ks_err e = {0};
    ks_store_create(s, resource, ns, obj, NULL, &e); /* a concurrent create wins: fine */
    ks_err_clear(&e);
}

static void ensure_namespace(controllers *c, const char *ns)
{
    ensure(c->store, "serviceaccounts", ns, json_pack("{s:{s:s}}", "metadata", "name", "default"));
    if (c->ca_pem)
        ensure(c->store, "configmaps", ns,
               json_pack("{s:{s:s,s:{s:s}},s:{s:s}}", "metadata", "name", "kube-root-ca.crt",
                         "annotations", "kubernetes.io/description",
                         "Contains a CA bundle that can be used to verify the kube-apiserver "
                         "when using internal endpoints such as the internal service IP or "
                         "kubernetes.default.svc. No other usage is guaranteed across "
                         "distributions of Kubernetes clusters.",
                         "data", "ca.crt", c->ca_pem));
}

static void on_namespace(void *arg, const char *type, const json_t *obj)
{
    if (!strcmp(type, "DELETED") || !meta(obj, "name")) return;
    ensure_namespace(arg, meta(obj, "name"));
}

static void on_configmap(void *arg, const char *type, const json_t *obj)
{
    const char *name = meta(obj, "name"), *ns = meta(obj, "namespace");
    if (!strcmp(type, "DELETED") && name && ns && !strcmp(name, "kube-root-ca.crt"))
        ensure_namespace(arg, ns);
}

static void on_serviceaccount(void *arg, const char *type, const json_t *obj)
{
    const char *name = meta(obj, "name"), *ns = meta(obj, "namespace");
    if (!strcmp(type, "DELETED") && name && ns && !strcmp(name, "default"))
        ensure_namespace(arg, ns);
}

void ks_controllers_free(ks_controllers *c)
{
    if (!c) return;
    free(c->ca_pem);
    free(c);
}

ks_controllers *ks_controllers_start(const ks_controllers_opts *o)
{
    controllers *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->store = o->store;
    c->ca_pem = o->ca_pem ? strdup(o->ca_pem) : NULL;
    if (o->ca_pem && !c->ca_pem) {
        free(c);
        return NULL;
    }
    ks_store_observe(c->store, "namespaces", on_namespace, c);
    ks_store_observe(c->store, "configmaps", on_configmap, c);
    ks_store_observe(c->store, "serviceaccounts", on_serviceaccount, c);
    json_t *all = ks_store_list(c->store, "namespaces", NULL);
    size_t i;
    json_t *n;
    json_array_foreach(all, i, n) if (meta(n, "name")) ensure_namespace(c, meta(n, "name"));
    json_decref(all);

    json_t *svc =
        json_pack("{s:{s:s,s:{s:s,s:s}},s:{s:s,s:[s],s:s,s:s,s:[{s:s,s:i,s:s,s:i}]}}", "metadata",
                  "name", "kubernetes", "labels", "component", "apiserver", "provider",
                  "kubernetes", "spec", "clusterIP", KS_SERVICE_IP, "clusterIPs", KS_SERVICE_IP,
                  "type", "ClusterIP", "sessionAffinity", "None", "ports", "name", "https", "port",
                  443, "protocol", "TCP", "targetPort", o->port);
    ensure(c->store, "services", "default", svc);
    json_t *ep = json_pack(
        "{s:{s:s,s:{s:s}},s:[{s:[{s:s}],s:[{s:s,s:i,s:s}]}]}", "metadata", "name", "kubernetes",
        "labels", "endpointslice.kubernetes.io/skip-mirror", "true", "subsets", "addresses", "ip",
        o->address, "ports", "name", "https", "port", o->port, "protocol", "TCP");
    ensure(c->store, "endpoints", "default", ep);
    return c;
}
