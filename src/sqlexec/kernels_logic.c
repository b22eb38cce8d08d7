/*
 * kernels_logic.c — the boolean and null kernels that are not lazy: not (three-valued: not
 * null is null), isnull, isnotnull (never null) and nullif(a, b) (a, or null where a = b). AND,
 * OR, IF, CASE, COALESCE and NVL evaluate branches on the rows that reach them and live in
 * pexpr_eval.c; IN lives with the comparisons. Called through cs_px_logic_lookup.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

static int not_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    cs_px_and_validity(r, a, 1, n);
    if (sa) {
        for (size_t i = 0; i < r->values_size; i++)
            r->values[i] = (uint8_t)~a[0]->values[i];
    } else {
        bool v = !cs_bit_get(a[0]->values, 0);
        for (int64_t i = 0; i < n; i++)
            cs_bit_set(r->values, i, v);
    }
    *out = r;
    return CS_OK;
}

static int null_test(const cs_px_kctx *k, cs_column *const *a, cs_column **out, bool want_null)
{
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    for (int64_t i = 0; i < n; i++)
        cs_bit_set(r->values, i, cs_column_is_valid(a[0], i * sa) != want_null);
    *out = r;
    return CS_OK;
}

static int isnull_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    return null_test(k, a, out, true);
}

static int isnotnull_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    return null_test(k, a, out, false);
}

/* nullif(a, b): the "=" kernel of the type, then a's rows with nulls where it was true */
static int nullif_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    const cs_col_type *t[2] = {a[0]->type, a[1]->type};
    cs_pexpr eq_node = *k->e;
    eq_node.fn = (char *)"=";
    eq_node.type = cs_col_type_primitive(CS_TYPE_BOOLEAN);
    cs_px_kctx ek = *k;
    ek.e = &eq_node;
    cs_column *eq;
    int rc = cs_px_compare_lookup("=", t, 2, eq_node.type)(&ek, a, na, &eq);
    if (rc) return rc;
    int64_t n = k->n, sa = cs_px_stride(a[0], n);
    int32_t *idx = cs_xmalloc(sizeof *idx * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++)
        idx[i] = (int32_t)(i * sa);
    cs_column *r = cs_px_take(a[0], idx, n, k->alloc);
    free(idx);
    for (int64_t i = 0; i < n; i++) {
        if (cs_column_is_valid(eq, i) && cs_bit_get(eq->values, i)) {
            cs_px_ensure_validity(r);
            cs_px_set_null(r, i);
        }
    }
    cs_column_unref(eq);
    *out = r;
    return CS_OK;
}

cs_px_kernel cs_px_logic_lookup(const char *fn, const cs_col_type *const *t, int n,
                                const cs_col_type *result)
{
    (void)result;
    if (n == 1 && strcmp(fn, "not") == 0 && t[0]->id == CS_TYPE_BOOLEAN) return not_kernel;
    if (n == 1 && strcmp(fn, "isnull") == 0) return isnull_kernel;
    if (n == 1 && strcmp(fn, "isnotnull") == 0) return isnotnull_kernel;
    if (n == 2 && strcmp(fn, "nullif") == 0 && cs_px_compare_lookup("=", t, 2, result) &&
        !cs_col_type_has_offsets(t[0]->id) && t[0]->id != CS_TYPE_STRUCT)
        return nullif_kernel;
    if (n == 2 && strcmp(fn, "nullif") == 0 &&
        (t[0]->id == CS_TYPE_STRING || t[0]->id == CS_TYPE_BINARY) &&
        cs_px_compare_lookup("=", t, 2, result))
        return nullif_kernel;
    return NULL;
}
