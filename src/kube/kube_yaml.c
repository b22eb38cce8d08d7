/* kube_yaml.c — YAML -> jansson through libyaml's event parser (see kube_yaml.h): parser events
 * become a json tree, plain scalars typed by the YAML 1.2 core schema unless every scalar is
 * read as a string, anchors remembered and aliases expanded by copy.
 */
#include "kube/kube_yaml.h"

#include <errno.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "common/strutil.h"

typedef struct anchor {
    char *name;
    json_t *value;
} anchor;

typedef struct parse_ctx {
    yaml_parser_t p;
    const char *what;
    int flags;
    cs_error *err;
    anchor *anchors;
    size_t nanchors, capanchors;
    size_t alias_nodes; /* copied by aliases so far */
} parse_ctx;

/* Records value under the anchor name (a later one of the same name wins, as YAML says). */
static void remember(parse_ctx *x, const yaml_char_t *name, json_t *value)
{
    if (!name || !value) return;
    if (x->nanchors == x->capanchors) {
        x->capanchors = x->capanchors ? x->capanchors * 2 : 8;
        x->anchors = cs_xrealloc(x->anchors, x->capanchors * sizeof *x->anchors);
    }
    x->anchors[x->nanchors].name = cs_xstrdup((const char *)name);
    x->anchors[x->nanchors].value = json_incref(value);
    x->nanchors++;
}

/* Nodes in v, counting at most up to limit. */
static size_t count_nodes(const json_t *v, size_t limit)
{
    size_t n = 1;
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v) && n <= limit; i++)
            n += count_nodes(json_array_get(v, i), limit - n);
    } else if (json_is_object(v)) {
        const char *k;
        const json_t *e;
        json_object_foreach((json_t *)v, k, e)
        {
            n += count_nodes(e, limit - n);
            if (n > limit) break;
        }
    }
    return n;
}

/* A copy of the value of the anchor an alias names. */
static int resolve(parse_ctx *x, const yaml_event_t *ev, json_t **out)
{
    const char *name = (const char *)ev->data.alias.anchor;
    for (size_t i = x->nanchors; i-- > 0;) {
        if (strcmp(x->anchors[i].name, name)) continue;
        size_t left = KUBE_YAML_MAX_ALIAS_NODES - x->alias_nodes;
        size_t n = count_nodes(x->anchors[i].value, left);
        if (n > left)
            return cs_error_set(x->err, CS_EINVAL,
                                "%s: YAML aliases expand to more than %d nodes (line %zu)", x->what,
                                KUBE_YAML_MAX_ALIAS_NODES, ev->start_mark.line + 1);
        x->alias_nodes += n;
        *out = json_deep_copy(x->anchors[i].value);
        return CS_OK;
    }
    return cs_error_set(x->err, CS_EINVAL,
                        "%s: YAML alias *%s names no anchor before it (line %zu)", x->what, name,
                        ev->start_mark.line + 1);
}

static int parse_error(parse_ctx *x)
{
    return cs_error_set(x->err, CS_EINVAL, "%s: invalid YAML at line %zu column %zu: %s", x->what,
                        x->p.problem_mark.line + 1, x->p.problem_mark.column + 1,
                        x->p.problem ? x->p.problem : "syntax error");
}

static bool full_match(const char *re, const char *s)
{
    regex_t rx;
    if (regcomp(&rx, re, REG_EXTENDED | REG_NOSUB) != 0) return false;
    bool ok = regexec(&rx, s, 0, NULL, 0) == 0;
    regfree(&rx);
    return ok;
}

/* YAML 1.2 core schema for plain scalars. */
static json_t *plain_scalar(const char *s, size_t n)
{
    if (n == 0 || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") || !strcmp(s, "NULL"))
        return json_null();
    if (!strcmp(s, "true") || !strcmp(s, "True") || !strcmp(s, "TRUE")) return json_true();
    if (!strcmp(s, "false") || !strcmp(s, "False") || !strcmp(s, "FALSE")) return json_false();
    if (full_match("^[-+]?[0-9]+$", s)) {
        char *end;
        errno = 0;
        long long v = strtoll(s, &end, 10);
        if (errno == 0 && *end == '\0') return json_integer(v);
        return json_real(strtod(s, NULL));
    }
    if (full_match("^0x[0-9a-fA-F]+$", s)) return json_integer(strtoll(s + 2, NULL, 16));
    if (full_match("^0o[0-7]+$", s)) return json_integer(strtoll(s + 2, NULL, 8));
    if (full_match("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$", s))
        return json_real(strtod(s, NULL));
    return json_stringn(s, n);
}

static int parse_node(parse_ctx *x, yaml_event_t *ev, json_t **out);

static int next_event(parse_ctx *x, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&x->p, ev)) return parse_error(x);
    return CS_OK;
}

static int parse_node(parse_ctx *x, yaml_event_t *ev, json_t **out)
{
    int rc = CS_OK;
    *out = NULL;
    switch (ev->type) {
    case YAML_ALIAS_EVENT:
        return resolve(x, ev, out);
    case YAML_SCALAR_EVENT: {
        const char *s = (const char *)ev->data.scalar.value;
        size_t n = ev->data.scalar.length;
        const char *tag = (const char *)ev->data.scalar.tag;
        bool typed = tag && (!strcmp(tag, YAML_INT_TAG) || !strcmp(tag, YAML_FLOAT_TAG) ||
                             !strcmp(tag, YAML_BOOL_TAG) || !strcmp(tag, YAML_NULL_TAG));
        if (!(x->flags & KUBE_YAML_STRINGS) &&
            (typed || (!tag && ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)))
            *out = plain_scalar(s, n);
        else
            *out = json_stringn(s, n); /* quoted, block, !!str or "!" */
        if (!*out)
            return cs_error_set(x->err, CS_EINVAL, "%s: invalid UTF-8 at line %zu", x->what,
                                ev->start_mark.line + 1);
        remember(x, ev->data.scalar.anchor, *out);
        return CS_OK;
    }
    case YAML_SEQUENCE_START_EVENT: {
        json_t *arr = json_array();
        for (;;) {
            yaml_event_t e;
            if ((rc = next_event(x, &e))) break;
            if (e.type == YAML_SEQUENCE_END_EVENT) {
                yaml_event_delete(&e);
                break;
            }
            json_t *item;
            rc = parse_node(x, &e, &item);
            yaml_event_delete(&e);
            if (rc) break;
            json_array_append_new(arr, item);
        }
        if (rc)
            json_decref(arr);
        else
            *out = arr;
        if (!rc) remember(x, ev->data.sequence_start.anchor, arr);
        return rc;
    }
    case YAML_MAPPING_START_EVENT: {
        json_t *obj = json_object();
        for (;;) {
            yaml_event_t e;
            if ((rc = next_event(x, &e))) break;
            if (e.type == YAML_MAPPING_END_EVENT) {
                yaml_event_delete(&e);
                break;
            }
            if (e.type != YAML_SCALAR_EVENT) {
                rc = cs_error_set(x->err, CS_EUNSUPPORTED,
                                  "%s: only scalar mapping keys are supported (line %zu)", x->what,
                                  e.start_mark.line + 1);
                yaml_event_delete(&e);
                break;
            }
            char *key = cs_xstrndup((const char *)e.data.scalar.value, e.data.scalar.length);
            yaml_event_delete(&e);
            json_t *val = NULL;
            if ((rc = next_event(x, &e)) == CS_OK) {
                rc = parse_node(x, &e, &val);
                yaml_event_delete(&e);
            }
            if (rc == CS_OK) json_object_set_new(obj, key, val);
            free(key);
            if (rc) break;
        }
        if (rc)
            json_decref(obj);
        else
            *out = obj;
        if (!rc) remember(x, ev->data.mapping_start.anchor, obj);
        return rc;
    }
    default:
        return cs_error_set(x->err, CS_EINVAL, "%s: unexpected YAML event at line %zu", x->what,
                            ev->start_mark.line + 1);
    }
}

json_t *cs_kube_yaml_load(const char *what, const char *text, size_t len, int flags, cs_error *err)
{
    parse_ctx x = {.what = what, .flags = flags, .err = err};
    json_t *root = NULL;
    int rc = CS_OK;
    yaml_parser_initialize(&x.p);
    yaml_parser_set_input_string(&x.p, (const unsigned char *)text, len);
    for (;;) {
        yaml_event_t ev;
        if ((rc = next_event(&x, &ev))) break;
        yaml_event_type_t t = ev.type;
        if (t == YAML_STREAM_START_EVENT || t == YAML_DOCUMENT_START_EVENT) {
            yaml_event_delete(&ev);
            continue;
        }
        if (t == YAML_DOCUMENT_END_EVENT || t == YAML_STREAM_END_EVENT) {
            yaml_event_delete(&ev);
            break; /* first document only */
        }
        rc = parse_node(&x, &ev, &root);
        yaml_event_delete(&ev);
        break;
    }
    yaml_parser_delete(&x.p);
    for (size_t i = 0; i < x.nanchors; i++) {
        free(x.anchors[i].name);
        json_decref(x.anchors[i].value);
    }
    free(x.anchors);
    if (rc) {
        json_decref(root);
        return NULL;
    }
    if (!root || json_is_null(root)) {
        json_decref(root);
        root = json_object();
    }
    return root;
}

json_t *cs_kube_yaml_load_file(const char *path, int flags, cs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        if (errno == ENOENT) {
            cs_error_set(err, CS_ENOTFOUND, "file %s not found", path);
            return NULL;
        }
        cs_error_set(err, CS_EIO, "cannot open %s: %s", path, strerror(errno));
        return NULL;
    }
    cs_sbuf b = CS_SBUF_INIT;
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        cs_sbuf_append(&b, buf, n);
    bool bad = ferror(f);
    fclose(f);
    if (bad) {
        cs_sbuf_free(&b);
        cs_error_set(err, CS_EIO, "cannot read %s", path);
        return NULL;
    }
    json_t *v = cs_kube_yaml_load(path, b.data ? b.data : "", b.len, flags, err);
    cs_sbuf_free(&b);
    return v;
}
