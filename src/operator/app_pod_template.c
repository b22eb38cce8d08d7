/* app_pod_template.c — see app_pod_template.h: one role's pod template from the spec. */
#include "operator/app_pod_template.h"

#include <stdio.h>
#include <string.h>

static const char *str_at(const json_t *obj, const char *key)
{
    return json_string_value(json_object_get(obj, key));
}

static int bad_field(cs_error *err, const char *role, const char *field, size_t i,
                     const char *expected)
{
    return cs_error_set(err, CS_EINVAL, "spec.%s.%s[%zu]: expected %s", role, field, i, expected);
}

static bool is_set(const json_t *v)
{
    return v && !json_is_null(v) && !(json_is_array(v) && !json_array_size(v)) &&
           !(json_is_object(v) && !json_object_size(v));
}

/* The array obj[key], created empty when absent. */
static json_t *child_array(json_t *obj, const char *key)
{
    json_t *a = json_object_get(obj, key);
    if (!json_is_array(a)) {
        a = json_array();
        json_object_set_new(obj, key, a);
    }
    return a;
}

static json_t *child_object(json_t *obj, const char *key)
{
    json_t *o = json_object_get(obj, key);
    if (!json_is_object(o)) {
        o = json_object();
        json_object_set_new(obj, key, o);
    }
    return o;
}

/* Whether arr holds an object whose "name" is name. */
static bool has_named(const json_t *arr, const char *name)
{
    size_t k;
    json_t *v;
    json_array_foreach((json_t *)arr, k, v)
    {
        const char *n = str_at(v, "name");
        if (n && !strcmp(n, name)) return true;
    }
    return false;
}

/* Adds the volume of spec.volumes named name to vols unless it is there already. */
static int add_named_volume(json_t *vols, const json_t *spec_vols, const char *name,
                            const char *role, size_t i, cs_error *err)
{
    if (has_named(vols, name)) return 0;
    size_t k;
    json_t *v;
    json_array_foreach((json_t *)spec_vols, k, v)
    {
        const char *n = str_at(v, "name");
        if (n && !strcmp(n, name)) return json_array_append(vols, v);
    }
    return cs_error_set(err, CS_EINVAL,
                        "spec.%s.volumeMounts[%zu]: volume '%s' is not in spec.volumes", role, i,
                        name);
}

/* configMaps / secrets ({name, path}) as volumes "<field>-<name>" and their mounts. */
static int add_named_mounts(const json_t *pod, const char *role, const char *field, json_t *vols,
                            json_t *mounts, json_t *env, cs_error *err)
{
    const json_t *list = json_object_get(pod, field);
    bool secrets = !strcmp(field, "secrets");
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *e = json_array_get(list, i);
        const char *name = str_at(e, "name"), *path = str_at(e, "path");
        if (!name || !*name || !path || *path != '/')
            return bad_field(err, role, field, i, "a name and an absolute path");
        char vname[320];
        snprintf(vname, sizeof vname, "%s-%s", secrets ? "secret" : "configmap", name);
        json_t *src =
            secrets ? json_pack("{s:s}", "secretName", name) : json_pack("{s:s}", "name", name);
        json_array_append_new(
            vols, json_pack("{s:s, s:o}", "name", vname, secrets ? "secret" : "configMap", src));
        json_array_append_new(mounts, json_pack("{s:s, s:s}", "name", vname, "mountPath", path));
        const char *type = secrets ? str_at(e, "secretType") : NULL;
        const char *var = NULL, *file = NULL;
        if (type && !strcmp(type, "GCPServiceAccount")) {
            var = "GOOGLE_APPLICATION_CREDENTIALS";
            file = "key.json";
        } else if (type && !strcmp(type, "HadoopDelegationToken")) {
            var = "HADOOP_TOKEN_FILE_LOCATION";
            file = "hadoop.token";
        }
        if (var) {
            char value[1100];
            snprintf(value, sizeof value, "%s/%s", path, file);
            json_array_append_new(env, json_pack("{s:s, s:s}", "name", var, "value", value));
        }
    }
    return 0;
}

/* The pod the template starts from: <role>.template (metadata and spec of a pod) when set, with
 * its Spark container (the one named spark-kubernetes-<role>, else the first) named so and put
 * first; else an empty pod whose one container is the Spark container. *container is that
 * container (borrowed from the pod). */
static int base_pod(const json_t *pod, const char *role, json_t **out, json_t **container,
                    cs_error *err)
{
    char cname[64];
    snprintf(cname, sizeof cname, "spark-kubernetes-%s", role);
    const json_t *t = json_object_get(pod, "template");
    json_t *p = json_pack("{s:s, s:s}", "apiVersion", "v1", "kind", "Pod");
    if (is_set(t)) {
        const json_t *meta = json_object_get(t, "metadata"), *spec = json_object_get(t, "spec");
        if (!json_is_object(t) || (meta && !json_is_object(meta)) ||
            (spec && !json_is_object(spec))) {
            json_decref(p);
            return cs_error_set(err, CS_EINVAL,
                                "spec.%s.template: expected a pod template (metadata and spec)",
                                role);
        }
        if (meta) json_object_set_new(p, "metadata", json_deep_copy(meta));
        if (spec) json_object_set_new(p, "spec", json_deep_copy(spec));
    }
    json_t *containers = child_array(child_object(p, "spec"), "containers");
    size_t chosen = 0, i;
    json_t *c;
    json_array_foreach(containers, i, c)
    {
        const char *n = str_at(c, "name");
        if (n && !strcmp(n, cname)) chosen = i;
    }
    if (!json_array_size(containers)) json_array_append_new(containers, json_object());
    c = json_incref(json_array_get(containers, chosen));
    if (!json_is_object(c)) {
        json_decref(c);
        json_decref(p);
        return bad_field(err, role, "template.spec.containers", chosen, "a container");
    }
    json_array_remove(containers, chosen);
    json_array_insert_new(containers, 0, c);
    json_object_set_new(c, "name", json_string(cname));
    *out = p;
    *container = c;
    return 0;
}

/* Appends each element of <role>.field (objects with a name and, for containers, an image) to
 * the array dst[key], checking the shape. */
static int append_named(const json_t *pod, const char *role, const char *field, json_t *dst,
                        const char *key, bool containers, cs_error *err)
{
    const json_t *list = json_object_get(pod, field);
    if (!is_set(list)) return 0;
    if (!json_is_array(list))
        return cs_error_set(err, CS_EINVAL, "spec.%s.%s: expected a list", role, field);
    json_t *arr = child_array(dst, key);
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *e = json_array_get(list, i);
        const char *name = str_at(e, "name");
        if (containers && (!name || !*name || !str_at(e, "image")))
            return bad_field(err, role, field, i, "a container with a name and an image");
        if (containers && (has_named(arr, name) || !strncmp(name, "spark-kubernetes-", 17)))
            return bad_field(err, role, field, i, "a container name of its own");
        if (!containers && !json_is_object(e)) return bad_field(err, role, field, i, "an object");
        json_array_append_new(arr, json_deep_copy(e));
    }
    return 0;
}

/* gpu {name, quantity} -> the Spark container's resources.limits[name] = quantity. */
static int add_gpu(const json_t *pod, const char *role, json_t *container, cs_error *err)
{
    const json_t *gpu = json_object_get(pod, "gpu");
    if (!is_set(gpu)) return 0;
    const char *name = str_at(gpu, "name");
    const json_t *q = json_object_get(gpu, "quantity");
    if (!name || !*name || !strchr(name, '/') || !json_is_integer(q) || json_integer_value(q) <= 0)
        return cs_error_set(err, CS_EINVAL,
                            "spec.%s.gpu: expected a resource name (e.g. nvidia.com/gpu) and a "
                            "positive quantity",
                            role);
    json_t *limits = child_object(child_object(container, "resources"), "limits");
    json_object_set_new(limits, name, json_integer(json_integer_value(q)));
    return 0;
}

/* The pod-level fields: set (objects and scalars) or appended (lists). */
static int add_pod_fields(const json_t *spec, const json_t *pod, const char *role, json_t *pspec,
                          cs_error *err)
{
    static const struct {
        const char *field, *key;
    } set[] = {{"affinity", "affinity"},
               {"podSecurityContext", "securityContext"},
               {"dnsConfig", "dnsConfig"},
               {"priorityClassName", "priorityClassName"}};
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
        const json_t *v = json_object_get(pod, set[i].field);
        if (is_set(v)) json_object_set_new(pspec, set[i].key, json_deep_copy(v));
    }
    /* Kubeflow's pods take the priority class of batchSchedulerOptions when the role has none */
    const char *prio = str_at(json_object_get(spec, "batchSchedulerOptions"), "priorityClassName");
    if (prio && *prio && !json_object_get(pspec, "priorityClassName"))
        json_object_set_new(pspec, "priorityClassName", json_string(prio));
    const json_t *grace = json_object_get(pod, "terminationGracePeriodSeconds");
    if (grace && !json_is_null(grace)) {
        if (!json_is_integer(grace) || json_integer_value(grace) < 0)
            return cs_error_set(err, CS_EINVAL,
                                "spec.%s.terminationGracePeriodSeconds: expected a number of "
                                "seconds (0 or more)",
                                role);
        json_object_set_new(pspec, "terminationGracePeriodSeconds",
                            json_integer(json_integer_value(grace)));
    }
    if (json_is_true(json_object_get(pod, "hostNetwork"))) {
        /* as Kubeflow: the pod keeps cluster DNS on the host's network */
        json_object_set_new(pspec, "hostNetwork", json_true());
        json_object_set_new(pspec, "dnsPolicy", json_string("ClusterFirstWithHostNet"));
    }
    if (json_is_true(json_object_get(pod, "shareProcessNamespace")))
        json_object_set_new(pspec, "shareProcessNamespace", json_true());
    int rc;
    if ((rc = append_named(pod, role, "tolerations", pspec, "tolerations", false, err)) < 0 ||
        (rc = append_named(pod, role, "hostAliases", pspec, "hostAliases", false, err)) < 0 ||
        (rc = append_named(pod, role, "initContainers", pspec, "initContainers", true, err)) < 0 ||
        (rc = append_named(pod, role, "sidecars", pspec, "containers", true, err)) < 0)
        return rc;
    return 0;
}

/* The Spark container's fields: mounts, env from references, envFrom, ports, security context,
 * lifecycle, the GPU limit. */
static int add_container_fields(const json_t *spec, const json_t *pod, const char *role,
                                json_t *pspec, json_t *c, cs_error *err)
{
    const json_t *spec_vols = json_object_get(spec, "volumes");
    json_t *vols = child_array(pspec, "volumes"), *mounts = child_array(c, "volumeMounts");
    json_t *env = child_array(c, "env");
    int rc;
    const json_t *vm = json_object_get(pod, "volumeMounts");
    for (size_t i = 0; i < json_array_size(vm); i++) {
        const json_t *m = json_array_get(vm, i);
        const char *name = str_at(m, "name"), *path = str_at(m, "mountPath");
        if (!name || !path)
            return bad_field(err, role, "volumeMounts", i, "a name and a mountPath");
        if ((rc = add_named_volume(vols, spec_vols, name, role, i, err)) < 0) return rc;
        json_array_append(mounts, (json_t *)m);
    }
    if ((rc = add_named_mounts(pod, role, "configMaps", vols, mounts, env, err)) < 0 ||
        (rc = add_named_mounts(pod, role, "secrets", vols, mounts, env, err)) < 0)
        return rc;
    const json_t *penv = json_object_get(pod, "env");
    for (size_t i = 0; i < json_array_size(penv); i++) {
        const json_t *e = json_array_get(penv, i);
        if (!json_object_get(e, "valueFrom")) continue; /* plain values are Spark keys */
        if (!str_at(e, "name")) return bad_field(err, role, "env", i, "a name");
        json_array_append(env, (json_t *)e);
    }
    if ((rc = append_named(pod, role, "envFrom", c, "envFrom", false, err)) < 0) return rc;
    const json_t *ports = json_object_get(pod, "ports");
    for (size_t i = 0; i < json_array_size(ports); i++) {
        const json_t *p = json_array_get(ports, i);
        const json_t *n = json_object_get(p, "containerPort");
        if (!json_is_integer(n) || json_integer_value(n) < 1 || json_integer_value(n) > 65535)
            return bad_field(err, role, "ports", i, "a containerPort between 1 and 65535");
        json_array_append_new(child_array(c, "ports"), json_deep_copy(p));
    }
    static const char *const set[] = {"securityContext", "lifecycle"};
    for (size_t i = 0; i < sizeof set / sizeof set[0]; i++) {
        const json_t *v = json_object_get(pod, set[i]);
        if (is_set(v)) json_object_set_new(c, set[i], json_deep_copy(v));
    }
    return add_gpu(pod, role, c, err);
}

/* Drops the empty lists and objects the steps above made, so that an unused field is absent. */
static void drop_empty(json_t *obj)
{
    const char *k;
    json_t *v;
    void *tmp;
    json_object_foreach_safe(obj, tmp, k, v)
    {
        if ((json_is_array(v) && !json_array_size(v)) ||
            (json_is_object(v) && !json_object_size(v)))
            json_object_del(obj, k);
    }
}

int cs_operator_pod_template(const json_t *spec, const char *role, json_t **out, cs_error *err)
{
    *out = NULL;
    const json_t *pod = json_object_get(spec, role);
    json_t *tpl = NULL, *container = NULL;
    int rc = base_pod(pod, role, &tpl, &container, err);
    if (rc < 0) return rc;
    json_t *pspec = child_object(tpl, "spec");
    if ((rc = add_pod_fields(spec, pod, role, pspec, err)) < 0 ||
        (rc = add_container_fields(spec, pod, role, pspec, container, err)) < 0) {
        json_decref(tpl);
        return rc;
    }
    drop_empty(container);
    drop_empty(pspec);
    /* only the container's name and the one-element list: nothing for the template to say */
    bool empty = json_object_size(pspec) == 1 &&
                 json_array_size(json_object_get(pspec, "containers")) == 1 &&
                 json_object_size(container) == 1 && !json_object_get(tpl, "metadata");
    if (empty)
        json_decref(tpl);
    else
        *out = tpl;
    return 0;
}
