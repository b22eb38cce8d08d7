/* kubesim REST paths: /api/v1/[namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]] and
 * /apis/GROUP/VERSION/[namespaces/NS/]RESOURCE[/NAME[/SUBRESOURCE]] into a ks_route, and the RBAC
 * verb of a method. Called by server.c for every API request. */
#define _GNU_SOURCE
#include "server_int.h"
#include "store.h"

#include <stdio.h>
#include <string.h>

int ks_is_resource_path(const char *url)
{
    if (!strncmp(url, "/api/v1/", 8)) return 1;
    if (strncmp(url, "/apis/", 6)) return 0;
    int slashes = 0; /* /apis/G/V/R... has at least three segments after /apis */
    for (const char *p = url + 6; *p; p++)
        if (*p == '/' && p[1]) slashes++;
    return slashes >= 2;
}

int ks_parse_path(const char *url, ks_route *rt)
{
    memset(rt, 0, sizeof *rt);
    char gv[128], buf[1024];
    const char *rest;
    if (!strncmp(url, "/api/v1/", 8)) {
        snprintf(gv, sizeof gv, "v1");
        rest = url + 8;
    } else if (!strncmp(url, "/apis/", 6)) {
        const char *g = url + 6, *v = strchr(g, '/'), *r = v ? strchr(v + 1, '/') : NULL;
        if (!r || (size_t)(r - g) >= sizeof gv) return 404;
        snprintf(gv, sizeof gv, "%.*s", (int)(r - g), g);
        rest = r + 1;
    } else {
        return 404;
    }
    snprintf(buf, sizeof buf, "%s", rest);
    char *seg[8];
    int n = 0;
    char *save = NULL;
    for (char *t = strtok_r(buf, "/", &save); t && n < 8; t = strtok_r(NULL, "/", &save))
        seg[n++] = t;
    if (n == 0) return 404;
    int i = 0;
    if (!strcmp(seg[0], "namespaces") && n >= 3 && !strcmp(gv, "v1")) {
        snprintf(rt->ns, sizeof rt->ns, "%s", seg[1]);
        rt->has_ns = 1;
        if (n == 3 && (!strcmp(seg[2], "status") || !strcmp(seg[2], "finalize"))) {
            /* namespace subresource */
            rt->has_ns = 0;
            snprintf(rt->name, sizeof rt->name, "%s", seg[1]);
            rt->has_name = 1;
            snprintf(rt->sub, sizeof rt->sub, "%s", seg[2]);
            rt->resource = "namespaces";
            ks_resource_info(rt->resource, &rt->kind, &rt->namespaced);
            rt->api_version = "v1";
            rt->group = "";
            rt->version = "v1";
            return 0;
        }
        i = 2;
    } else if (!strcmp(seg[0], "namespaces") && n >= 3) {
        snprintf(rt->ns, sizeof rt->ns, "%s", seg[1]);
        rt->has_ns = 1;
        i = 2;
    }
    rt->resource = ks_resource_name(seg[i], gv, &rt->api_version);
    if (!rt->resource) return 404;
    ks_resource_info(rt->resource, &rt->kind, &rt->namespaced);
    const char *slash = strchr(rt->api_version, '/');
    rt->group = slash ? ks_resource_group(rt->api_version) : "";
    rt->version = slash ? slash + 1 : rt->api_version;
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

const char *ks_metric_verb(const char *method, const ks_route *rt, int watch)
{
    if (!strcmp(method, "GET") || !strcmp(method, "HEAD"))
        return watch ? "WATCH" : rt->has_name ? "GET" : "LIST";
    if (!strcmp(method, "DELETE") && !rt->has_name) return "DELETECOLLECTION";
    if (!strcmp(method, "POST") || !strcmp(method, "PUT") || !strcmp(method, "PATCH") ||
        !strcmp(method, "DELETE"))
        return method;
    return "UNKNOWN";
}

const char *ks_metric_scope(const ks_route *rt, const char *method)
{
    /* as kube-apiserver's CleanScope: a create names its object (in the body) */
    if (rt->has_name || !strcmp(method, "POST")) return "resource";
    return rt->has_ns ? "namespace" : "cluster";
}
