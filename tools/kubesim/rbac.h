/* kubesim authentication and authorization: bearer tokens mapped to user names, and simple RBAC
 * rules read from a text file. Called by server.c for every /api request.
 *
 * File format (one directive per line, '#' comments):
 *   token  <token> <user>                      e.g. token s3cr3t system:serviceaccount:spark:spark
 *   allow  <user> <verbs> <resources> <namespaces>
 * where verbs, resources and namespaces are comma-separated lists or '*'. Resources may name
 * subresources ("pods/log"); namespace '*' also covers cluster-scoped requests, and "-" names the
 * cluster scope alone. The admin token (--token) is always allowed everything, like system:masters.
 * Without a rules file every authenticated user is allowed everything, except service accounts:
 * those the Role and ClusterRole bindings stored in the API allow (authz.c), as on a real cluster
 * (server.c asks both). Service-account tokens are also issued here (TokenRequest, pods).
 * anonymous: 0 = a token is required, 1 = requests without a token are "system:anonymous",
 * 2 = requests without a token are the admin (the old insecure port; kubesim --http, since kubectl
 * sends no token over plain HTTP). */
#ifndef KUBESIM_RBAC_H
#define KUBESIM_RBAC_H

#include <stddef.h>

typedef struct ks_rbac ks_rbac;

/* The user name of the admin token (and of token-less requests with --http). */
#define KS_RBAC_ADMIN_USER "kubesim-admin"

/* admin_token may be NULL (then no admin token). path may be NULL (no rules: allow all). Returns
 * NULL and writes a message into err on a parse error. Owned by caller (ks_rbac_free). */
ks_rbac *ks_rbac_new(const char *admin_token, const char *path, int anonymous, char *err,
                     size_t errlen);
void ks_rbac_free(ks_rbac *r);

/* Authenticates an Authorization header value (may be NULL). Returns the user name (borrowed, valid
 * for the life of r) or NULL when unauthenticated (401). */
const char *ks_rbac_authenticate(const ks_rbac *r, const char *authorization);
/* A new bearer token (malloc'd) authenticating as user, valid for expiration_s seconds (0 = no
 * limit). Thread-safe. */
char *ks_rbac_issue_token(ks_rbac *r, const char *user, long long expiration_s);
/* 1 for "system:serviceaccount:NS:NAME" */
int ks_rbac_is_service_account(const char *user);
/* 1 if the rules file (or its absence) lets user do verb on resource (with "/sub" if any) in ns
 * (NULL = cluster scope). */
int ks_rbac_allowed(const ks_rbac *r, const char *user, const char *verb, const char *resource,
                    const char *ns);

#endif
