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

/* The API server's limit on all annotations of an object, keys and values together. */
#define KS_ANNOTATIONS_MAX 262144
#define KS_ANNOTATIONS_MAX_STR "262144"

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

#define QUALIFIED_NAME_MSG                                                                         \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "    \
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "         \
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

/* apimachinery's IsQualifiedName: one cause (Invalid value: "<shown>") per message, at field. */
static void check_qualified_name(vctx *v, const char *field, const char *k, const char *shown)
{
    const char *slash = strchr(k, '/');
    if (slash && strchr(slash + 1, '/')) {
        add_cause(v, "FieldValueInvalid", field, "Invalid value: \"%s\": %s", shown,
                  "a qualified name " QUALIFIED_NAME_MSG
                  " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')");
        return;
    }
    const char *name = slash ? slash + 1 : k;
    if (slash) {
        char prefix[300];
        size_t pl = (size_t)(slash - k);
        snprintf(prefix, sizeof prefix, "%.*s", (int)(pl < 299 ? pl : 299), k);
        if (pl == 0)
            add_cause(v, "FieldValueInvalid", field, "Invalid value: \"%s\": %s", shown,
                      "prefix part must be non-empty");
        else if (pl > 253)
            add_cause(v, "FieldValueInvalid", field, "Invalid value: \"%s\": %s", shown,
                      "prefix part must be no more than 253 characters");
        else if (!dns1123_subdomain(prefix))
            add_cause(v, "FieldValueInvalid", field, "Invalid value: \"%s\": %s", shown,
                      "prefix part " DNS1123_SUBDOMAIN_MSG);
    }
    if (!*name)
        add_cause(v, "FieldValueInvalid", field, "Invalid value: \"%s\": %s", shown,
                  "name part must be non-empty");
    else if (strlen(name) > 63)
        add_cause(v, "FieldValueInvalid", field, "Invalid value: \"%s\": %s", shown,
                  "name part must be no more than 63 characters");
    if (!label_value_ok(name) || !*name || strlen(name) > 63) {
        /* the pattern itself, whatever the length */
        size_t n = strlen(name);
        int ok = n > 0 && isalnum((unsigned char)name[0]) && isalnum((unsigned char)name[n - 1]);
        for (size_t i = 0; ok && i < n; i++)
            ok = isalnum((unsigned char)name[i]) || name[i] == '-' || name[i] == '_' ||
                 name[i] == '.';
        if (!ok)
            add_cause(v, "FieldValueInvalid", field, "Invalid value: \"%s\": %s", shown,
                      "name part " QUALIFIED_NAME_MSG);
    }
}

/* metadata.annotations: keys are qualified names (case aside), 256 KiB in total. */
static void check_annotations(vctx *v, const json_t *ann)
{
    const char *k;
    json_t *val;
    size_t total = 0;
    json_object_foreach((json_t *)ann, k, val)
    {
        char lower[320];
        size_t n = strlen(k), i;
        for (i = 0; i < n && i < sizeof lower - 1; i++)
            lower[i] = (char)tolower((unsigned char)k[i]);
        lower[i] = 0;
        check_qualified_name(v, "metadata.annotations", n < sizeof lower ? lower : k, k);
        total += n + json_string_length(val);
    }
    if (total > KS_ANNOTATIONS_MAX)
        add_cause(v, "FieldValueTooLong", "metadata.annotations",
                  "Too long: may not be more than %s bytes%s", KS_ANNOTATIONS_MAX_STR, "");
}

/* metadata.finalizers, ownerReferences and generation, as ValidateObjectMeta checks them. */
static void check_meta_lists(vctx *v, const json_t *meta)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(meta, "finalizers"), i, f)
    {
        char field[64];
        snprintf(field, sizeof field, "metadata.finalizers[%zu]", i);
        const char *name = json_string_value(f);
        /* apimachinery checks the list, core/v1 each entry again */
        check_qualified_name(v, "metadata.finalizers", name ? name : "", name ? name : "");
        check_qualified_name(v, field, name ? name : "", name ? name : "");
        if (name && !strchr(name, '/') && strcmp(name, "kubernetes") && strcmp(name, "orphan") &&
            strcmp(name, "foregroundDeletion"))
            add_cause(v, "FieldValueInvalid", field, "Invalid value: \"%s\": %s", name,
                      "name is neither a standard finalizer name nor is it fully qualified");
    }
    json_array_foreach(json_object_get(meta, "ownerReferences"), i, f)
    {
        static const char *req[][2] = {{"apiVersion", "version must not be empty"},
                                       {"kind", "must not be empty"},
                                       {"name", "must not be empty"},
                                       {"uid", "must not be empty"}};
        for (int r = 0; r < 4; r++) {
            if (json_string_length(json_object_get(f, req[r][0]))) continue;
            char field[64];
            snprintf(field, sizeof field, "metadata.ownerReferences.%s", req[r][0]);
            add_cause(v, "FieldValueInvalid", field, "Invalid value: \"\": %s%s", req[r][1], "");
        }
    }
    json_t *gen = json_object_get(meta, "generation");
    if (json_is_integer(gen) && json_integer_value(gen) < 0) {
        char val[32];
        snprintf(val, sizeof val, "%lld", (long long)json_integer_value(gen));
        add_cause(v, "FieldValueInvalid", "metadata.generation",
                  "Invalid value: %s: must be greater than or equal to 0%s", val, "");
    }
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
    } else if (!strncmp(ks_resource_api_version(resource), "rbac.authorization.k8s.io/", 26)) {
        /* RBAC names are path segments (system:controller:..., as the bootstrap roles) */
        if (!strcmp(name, ".") || !strcmp(name, ".."))
            add_cause(v, "FieldValueInvalid", "metadata.name", "Invalid value: \"%s\": %s", quoted,
                      !strcmp(name, ".") ? "may not be '.'" : "may not be '..'");
        else if (strpbrk(name, "/%"))
            add_cause(v, "FieldValueInvalid", "metadata.name", "Invalid value: \"%s\": %s", quoted,
                      strchr(name, '/') ? "may not contain '/'" : "may not contain '%'");
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

/* 0 when v has no causes; else fills err (422 Invalid, "<Kind> \"<name>\" is invalid: ...", the
 * causes) and returns -EINVAL. */
static int finish(vctx *vc, const char *kind, const char *name, ks_err *err)
{
    vctx v = *vc;
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
                 n > 1 ? "%s \"%s\" is invalid: [%s]" : "%s \"%s\" is invalid: %s", kind, name,
                 joined);
        err->causes = v.causes;
    } else {
        json_decref(v.causes);
    }
    return -EINVAL;
}

int ks_validate(const char *resource, const json_t *obj, int create, ks_err *err)
{
    vctx v = {json_array()};
    const char *kind = "Object";
    ks_resource_info(resource, &kind, NULL);
    char qkind[128]; /* as the API server names it: Role.rbac.authorization.k8s.io */
    kind = ks_qualified(kind, resource, qkind, sizeof qkind);
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
        const char *field = "metadata.labels";
        size_t nc = json_array_size(v.causes);
        check_qualified_name(&v, field, k, k);
        if (json_array_size(v.causes) == nc && json_is_string(val) &&
            strlen(json_string_value(val)) > 63)
            add_cause(&v, "FieldValueInvalid", field, "Invalid value: \"%s\": %s",
                      json_string_value(val), "must be no more than 63 characters");
        else if (json_array_size(v.causes) == nc &&
                 (!json_is_string(val) || !label_value_ok(json_string_value(val))))
            add_cause(&v, "FieldValueInvalid", field, "Invalid value: \"%s\": %s",
                      json_is_string(val) ? json_string_value(val) : "", LABEL_VALUE_MSG);
    }
    check_annotations(&v, json_object_get(meta, "annotations"));
    check_meta_lists(&v, meta);
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
    return finish(&v, kind, name ? name : (gen ? gen : ""), err);
}

/* 1 when the JSON values differ (absent counts as null). */
static int differs(const json_t *a, const json_t *b)
{
    if (!a || json_is_null(a)) return b && !json_is_null(b);
    return !b || !json_equal(a, b);
}

int ks_validate_update(const char *resource, const json_t *old, const json_t *upd, ks_err *err)
{
    vctx v = {json_array()};
    const char *kind = "Object";
    ks_resource_info(resource, &kind, NULL);
    char qkind[128]; /* as the API server names it: Role.rbac.authorization.k8s.io */
    kind = ks_qualified(kind, resource, qkind, sizeof qkind);
    const json_t *om = json_object_get(old, "metadata"), *nm = json_object_get(upd, "metadata");
    const char *name = json_string_value(json_object_get(om, "name"));
    const char *ouid = json_string_value(json_object_get(om, "uid"));
    const char *nuid = json_string_value(json_object_get(nm, "uid"));
    if (nuid && *nuid && ouid && strcmp(nuid, ouid))
        add_cause(&v, "FieldValueInvalid", "metadata.uid", "Invalid value: \"%s\": %s", nuid,
                  "field is immutable");
    if (json_object_get(om, "deletionTimestamp")) {
        /* no finalizer may be added to an object being deleted */
        char added[512] = "";
        size_t off = 0, i, j;
        json_t *f, *g;
        json_array_foreach(json_object_get(nm, "finalizers"), i, f)
        {
            int known = 0;
            json_array_foreach(json_object_get(om, "finalizers"), j, g) known |= json_equal(f, g);
            if (!known && json_is_string(f) && off < sizeof added)
                off += (size_t)snprintf(added + off, sizeof added - off, "%s\"%s\"",
                                        off ? ", " : "", json_string_value(f));
        }
        if (*added)
            add_cause(&v, "FieldValueForbidden", "metadata.finalizers",
                      "Forbidden: no new finalizers can be added if the object is being deleted, "
                      "found new finalizers []string{%s}%s",
                      added, "");
    }
    int cm = !strcmp(resource, "configmaps"), secret = !strcmp(resource, "secrets");
    if (secret) {
        const char *ot = json_string_value(json_object_get(old, "type"));
        const char *nt = json_string_value(json_object_get(upd, "type"));
        if (nt && *nt && ot && strcmp(nt, ot))
            add_cause(&v, "FieldValueInvalid", "type", "Invalid value: \"%s\": %s", nt,
                      "field is immutable");
    }
    if ((cm || secret) && json_is_true(json_object_get(old, "immutable"))) {
        /* an immutable ConfigMap or Secret keeps its data (stringData is data to be) */
        if (!json_is_true(json_object_get(upd, "immutable")))
            add_cause(&v, "FieldValueForbidden", "immutable",
                      "Forbidden: field is immutable when `immutable` is set%s%s", "", "");
        if (differs(json_object_get(old, "data"), json_object_get(upd, "data")) ||
            (secret && json_object_size(json_object_get(upd, "stringData"))))
            add_cause(&v, "FieldValueForbidden", "data",
                      "Forbidden: field is immutable when `immutable` is set%s%s", "", "");
        if (cm && differs(json_object_get(old, "binaryData"), json_object_get(upd, "binaryData")))
            add_cause(&v, "FieldValueForbidden", "binaryData",
                      "Forbidden: field is immutable when `immutable` is set%s%s", "", "");
    }
    return finish(&v, kind, name ? name : "", err);
}
