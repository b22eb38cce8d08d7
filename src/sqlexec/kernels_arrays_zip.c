/*
 * kernels_arrays_zip.c — arrays_zip(a1, ..., an) (Spark's ArraysZip): row i is the array of
 * structs whose j-th struct holds element j of every argument's row i, null where an array is
 * shorter than the longest; a null argument row makes the row null. Each struct field is one
 * merge of its argument's elements per batch (cs_px_merge: a (which, row) pair per element,
 * which -1 for the padding nulls); no allocation per row. Called through cs_px_arrays_zip_lookup
 * (kernels_construct.c's lookup).
 *
 * Ownership: arguments are borrowed; the result is one new reference.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

static int arrays_zip_kernel(const cs_px_kctx *k, cs_column *const *a, int na, cs_column **out)
{
    int64_t n = k->n;
    const cs_col_type *st = k->e->type->fields[0].type;
    size_t rows = (size_t)(n ? n : 1);
    int32_t *lens = cs_xcalloc(rows, sizeof *lens);
    uint8_t *null = cs_xcalloc(rows, 1);
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t longest = 0;
        for (int j = 0; j < na; j++) {
            int64_t r = i * cs_px_stride(a[j], n);
            if (!cs_column_is_valid(a[j], r)) {
                null[i] = 1;
                continue;
            }
            const int32_t *o = cs_column_offsets(a[j]);
            if (o[r + 1] - o[r] > longest) longest = o[r + 1] - o[r];
        }
        lens[i] = null[i] ? 0 : longest;
        total += lens[i];
    }
    size_t cells = (size_t)(total ? total : 1);
    int32_t *which = cs_xmalloc(sizeof *which * cells), *row = cs_xmalloc(sizeof *row * cells);
    cs_column *st_col = cs_column_new_raw(k->alloc, cs_col_type_ref((cs_col_type *)st), total);
    st_col->n_children = na;
    st_col->children = cs_xcalloc((size_t)(na ? na : 1), sizeof *st_col->children);
    for (int j = 0; j < na; j++) {
        const int32_t *o = cs_column_offsets(a[j]);
        int64_t c = 0;
        for (int64_t i = 0; i < n; i++) {
            int64_t r = i * cs_px_stride(a[j], n);
            int32_t have = cs_column_is_valid(a[j], r) ? o[r + 1] - o[r] : 0;
            for (int32_t e = 0; e < lens[i]; e++, c++) {
                which[c] = e < have ? 0 : -1;
                row[c] = e < have ? o[r] + e : 0;
            }
        }
        cs_column *elements = a[j]->children[0];
        st_col->children[j] =
            cs_px_merge(k->alloc, st->fields[j].type, &elements, 1, which, row, total);
    }
    cs_column *children[1] = {st_col};
    *out = cs_px_list_column(k, k->e->type, lens, null, children, 1);
    free(which);
    free(row);
    free(lens);
    free(null);
    return CS_OK;
}

cs_px_kernel cs_px_arrays_zip_lookup(const char *fn, const cs_col_type *const *t, int n,
                                     const cs_col_type *result)
{
    if (strcmp(fn, "arrays_zip") != 0 || result->id != CS_TYPE_ARRAY ||
        result->fields[0].type->id != CS_TYPE_STRUCT || result->fields[0].type->n_fields != n)
        return NULL;
    for (int j = 0; j < n; j++)
        if (t[j]->id != CS_TYPE_ARRAY ||
            !cs_px_type_same(t[j]->fields[0].type, result->fields[0].type->fields[j].type))
            return NULL;
    return arrays_zip_kernel;
}
