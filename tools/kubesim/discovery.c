/* kubesim discovery (see discovery.h). The resource lists mirror the APIResourceLists of a real
 * API server for the kinds kubesim serves: core/v1, coordination.k8s.io/v1 and
 * rbac.authorization.k8s.io/v1. */
#include "discovery.h"

#include <stdio.h>
#include <string.h>

typedef struct res_doc {
    const char *gv; /* "v1" or "group/v1" */
    const char *name, *singular, *kind, *shortname;
    int namespaced, all;
    const char *verbs; /* NULL: the eight verbs of a resource; else a subresource's, comma list */
} res_doc;

static const res_doc RESOURCES[] = {
    {"v1", "configmaps", "configmap", "ConfigMap", "cm", 1, 0, NULL},
    {"v1", "endpoints", "endpoints", "Endpoints", "ep", 1, 0, NULL},
    {"v1", "events", "event", "Event", "ev", 1, 0, NULL},
    {"v1", "namespaces", "namespace", "Namespace", "ns", 0, 0, NULL},
    {"v1", "namespaces/status", "", "Namespace", NULL, 0, 0, "get,patch,update"},
    {"v1", "nodes", "node", "Node", "no", 0, 0, NULL},
    {"v1", "nodes/status", "", "Node", NULL, 0, 0, "get,patch,update"},
    {"v1", "persistentvolumeclaims", "persistentvolumeclaim", "PersistentVolumeClaim", "pvc", 1, 0,
     NULL},
    {"v1", "pods", "pod", "Pod", "po", 1, 1, NULL},
    {"v1", "pods/binding", "", "Binding", NULL, 1, 0, "create"},
    {"v1", "pods/log", "", "Pod", NULL, 1, 0, "get"},
    {"v1", "pods/status", "", "Pod", NULL, 1, 0, "get,patch,update"},
    {"v1", "secrets", "secret", "Secret", NULL, 1, 0, NULL},
    {"v1", "serviceaccounts", "serviceaccount", "ServiceAccount", "sa", 1, 0, NULL},
    {"v1", "serviceaccounts/token", "", "TokenRequest", NULL, 1, 0, "create"},
    {"v1", "services", "service", "Service", "svc", 1, 1, NULL},
    {"coordination.k8s.io/v1", "leases", "lease", "Lease", NULL, 1, 0, NULL},
    {"rbac.authorization.k8s.io/v1", "clusterrolebindings", "clusterrolebinding",
     "ClusterRoleBinding", NULL, 0, 0, NULL},
    {"rbac.authorization.k8s.io/v1", "clusterroles", "clusterrole", "ClusterRole", NULL, 0, 0,
     NULL},
    {"rbac.authorization.k8s.io/v1", "rolebindings", "rolebinding", "RoleBinding", NULL, 1, 0,
     NULL},
    {"rbac.authorization.k8s.io/v1", "roles", "role", "Role", NULL, 1, 0, NULL},
};
#define NRES (sizeof RESOURCES / sizeof RESOURCES[0])

static const char *const GROUPS[] = {"coordination.k8s.io", "rbac.authorization.k8s.io"};
#define NGROUPS (sizeof GROUPS / sizeof GROUPS[0])

static json_t *verbs(const char *list)
{
    json_t *a = json_array();
    char buf[128];
    snprintf(buf, sizeof buf, "%s",
             list ? list : "create,delete,deletecollection,get,list,patch,update,watch");
    for (char *save = NULL, *v = strtok_r(buf, ",", &save); v; v = strtok_r(NULL, ",", &save))
        json_array_append_new(a, json_string(v));
    return a;
}

static json_t *resource_list(const char *gv)
{
    json_t *res = json_array();
    for (size_t i = 0; i < NRES; i++) {
        const res_doc *d = &RESOURCES[i];
        if (strcmp(d->gv, gv)) continue;
        json_t *r =
            json_pack("{s:s,s:s,s:b,s:s,s:o}", "name", d->name, "singularName", d->singular,
                      "namespaced", d->namespaced, "kind", d->kind, "verbs", verbs(d->verbs));
        if (d->shortname) json_object_set_new(r, "shortNames", json_pack("[s]", d->shortname));
        if (d->all) json_object_set_new(r, "categories", json_pack("[s]", "all"));
        if (!strcmp(d->kind, "TokenRequest"))
            json_object_update_new(
                r, json_pack("{s:s,s:s}", "group", "authentication.k8s.io", "version", "v1"));
        json_array_append_new(res, r);
    }
    if (json_array_size(res) == 0) {
        json_decref(res);
        return NULL;
    }
    return json_pack("{s:s,s:s,s:s,s:o}", "kind", "APIResourceList", "apiVersion", "v1",
                     "groupVersion", gv, "resources", res);
}

static json_t *api_group(const char *group)
{
    char gv[128];
    snprintf(gv, sizeof gv, "%s/v1", group);
    return json_pack("{s:s,s:s,s:s,s:[{s:s,s:s}],s:{s:s,s:s}}", "kind", "APIGroup", "apiVersion",
                     "v1", "name", group, "versions", "groupVersion", gv, "version", "v1",
                     "preferredVersion", "groupVersion", gv, "version", "v1");
}

/* OpenAPI v3 document of one group-version carrying what kubectl checks: every PATCH operation
 * names its GVK and accepts the fieldValidation query parameter (server-side field validation). */
static json_t *openapi(const char *gv)
{
    json_t *paths = json_object();
    const char *slash = strchr(gv, '/');
    char group[96] = "";
    if (slash) snprintf(group, sizeof group, "%.*s", (int)(slash - gv), gv);
    for (size_t i = 0; i < NRES; i++) {
        const res_doc *d = &RESOURCES[i];
        if (strcmp(d->gv, gv) || strchr(d->name, '/')) continue;
        char p[200];
        snprintf(p, sizeof p, "/%s%s%s/%s/{name}", slash ? "apis/" : "api/", gv,
                 d->namespaced ? "/namespaces/{namespace}" : "", d->name);
        json_t *params = json_pack(
            "[{s:s,s:s,s:{s:s}},{s:s,s:s,s:{s:s}},{s:s,s:s,s:{s:s}}]", "name", "dryRun", "in",
            "query", "schema", "type", "string", "name", "fieldManager", "in", "query", "schema",
            "type", "string", "name", "fieldValidation", "in", "query", "schema", "type", "string");
        json_t *gvk = json_pack("{s:s,s:s,s:s}", "group", group, "version", "v1", "kind", d->kind);
        json_object_set_new(paths, p,
                            json_pack("{s:{s:s,s:o,s:o,s:{s:{s:s}}}}", "patch", "operationId",
                                      d->name, "x-kubernetes-group-version-kind", gvk, "parameters",
                                      params, "responses", "200", "description", "OK"));
    }
    return json_pack("{s:s,s:{s:s,s:s},s:o,s:{s:{}}}", "openapi", "3.0.0", "info", "title",
                     "Kubernetes", "version", "v1.34.0", "paths", paths, "components", "schemas");
}

json_t *ks_discovery(const char *path, const char *host_port)
{
    char p[256];
    snprintf(p, sizeof p, "%s", path);
    size_t n = strlen(p);
    if (n > 1 && p[n - 1] == '/') p[n - 1] = 0;
    if (!strcmp(p, "/openapi/v3")) {
        json_t *paths = json_pack("{s:{s:s}}", "api/v1", "serverRelativeURL",
                                  "/openapi/v3/api/v1?hash=kubesim2");
        for (size_t i = 0; i < NGROUPS; i++) {
            char key[128], url[160];
            snprintf(key, sizeof key, "apis/%s/v1", GROUPS[i]);
            snprintf(url, sizeof url, "/openapi/v3/%s?hash=kubesim2", key);
            json_object_set_new(paths, key, json_pack("{s:s}", "serverRelativeURL", url));
        }
        return json_pack("{s:o}", "paths", paths);
    }
    if (!strcmp(p, "/openapi/v3/api/v1")) return openapi("v1");
    if (!strncmp(p, "/openapi/v3/apis/", 17)) {
        for (size_t i = 0; i < NGROUPS; i++) {
            char gv[128];
            snprintf(gv, sizeof gv, "%s/v1", GROUPS[i]);
            if (!strcmp(p + 17, gv)) return openapi(gv);
        }
        return NULL;
    }
    if (!strcmp(p, "/version"))
        return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "major", "1", "minor", "34",
                         "gitVersion", "v1.34.0-kubesim", "gitCommit",
                         "0000000000000000000000000000000000000000", "gitTreeState", "clean",
                         "buildDate", "2026-01-01T00:00:00Z", "goVersion", "go1.24", "compiler",
                         "gc", "platform", "linux/amd64", "emulationMajor", "1");
    if (!strcmp(p, "/api"))
        return json_pack("{s:s,s:[s],s:[{s:s,s:s}]}", "kind", "APIVersions", "versions", "v1",
                         "serverAddressByClientCIDRs", "clientCIDR", "0.0.0.0/0", "serverAddress",
                         host_port);
    if (!strcmp(p, "/api/v1")) return resource_list("v1");
    if (!strcmp(p, "/apis")) {
        json_t *groups = json_array();
        for (size_t i = 0; i < NGROUPS; i++)
            json_array_append_new(groups, api_group(GROUPS[i]));
        return json_pack("{s:s,s:s,s:o}", "kind", "APIGroupList", "apiVersion", "v1", "groups",
                         groups);
    }
    if (!strncmp(p, "/apis/", 6)) {
        for (size_t i = 0; i < NGROUPS; i++) {
            size_t gl = strlen(GROUPS[i]);
            if (strncmp(p + 6, GROUPS[i], gl)) continue;
            if (!p[6 + gl]) return api_group(GROUPS[i]);
            if (!strcmp(p + 6 + gl, "/v1")) return resource_list(p + 6);
        }
    }
    return NULL;
}
