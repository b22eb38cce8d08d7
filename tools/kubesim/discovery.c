/* kubesim discovery (see discovery.h). The resource list mirrors the core/v1 APIResourceList of a
 * real API server for the kinds kubesim serves. */
#include "discovery.h"

#include <stdio.h>
#include <string.h>

static json_t *resource(const char *name, const char *singular, int namespaced, const char *kind,
                        const char *shortname, int all)
{
    json_t *r = json_pack("{s:s,s:s,s:b,s:s,s:[s,s,s,s,s,s,s,s]}", "name", name, "singularName",
                          singular, "namespaced", namespaced, "kind", kind, "verbs", "create",
                          "delete", "deletecollection", "get", "list", "patch", "update", "watch");
    if (shortname) json_object_set_new(r, "shortNames", json_pack("[s]", shortname));
    if (all) json_object_set_new(r, "categories", json_pack("[s]", "all"));
    return r;
}

static json_t *api_v1(void)
{
    json_t *res = json_array();
    json_array_append_new(res, resource("configmaps", "configmap", 1, "ConfigMap", "cm", 0));
    json_array_append_new(res, resource("endpoints", "endpoints", 1, "Endpoints", "ep", 0));
    json_array_append_new(res, resource("events", "event", 1, "Event", "ev", 0));
    json_array_append_new(res, resource("namespaces", "namespace", 0, "Namespace", "ns", 0));
    json_array_append_new(res, resource("nodes", "node", 0, "Node", "no", 0));
    json_array_append_new(res, resource("persistentvolumeclaims", "persistentvolumeclaim", 1,
                                        "PersistentVolumeClaim", "pvc", 0));
    json_array_append_new(res, resource("pods", "pod", 1, "Pod", "po", 1));
    json_array_append_new(res,
                          json_pack("{s:s,s:s,s:b,s:s,s:[s]}", "name", "pods/log", "singularName",
                                    "", "namespaced", 1, "kind", "Pod", "verbs", "get"));
    json_array_append_new(res, json_pack("{s:s,s:s,s:b,s:s,s:[s,s,s]}", "name", "pods/status",
                                         "singularName", "", "namespaced", 1, "kind", "Pod",
                                         "verbs", "get", "patch", "update"));
    json_array_append_new(res, resource("secrets", "secret", 1, "Secret", NULL, 0));
    json_array_append_new(
        res, resource("serviceaccounts", "serviceaccount", 1, "ServiceAccount", "sa", 0));
    json_array_append_new(res, resource("services", "service", 1, "Service", "svc", 1));
    return json_pack("{s:s,s:s,s:o}", "kind", "APIResourceList", "groupVersion", "v1", "resources",
                     res);
}

/* OpenAPI v3 document for core/v1 carrying what kubectl checks: every PATCH operation names its GVK
 * and accepts the fieldValidation query parameter (server-side field validation). */
static json_t *openapi_v1(void)
{
    static const struct {
        const char *res, *kind;
        int namespaced;
    } kinds[] = {{"configmaps", "ConfigMap", 1},
                 {"endpoints", "Endpoints", 1},
                 {"events", "Event", 1},
                 {"namespaces", "Namespace", 0},
                 {"nodes", "Node", 0},
                 {"persistentvolumeclaims", "PersistentVolumeClaim", 1},
                 {"pods", "Pod", 1},
                 {"secrets", "Secret", 1},
                 {"serviceaccounts", "ServiceAccount", 1},
                 {"services", "Service", 1}};
    json_t *paths = json_object();
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char p[160];
        snprintf(p, sizeof p,
                 kinds[i].namespaced ? "/api/v1/namespaces/{namespace}/%s/{name}"
                                     : "/api/v1/%s/{name}",
                 kinds[i].res);
        json_t *params = json_pack(
            "[{s:s,s:s,s:{s:s}},{s:s,s:s,s:{s:s}},{s:s,s:s,s:{s:s}}]", "name", "dryRun", "in",
            "query", "schema", "type", "string", "name", "fieldManager", "in", "query", "schema",
            "type", "string", "name", "fieldValidation", "in", "query", "schema", "type", "string");
        json_t *gvk =
            json_pack("{s:s,s:s,s:s}", "group", "", "version", "v1", "kind", kinds[i].kind);
        json_object_set_new(paths, p,
                            json_pack("{s:{s:s,s:o,s:o,s:{s:{s:s}}}}", "patch", "operationId",
                                      kinds[i].res, "x-kubernetes-group-version-kind", gvk,
                                      "parameters", params, "responses", "200", "description",
                                      "OK"));
    }
    return json_pack("{s:s,s:{s:s,s:s},s:o,s:{s:{}}}", "openapi", "3.0.0", "info", "title",
                     "Kubernetes", "version", "v1.32.0", "paths", paths, "components", "schemas");
}

json_t *ks_discovery(const char *path, const char *host_port)
{
    if (!strcmp(path, "/openapi/v3"))
        return json_pack("{s:{s:{s:s}}}", "paths", "api/v1", "serverRelativeURL",
                         "/openapi/v3/api/v1?hash=kubesim1");
    if (!strcmp(path, "/openapi/v3/api/v1")) return openapi_v1();
    if (!strcmp(path, "/version") || !strcmp(path, "/version/"))
        return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:s}", "major", "1", "minor", "32",
                         "gitVersion", "v1.32.0-kubesim", "gitCommit",
                         "0000000000000000000000000000000000000000", "gitTreeState", "clean",
                         "buildDate", "2026-01-01T00:00:00Z", "goVersion", "go1.23", "compiler",
                         "gc", "platform", "linux/amd64", "emulationMajor", "1");
    if (!strcmp(path, "/api") || !strcmp(path, "/api/"))
        return json_pack("{s:s,s:[s],s:[{s:s,s:s}]}", "kind", "APIVersions", "versions", "v1",
                         "serverAddressByClientCIDRs", "clientCIDR", "0.0.0.0/0", "serverAddress",
                         host_port);
    if (!strcmp(path, "/api/v1") || !strcmp(path, "/api/v1/")) return api_v1();
    if (!strcmp(path, "/apis") || !strcmp(path, "/apis/"))
        return json_pack("{s:s,s:s,s:[]}", "kind", "APIGroupList", "apiVersion", "v1", "groups");
    return NULL;
}
