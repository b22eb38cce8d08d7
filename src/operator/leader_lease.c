/* leader_lease.c — see leader_lease.h. Times in the Lease are MicroTime (RFC 3339 with
 * microseconds, UTC). */
#define _GNU_SOURCE
#include "operator/leader_lease.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

void cs_operator_lease_init(op_lease *l, kube_client *kc, const char *ns, const char *name,
                            const char *identity, int duration_s)
{
    memset(l, 0, sizeof *l);
    l->kc = kc;
    snprintf(l->ns, sizeof l->ns, "%s", ns);
    snprintf(l->name, sizeof l->name, "%s", name);
    snprintf(l->identity, sizeof l->identity, "%s", identity);
    l->duration_s = duration_s;
}

static void micro_time(int64_t ms, char *buf, size_t cap)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    char head[32];
    strftime(head, sizeof head, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf, cap, "%s.%06dZ", head, (int)(ms % 1000) * 1000);
}

/* 0 when absent or unreadable (an unreadable renewTime counts as expired). */
static int64_t parse_time(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!s || !strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) return 0;
    return (int64_t)timegm(&tm) * 1000;
}

int cs_operator_lease_try(op_lease *l, int64_t now_ms, bool *held, cs_error *err)
{
    char now[64], path[512];
    micro_time(now_ms, now, sizeof now);
    *held = false;
    json_t *lease = NULL, *out = NULL;
    int rc = cs_kube_get(l->kc, "leases", l->ns, l->name, &lease, err);
    if (rc < 0 && err->kind == CS_KIND_NOT_FOUND) {
        json_t *fresh =
            json_pack("{s:s, s:s, s:{s:s}, s:{s:s, s:i, s:s, s:s, s:i}}", "apiVersion",
                      "coordination.k8s.io/v1", "kind", "Lease", "metadata", "name", l->name,
                      "spec", "holderIdentity", l->identity, "leaseDurationSeconds", l->duration_s,
                      "acquireTime", now, "renewTime", now, "leaseTransitions", 0);
        rc = cs_kube_create(l->kc, "leases", l->ns, fresh, NULL, err);
        json_decref(fresh);
        if (rc == 0) *held = true;
        if (rc < 0 && err->kind == CS_KIND_ALREADY_EXISTS) rc = 0; /* another one was faster */
        goto out;
    }
    if (rc < 0) goto out;
    json_t *spec = json_object_get(lease, "spec");
    if (!spec) json_object_set_new(lease, "spec", spec = json_object());
    const char *holder = json_string_value(json_object_get(spec, "holderIdentity"));
    bool mine = holder && strcmp(holder, l->identity) == 0;
    int64_t renewed = parse_time(json_string_value(json_object_get(spec, "renewTime")));
    json_int_t dur = json_integer_value(json_object_get(spec, "leaseDurationSeconds"));
    if (!mine && holder && *holder && renewed + (int64_t)dur * 1000 > now_ms) goto out;
    if (!mine) {
        json_object_set_new(spec, "holderIdentity", json_string(l->identity));
        json_object_set_new(spec, "acquireTime", json_string(now));
        json_object_set_new(
            spec, "leaseTransitions",
            json_integer(json_integer_value(json_object_get(spec, "leaseTransitions")) + 1));
    }
    json_object_set_new(spec, "leaseDurationSeconds", json_integer(l->duration_s));
    json_object_set_new(spec, "renewTime", json_string(now));
    /* PUT with the resourceVersion read: a concurrent change makes it a 409 Conflict */
    if ((rc = cs_kube_resource_path(l->kc, "leases", l->ns, l->name, path, sizeof path, err)) < 0)
        goto out;
    rc = cs_kube_request(l->kc, "update", "PUT", path, lease, NULL, &out, err);
    if (rc >= 0) {
        *held = true;
        rc = 0;
    } else if (err->kind == CS_KIND_CONFLICT) {
        rc = 0;
    }
out:
    json_decref(lease);
    json_decref(out);
    l->held = *held;
    return rc < 0 ? rc : 0;
}
