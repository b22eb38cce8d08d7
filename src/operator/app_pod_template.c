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

/* Adds the volume of spec.volumes named name to vols unless it is there already. */
static int add_named_volume(json_t *vols, const json_t *spec_vols, const char *name,
                            const char *role, size_t i, cs_error *err)
{
    size_t k;
    json_t *v;
    json_array_foreach(vols, k, v)
    {
        if (!strcmp(str_at(v, "name"), name)) return 0;
    }
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

static bool is_set(const json_t *v)
{
    return v && !json_is_null(v) && !(json_is_array(v) && !json_array_size(v)) &&
           !(json_is_object(v) && !json_object_size(v));
}

int cs_operator_pod_template(const json_t *spec, const char *role, json_t **out, cs_error *err)
{
    *out = NULL;
    const json_t *pod = json_object_get(spec, role);
    const json_t *spec_vols = json_object_get(spec, "volumes");
    json_t *vols = json_array(), *mounts = json_array(), *env = json_array();
    json_t *container = json_object(), *pspec = json_object();
    int rc = 0;
    const json_t *vm = json_object_get(pod, "volumeMounts");
    for (size_t i = 0; i < json_array_size(vm); i++) {
        const json_t *m = json_array_get(vm, i);
        const char *name = str_at(m, "name"), *path = str_at(m, "mountPath");
        if (!name || !path) {
            rc = bad_field(err, role, "volumeMounts", i, "a name and a mountPath");
            goto out;
        }
        if ((rc = add_named_volume(vols, spec_vols, name, role, i, err)) < 0) goto out;
        json_array_append(mounts, (json_t *)m);
    }
    if ((rc = add_named_mounts(pod, role, "configMaps", vols, mounts, env, err)) < 0 ||
        (rc = add_named_mounts(pod, role, "secrets", vols, mounts, env, err)) < 0)
        goto out;
    const json_t *penv = json_object_get(pod, "env");
    for (size_t i = 0; i < json_array_size(penv); i++) {
        const json_t *e = json_array_get(penv, i);
        if (!json_object_get(e, "valueFrom")) continue; /* plain values are Spark keys */
        if (!str_at(e, "name")) {
            rc = bad_field(err, role, "env", i, "a name");
            goto out;
        }
        json_array_append(env, (json_t *)e);
    }
    if (json_array_size(vols)) json_object_set(pspec, "volumes", vols);
    if (json_array_size(mounts)) json_object_set(container, "volumeMounts", mounts);
    if (json_array_size(env)) json_object_set(container, "env", env);
    const json_t *env_from = json_object_get(pod, "envFrom");
    if (is_set(env_from)) json_object_set(container, "envFrom", (json_t *)env_from);
    static const char *const pod_level[] = {"affinity", "tolerations"};
    for (size_t i = 0; i < sizeof pod_level / sizeof pod_level[0]; i++) {
        const json_t *v = json_object_get(pod, pod_level[i]);
        if (is_set(v)) json_object_set(pspec, pod_level[i], (json_t *)v);
    }
    if (!json_object_size(pspec) && !json_object_size(container)) goto out;
    json_object_set_new(pspec, "containers", json_pack("[O]", container));
    *out = json_pack("{s:s, s:s, s:O}", "apiVersion", "v1", "kind", "Pod", "spec", pspec);
out:
    json_decref(vols);
    json_decref(mounts);
    json_decref(env);
    json_decref(container);
    json_decref(pspec);
    return rc;
}
