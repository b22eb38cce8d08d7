/* k8s_yaml.c — jansson <-> YAML through libyaml's emitter and parser (see k8s_yaml.h).
 *
 * Emission walks the json tree and emits libyaml events; a string is emitted plain only when a
 * YAML 1.1 or 1.2 reader would read it back as the same string, otherwise double-quoted
 * (libyaml itself quotes strings with special characters). Parsing turns parser events into a
 * json tree. Called by cspark-submit (dry run) and the pod-template loading in k8s_pod_spec.c.
 */
#include "cluster/k8s/k8s_yaml.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "common/strutil.h"

/* ---- emission ----------------------------------------------------------------------------- */

static bool word_ieq(const char *s, const char *const *words)
{
    for (; *words; words++)
        if (cs_str_ieq(s, *words)) return true;
    return false;
}

/* True when a plain scalar `s` would not read back as the string s. */
static bool needs_quotes(const char *s)
{
    static const char *const special[] = {"null",  "~",    "true", "false", "yes",  "no",
                                          "on",    "off",  "y",    "n",     ".inf", "-.inf",
                                          "+.inf", ".nan", "<<",   "=",     NULL};
    if (!s[0]) return true;
    if (word_ieq(s, special)) return true;
    /* anything that starts like a number (ints, floats, hex, octal, sexagesimal, dates) */
    if (isdigit((unsigned char)s[0])) return true;
    if ((s[0] == '-' || s[0] == '+' || s[0] == '.') &&
        (isdigit((unsigned char)s[1]) || s[1] == '.'))
        return true;
    return false;
}

typedef struct emit_ctx {
    yaml_emitter_t em;
    cs_error *err;
} emit_ctx;

static int emit(emit_ctx *x, yaml_event_t *ev)
{
    if (!yaml_emitter_emit(&x->em, ev))
        return cs_error_set(x->err, CS_EIO, "YAML emitter: %s",
                            x->em.problem ? x->em.problem : "write failed");
    return CS_OK;
}

/* force_plain: numbers, bools, null; quote: strings that would not read back as strings;
 * neither: libyaml picks (plain when allowed, else quoted), literal block for multi-line. */
static int emit_scalar(emit_ctx *x, const char *s, size_t n, bool force_plain, bool quote)
{
    yaml_event_t ev;
    yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;
    if (quote)
        style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
    else if (force_plain)
        style = YAML_PLAIN_SCALAR_STYLE;
    if (!quote && memchr(s, '\n', n)) style = YAML_LITERAL_SCALAR_STYLE;
    yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)n, 1, 1, style);
    return emit(x, &ev);
}

static int emit_value(emit_ctx *x, json_t *v)
{
    yaml_event_t ev;
    char num[64];
    int rc;
    switch (json_typeof(v)) {
    case JSON_OBJECT: {
        yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
        if ((rc = emit(x, &ev))) return rc;
        const char *k;
        json_t *val;
        json_object_foreach(v, k, val)
        {
            if ((rc = emit_scalar(x, k, strlen(k), false, needs_quotes(k)))) return rc;
            if ((rc = emit_value(x, val))) return rc;
        }
        yaml_mapping_end_event_initialize(&ev);
        return emit(x, &ev);
    }
    case JSON_ARRAY: {
        yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
        if ((rc = emit(x, &ev))) return rc;
        size_t i;
        json_t *val;
        json_array_foreach(v, i, val)
        {
            if ((rc = emit_value(x, val))) return rc;
        }
        yaml_sequence_end_event_initialize(&ev);
        return emit(x, &ev);
    }
    case JSON_STRING: {
        const char *s = json_string_value(v);
        size_t n = json_string_length(v);
        return emit_scalar(x, s, n, false, strlen(s) != n || needs_quotes(s));
    }
    case JSON_INTEGER:
        snprintf(num, sizeof num, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
        return emit_scalar(x, num, strlen(num), true, false);
    case JSON_REAL: {
        double d = json_real_value(v);
        if (!isfinite(d))
            return cs_error_set(x->err, CS_EINVAL, "cannot write a non-finite number");
        snprintf(num, sizeof num, "%.17g", d);
        if (!strpbrk(num, ".eE")) strcat(num, ".0");
        return emit_scalar(x, num, strlen(num), true, false);
    }
    case JSON_TRUE:
        return emit_scalar(x, "true", 4, true, false);
    case JSON_FALSE:
        return emit_scalar(x, "false", 5, true, false);
    case JSON_NULL:
        return emit_scalar(x, "null", 4, true, false);
    }
    return cs_error_set(x->err, CS_EINVAL, "unknown JSON type");
}

static int write_stream(emit_ctx *x, json_t *const *objs, int n)
{
    yaml_event_t ev;
    int rc;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    if ((rc = emit(x, &ev))) return rc;
    for (int i = 0; i < n; i++) {
        yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 0); /* explicit "---" */
        if ((rc = emit(x, &ev))) return rc;
        if ((rc = emit_value(x, objs[i]))) return rc;
        yaml_document_end_event_initialize(&ev, 1);
        if ((rc = emit(x, &ev))) return rc;
    }
    yaml_stream_end_event_initialize(&ev);
    if ((rc = emit(x, &ev))) return rc;
    if (!yaml_emitter_flush(&x->em))
        return cs_error_set(x->err, CS_EIO, "YAML emitter: write failed");
    return CS_OK;
}

static void setup(emit_ctx *x, cs_error *err)
{
    memset(x, 0, sizeof *x);
    x->err = err;
    yaml_emitter_initialize(&x->em);
    yaml_emitter_set_unicode(&x->em, 1);
    yaml_emitter_set_width(&x->em, -1); /* no folding of long strings */
    yaml_emitter_set_indent(&x->em, 2);
}

int cs_k8s_write_yaml(FILE *out, json_t *const *objs, int n, cs_error *err)
{
    emit_ctx x;
    setup(&x, err);
    yaml_emitter_set_output_file(&x.em, out);
    int rc = write_stream(&x, objs, n);
    yaml_emitter_delete(&x.em);
    if (rc == CS_OK && fflush(out) != 0) rc = cs_error_set(err, CS_EIO, "cannot write YAML output");
    return rc;
}

static int sbuf_writer(void *data, unsigned char *buffer, size_t size)
{
    cs_sbuf_append((cs_sbuf *)data, buffer, size);
    return 1;
}

char *cs_k8s_yaml_dump(json_t *const *objs, int n, cs_error *err)
{
    emit_ctx x;
    cs_sbuf b = CS_SBUF_INIT;
    setup(&x, err);
    yaml_emitter_set_output(&x.em, sbuf_writer, &b);
    int rc = write_stream(&x, objs, n);
    yaml_emitter_delete(&x.em);
    if (rc != CS_OK) {
        cs_sbuf_free(&b);
        return NULL;
    }
    cs_sbuf_putc(&b, '\0');
    b.len--;
    return cs_sbuf_detach(&b, NULL);
}

/* ---- parsing ------------------------------------------------------------------------------ */

typedef struct parse_ctx {
    yaml_parser_t p;
    const char *what;
    cs_error *err;
} parse_ctx;

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
        return cs_error_set(x->err, CS_EUNSUPPORTED,
                            "%s: YAML aliases are not supported (line %zu)", x->what,
                            ev->start_mark.line + 1);
    case YAML_SCALAR_EVENT: {
        const char *s = (const char *)ev->data.scalar.value;
        size_t n = ev->data.scalar.length;
        const char *tag = (const char *)ev->data.scalar.tag;
        bool typed = tag && (!strcmp(tag, YAML_INT_TAG) || !strcmp(tag, YAML_FLOAT_TAG) ||
                             !strcmp(tag, YAML_BOOL_TAG) || !strcmp(tag, YAML_NULL_TAG));
        if (typed || (!tag && ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE))
            *out = plain_scalar(s, n);
        else
            *out = json_stringn(s, n); /* quoted, block, !!str or "!" */
        if (!*out)
            return cs_error_set(x->err, CS_EINVAL, "%s: invalid UTF-8 at line %zu", x->what,
                                ev->start_mark.line + 1);
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
        return rc;
    }
    default:
        return cs_error_set(x->err, CS_EINVAL, "%s: unexpected YAML event at line %zu", x->what,
                            ev->start_mark.line + 1);
    }
}

json_t *cs_k8s_yaml_load(const char *what, const char *text, size_t len, cs_error *err)
{
    parse_ctx x = {.what = what, .err = err};
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

json_t *cs_k8s_yaml_load_file(const char *path, cs_error *err)
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
    json_t *v = cs_k8s_yaml_load(path, b.data ? b.data : "", b.len, err);
    cs_sbuf_free(&b);
    return v;
}
