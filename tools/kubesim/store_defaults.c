/* kubesim defaulting: the fields the API server fills when an object is stored (pod restart and DNS
 * policy, grace period, service account, container pull policy and termination message, status
 * Pending and QoS class; service type, cluster IP, port protocol and target port; namespace label,
 * finalizer and phase; PVC phase; secret type). Called under the store lock by store.c at create
 * and update (update keeps what the client omits, as the API server's defaulting does). */
#include "store_int.h"
#include "quantity.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

/* Sets o.key to v (stolen) unless o has key. */
static void set_default(json_t *o, const char *key, json_t *v)
{
    if (json_object_get(o, key))
        json_decref(v);
    else
        json_object_set_new(o, key, v);
}

/* The pod's QoS class as the API server computes it: Guaranteed when every container limits cpu
 * and memory with requests equal to limits, BestEffort when none requests or limits anything,
 * else Burstable. */
static const char *qos_class(const json_t *spec)
{
    static const char *lists[] = {"initContainers", "containers"};
    static const char *names[] = {"cpu", "memory"};
    int any = 0, guaranteed = 1;
    for (int l = 0; l < 2; l++) {
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(spec, lists[l]), i, c)
        {
            json_t *res = json_object_get(c, "resources");
            json_t *req = json_object_get(res, "requests"), *lim = json_object_get(res, "limits");
            any |= json_object_size(req) > 0 || json_object_size(lim) > 0;
            for (int n = 0; n < 2; n++) {
                const char *q = json_string_value(json_object_get(lim, names[n]));
                const char *r = json_string_value(json_object_get(req, names[n]));
                long long lv = q ? ks_quantity_scaled(q, 1000) : -1;
                if (lv <= 0 || (r && ks_quantity_scaled(r, 1000) != lv)) guaranteed = 0;
            }
        }
    }
    return !any ? "BestEffort" : guaranteed ? "Guaranteed" : "Burstable";
}

void ks_apply_defaults(ks_store *s, int res, json_t *obj)
{
    const char *r = KS_RESOURCES[res].resource;
    json_t *meta = json_object_get(obj, "metadata");
    if (!strcmp(r, "namespaces")) {
        json_t *labels = json_object_get(meta, "labels");
        if (!json_is_object(labels)) {
            labels = json_object();
            json_object_set_new(meta, "labels", labels);
        }
        json_object_set_new(labels, "kubernetes.io/metadata.name",
                            json_string(ks_meta_str(obj, "name")));
        json_object_set_new(obj, "spec", json_pack("{s:[s]}", "finalizers", "kubernetes"));
        json_object_set_new(obj, "status", json_pack("{s:s}", "phase", "Active"));
    } else if (!strcmp(r, "pods")) {
        json_t *spec = json_object_get(obj, "spec");
        if (!json_is_object(spec)) return;
        set_default(spec, "restartPolicy", json_string("Always"));
        json_t *tg = json_object_get(spec, "terminationGracePeriodSeconds");
        if (!tg)
            json_object_set_new(spec, "terminationGracePeriodSeconds", json_integer(30));
        else if (json_integer_value(tg) < 0) /* as the API server since 1.27: negative means 1 */
            json_object_set_new(spec, "terminationGracePeriodSeconds", json_integer(1));
        set_default(spec, "dnsPolicy", json_string("ClusterFirst"));
        set_default(spec, "schedulerName", json_string("default-scheduler"));
        set_default(spec, "serviceAccountName", json_string("default"));
        set_default(spec, "securityContext", json_object());
        size_t i;
        json_t *c;
        json_array_foreach(json_object_get(spec, "containers"), i, c)
        {
            if (!json_is_object(c)) continue;
            set_default(c, "terminationMessagePath", json_string("/dev/termination-log"));
            set_default(c, "terminationMessagePolicy", json_string("File"));
            set_default(c, "imagePullPolicy", json_string("IfNotPresent"));
            set_default(c, "resources", json_object());
        }
        json_t *st = json_object_get(obj, "status");
        if (!json_is_object(st)) {
            st = json_object();
            json_object_set_new(obj, "status", st);
        }
        if (!json_object_get(st, "phase")) json_object_set_new(st, "phase", json_string("Pending"));
        set_default(st, "qosClass", json_string(qos_class(spec)));
    } else if (!strcmp(r, "services")) {
        json_t *spec = json_object_get(obj, "spec");
        if (!json_is_object(spec)) {
            spec = json_object();
            json_object_set_new(obj, "spec", spec);
        }
        set_default(spec, "type", json_string("ClusterIP"));
        set_default(spec, "sessionAffinity", json_string("None"));
        if (!json_string_value(json_object_get(spec, "clusterIP")) ||
            !*json_string_value(json_object_get(spec, "clusterIP"))) {
            unsigned n = s->cluster_ip_next++;
            char ip[32];
            snprintf(ip, sizeof ip, "10.96.%u.%u", (n / 250) % 250, n % 250 + 1);
            json_object_set_new(spec, "clusterIP", json_string(ip));
        }
        set_default(spec, "clusterIPs", json_pack("[O]", json_object_get(spec, "clusterIP")));
        size_t i;
        json_t *p;
        json_array_foreach(json_object_get(spec, "ports"), i, p)
        {
            if (!json_is_object(p)) continue;
            set_default(p, "protocol", json_string("TCP"));
            if (!json_object_get(p, "targetPort") && json_object_get(p, "port"))
                json_object_set(p, "targetPort", json_object_get(p, "port"));
        }
        set_default(obj, "status", json_pack("{s:{}}", "loadBalancer"));
    } else if (!strcmp(r, "persistentvolumeclaims")) {
        set_default(obj, "status", json_pack("{s:s}", "phase", "Pending"));
    } else if (!strcmp(r, "secrets")) {
        if (!json_object_get(obj, "type")) json_object_set_new(obj, "type", json_string("Opaque"));
    }
}
