/*
 * kernels_json.c — get_json_object(json, path) over jansson (DESIGN §5's JSON library): the
 * value at a JSON path as Spark's GetJsonObject returns it: a string unquoted, any other
 * scalar or an object/array as compact JSON text (keys in document order), null for JSON null,
 * a missing path, invalid JSON or an invalid path. Paths are Spark's subset: `$` then `.name`,
 * `['name']`, `[n]` and `[*]` (a wildcard collects its matches into a JSON array; one match
 * alone is returned as it is). A literal path is parsed once per batch. Called through
 * cs_px_json_lookup (pexpr.c's chain), which also serves to_json (kernels_json_write.c),
 * from_json and schema_of_json (kernels_json_read.c) and the variant functions
 * (kernels_variant.c, asked first: to_json of a variant is its own).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"

enum { STEP_KEY, STEP_INDEX, STEP_ANY };

typedef struct step {
    int kind;
    char *key;
    size_t index;
} step;

typedef struct path {
    step steps[32];
    int n;
    bool ok;
} path;

static void path_free(path *p)
{
    for (int i = 0; i < p->n; i++)
        free(p->steps[i].key);
    p->n = 0;
}

static bool parse_path(path *out, const char *s, size_t len)
{
    size_t i = 1;
    out->n = 0;
    out->ok = false;
    if (len == 0 || s[0] != '$') return false;
    while (i < len) {
        if (out->n == (int)(sizeof out->steps / sizeof out->steps[0])) return false;
        step *st = &out->steps[out->n];
        memset(st, 0, sizeof *st);
        if (s[i] == '.') {
            size_t b = ++i;
            while (i < len && s[i] != '.' && s[i] != '[')
                i++;
            if (i == b) return false;
            if (i - b == 1 && s[b] == '*') {
                st->kind = STEP_ANY;
            } else {
                st->kind = STEP_KEY;
                st->key = strndup(s + b, i - b);
            }
        } else if (s[i] == '[') {
            i++;
            if (i < len && s[i] == '\'') {
                size_t b = ++i;
                while (i < len && s[i] != '\'')
                    i++;
                if (i + 1 >= len || s[i + 1] != ']') return false;
                st->kind = STEP_KEY;
                st->key = strndup(s + b, i - b);
                i += 2;
            } else if (i < len && s[i] == '*') {
                if (i + 1 >= len || s[i + 1] != ']') return false;
                st->kind = STEP_ANY;
                i += 2;
            } else {
                size_t v = 0, b = i;
                while (i < len && s[i] >= '0' && s[i] <= '9')
                    v = v * 10 + (size_t)(s[i++] - '0');
                if (i == b || i >= len || s[i] != ']') return false;
                st->kind = STEP_INDEX;
                st->index = v;
                i++;
            }
        } else {
            return false;
        }
        out->n++;
    }
    out->ok = true;
    return true;
}

/* every value at steps[at..] below v, appended to hits (borrowed references) */
static void walk(json_t *v, const path *p, int at, json_t *hits)
{
    if (!v) return;
    if (at == p->n) {
        json_array_append(hits, v);
        return;
    }
    const step *st = &p->steps[at];
    switch (st->kind) {
    case STEP_KEY:
        if (json_is_object(v)) walk(json_object_get(v, st->key), p, at + 1, hits);
        return;
    case STEP_INDEX:
        if (json_is_array(v)) walk(json_array_get(v, st->index), p, at + 1, hits);
        return;
    default: {
        size_t i;
        json_t *x;
        if (json_is_array(v)) json_array_foreach(v, i, x) walk(x, p, at + 1, hits);
        return;
    }
    }
}

static bool has_wildcard(const path *p)
{
    for (int i = 0; i < p->n; i++)
        if (p->steps[i].kind == STEP_ANY) return true;
    return false;
}

static int get_json_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sj = cs_px_stride(a[0], n), sp = cs_px_stride(a[1], n);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    path p = {0};
    const uint8_t *last = NULL;
    int32_t last_len = -1;
    for (int64_t i = 0; i < n; i++) {
        if (!cs_column_is_valid(a[0], i * sj) || !cs_column_is_valid(a[1], i * sp)) {
            cs_col_builder_append_nulls(b, 1);
            continue;
        }
        int32_t jl, pl;
        const uint8_t *js = cs_px_bytes(a[0], i, sj, &jl), *ps = cs_px_bytes(a[1], i, sp, &pl);
        if (!last || pl != last_len || memcmp(ps, last, (size_t)pl) != 0) {
            path_free(&p);
            parse_path(&p, (const char *)ps, (size_t)pl);
            last = ps;
            last_len = pl;
        }
        json_error_t jerr;
        json_t *doc =
            p.ok ? json_loadb((const char *)js, (size_t)jl, JSON_DECODE_ANY, &jerr) : NULL;
        json_t *hits = doc ? json_array() : NULL;
        if (doc) walk(doc, &p, 0, hits);
        json_t *v = NULL;
        if (hits && json_array_size(hits) == 1)
            v = json_array_get(hits, 0);
        else if (hits && json_array_size(hits) > 1 && has_wildcard(&p))
            v = hits;
        if (!v || json_is_null(v)) {
            cs_col_builder_append_nulls(b, 1);
        } else if (json_is_string(v)) {
            cs_col_builder_append_string(b, json_string_value(v), json_string_length(v));
        } else {
            char *text = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT | JSON_PRESERVE_ORDER |
                                           JSON_REAL_PRECISION(17));
            if (text)
                cs_col_builder_append_string(b, text, strlen(text));
            else
                cs_col_builder_append_nulls(b, 1);
            free(text);
        }
        json_decref(hits);
        json_decref(doc);
    }
    path_free(&p);
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return CS_OK;
}

cs_px_kernel cs_px_json_lookup(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result)
{
    if (strcmp(fn, "get_json_object") == 0 && n == 2 && t[0]->id == CS_TYPE_STRING &&
        t[1]->id == CS_TYPE_STRING)
        return get_json_kernel;
    cs_px_kernel k = cs_px_variant_lookup(fn, t, n, result);
    if (k) return k;
    k = cs_px_json_write_lookup(fn, t, n, result);
    return k ? k : cs_px_json_read_lookup(fn, t, n, result);
}
