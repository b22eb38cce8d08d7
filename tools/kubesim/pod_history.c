/* kubesim pod history: per pod uid, when it was created, bound to which node, every phase change
 * with its time, how each container terminated, when deletion was requested and when the pod was
 * gone; kept after the pod is deleted. Served as GET /kubesim/pod-history for tests and
 * benchmarks. Recorded under the store lock by store.c and store_delete.c. */
#include "store_int.h"
#include "util.h"

#include <string.h>

int ks_pod_has_terminated_container(const json_t *pod)
{
    const json_t *cs = json_object_get(json_object_get(pod, "status"), "containerStatuses");
    for (size_t i = 0; i < json_array_size(cs); i++)
        if (json_object_get(json_object_get(json_array_get(cs, i), "state"), "terminated"))
            return 1;
    return 0;
}

void ks_pod_history_note(ks_store *s, const json_t *pod, const char *what)
{
    const char *uid = ks_meta_str(pod, "uid");
    if (!uid) return;
    json_t *rec = json_object_get(s->pod_history, uid);
    int64_t now = ks_now_ms();
    if (!rec) {
        rec = json_pack("{s:s?,s:s?,s:s,s:I,s:[]}", "namespace", ks_meta_str(pod, "namespace"),
                        "name", ks_meta_str(pod, "name"), "uid", uid, "createdMs", (json_int_t)now,
                        "phases");
        json_object_set_new(s->pod_history, uid, rec);
    }
    if (!strcmp(what, "phase")) {
        const char *ph = ks_pod_phase(pod);
        json_t *phases = json_object_get(rec, "phases");
        size_t n = json_array_size(phases);
        const char *last =
            n ? json_string_value(json_object_get(json_array_get(phases, n - 1), "phase")) : NULL;
        if (ph && (!last || strcmp(last, ph)))
            json_array_append_new(phases,
                                  json_pack("{s:s,s:I}", "phase", ph, "timeMs", (json_int_t)now));
        const char *node =
            json_string_value(json_object_get(json_object_get(pod, "spec"), "nodeName"));
        if (node && !json_object_get(rec, "nodeName"))
            json_object_set_new(rec, "nodeName", json_string(node));
        /* how each container ended (kept after the pod is gone: a deleted pod has no status) */
        const json_t *cs = json_object_get(json_object_get(pod, "status"), "containerStatuses");
        for (size_t i = 0; i < json_array_size(cs); i++) {
            const json_t *c = json_array_get(cs, i);
            const json_t *t = json_object_get(json_object_get(c, "state"), "terminated");
            const char *name = json_string_value(json_object_get(c, "name"));
            if (!t || !name) continue;
            json_t *codes = json_object_get(rec, "exitCodes");
            if (!codes) {
                codes = json_object();
                json_object_set_new(rec, "exitCodes", codes);
            }
            json_object_set_new(codes, name,
                                json_integer(json_integer_value(json_object_get(t, "exitCode"))));
        }
    } else if (!strcmp(what, "deleting")) {
        if (!json_object_get(rec, "deletionRequestedMs"))
            json_object_set_new(rec, "deletionRequestedMs", json_integer(now));
    } else if (!strcmp(what, "deleted")) {
        json_object_set_new(rec, "deletedMs", json_integer(now));
    }
}

json_t *ks_store_pod_history(ks_store *s)
{
    pthread_mutex_lock(&s->mu);
    json_t *arr = json_array();
    const char *k;
    json_t *v;
    json_object_foreach(s->pod_history, k, v) json_array_append_new(arr, json_deep_copy(v));
    pthread_mutex_unlock(&s->mu);
    return json_pack("{s:o}", "pods", arr);
}
