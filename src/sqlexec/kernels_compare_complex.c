/*
 * kernels_compare_complex.c — = <=> != < <= > >= over arrays and structs, as Spark's
 * interpreted ordering of complex values: arrays element by element (a null element before any
 * value, two nulls equal), then the shorter first; structs field by field the same way. The
 * elements and fields themselves compare as cs_px_elem_cmp (numbers by value, NaN equal to NaN,
 * strings by bytes). Null in, null out, except <=> (null <=> null is true). Maps are not
 * comparable in Spark, and the analyzer refuses them before a kernel is asked.
 *
 * Called through cs_px_compare_complex_lookup (pexpr.c's chain). Arguments are borrowed; the
 * result is one new reference.
 */
#include <string.h>

#include "sqlexec/pexpr_internal.h"

static bool comparable(const cs_col_type *t)
{
    switch (t->id) {
    case CS_TYPE_ARRAY:
        return comparable(t->fields[0].type);
    case CS_TYPE_STRUCT:
        for (int i = 0; i < t->n_fields; i++)
            if (!comparable(t->fields[i].type)) return false;
        return true;
    case CS_TYPE_MAP:
        return false;
    default:
        return true;
    }
}

/* Spark's ordering of a[i] and b[j], both valid, of one type. */
int cs_px_value_cmp(const cs_column *a, int64_t i, const cs_column *b, int64_t j)
{
    if (a->type->id == CS_TYPE_NULL) return 0;
    if (a->type->id == CS_TYPE_STRUCT) {
        for (int f = 0; f < a->n_children; f++) {
            const cs_column *x = a->children[f], *y = b->children[f];
            bool vx = cs_column_is_valid(x, i), vy = cs_column_is_valid(y, j);
            if (!vx || !vy) {
                if (vx != vy) return vx ? 1 : -1;
                continue;
            }
            int c = cs_px_value_cmp(x, i, y, j);
            if (c) return c;
        }
        return 0;
    }
    if (a->type->id != CS_TYPE_ARRAY) return cs_px_elem_cmp(a, i, b, j);
    const int32_t *oa = cs_column_offsets(a), *ob = cs_column_offsets(b);
    int32_t la = oa[i + 1] - oa[i], lb = ob[j + 1] - ob[j];
    const cs_column *ea = a->children[0], *eb = b->children[0];
    for (int32_t e = 0; e < la && e < lb; e++) {
        bool vx = cs_column_is_valid(ea, oa[i] + e), vy = cs_column_is_valid(eb, ob[j] + e);
        if (!vx || !vy) {
            if (vx != vy) return vx ? 1 : -1;
            continue;
        }
        int c = cs_px_value_cmp(ea, oa[i] + e, eb, ob[j] + e);
        if (c) return c;
    }
    return (la > lb) - (la < lb);
}

static int cmp_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    (void)na;
    const char *fn = k->e->fn;
    bool null_safe = strcmp(fn, "<=>") == 0;
    int64_t n = k->n, sa = cs_px_stride(a[0], n), sb = cs_px_stride(a[1], n);
    cs_column *r = cs_px_new_fixed(k->alloc, k->e->type, n);
    if (!null_safe && (a[0]->null_count || a[1]->null_count)) cs_px_ensure_validity(r);
    for (int64_t i = 0; i < n; i++) {
        bool vx = cs_column_is_valid(a[0], i * sa), vy = cs_column_is_valid(a[1], i * sb);
        bool v;
        if (!vx || !vy) {
            if (!null_safe) {
                cs_px_set_null(r, i);
                continue;
            }
            v = vx == vy;
        } else {
            int c = cs_px_value_cmp(a[0], i * sa, a[1], i * sb);
            v = fn[0] == '=' || null_safe ? c == 0
                : strcmp(fn, "!=") == 0   ? c != 0
                : strcmp(fn, "<") == 0    ? c < 0
                : strcmp(fn, "<=") == 0   ? c <= 0
                : strcmp(fn, ">") == 0    ? c > 0
                                          : c >= 0;
        }
        cs_bit_set(r->values, i, v);
    }
    *out = r;
    return CS_OK;
}

cs_px_kernel cs_px_compare_complex_lookup(const char *fn, const cs_col_type *const *t, int n,
                                          const cs_col_type *result)
{
    static const char *const ops[] = {"=", "==", "<=>", "!=", "<>", "<", "<=", ">", ">="};
    if (n != 2 || result->id != CS_TYPE_BOOLEAN) return NULL;
    if (t[0]->id != CS_TYPE_ARRAY && t[0]->id != CS_TYPE_STRUCT) return NULL;
    if (!cs_px_type_same(t[0], t[1]) || !comparable(t[0])) return NULL;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (strcmp(fn, ops[i]) == 0) return cmp_kernel;
    return NULL;
}
