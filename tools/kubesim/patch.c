/* kubesim patches (see patch.h). Strategic merge follows the core/v1 patchMergeKey tags for the
 * fields clients patch in practice; any other list is replaced, as in a merge patch. */
#include "patch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *merge_value(json_t *target, const json_t *patch);

/* RFC 7386 MergePatch(Target, Patch); returns a new reference. */
static json_t *merge_value(json_t *target, const json_t *patch)
{
    if (!json_is_object(patch)) return json_deep_copy(patch);
    json_t *res = json_is_object(target) ? json_incref(target) : json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)patch, k, v)
    {
        if (json_is_null(v)) {
            json_object_del(res, k);
        } else {
            json_t *nv = merge_value(json_object_get(res, k), v);
            json_object_set_new(res, k, nv);
        }
    }
    return res;
}

int ks_merge_patch(json_t *target, const json_t *patch, char *err, size_t errlen)
{
    if (!json_is_object(patch)) {
        snprintf(err, errlen,
                 "json: cannot unmarshal %s into Go value of type map[string]interface {}",
                 json_is_array(patch) ? "array" : "value");
        return -1;
    }
    json_t *r = merge_value(target, patch);
    json_decref(r); /* r == target */
    return 0;
}

/* ---- strategic merge ---- */

static const char *merge_key_for(const char *field, const json_t *sample)
{
    static const struct {
        const char *field, *key;
    } keys[] = {
        {"containers", "name"},
        {"initContainers", "name"},
        {"ephemeralContainers", "name"},
        {"env", "name"},
        {"volumes", "name"},
        {"volumeMounts", "mountPath"},
        {"imagePullSecrets", "name"},
        {"ownerReferences", "uid"},
        {"conditions", "type"},
        {"hostAliases", "ip"},
        {"topologySpreadConstraints", "topologyKey"},
        {"volumeDevices", "devicePath"},
        {"containerStatuses", "name"},
        {"initContainerStatuses", "name"},
        {"readinessGates", "conditionType"},
        {"podIPs", "ip"},
    };
    if (!strcmp(field, "ports")) {
        if (json_object_get(sample, "containerPort")) return "containerPort";
        return "port";
    }
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(field, keys[i].field)) return keys[i].key;
    return NULL;
}

static int primitive_merge_list(const char *field)
{
    return !strcmp(field, "finalizers");
}

static json_t *strategic_value(json_t *target, const json_t *patch, const char *field);

static json_t *strategic_object(json_t *target, const json_t *patch)
{
    const char *directive = json_string_value(json_object_get(patch, "$patch"));
    if (directive && !strcmp(directive, "replace")) {
        json_t *r = json_deep_copy(patch);
        json_object_del(r, "$patch");
        return r;
    }
    if (directive && !strcmp(directive, "delete")) return NULL;
    json_t *res = json_is_object(target) ? json_incref(target) : json_object();
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)patch, k, v)
    {
        if (!strcmp(k, "$patch") || !strncmp(k, "$setElementOrder/", 17) ||
            !strcmp(k, "$retainKeys"))
            continue;
        if (!strncmp(k, "$deleteFromPrimitiveList/", 25)) {
            json_t *list = json_object_get(res, k + 25);
            if (json_is_array(list) && json_is_array(v)) {
                json_t *nl = json_array();
                size_t i;
                json_t *e;
                json_array_foreach(list, i, e)
                {
                    int drop = 0;
                    size_t j;
                    json_t *d;
                    json_array_foreach(v, j, d) if (json_equal(d, e)) drop = 1;
                    if (!drop) json_array_append(nl, e);
                }
                json_object_set_new(res, k + 25, nl);
            }
            continue;
        }
        if (json_is_null(v)) {
            json_object_del(res, k);
            continue;
        }
        json_t *nv = strategic_value(json_object_get(res, k), v, k);
        if (nv)
            json_object_set_new(res, k, nv);
        else
            json_object_del(res, k);
    }
    return res;
}

static json_t *strategic_list(json_t *target, const json_t *patch, const char *field)
{
    if (!json_is_array(target)) target = NULL;
    /* a list element {"$patch":"replace"} replaces the whole list */
    size_t i;
    json_t *e;
    json_array_foreach((json_t *)patch, i, e)
    {
        const char *d = json_string_value(json_object_get(e, "$patch"));
        if (d && !strcmp(d, "replace")) {
            json_t *r = json_array();
            size_t j;
            json_t *x;
            json_array_foreach((json_t *)patch, j, x) if (j != i)
                json_array_append_new(r, json_deep_copy(x));
            return r;
        }
    }
    if (primitive_merge_list(field) && target) {
        json_t *r = json_deep_copy(target);
        json_array_foreach((json_t *)patch, i, e)
        {
            int have = 0;
            size_t j;
            json_t *x;
            json_array_foreach(r, j, x) if (json_equal(x, e)) have = 1;
            if (!have) json_array_append_new(r, json_deep_copy(e));
        }
        return r;
    }
    const char *mk = json_array_size(patch) ? merge_key_for(field, json_array_get(patch, 0)) : NULL;
    if (!mk || !target) mk = NULL;
    if (!mk) {
        json_t *r = json_array();
        json_array_foreach((json_t *)patch, i, e)
        {
            const char *d = json_string_value(json_object_get(e, "$patch"));
            if (d && !strcmp(d, "delete")) continue;
            json_array_append_new(r, json_deep_copy(e));
        }
        return r;
    }
    json_t *r = json_deep_copy(target);
    json_array_foreach((json_t *)patch, i, e)
    {
        json_t *kv = json_object_get(e, mk);
        size_t j;
        json_t *x;
        ssize_t found = -1;
        if (kv)
            json_array_foreach(r, j, x) if (json_equal(json_object_get(x, mk), kv)) found =
                (ssize_t)j;
        const char *d = json_string_value(json_object_get(e, "$patch"));
        if (d && !strcmp(d, "delete")) {
            if (found >= 0) json_array_remove(r, (size_t)found);
            continue;
        }
        if (found >= 0) {
            json_t *merged = strategic_object(json_array_get(r, (size_t)found), e);
            if (merged) json_array_set_new(r, (size_t)found, merged);
        } else {
            json_t *n = strategic_object(NULL, e);
            if (n) json_array_append_new(r, n);
        }
    }
    return r;
}

static json_t *strategic_value(json_t *target, const json_t *patch, const char *field)
{
    if (json_is_object(patch)) return strategic_object(target, patch);
    if (json_is_array(patch)) return strategic_list(target, patch, field);
    return json_deep_copy(patch);
}

int ks_strategic_patch(json_t *target, const json_t *patch, char *err, size_t errlen)
{
    if (!json_is_object(patch)) {
        snprintf(err, errlen,
                 "json: cannot unmarshal %s into Go value of type map[string]interface {}",
                 json_is_array(patch) ? "array" : "value");
        return -1;
    }
    json_t *r = strategic_object(target, patch);
    if (r && r != target) {
        /* top-level $patch: replace */
        json_object_clear(target);
        json_object_update(target, r);
    }
    json_decref(r);
    return 0;
}

/* ---- RFC 6902 ---- */

/* Resolves a JSON pointer to its parent container and final token (unescaped into tok). */
static json_t *pointer_parent(json_t *doc, const char *ptr, char *tok, size_t toklen)
{
    if (*ptr != '/') return NULL;
    json_t *cur = doc;
    const char *p = ptr + 1;
    for (;;) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        size_t o = 0;
        for (size_t i = 0; i < n && o + 1 < toklen; i++) {
            if (p[i] == '~' && i + 1 < n && (p[i + 1] == '0' || p[i + 1] == '1')) {
                tok[o++] = p[i + 1] == '0' ? '~' : '/';
                i++;
            } else {
                tok[o++] = p[i];
            }
        }
        tok[o] = 0;
        if (!e) return cur;
        if (json_is_object(cur))
            cur = json_object_get(cur, tok);
        else if (json_is_array(cur)) {
            char *end;
            long idx = strtol(tok, &end, 10);
            if (*end || idx < 0) return NULL;
            cur = json_array_get(cur, (size_t)idx);
        } else
            return NULL;
        if (!cur) return NULL;
        p = e + 1;
    }
}

static json_t *pointer_get(json_t *doc, const char *ptr)
{
    if (!*ptr) return doc;
    char tok[256];
    json_t *par = pointer_parent(doc, ptr, tok, sizeof tok);
    if (json_is_object(par)) return json_object_get(par, tok);
    if (json_is_array(par)) {
        char *end;
        long idx = strtol(tok, &end, 10);
        if (*end || idx < 0) return NULL;
        return json_array_get(par, (size_t)idx);
    }
    return NULL;
}

static int pointer_remove(json_t *doc, const char *ptr)
{
    char tok[256];
    json_t *par = pointer_parent(doc, ptr, tok, sizeof tok);
    if (json_is_object(par)) return json_object_del(par, tok);
    if (json_is_array(par)) {
        char *end;
        long idx = strtol(tok, &end, 10);
        if (*end || idx < 0) return -1;
        return json_array_remove(par, (size_t)idx);
    }
    return -1;
}

static int pointer_add(json_t *doc, const char *ptr, json_t *val /* stolen */, int replace)
{
    char tok[256];
    json_t *par = pointer_parent(doc, ptr, tok, sizeof tok);
    if (json_is_object(par)) {
        if (replace && !json_object_get(par, tok)) {
            json_decref(val);
            return -1;
        }
        return json_object_set_new(par, tok, val);
    }
    if (json_is_array(par)) {
        if (!strcmp(tok, "-") && !replace) return json_array_append_new(par, val);
        char *end;
        long idx = strtol(tok, &end, 10);
        if (*end || idx < 0 || (size_t)idx > json_array_size(par) ||
            (replace && (size_t)idx >= json_array_size(par))) {
            json_decref(val);
            return -1;
        }
        return replace ? json_array_set_new(par, (size_t)idx, val)
                       : json_array_insert_new(par, (size_t)idx, val);
    }
    json_decref(val);
    return -1;
}

int ks_json_patch(json_t *target, const json_t *patch, char *err, size_t errlen)
{
    if (!json_is_array(patch)) {
        snprintf(err, errlen,
                 "json: cannot unmarshal object into Go value of type jsonpatch.Patch");
        return -1;
    }
    size_t i;
    json_t *op;
    json_array_foreach((json_t *)patch, i, op)
    {
        const char *o = json_string_value(json_object_get(op, "op"));
        const char *path = json_string_value(json_object_get(op, "path"));
        const char *from = json_string_value(json_object_get(op, "from"));
        json_t *value = json_object_get(op, "value");
        int rc = -1;
        if (!o || !path) {
            snprintf(err, errlen, "the server rejected our request due to an error in our request");
            return -1;
        }
        if (!strcmp(o, "add") && value)
            rc = pointer_add(target, path, json_deep_copy(value), 0);
        else if (!strcmp(o, "replace") && value)
            rc = pointer_add(target, path, json_deep_copy(value), 1);
        else if (!strcmp(o, "remove"))
            rc = pointer_remove(target, path);
        else if (!strcmp(o, "test") && value)
            rc = json_equal(pointer_get(target, path), value) ? 0 : -1;
        else if ((!strcmp(o, "move") || !strcmp(o, "copy")) && from) {
            json_t *v = pointer_get(target, from);
            if (v) {
                v = json_deep_copy(v);
                rc = 0;
                if (!strcmp(o, "move")) rc = pointer_remove(target, from);
                if (rc == 0)
                    rc = pointer_add(target, path, v, 0);
                else
                    json_decref(v);
            }
        }
        if (rc != 0) {
            if (!strcmp(o, "test"))
                snprintf(err, errlen, "testing value %s failed: test failed", path);
            else
                snprintf(err, errlen,
                         "the server rejected our request due to an error in our request: %s "
                         "operation does not apply: doc is missing path: \"%s\"",
                         o, path);
            return -1;
        }
    }
    return 0;
}
