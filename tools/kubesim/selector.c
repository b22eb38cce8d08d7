/* kubesim label and field selectors (see selector.h). Grammar follows
 * k8s.io/apimachinery/pkg/labels: comma-separated requirements; "key", "!key", "key=v", "key==v",
 * "key!=v", "key in (a,b)", "key notin (a,b)". Field selectors accept =, == and != on known fields.
 */
#include "selector.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum op { OP_EQ, OP_NE, OP_IN, OP_NOTIN, OP_EXISTS, OP_NOTEXISTS };

typedef struct req {
    int field; /* 0 label, 1 field */
    enum op op;
    char *key;
    char **vals;
    int nvals;
} req;

struct ks_selector {
    req *reqs;
    int n;
};

static void req_free(req *r)
{
    free(r->key);
    for (int i = 0; i < r->nvals; i++)
        free(r->vals[i]);
    free(r->vals);
}

void ks_selector_free(ks_selector *sel)
{
    if (!sel) return;
    for (int i = 0; i < sel->n; i++)
        req_free(&sel->reqs[i]);
    free(sel->reqs);
    free(sel);
}

static char *trimdup(const char *a, const char *b)
{
    while (a < b && isspace((unsigned char)*a))
        a++;
    while (b > a && isspace((unsigned char)b[-1]))
        b--;
    char *s = malloc((size_t)(b - a) + 1);
    memcpy(s, a, (size_t)(b - a));
    s[b - a] = 0;
    return s;
}

static int valid_label_key(const char *k)
{
    if (!*k || strlen(k) > 316) return 0;
    for (const char *p = k; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.' || *p == '/'))
            return 0;
    return 1;
}

static int valid_label_value(const char *v)
{
    if (strlen(v) > 63) return 0;
    for (const char *p = v; *p; p++)
        if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_' || *p == '.')) return 0;
    return 1;
}

static int add_req(ks_selector *sel, req r)
{
    req *n = realloc(sel->reqs, (size_t)(sel->n + 1) * sizeof *n);
    if (!n) {
        req_free(&r);
        return -1;
    }
    sel->reqs = n;
    sel->reqs[sel->n++] = r;
    return 0;
}

static int push_val(req *r, char *v)
{
    char **n = realloc(r->vals, (size_t)(r->nvals + 1) * sizeof *n);
    if (!n) {
        free(v);
        return -1;
    }
    r->vals = n;
    r->vals[r->nvals++] = v;
    return 0;
}

/* Splits s at top-level commas (not inside parentheses). */
static int parse_labels(ks_selector *sel, const char *s, char *err, size_t errlen)
{
    const char *p = s;
    while (*p) {
        const char *start = p;
        int depth = 0;
        while (*p && (depth || *p != ',')) {
            if (*p == '(')
                depth++;
            else if (*p == ')')
                depth--;
            p++;
        }
        char *term = trimdup(start, p);
        if (*p == ',') p++;
        req r = {0};
        char *t = term;
        if (!*t) {
            snprintf(err, errlen, "unable to parse requirement: found '', expected: identifier");
            free(term);
            return -1;
        }
        const char *in = NULL;
        char *sp = strpbrk(t, " \t");
        char *paren = strchr(t, '(');
        if (sp && paren) {
            char *k = trimdup(t, sp);
            char *rest = sp;
            while (isspace((unsigned char)*rest))
                rest++;
            if (!strncmp(rest, "notin", 5) && (isspace((unsigned char)rest[5]) || rest[5] == '('))
                in = "notin", r.op = OP_NOTIN, rest += 5;
            else if (!strncmp(rest, "in", 2) && (isspace((unsigned char)rest[2]) || rest[2] == '('))
                in = "in", r.op = OP_IN, rest += 2;
            if (!in) {
                snprintf(err, errlen,
                         "unable to parse requirement: found '%s', expected: in, notin, =, ==, !=, "
                         "gt, lt",
                         rest);
                free(k);
                free(term);
                return -1;
            }
            while (isspace((unsigned char)*rest))
                rest++;
            char *close = strrchr(rest, ')');
            if (*rest != '(' || !close || close[1]) {
                snprintf(err, errlen, "unable to parse requirement: found '%s', expected: '('",
                         rest);
                free(k);
                free(term);
                return -1;
            }
            r.key = k;
            const char *v = rest + 1;
            while (v <= close) {
                const char *e = v;
                while (e < close && *e != ',')
                    e++;
                char *val = trimdup(v, e);
                if (!valid_label_value(val)) {
                    snprintf(err, errlen,
                             "unable to parse requirement: invalid label value: \"%s\"", val);
                    free(val);
                    req_free(&r);
                    free(term);
                    return -1;
                }
                push_val(&r, val);
                v = e + 1;
            }
        } else {
            char *op;
            if (t[0] == '!') {
                r.op = OP_NOTEXISTS;
                r.key = trimdup(t + 1, t + strlen(t));
            } else if ((op = strstr(t, "!="))) {
                r.op = OP_NE;
                r.key = trimdup(t, op);
                push_val(&r, trimdup(op + 2, t + strlen(t)));
            } else if ((op = strstr(t, "=="))) {
                r.op = OP_EQ;
                r.key = trimdup(t, op);
                push_val(&r, trimdup(op + 2, t + strlen(t)));
            } else if ((op = strchr(t, '='))) {
                r.op = OP_EQ;
                r.key = trimdup(t, op);
                push_val(&r, trimdup(op + 1, t + strlen(t)));
            } else {
                r.op = OP_EXISTS;
                r.key = trimdup(t, t + strlen(t));
            }
            if (r.nvals && !valid_label_value(r.vals[0])) {
                snprintf(err, errlen, "unable to parse requirement: invalid label value: \"%s\"",
                         r.vals[0]);
                req_free(&r);
                free(term);
                return -1;
            }
        }
        if (!valid_label_key(r.key)) {
            snprintf(err, errlen, "unable to parse requirement: invalid label key \"%s\"", r.key);
            req_free(&r);
            free(term);
            return -1;
        }
        free(term);
        if (add_req(sel, r) < 0) return -1;
    }
    return 0;
}

static int field_supported(const char *resource, const char *f)
{
    if (!strcmp(f, "metadata.name") || !strcmp(f, "metadata.namespace")) return 1;
    if (!strcmp(resource, "pods"))
        return !strcmp(f, "status.phase") || !strcmp(f, "spec.nodeName") ||
               !strcmp(f, "spec.restartPolicy") || !strcmp(f, "spec.schedulerName") ||
               !strcmp(f, "spec.serviceAccountName") || !strcmp(f, "status.podIP");
    if (!strcmp(resource, "events"))
        return !strncmp(f, "involvedObject.", 15) || !strcmp(f, "reason") || !strcmp(f, "type") ||
               !strcmp(f, "source");
    if (!strcmp(resource, "secrets")) return !strcmp(f, "type");
    if (!strcmp(resource, "namespaces")) return !strcmp(f, "status.phase");
    if (!strcmp(resource, "nodes")) return !strcmp(f, "spec.unschedulable");
    return 0;
}

static int parse_fields(ks_selector *sel, const char *resource, const char *s, char *err,
                        size_t errlen)
{
    const char *p = s;
    while (*p) {
        const char *e = strchr(p, ',');
        if (!e) e = p + strlen(p);
        char *term = trimdup(p, e);
        p = *e ? e + 1 : e;
        if (!*term) {
            free(term);
            continue;
        }
        req r = {.field = 1};
        char *op;
        if ((op = strstr(term, "!="))) {
            r.op = OP_NE;
            r.key = trimdup(term, op);
            push_val(&r, trimdup(op + 2, term + strlen(term)));
        } else if ((op = strstr(term, "=="))) {
            r.op = OP_EQ;
            r.key = trimdup(term, op);
            push_val(&r, trimdup(op + 2, term + strlen(term)));
        } else if ((op = strchr(term, '='))) {
            r.op = OP_EQ;
            r.key = trimdup(term, op);
            push_val(&r, trimdup(op + 1, term + strlen(term)));
        } else {
            snprintf(err, errlen, "invalid selector: '%s'; can't understand '%s'", s, term);
            free(term);
            return -1;
        }
        free(term);
        if (!field_supported(resource, r.key)) {
            snprintf(err, errlen, "field label not supported: %s", r.key);
            req_free(&r);
            return -1;
        }
        if (add_req(sel, r) < 0) return -1;
    }
    return 0;
}

ks_selector *ks_selector_parse(const char *resource, const char *label_sel, const char *field_sel,
                               char *err, size_t errlen)
{
    ks_selector *sel = calloc(1, sizeof *sel);
    if (!sel) return NULL;
    if (label_sel && *label_sel && parse_labels(sel, label_sel, err, errlen) < 0) goto fail;
    if (field_sel && *field_sel && parse_fields(sel, resource, field_sel, err, errlen) < 0)
        goto fail;
    return sel;
fail:
    ks_selector_free(sel);
    return NULL;
}

/* Resolves a dotted field path ("status.phase", "involvedObject.name") to a string value. */
static const char *field_value(const json_t *obj, const char *path, char *buf, size_t len)
{
    const json_t *cur = obj;
    char tmp[256];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *save = NULL, *tok = strtok_r(tmp, ".", &save); tok; tok = strtok_r(NULL, ".", &save))
        cur = json_object_get(cur, tok);
    if (json_is_string(cur)) return json_string_value(cur);
    if (json_is_boolean(cur)) return json_is_true(cur) ? "true" : "false";
    if (json_is_integer(cur)) {
        snprintf(buf, len, "%lld", (long long)json_integer_value(cur));
        return buf;
    }
    if (!strcmp(path, "spec.unschedulable")) return "false";
    return "";
}

int ks_selector_match(const ks_selector *sel, const json_t *obj)
{
    if (!sel) return 1;
    json_t *labels = json_object_get(json_object_get(obj, "metadata"), "labels");
    for (int i = 0; i < sel->n; i++) {
        const req *r = &sel->reqs[i];
        const char *v;
        char buf[32];
        int present;
        if (r->field) {
            v = field_value(obj, r->key, buf, sizeof buf);
            present = 1;
        } else {
            v = json_string_value(json_object_get(labels, r->key));
            present = v != NULL;
        }
        switch (r->op) {
        case OP_EXISTS:
            if (!present) return 0;
            break;
        case OP_NOTEXISTS:
            if (present) return 0;
            break;
        case OP_EQ:
            if (!present || strcmp(v, r->vals[0])) return 0;
            break;
        case OP_NE:
            if (present && !strcmp(v, r->vals[0])) return 0;
            break;
        case OP_IN:
        case OP_NOTIN: {
            int found = 0;
            for (int j = 0; present && j < r->nvals; j++)
                if (!strcmp(v, r->vals[j])) found = 1;
            if (r->op == OP_IN && !found) return 0;
            if (r->op == OP_NOTIN && found) return 0;
            break;
        }
        }
    }
    return 1;
}
