/*
 * kernels_misc.c — the small scalar functions that belong to no family: typeof (the argument's
 * type as Spark's catalogString), positive (the value itself, as UnaryPositive), assert_true
 * and raise_error (Spark's USER_RAISED_EXCEPTION, raised when a row reaches them; their result
 * is void, null on every row), nvl2, and equal_null / <=> (also of NULLs). Called through
 * cs_px_misc_lookup (pexpr.c's chain).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"

/* typeof(x): one string for the whole column, never null */
static int typeof_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    cs_sbuf sb = CS_SBUF_INIT;
    cs_col_type_simple_string(a[0]->type, &sb);
    cs_col_builder *b = cs_col_builder_new(k->alloc, k->e->type);
    cs_col_builder_reserve(b, k->n, sb.len * (size_t)k->n);
    for (int64_t i = 0; i < k->n; i++)
        cs_col_builder_append_string(b, sb.data, sb.len);
    *out = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_sbuf_free(&sb);
    return CS_OK;
}

static int positive_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    if (a[0]->length == k->n) {
        *out = cs_column_ref(a[0]);
        return CS_OK;
    }
    int32_t *zeros = cs_xcalloc((size_t)(k->n ? k->n : 1), sizeof *zeros);
    *out = cs_px_take(a[0], zeros, k->n, k->alloc);
    free(zeros);
    return CS_OK;
}

/* assert_true(cond [, message]): an error at the first row whose condition is false or null */
static int assert_true_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n, sc = cs_px_stride(a[0], n);
    for (int64_t i = 0; i < n; i++) {
        if (cs_column_is_valid(a[0], i * sc) && cs_bit_get(a[0]->values, i * sc)) continue;
        if (na > 1 && cs_column_is_valid(a[1], i * cs_px_stride(a[1], n))) {
            int32_t len;
            const uint8_t *p = cs_column_bytes(a[1], i * cs_px_stride(a[1], n), &len);
            return cs_sql_error_set(k->err, CS_ETASK, "USER_RAISED_EXCEPTION", "P0001", "%.*s",
                                    (int)len, (const char *)p);
        }
        cs_sbuf sb = CS_SBUF_INIT;
        cs_pexpr_explain(k->e->args[0], &sb);
        int rc = cs_sql_error_set(k->err, CS_ETASK, "USER_RAISED_EXCEPTION", "P0001",
                                  "'%s' is not true!", cs_sbuf_str(&sb));
        cs_sbuf_free(&sb);
        return rc;
    }
    *out = cs_px_all_null(k->alloc, k->e->type, n);
    return CS_OK;
}

/* raise_error(message): an error as soon as one row reaches it */
static int raise_error_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    if (k->n > 0) {
        if (!cs_column_is_valid(a[0], 0))
            return cs_sql_error_set(k->err, CS_ETASK, "USER_RAISED_EXCEPTION", "P0001", "null");
        int32_t len;
        const uint8_t *p = cs_column_bytes(a[0], 0, &len);
        return cs_sql_error_set(k->err, CS_ETASK, "USER_RAISED_EXCEPTION", "P0001", "%.*s",
                                (int)len, (const char *)p);
    }
    *out = cs_px_all_null(k->alloc, k->e->type, 0);
    return CS_OK;
}

/* nvl2(x, a, b): a where x is not null, else b */
static int nvl2_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    int64_t n = k->n, sx = cs_px_stride(a[0], n), sa = cs_px_stride(a[1], n),
            sb = cs_px_stride(a[2], n);
    size_t sz = sizeof(int32_t) * (size_t)(n ? n : 1);
    int32_t *which = cs_xmalloc(sz), *row = cs_xmalloc(sz);
    for (int64_t i = 0; i < n; i++) {
        bool some = cs_column_is_valid(a[0], i * sx);
        which[i] = some ? 0 : 1;
        row[i] = (int32_t)(i * (some ? sa : sb));
    }
    *out = cs_px_merge(k->alloc, k->e->type, a + 1, 2, which, row, n);
    free(which);
    free(row);
    return CS_OK;
}

/* x <=> y, equal_null(x, y): true when both are null, false when one is, else = */
static int equal_null_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n, sx = cs_px_stride(a[0], n), sy = cs_px_stride(a[1], n);
    if (a[0]->type->id != CS_TYPE_NULL && a[1]->type->id != CS_TYPE_NULL) {
        const cs_col_type *t[2] = {a[0]->type, a[1]->type};
        cs_pexpr node = *k->e;
        node.fn = (char *)"<=>";
        cs_px_kctx ek = *k;
        ek.e = &node;
        return cs_px_compare_lookup("<=>", t, 2, k->e->type)(&ek, a, na, out);
    }
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    for (int64_t i = 0; i < n; i++)
        cs_bit_set(r->values, i,
                   !cs_column_is_valid(a[0], i * sx) && !cs_column_is_valid(a[1], i * sy));
    *out = r;
    return CS_OK;
}

cs_px_kernel cs_px_misc_lookup(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result)
{
    (void)result;
    if (strcmp(fn, "typeof") == 0 && n == 1) return typeof_kernel;
    if (strcmp(fn, "positive") == 0 && n == 1) return positive_kernel;
    if (strcmp(fn, "nvl2") == 0 && n == 3 && cs_px_type_same(t[1], result) &&
        cs_px_type_same(t[2], result))
        return nvl2_kernel;
    if ((strcmp(fn, "equal_null") == 0 || strcmp(fn, "<=>") == 0) && n == 2) {
        if (t[0]->id == CS_TYPE_NULL || t[1]->id == CS_TYPE_NULL) return equal_null_kernel;
        if (strcmp(fn, "equal_null") == 0 && cs_px_compare_lookup("<=>", t, 2, result))
            return equal_null_kernel;
    }
    if (strcmp(fn, "assert_true") == 0 && (n == 1 || n == 2) && t[0]->id == CS_TYPE_BOOLEAN &&
        (n == 1 || t[1]->id == CS_TYPE_STRING))
        return assert_true_kernel;
    if (strcmp(fn, "raise_error") == 0 && n == 1 && t[0]->id == CS_TYPE_STRING)
        return raise_error_kernel;
    return NULL;
}
