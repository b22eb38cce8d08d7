/* kubesim Table printing (see table.h). Age strings follow apimachinery's duration.HumanDuration.
 */
#include "table.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

int ks_wants_table(const char *accept)
{
    return accept && strstr(accept, "as=Table") != NULL;
}

static void human_age(const json_t *obj, char *buf, size_t len)
{
    const char *ts =
        json_string_value(json_object_get(json_object_get(obj, "metadata"), "creationTimestamp"));
    int64_t t = ks_parse_rfc3339(ts);
    if (t < 0) {
        snprintf(buf, len, "<unknown>");
        return;
    }
    long long s = ks_now_ms() / 1000 - t;
    if (s < 0) s = 0;
    if (s < 120)
        snprintf(buf, len, "%llds", s);
    else if (s < 600)
        snprintf(buf, len, "%lldm%llds", s / 60, s % 60);
    else if (s < 3 * 3600)
        snprintf(buf, len, "%lldm", s / 60);
    else if (s < 8 * 3600)
        snprintf(buf, len, "%lldh%lldm", s / 3600, (s % 3600) / 60);
    else if (s < 48 * 3600)
        snprintf(buf, len, "%lldh", s / 3600);
    else if (s < 8 * 86400)
        snprintf(buf, len, "%lldd%lldh", s / 86400, (s % 86400) / 3600);
    else
        snprintf(buf, len, "%lldd", s / 86400);
}

static json_t *col(const char *name, const char *type, const char *format, int priority,
                   const char *desc)
{
    return json_pack("{s:s,s:s,s:s,s:s,s:i}", "name", name, "type", type, "format", format,
                     "description", desc, "priority", priority);
}

static const char *str(const json_t *o, const char *a, const char *b)
{
    const json_t *v = json_object_get(o, a);
    if (b) v = json_object_get(v, b);
    return json_string_value(v);
}

static json_t *pod_cells(const json_t *pod)
{
    json_t *st = json_object_get(pod, "status");
    const char *reason = str(st, "reason", NULL);
    if (!reason) reason = str(st, "phase", NULL);
    if (!reason) reason = "Pending";
    int total = (int)json_array_size(json_object_get(json_object_get(pod, "spec"), "containers"));
    int ready = 0;
    long long restarts = 0;
    size_t i;
    json_t *cs;
    char rbuf[64];
    json_array_foreach(json_object_get(st, "containerStatuses"), i, cs)
    {
        restarts += json_integer_value(json_object_get(cs, "restartCount"));
        json_t *state = json_object_get(cs, "state");
        const char *w = str(state, "waiting", "reason");
        const char *t = str(state, "terminated", "reason");
        if (w && *w)
            reason = w;
        else if (t && *t)
            reason = t;
        else if (json_object_get(state, "terminated")) {
            long long sig =
                json_integer_value(json_object_get(json_object_get(state, "terminated"), "signal"));
            long long code = json_integer_value(
                json_object_get(json_object_get(state, "terminated"), "exitCode"));
            snprintf(rbuf, sizeof rbuf, sig ? "Signal:%lld" : "ExitCode:%lld", sig ? sig : code);
            reason = rbuf;
        } else if (json_is_true(json_object_get(cs, "ready")) && json_object_get(state, "running"))
            ready++;
    }
    if (json_object_get(json_object_get(pod, "metadata"), "deletionTimestamp"))
        reason = !strcmp(str(st, "reason", NULL) ? str(st, "reason", NULL) : "", "NodeLost")
                     ? "Unknown"
                     : "Terminating";
    char rd[32], age[32];
    snprintf(rd, sizeof rd, "%d/%d", ready, total);
    human_age(pod, age, sizeof age);
    const char *ip = str(st, "podIP", NULL),
               *node = str(json_object_get(pod, "spec"), "nodeName", NULL);
    return json_pack("[s,s,s,I,s,s,s,s,s]", str(pod, "metadata", "name"), rd, reason,
                     (json_int_t)restarts, age, ip ? ip : "<none>", node ? node : "<none>",
                     "<none>", "<none>");
}

static json_t *service_cells(const json_t *svc)
{
    json_t *spec = json_object_get(svc, "spec");
    char ports[256] = "", age[32];
    size_t off = 0, i;
    json_t *p;
    json_array_foreach(json_object_get(spec, "ports"), i, p)
    {
        off += (size_t)snprintf(ports + off, off < sizeof ports ? sizeof ports - off : 0,
                                "%s%lld/%s", i ? "," : "",
                                (long long)json_integer_value(json_object_get(p, "port")),
                                str(p, "protocol", NULL) ? str(p, "protocol", NULL) : "TCP");
        if (off >= sizeof ports) break;
    }
    human_age(svc, age, sizeof age);
    const char *ip = str(spec, "clusterIP", NULL);
    return json_pack("[s,s,s,s,s,s,s]", str(svc, "metadata", "name"),
                     str(spec, "type", NULL) ? str(spec, "type", NULL) : "ClusterIP",
                     ip ? ip : "<none>", "<none>", *ports ? ports : "<none>", age, "<none>");
}

static json_t *node_cells(const json_t *node, const char *age)
{
    const char *ready = "Unknown";
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(json_object_get(node, "status"), "conditions"), i, c)
    {
        const char *t = str(c, "type", NULL), *st = str(c, "status", NULL);
        if (t && st && !strcmp(t, "Ready")) ready = !strcmp(st, "True") ? "Ready" : "NotReady";
    }
    char status[64];
    snprintf(status, sizeof status, "%s%s", ready,
             json_is_true(json_object_get(json_object_get(node, "spec"), "unschedulable"))
                 ? ",SchedulingDisabled"
                 : "");
    const char *ver = str(json_object_get(node, "status"), "nodeInfo", "kubeletVersion");
    return json_pack("[s,s,s,s,s]", str(node, "metadata", "name"), status, "<none>", age,
                     ver ? ver : "");
}

static json_t *event_cells(const json_t *ev)
{
    char last[32] = "<unknown>";
    const char *ts = str(ev, "lastTimestamp", NULL);
    int64_t t = ks_parse_rfc3339(ts);
    if (t >= 0) {
        long long d = ks_now_ms() / 1000 - t;
        snprintf(last, sizeof last, "%llds", d < 0 ? 0 : d);
    }
    json_t *io = json_object_get(ev, "involvedObject");
    char obj[320];
    const char *k = str(io, "kind", NULL), *n = str(io, "name", NULL);
    snprintf(obj, sizeof obj, "%s/%s", k ? k : "", n ? n : "");
    for (char *p = obj; *p && *p != '/'; p++)
        if (*p >= 'A' && *p <= 'Z') *p = (char)(*p - 'A' + 'a');
    const char *type = str(ev, "type", NULL), *reason = str(ev, "reason", NULL),
               *msg = str(ev, "message", NULL);
    return json_pack("[s,s,s,s,s]", last, type ? type : "", reason ? reason : "", obj,
                     msg ? msg : "");
}

/* Columns per resource, as kube-apiserver's table convertors print them; kind selects the cells. */
typedef struct col_def {
    const char *name, *type, *format;
    int priority;
    const char *desc;
} col_def;
typedef struct table_def {
    const char *resource;
    int kind; /* 0 generic, 1 pods, 2 services, 3 configmaps, 4 namespaces, 5 nodes, 6 events,
                 7 secrets */
    col_def cols[10];
} table_def;

static const table_def TABLES[] = {
    {"pods",
     1,
     {
         {"Name", "string", "name", 0, "Name must be unique within a namespace."},
         {"Ready", "string", "", 0, "The aggregate readiness state of this pod."},
         {"Status", "string", "", 0, "The aggregate status of the containers."},
         {"Restarts", "string", "", 0,
          "The number of times the containers have "
          "been restarted."},
         {"Age", "string", "", 0, "CreationTimestamp"},
         {"IP", "string", "", 1, "IP address allocated to the pod."},
         {"Node", "string", "", 1, "Name of the node the pod is assigned to."},
         {"Nominated Node", "string", "", 1, "Nominated node."},
         {"Readiness Gates", "string", "", 1, "Readiness gates."},
     }},
    {"services",
     2,
     {
         {"Name", "string", "name", 0, "Name"},
         {"Type", "string", "", 0, "The type of service."},
         {"Cluster-IP", "string", "", 0, "The cluster IP."},
         {"External-IP", "string", "", 0, "External IPs."},
         {"Port(s)", "string", "", 0, "The ports exposed."},
         {"Age", "string", "", 0, "CreationTimestamp"},
         {"Selector", "string", "", 1, "The selector."},
     }},
    {"nodes",
     5,
     {
         {"Name", "string", "name", 0, "Name"},
         {"Status", "string", "", 0, "The status of the node"},
         {"Roles", "string", "", 0, "The roles of the node"},
         {"Age", "string", "", 0, "CreationTimestamp"},
         {"Version", "string", "", 0, "Kubelet Version reported by the node."},
     }},
    {"events",
     6,
     {
         {"Last Seen", "string", "", 0, "Time of the last occurrence"},
         {"Type", "string", "", 0, "Type of this event"},
         {"Reason", "string", "", 0, "Reason for the transition"},
         {"Object", "string", "", 0, "The object this event is about"},
         {"Message", "string", "", 0, "A human-readable description"},
     }},
    {"secrets",
     7,
     {
         {"Name", "string", "name", 0, "Name"},
         {"Type", "string", "", 0, "The type of the secret"},
         {"Data", "integer", "", 0, "Number of entries."},
         {"Age", "string", "", 0, "CreationTimestamp"},
     }},
    {"configmaps",
     3,
     {
         {"Name", "string", "name", 0, "Name"},
         {"Data", "integer", "", 0, "Number of entries."},
         {"Age", "string", "", 0, "CreationTimestamp"},
     }},
    {"namespaces",
     4,
     {
         {"Name", "string", "name", 0, "Name"},
         {"Status", "string", "", 0, "The status of the namespace"},
         {"Age", "string", "", 0, "CreationTimestamp"},
     }},
    {NULL,
     0,
     {
         {"Name", "string", "name", 0, "Name"},
         {"Age", "string", "", 0, "CreationTimestamp"},
     }},
};

json_t *ks_table(const char *resource, const json_t *items, const char *rv, const char *cont,
                 const char *include, int with_columns)
{
    const table_def *def = &TABLES[sizeof TABLES / sizeof TABLES[0] - 1];
    for (size_t d = 0; d + 1 < sizeof TABLES / sizeof TABLES[0]; d++)
        if (!strcmp(resource, TABLES[d].resource)) def = &TABLES[d];
    int kind = def->kind;
    json_t *cols = json_array();
    for (const col_def *c = def->cols; c->name; c++)
        json_array_append_new(cols, col(c->name, c->type, c->format, c->priority, c->desc));
    json_t *rows = json_array();
    size_t i;
    json_t *o;
    json_array_foreach((json_t *)items, i, o)
    {
        json_t *cells;
        char age[32];
        human_age(o, age, sizeof age);
        if (kind == 1)
            cells = pod_cells(o);
        else if (kind == 2)
            cells = service_cells(o);
        else if (kind == 3)
            cells = json_pack("[s,I,s]", str(o, "metadata", "name"),
                              (json_int_t)(json_object_size(json_object_get(o, "data")) +
                                           json_object_size(json_object_get(o, "binaryData"))),
                              age);
        else if (kind == 5)
            cells = node_cells(o, age);
        else if (kind == 6)
            cells = event_cells(o);
        else if (kind == 7)
            cells = json_pack("[s,s,I,s]", str(o, "metadata", "name"),
                              str(o, "type", NULL) ? str(o, "type", NULL) : "Opaque",
                              (json_int_t)json_object_size(json_object_get(o, "data")), age);
        else if (kind == 4)
            cells =
                json_pack("[s,s,s]", str(o, "metadata", "name"),
                          str(o, "status", "phase") ? str(o, "status", "phase") : "Active", age);
        else
            cells = json_pack("[s,s]", str(o, "metadata", "name") ? str(o, "metadata", "name") : "",
                              age);
        json_t *row = json_pack("{s:o}", "cells", cells);
        if (include && !strcmp(include, "Object"))
            json_object_set(row, "object", o);
        else if (!include || strcmp(include, "None"))
            json_object_set_new(row, "object",
                                json_pack("{s:s,s:s,s:O}", "kind", "PartialObjectMetadata",
                                          "apiVersion", "meta.k8s.io/v1", "metadata",
                                          json_object_get(o, "metadata")));
        json_array_append_new(rows, row);
    }
    json_t *meta = json_pack("{s:s}", "resourceVersion", rv ? rv : "");
    if (cont && *cont) json_object_set_new(meta, "continue", json_string(cont));
    json_t *t = json_pack("{s:s,s:s,s:o,s:o}", "kind", "Table", "apiVersion", "meta.k8s.io/v1",
                          "metadata", meta, "rows", rows);
    if (with_columns)
        json_object_set_new(t, "columnDefinitions", cols);
    else {
        json_object_set_new(t, "columnDefinitions", json_array());
        json_decref(cols);
    }
    return t;
}
