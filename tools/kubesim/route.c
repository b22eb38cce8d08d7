/* kubesim REST paths: /api/v1/[namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]] into a ks_route, and
 * the RBAC verb of a method. Called by server.c for every /api request. */
#define _GNU_SOURCE
#include "server_int.h"

#include <stdio.h>
#include <string.h>

int ks_parse_path(const char *url, ks_route *rt)
{
    memset(rt, 0, sizeof *rt);
    if (strncmp(url, "/api/v1/", 8)) return 404;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", url + 8);
    char *seg[8];
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, "/", &save); t && n < 8; t = strtok_r(NULL, "/", &save))
        seg[n++] = t;
    if (n == 0) return 404;
    int i = 0;
    if (!strcmp(seg[0], "namespaces") && n >= 3) {
        snprintf(rt->ns, sizeof rt->ns, "%s", seg[1]);
        rt->has_ns = 1;
        if (n == 3 && (!strcmp(seg[2], "status") || !strcmp(seg[2], "finalize"))) {
            /* namespace subresource */
            rt->has_ns = 0;
            snprintf(rt->name, sizeof rt->name, "%s", seg[1]);
            rt->has_name = 1;
            snprintf(rt->sub, sizeof rt->sub, "%s", seg[2]);
            ks_resource_info("namespaces", &rt->kind, &rt->namespaced);
            rt->resource = "namespaces";
            return 0;
        }
        i = 2;
    }
    const char *res = seg[i];
    static const char *names[] = {
        "namespaces", "pods",  "services",        "configmaps", "secrets", "persistentvolumeclaims",
        "events",     "nodes", "serviceaccounts", "endpoints"};
    rt->resource = NULL;
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (!strcmp(names[k], res)) rt->resource = names[k];
    if (!rt->resource) return 404;
    ks_resource_info(rt->resource, &rt->kind, &rt->namespaced);
    if (rt->has_ns && !rt->namespaced) return 404;
    if (i + 1 < n) {
        snprintf(rt->name, sizeof rt->name, "%s", seg[i + 1]);
        rt->has_name = 1;
    }
    if (i + 2 < n) snprintf(rt->sub, sizeof rt->sub, "%s", seg[i + 2]);
    if (i + 3 < n) return 404;
    return 0;
}

const char *ks_verb_for(const char *method, const ks_route *rt, int watch)
{
    if (!strcmp(method, "GET") || !strcmp(method, "HEAD"))
        return watch ? "watch" : rt->has_name ? "get" : "list";
    if (!strcmp(method, "POST")) return "create";
    if (!strcmp(method, "PUT")) return "update";
    if (!strcmp(method, "PATCH")) return "patch";
    if (!strcmp(method, "DELETE")) return rt->has_name ? "delete" : "deletecollection";
    return "";
}
