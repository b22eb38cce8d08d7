/* kubesim RBAC authorizer over the stored Roles, ClusterRoles and their bindings (see authz.h). */
#include "authz.h"

#include <stdio.h>
#include <string.h>

static int has(const json_t *arr, const char *want)
{
    size_t i;
    const json_t *v;
    json_array_foreach(arr, i, v)
    {
        const char *s = json_string_value(v);
        if (s && (!strcmp(s, "*") || !strcmp(s, want))) return 1;
    }
    return 0;
}

static int resource_matches(const json_t *resources, const ks_authz_request *rq)
{
    char full[160], star[96];
    snprintf(full, sizeof full, "%s%s%s", rq->resource, *rq->sub ? "/" : "", rq->sub);
    snprintf(star, sizeof star, "*/%s", rq->sub);
    size_t i;
    const json_t *v;
    json_array_foreach(resources, i, v)
    {
        const char *s = json_string_value(v);
        if (!s) continue;
        if (!strcmp(s, full) || (!*rq->sub && !strcmp(s, "*")) || (*rq->sub && !strcmp(s, star)))
            return 1;
    }
    return 0;
}

static int rule_allows(const json_t *rule, const ks_authz_request *rq)
{
    if (!has(json_object_get(rule, "verbs"), rq->verb)) return 0;
    if (!has(json_object_get(rule, "apiGroups"), rq->group)) return 0;
    if (!resource_matches(json_object_get(rule, "resources"), rq)) return 0;
    const json_t *names = json_object_get(rule, "resourceNames");
    if (json_array_size(names) > 0 && (!*rq->name || !has(names, rq->name))) return 0;
    return 1;
}

static int in_group(const ks_authz_request *rq, const char *group)
{
    if (!strcmp(group, "system:authenticated")) return strcmp(rq->user, "system:anonymous") != 0;
    if (!strcmp(group, "system:unauthenticated")) return !strcmp(rq->user, "system:anonymous");
    const char *sa = "system:serviceaccount:";
    if (strncmp(rq->user, sa, strlen(sa))) return 0;
    if (!strcmp(group, "system:serviceaccounts")) return 1;
    /* system:serviceaccounts:NS for system:serviceaccount:NS:NAME */
    const char *ns = rq->user + strlen(sa), *colon = strchr(ns, ':');
    const char *gp = "system:serviceaccounts:";
    return colon && !strncmp(group, gp, strlen(gp)) &&
           strlen(group + strlen(gp)) == (size_t)(colon - ns) &&
           !strncmp(group + strlen(gp), ns, (size_t)(colon - ns));
}

static int subject_matches(const json_t *subj, const ks_authz_request *rq, const char *binding_ns)
{
    const char *kind = json_string_value(json_object_get(subj, "kind"));
    const char *name = json_string_value(json_object_get(subj, "name"));
    if (!kind || !name) return 0;
    if (!strcmp(kind, "User")) return !strcmp(name, rq->user);
    if (!strcmp(kind, "Group")) return in_group(rq, name);
    if (!strcmp(kind, "ServiceAccount")) {
        const char *ns = json_string_value(json_object_get(subj, "namespace"));
        char want[600];
        snprintf(want, sizeof want, "system:serviceaccount:%s:%s", ns && *ns ? ns : binding_ns,
                 name);
        return !strcmp(want, rq->user);
    }
    return 0;
}

/* 1 when the role a binding refers to (in ns for a Role) has a rule allowing rq */
static int role_allows(ks_store *s, const json_t *ref, const char *ns, const ks_authz_request *rq)
{
    const char *kind = json_string_value(json_object_get(ref, "kind"));
    const char *name = json_string_value(json_object_get(ref, "name"));
    if (!kind || !name) return 0;
    int cluster = !strcmp(kind, "ClusterRole");
    if (!cluster && strcmp(kind, "Role")) return 0;
    json_t *role = ks_store_get(s, cluster ? "clusterroles" : "roles", cluster ? NULL : ns, name);
    int ok = 0;
    size_t i;
    const json_t *rule;
    json_array_foreach(json_object_get(role, "rules"), i, rule) if (!ok) ok = rule_allows(rule, rq);
    json_decref(role);
    return ok;
}

static int bindings_allow(ks_store *s, const char *resource, const char *ns,
                          const ks_authz_request *rq)
{
    uint64_t rv;
    json_t *list = ks_store_list_refs(s, resource, ns, NULL, NULL, NULL, 0, &rv, NULL);
    int ok = 0;
    size_t i, j;
    const json_t *b, *subj;
    json_array_foreach(list, i, b)
    {
        if (ok) break;
        const char *bns =
            json_string_value(json_object_get(json_object_get(b, "metadata"), "namespace"));
        int bound = 0;
        json_array_foreach(json_object_get(b, "subjects"), j, subj) if (!bound) bound =
            subject_matches(subj, rq, bns ? bns : "");
        if (bound) ok = role_allows(s, json_object_get(b, "roleRef"), bns, rq);
    }
    json_decref(list);
    return ok;
}

int ks_authz_allowed(ks_store *s, const ks_authz_request *rq)
{
    if (bindings_allow(s, "clusterrolebindings", NULL, rq)) return 1;
    return *rq->namespace && bindings_allow(s, "rolebindings", rq->namespace, rq);
}
