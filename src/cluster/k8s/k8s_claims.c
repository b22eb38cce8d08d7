/*
 * k8s_claims.c — the executors' on-demand PersistentVolumeClaims (see k8s_claims.h): which claims
 * a new executor may reuse, the wait-to-reuse rule, and the claims created, owned and deleted
 * through the API server.
 */
#define _GNU_SOURCE
#include "cluster/k8s/k8s_claims.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/k8s/k8s_backend_internal.h"
#include "common/log.h"

/* ---- the choice (pure) ---------------------------------------------------------------------- */

static const char *claim_name(const json_t *pvc)
{
    return json_string_value(json_object_get(json_object_get(pvc, "metadata"), "name"));
}

bool cs_k8s_claim_held(const k8s_pod_table *t, const char *claim)
{
    for (int i = 0; i < t->npods; i++) {
        const k8s_exec_pod *p = &t->pods[i];
        if (p->released) continue;
        for (int k = 0; k < p->nclaims; k++)
            if (!strcmp(p->claims[k], claim)) return true;
    }
    return false;
}

json_t *cs_k8s_claims_reusable_new(const json_t *items, const k8s_pod_table *t)
{
    json_t *out = json_array();
    size_t i;
    const json_t *pvc;
    json_array_foreach(items, i, pvc)
    {
        const char *name = claim_name(pvc);
        if (!name || json_object_get(json_object_get(pvc, "metadata"), "deletionTimestamp") ||
            cs_k8s_claim_held(t, name))
            continue;
        json_array_append(out, (json_t *)pvc);
    }
    return out;
}

/* Same storage class (both absent, or equal) and the same size as quantities ("1Gi" = "1024Mi"). */
static bool same_kind(const json_t *a, const json_t *b)
{
    const json_t *sa = json_object_get(a, "spec"), *sb = json_object_get(b, "spec");
    const char *ca = json_string_value(json_object_get(sa, "storageClassName"));
    const char *cb = json_string_value(json_object_get(sb, "storageClassName"));
    if ((ca == NULL) != (cb == NULL) || (ca && strcmp(ca, cb))) return false;
    const char *za = json_string_value(
        json_object_get(json_object_get(json_object_get(sa, "resources"), "requests"), "storage"));
    const char *zb = json_string_value(
        json_object_get(json_object_get(json_object_get(sb, "resources"), "requests"), "storage"));
    long double va, vb;
    if (!za || !zb) return false;
    if (cs_k8s_parse_quantity(za, &va) && cs_k8s_parse_quantity(zb, &vb))
        return fabsl(va - vb) <= 1e-12L * fabsl(va); /* "0.1G" and "100M" alike */
    return !strcmp(za, zb);
}

/* The volume of pod whose claim is named claim, NULL when none. */
static json_t *volume_of(json_t *pod, const char *claim)
{
    size_t i;
    json_t *v;
    json_array_foreach(json_object_get(json_object_get(pod, "spec"), "volumes"), i, v)
    {
        json_t *src = json_object_get(v, "persistentVolumeClaim");
        const char *n = json_string_value(json_object_get(src, "claimName"));
        if (n && !strcmp(n, claim)) return src;
    }
    return NULL;
}

int cs_k8s_claims_reuse(json_t *pod, json_t *to_create, json_t *reusable)
{
    int reused = 0;
    for (size_t i = 0; i < json_array_size(to_create);) {
        const json_t *want = json_array_get(to_create, i);
        json_t *src = volume_of(pod, claim_name(want) ? claim_name(want) : "");
        size_t j = 0;
        while (src && j < json_array_size(reusable) &&
               !same_kind(json_array_get(reusable, j), want))
            j++;
        if (!src || j == json_array_size(reusable)) {
            i++;
            continue;
        }
        json_object_set_new(src, "claimName", json_string(claim_name(json_array_get(reusable, j))));
        json_array_remove(reusable, j);
        json_array_remove(to_create, i);
        reused++;
    }
    return reused;
}

bool cs_k8s_claims_reusing(const k8s_settings *s, bool driver_pod)
{
    return s->own_pvc && s->reuse_pvc && driver_pod;
}

bool cs_k8s_claims_must_wait(const k8s_settings *s, bool driver_pod, size_t reusable,
                             int64_t created)
{
    return cs_k8s_claims_reusing(s, driver_pod) && s->wait_to_reuse_pvc && reusable == 0 &&
           created >= s->max_pvcs;
}

/* ---- through the API server ----------------------------------------------------------------- */

static char *app_selector(const k8s_backend *b)
{
    char *sel = NULL;
    if (asprintf(&sel, "spark-app-selector=%s", b->app.app_id) < 0) abort();
    return sel;
}

json_t *cs_k8s_claims_list_new(k8s_backend *b)
{
    char *sel = app_selector(b);
    json_t *list = NULL;
    cs_error err;
    cs_error_clear(&err);
    int rc =
        cs_kube_list(b->kc, "persistentvolumeclaims", b->app.namespace_, sel, NULL, &list, &err);
    free(sel);
    if (rc < 0) {
        CS_INFO("k8s", "event=claims_list_failed action=create_new error=%s",
                cs_log_quote(err.msg));
        return json_array();
    }
    json_t *items = json_object_get(list, "items");
    items = json_is_array(items) ? json_incref(items) : json_array();
    json_decref(list);
    return items;
}

int cs_k8s_claims_create(k8s_backend *b, const json_t *exec_pod, const json_t *claims,
                         cs_error *err)
{
    const json_t *owner = b->set.own_pvc && b->driver_pod ? b->driver_pod : exec_pod;
    const char *owner_name =
        json_string_value(json_object_get(json_object_get(owner, "metadata"), "name"));
    size_t i;
    const json_t *c;
    json_array_foreach(claims, i, c)
    {
        json_t *pvc = json_deep_copy(c);
        int rc = cs_k8s_set_owner(pvc, owner, err);
        if (rc == 0)
            rc = cs_kube_create(b->kc, "persistentvolumeclaims", b->app.namespace_, pvc, NULL, err);
        json_decref(pvc);
        if (rc < 0 &&
            err->code == CS_EEXIST) { /* a retried create whose first attempt went through */
            cs_error_clear(err);
            rc = 0;
        }
        if (rc < 0) return rc;
        const json_t *spec = json_object_get(c, "spec");
        const char *sc = json_string_value(json_object_get(spec, "storageClassName"));
        CS_INFO("k8s", "event=claim_created claim=%s owner=%s storage_class=%s size=%s",
                cs_log_value(claim_name(c)), cs_log_value(owner_name ? owner_name : "?"),
                cs_log_value(sc ? sc : "(default)"),
                cs_log_value(json_string_value(json_object_get(
                    json_object_get(json_object_get(spec, "resources"), "requests"), "storage"))));
        pthread_mutex_lock(&b->lock);
        b->pvcs_created++;
        pthread_mutex_unlock(&b->lock);
    }
    return 0;
}

void cs_k8s_claims_delete_all(k8s_backend *b)
{
    if (!b->set.own_pvc || !b->on_demand_claims) return;
    char *sel = app_selector(b);
    cs_error err;
    cs_error_clear(&err);
    if (cs_kube_delete_collection(b->kc, "persistentvolumeclaims", b->app.namespace_, sel, -1,
                                  &err) < 0)
        CS_WARN("k8s", "event=cleanup_failed what=claims error=%s", cs_log_quote(err.msg));
    free(sel);
}
