/* k8s_yaml.c — jansson -> YAML through libyaml's emitter (see k8s_yaml.h).
 *
 * Emission walks the json tree and emits libyaml events; a string is emitted plain only when a
 * YAML 1.1 or 1.2 reader would read it back as the same string, otherwise double-quoted
 * (libyaml itself quotes strings with special characters). Called by cspark-submit (dry run).
 * Reading YAML is src/kube/kube_yaml.c.
 */
#include "cluster/k8s/k8s_yaml.h"

#include <ctype.h>
#include <math.h>
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
