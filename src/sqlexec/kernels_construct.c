/*
 * kernels_construct.c — the constructors of complex values: array(...) (CreateArray),
 * map(k, v, ...) (CreateMap) and named_struct / struct (CreateNamedStruct), for every element
 * type. The result is never null; an array's or map's row i holds the arguments' row i in
 * argument order, laid out by one merge of the arguments per batch (cs_px_merge: a (which, row)
 * pair per element) under offsets i * n_args: no allocation per row. A struct's fields are its
 * arguments' columns themselves (a literal repeated to the batch's rows). Spark's errors: a
 * null map key is NULL_MAP_KEY; a key seen twice in one map is DUPLICATED_MAP_KEY (Spark's
 * default spark.sql.mapKeyDedupPolicy=EXCEPTION). Called through cs_px_construct_lookup
 * (pexpr.c's chain), which also hands out arrays_zip (kernels_arrays_zip.c).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

/* which/row pairs laying args[first], args[first + step], ... out row by row */
static cs_column *interleave(const cs_px_kctx *k, const cs_col_type *type, cs_column *const *a,
                             int first, int step, int count)
{
    int64_t n = k->n, total = n * count;
    size_t sz = sizeof(int32_t) * (size_t)(total ? total : 1);
    int32_t *which = cs_xmalloc(sz), *row = cs_xmalloc(sz);
    cs_column **src = cs_xcalloc((size_t)count + 1, sizeof *src);
    for (int j = 0; j < count; j++)
        src[j] = a[first + j * step];
    for (int j = 0; j < count; j++) {
        int64_t s = cs_px_stride(src[j], n);
        for (int64_t i = 0; i < n; i++) {
            which[i * count + j] = j;
            row[i * count + j] = (int32_t)(i * s);
        }
    }
    cs_column *c = cs_px_merge(k->alloc, type, src, count, which, row, total);
    free(src);
    free(which);
    free(row);
    return c;
}

/* A list column (array or map) of k->n rows of `count` elements each, over children. */
static cs_column *fixed_lists(const cs_px_kctx *k, int count, cs_column **children, int nc)
{
    int64_t n = k->n;
    cs_column *r = cs_column_new_raw(k->alloc, cs_col_type_ref(k->e->type), n);
    r->values_size = (size_t)(n + 1) * 4;
    r->values = cs_col_buffer_alloc(r->alloc, r->values_size);
    int32_t *off = (int32_t *)(void *)r->values;
    for (int64_t i = 0; i <= n; i++)
        off[i] = (int32_t)(i * count);
    r->n_children = nc;
    r->children = cs_xcalloc((size_t)nc, sizeof *r->children);
    for (int c = 0; c < nc; c++)
        r->children[c] = children[c];
    return r;
}

static int array_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    const cs_col_type *elem = k->e->type->fields[0].type;
    cs_column *child = interleave(k, elem, a, 0, 1, na);
    *out = fixed_lists(k, na, &child, 1);
    return CS_OK;
}

int cs_px_err_map_key(const cs_px_kctx *k, const cs_column *keys, int64_t e, bool null_key)
{
    if (null_key)
        return cs_sql_error_set(k->err, CS_ETASK, "NULL_MAP_KEY", "2200E",
                                "Cannot use null as map key.");
    cs_column *one = cs_px_take(keys, (const int32_t[]){(int32_t)e}, 1, k->alloc);
    const cs_col_type *st = cs_col_type_primitive(CS_TYPE_STRING);
    cs_pexpr node = *k->e;
    node.type = (cs_col_type *)st;
    node.cast_mode = CS_CAST_ANSI;
    cs_px_kctx ck = *k;
    ck.e = &node;
    ck.n = 1;
    cs_column *text = NULL;
    cs_px_kernel cast = cs_px_cast_lookup(keys->type, st);
    char buf[256] = "?";
    if (cast && cast(&ck, &one, 1, &text) == CS_OK) {
        int32_t len;
        const uint8_t *p = cs_column_bytes(text, 0, &len);
        snprintf(buf, sizeof buf, "%.*s", (int)(len > 200 ? 200 : len), (const char *)p);
    }
    if (text) cs_column_unref(text);
    cs_column_unref(one);
    return cs_sql_error_set(k->err, CS_ETASK, "DUPLICATED_MAP_KEY", "23505",
                            "Duplicate map key %s was found, please check the input data. If you "
                            "want to remove the duplicated keys, you can set "
                            "\"spark.sql.mapKeyDedupPolicy\" to \"LAST_WIN\" so that the key "
                            "inserted at last takes precedence.",
                            buf);
}

static int map_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int pairs = na / 2;
    const cs_col_type *mt = k->e->type;
    cs_column *ch[2];
    ch[0] = interleave(k, mt->fields[0].type, a, 0, 2, pairs);
    ch[1] = interleave(k, mt->fields[1].type, a, 1, 2, pairs);
    int64_t total = k->n * pairs;
    for (int64_t e = 0; e < total; e++) {
        if (!cs_column_is_valid(ch[0], e)) {
            int rc = cs_px_err_map_key(k, ch[0], e, true);
            cs_column_unref(ch[0]);
            cs_column_unref(ch[1]);
            return rc;
        }
    }
    for (int64_t i = 0; i < k->n && pairs > 1; i++)
        for (int x = 1; x < pairs; x++)
            for (int y = 0; y < x; y++)
                if (cs_px_elem_cmp(ch[0], i * pairs + x, ch[0], i * pairs + y) == 0) {
                    int rc = cs_px_err_map_key(k, ch[0], i * pairs + x, false);
                    cs_column_unref(ch[0]);
                    cs_column_unref(ch[1]);
                    return rc;
                }
    *out = fixed_lists(k, pairs, ch, 2);
    return CS_OK;
}

static int struct_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    const cs_col_type *st = k->e->type;
    int nf = st->n_fields, first = na == 2 * nf ? 1 : 0, step = na == 2 * nf ? 2 : 1;
    int64_t n = k->n;
    cs_column *r = cs_column_new_raw(k->alloc, cs_col_type_ref(k->e->type), n);
    r->n_children = nf;
    r->children = cs_xcalloc((size_t)nf + 1, sizeof *r->children);
    int32_t *zeros = NULL;
    for (int f = 0; f < nf; f++) {
        cs_column *c = a[first + f * step];
        if (c->length == n) {
            r->children[f] = cs_column_ref(c);
            continue;
        }
        if (!zeros) zeros = cs_xcalloc((size_t)(n ? n : 1), sizeof *zeros);
        r->children[f] = cs_px_take(c, zeros, n, k->alloc);
    }
    free(zeros);
    *out = r;
    return CS_OK;
}

bool cs_px_type_same(const cs_col_type *a, const cs_col_type *b)
{
    if (a == b) return true;
    if (!a || !b || a->id != b->id || a->n_fields != b->n_fields) return false;
    if ((a->id == CS_TYPE_DECIMAL || a->id == CS_TYPE_INTERVAL_YM ||
         a->id == CS_TYPE_INTERVAL_DT) &&
        (a->precision != b->precision || a->scale != b->scale))
        return false;
    for (int i = 0; i < a->n_fields; i++)
        if (!cs_px_type_same(a->fields[i].type, b->fields[i].type) ||
            (a->id == CS_TYPE_STRUCT && strcmp(a->fields[i].name, b->fields[i].name) != 0))
            return false;
    return true;
}

cs_px_kernel cs_px_construct_lookup(const char *fn, const cs_col_type *const *t, int n,
                                    const cs_col_type *result)
{
    cs_px_kernel zip = cs_px_arrays_zip_lookup(fn, t, n, result);
    if (zip) return zip;
    if (strcmp(fn, "array") == 0 && result->id == CS_TYPE_ARRAY) {
        for (int i = 0; i < n; i++)
            if (!cs_px_type_same(t[i], result->fields[0].type)) return NULL;
        return array_kernel;
    }
    if (strcmp(fn, "map") == 0 && result->id == CS_TYPE_MAP && n % 2 == 0) {
        for (int i = 0; i < n; i++)
            if (!cs_px_type_same(t[i], result->fields[i % 2].type)) return NULL;
        return map_kernel;
    }
    if (strcmp(fn, "named_struct") == 0 && result->id == CS_TYPE_STRUCT) {
        int nf = result->n_fields;
        if (n != nf && n != 2 * nf) return NULL;
        int first = n == 2 * nf && nf > 0 ? 1 : 0, step = first ? 2 : 1;
        for (int f = 0; f < nf; f++)
            if (!cs_px_type_same(t[first + f * step], result->fields[f].type)) return NULL;
        return struct_kernel;
    }
    return NULL;
}
