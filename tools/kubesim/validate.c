/* kubesim validation (see validate.h). Message texts are those of
 * k8s.io/apimachinery/pkg/util/validation and pkg/apis/core/validation. */
#include "validate.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define DNS1123_SUBDOMAIN_MSG                                                                      \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "   \
    "'.', and must "                                                                               \
    "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation " \
    "is "                                                                                          \
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
#define DNS1123_LABEL_MSG                                                                          \
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and "   \
    "must start and "                                                                              \
    "end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for "           \
    "validation is "                                                                               \
    "'[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define DNS1035_LABEL_MSG                                                                          \
    "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "   \
    "alphabetic "                                                                                  \
    "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex "     \
    "used for "                                                                                    \
    "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
#define LABEL_VALUE_MSG                                                                            \
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or "    \
    "'.', and must "                                                                               \
    "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', "  \
    "regex used "                                                                                  \
    "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"

typedef struct vctx {
    json_t *causes;
} vctx;

static void add_cause(vctx *v, const char *reason, const char *field, const char *fmt,
                      const char *a, const char *b)
{
    char msg[1024];
    snprintf(msg, sizeof msg, fmt, a ? a : "", b ? b : "");
    json_array_append_new(
        v->causes, json_pack("{s:s,s:s,s:s}", "reason", reason, "message", msg, "field", field));
}

static int is_alnum_lower(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? of at most max characters */
static int dns1123_part(const char *s, size_t max)
{
    size_t n = strlen(s);
    if (n == 0 || n > max || !is_alnum_lower(s[0]) || !is_alnum_lower(s[n - 1])) return 0;
    for (size_t i = 0; i < n; i++)
        if (!is_alnum_lower(s[i]) && s[i] != '-') return 0;
    return 1;
}

static int dns1123_label(const char *s)
{
    return dns1123_part(s, 63);
}

static int dns1123_subdomain(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 253) return 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL;
    if (s[0] == '.' || s[n - 1] == '.' || strstr(s, "..")) return 0;
    /* as apimachinery's IsDNS1123Subdomain: the pattern per part, only the total is bounded */
    for (char *t = strtok_r(buf, ".", &save); t; t = strtok_r(NULL, ".", &save))
        if (!dns1123_part(t, 253)) return 0;
    return 1;
}

static int dns1035_label(const char *s)
{
    return dns1123_label(s) && s[0] >= 'a' && s[0] <= 'z';
}

static int label_value_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0) return 1;
    if (n > 63 || !isalnum((unsigned char)s[0]) || !isalnum((unsigned char)s[n - 1])) return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.') return 0;
    return 1;
}

static int label_key_ok(const char *k)
{
    const char *slash = strchr(k, '/');
    const char *name = slash ? slash + 1 : k;
    if (slash) {
        char prefix[256];
        size_t pl = (size_t)(slash - k);
        if (pl >= sizeof prefix) return 0;
        memcpy(prefix, k, pl);
        prefix[pl] = 0;
        if (!dns1123_subdomain(prefix)) return 0;
    }
    return *name && label_value_ok(name);
}

static void check_name(vctx *v, const char *resource, const char *name)
{
    char quoted[300];
    snprintf(quoted, sizeof quoted, "%.280s", name);
    if (!strcmp(resource, "services")) {
        if (!dns1035_label(name))
            add_cause(v, "FieldValueInvalid", "metadata.name", "Invalid value: \"%s\": %s", quoted,
                      DNS1035_LABEL_MSG);
    } else if (!strcmp(resource, "namespaces")) {
        if (!dns1123_label(name))
            add_cause(v, "FieldValueInvalid", "metadata.name", "Invalid value: \"%s\": %s", quoted,
                      DNS1123_LABEL_MSG);
    } else if (!strcmp(resource, "configmaps") || !strcmp(resource, "secrets")) {
        /* ConfigMap and Secret names are DNS subdomains too */
        if (!dns1123_subdomain(name))
            add_cause(v, "FieldValueInvalid", "metadata.name", "Invalid value: \"%s\": %s", quoted,
                      DNS1123_SUBDOMAIN_MSG);
    } else if (!strcmp(resource, "events")) {
        if (!*name)
            add_cause(v, "FieldValueRequired", "metadata.name", "Required value", NULL, NULL);
    } else if (!dns1123_subdomain(name)) {
        add_cause(v, "FieldValueInvalid", "metadata.name", "Invalid value: \"%s\": %s", quoted,
                  DNS1123_SUBDOMAIN_MSG);
    }
}

static void check_pod(vctx *v, const json_t *obj)
{
    json_t *spec = json_object_get(obj, "spec");
    json_t *cs = json_object_get(spec, "containers");
    if (!json_is_array(cs) || json_array_size(cs) == 0) {
        add_cause(v, "FieldValueRequired", "spec.containers", "Required value", NULL, NULL);
        return;
    }
    size_t i;
    json_t *c;
    json_array_foreach(cs, i, c)
    {
        char field[64];
        const char *name = json_string_value(json_object_get(c, "name"));
        const char *image = json_string_value(json_object_get(c, "image"));
        if (!name || !*name) {
            snprintf(field, sizeof field, "spec.containers[%zu].name", i);
            add_cause(v, "FieldValueRequired", field, "Required value", NULL, NULL);
        } else if (!dns1123_label(name)) {
            snprintf(field, sizeof field, "spec.containers[%zu].name", i);
            add_cause(v, "FieldValueInvalid", field, "Invalid value: \"%s\": %s", name,
                      DNS1123_LABEL_MSG);
        }
        if (!image || !*image) {
            snprintf(field, sizeof field, "spec.containers[%zu].image", i);
            add_cause(v, "FieldValueRequired", field, "Required value", NULL, NULL);
        }
        for (size_t j = 0; name && *name && j < i; j++) {
            const char *other = json_string_value(json_object_get(json_array_get(cs, j), "name"));
            if (other && !strcmp(other, name)) {
                snprintf(field, sizeof field, "spec.containers[%zu].name", i);
                add_cause(v, "FieldValueDuplicate", field, "Duplicate value: \"%s\"%s", name, "");
                break;
            }
        }
    }
    const char *rp = json_string_value(json_object_get(spec, "restartPolicy"));
    if (rp && strcmp(rp, "Always") && strcmp(rp, "OnFailure") && strcmp(rp, "Never"))
        add_cause(
            v, "FieldValueNotSupported", "spec.restartPolicy",
            "Unsupported value: \"%s\": supported values: \"Always\", \"OnFailure\", \"Never\"", rp,
            NULL);
}

static void check_service(vctx *v, const json_t *obj)
{
    json_t *spec = json_object_get(obj, "spec");
    const char *ip = json_string_value(json_object_get(spec, "clusterIP"));
    const char *type = json_string_value(json_object_get(spec, "type"));
    json_t *ports = json_object_get(spec, "ports");
    int headless = ip && !strcmp(ip, "None");
    if (type && strcmp(type, "ClusterIP") && strcmp(type, "NodePort") &&
        strcmp(type, "LoadBalancer") && strcmp(type, "ExternalName"))
        add_cause(v, "FieldValueNotSupported", "spec.type",
                  "Unsupported value: \"%s\": supported values: \"ClusterIP\", \"ExternalName\", "
                  "\"LoadBalancer\", \"NodePort\"%s",
                  type, "");
    if (json_array_size(ports) == 0 && !headless && !(type && !strcmp(type, "ExternalName")))
        add_cause(v, "FieldValueRequired", "spec.ports", "Required value", NULL, NULL);
    size_t i;
    json_t *p;
    json_array_foreach(ports, i, p)
    {
        json_t *port = json_object_get(p, "port");
        char field[64], val[32];
        snprintf(field, sizeof field, "spec.ports[%zu].port", i);
        if (!json_is_integer(port) || json_integer_value(port) < 1 ||
            json_integer_value(port) > 65535) {
            snprintf(val, sizeof val, "%lld",
                     json_is_integer(port) ? (long long)json_integer_value(port) : 0LL);
            add_cause(v, "FieldValueInvalid", field,
                      "Invalid value: %s: must be between 1 and 65535, inclusive%s", val, "");
        }
    }
}

static int config_key_ok(const char *k)
{
    if (!*k || strlen(k) > 253 || !strcmp(k, ".") || !strcmp(k, "..")) return 0;
    for (const char *p = k; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '-' && *p != '_' && *p != '.') return 0;
    return 1;
}

/* ConfigMap data/binaryData and Secret data/stringData keys. */
static void check_keys(vctx *v, const json_t *obj, const char *field)
{
    const char *k;
    json_t *val;
    json_object_foreach(json_object_get(obj, field), k, val)
    {
        if (!config_key_ok(k)) {
            char f[300];
            snprintf(f, sizeof f, "%s[%.250s]", field, k);
            add_cause(v, "FieldValueInvalid", f,
                      "Invalid value: \"%s\": a valid config key must consist of alphanumeric "
                      "characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or "
                      "'key-name', regex used for validation is '[-._a-zA-Z0-9]+')%s",
                      k, "");
        }
    }
}

int ks_validate(const char *resource, const json_t *obj, int create, ks_err *err)
{
    vctx v = {json_array()};
    const char *kind = "Object";
    ks_resource_info(resource, &kind, NULL);
    json_t *meta = json_object_get(obj, "metadata");
    const char *name = json_string_value(json_object_get(meta, "name"));
    const char *gen = json_string_value(json_object_get(meta, "generateName"));
    if (name && *name)
        check_name(&v, resource, name);
    else if (!(create && gen && *gen))
        add_cause(&v, "FieldValueRequired", "metadata.name",
                  "Required value: name or generateName is required", NULL, NULL);
    json_t *labels = json_object_get(meta, "labels");
    const char *k;
    json_t *val;
    json_object_foreach(labels, k, val)
    {
        char field[400];
        snprintf(field, sizeof field, "metadata.labels");
        if (!label_key_ok(k))
            add_cause(&v, "FieldValueInvalid", field,
                      "Invalid value: \"%s\": name part must consist of "
                      "alphanumeric characters, '-', '_' or '.', and must start and end with an "
                      "alphanumeric "
                      "character%s",
                      k, "");
        else if (!json_is_string(val) || !label_value_ok(json_string_value(val)))
            add_cause(&v, "FieldValueInvalid", field, "Invalid value: \"%s\": %s",
                      json_is_string(val) ? json_string_value(val) : "", LABEL_VALUE_MSG);
    }
    if (!strcmp(resource, "pods")) check_pod(&v, obj);
    if (!strcmp(resource, "services")) check_service(&v, obj);
    if (!strcmp(resource, "configmaps") || !strcmp(resource, "secrets")) {
        check_keys(&v, obj, "data");
        check_keys(&v, obj, !strcmp(resource, "configmaps") ? "binaryData" : "stringData");
    }
    if (!strcmp(resource, "configmaps")) {
        json_t *data = json_object_get(obj, "data");
        json_object_foreach(data, k, val) if (!json_is_string(val))
            add_cause(&v, "FieldValueInvalid", "data",
                      "Invalid value: \"%s\": must be a "
                      "string%s",
                      k, "");
    }
    size_t n = json_array_size(v.causes);
    if (n == 0) {
        json_decref(v.causes);
        return 0;
    }
    if (err) {
        err->code = 422;
        snprintf(err->reason, sizeof err->reason, "Invalid");
        char joined[900] = "";
        size_t off = 0;
        size_t i;
        json_t *c;
        json_array_foreach(v.causes, i, c)
        {
            off += (size_t)snprintf(joined + off, off < sizeof joined ? sizeof joined - off : 0,
                                    "%s%s: %s", i ? ", " : "",
                                    json_string_value(json_object_get(c, "field")),
                                    json_string_value(json_object_get(c, "message")));
            if (off >= sizeof joined) break;
        }
        snprintf(err->message, sizeof err->message,
                 n > 1 ? "%s \"%s\" is invalid: [%s]" : "%s \"%s\" is invalid: %s", kind,
                 name ? name : (gen ? gen : ""), joined);
        err->causes = v.causes;
    } else {
        json_decref(v.causes);
    }
    return -EINVAL;
}
