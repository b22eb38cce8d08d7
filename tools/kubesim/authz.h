/* kubesim's RBAC authorizer over the rbac.authorization.k8s.io/v1 objects in the store, as
 * kube-apiserver's: a request is allowed when a ClusterRoleBinding, or a RoleBinding in the
 * request's namespace, binds a subject matching the user (User name, Group among the user's
 * groups, ServiceAccount name and namespace — a RoleBinding's own namespace when the subject names
 * none) to a Role (same namespace) or ClusterRole holding a rule that matches: verbs, apiGroups,
 * resources ("pods", "pods/log", "*", "*" + "/sub"), resourceNames (only requests naming an
 * object). The user's groups are what kube-apiserver gives them: service accounts
 * system:serviceaccounts and system:serviceaccounts:NS, everyone authenticated
 * system:authenticated. Called by server.c for requests the rules file does not allow. */
#ifndef KUBESIM_AUTHZ_H
#define KUBESIM_AUTHZ_H

#include "store.h"

typedef struct ks_authz_request {
    const char *user;
    const char *verb;      /* RBAC verb */
    const char *group;     /* API group, "" for core */
    const char *resource;  /* "pods" */
    const char *sub;       /* "" or "log", "status", ... */
    const char *name;      /* "" when the request names no object */
    const char *namespace; /* "" for cluster-scoped requests */
} ks_authz_request;

/* 1 when the stored bindings allow the request, else 0. Thread-safe (reads the store). */
int ks_authz_allowed(ks_store *s, const ks_authz_request *rq);

#endif
