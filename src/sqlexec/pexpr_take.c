/*
 * pexpr_take.c — gathers of rows: cs_column_take / cs_col_batch_take (Filter's compaction, the
 * sub-batches of lazy branches, every operator that reorders rows), cs_pexpr_true_rows (a
 * predicate's selected rows), cs_px_merge (a CASE / IF / COALESCE result put together from its
 * branches) and the column helpers kernels share (pexpr_internal.h). One pass per buffer, a
 * tight loop per value width; a dictionary-encoded string column stays encoded (its indices are
 * gathered). Called by pexpr_eval.c, the kernels and the operators.
 */
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr_internal.h"

static void *alloc_buf(cs_column *c, uint8_t **buf, size_t *size, size_t n)
{
    *size = n;
    *buf = cs_col_buffer_alloc(c->alloc, n);
    return *buf;
}

/* alloc_buf for a buffer whose every byte the caller writes (not zeroed first). */
static void *filled_buf(cs_column *c, uint8_t **buf, size_t *size, size_t n)
{
    *size = n;
    *buf = cs_col_buffer_alloc_unset(c->alloc, n);
    return *buf;
}

cs_column *cs_px_new_fixed(cs_col_allocator *alloc, const cs_col_type *type, int64_t n)
{
    cs_column *c = cs_column_new_raw(alloc, cs_col_type_ref((cs_col_type *)type), n);
    size_t bytes = type->id == CS_TYPE_BOOLEAN ? (size_t)(n + 7) / 8
                                               : (size_t)n * (size_t)cs_col_type_width(type->id);
    alloc_buf(c, &c->values, &c->values_size, bytes);
    return c;
}

void cs_px_ensure_validity(cs_column *c)
{
    if (c->validity) return;
    filled_buf(c, &c->validity, &c->validity_size, (size_t)(c->length + 7) / 8);
    if (c->validity_size) memset(c->validity, 0xff, c->validity_size);
}

void cs_px_and_validity(cs_column *c, cs_column *const *args, int n_args, int64_t n)
{
    for (int a = 0; a < n_args; a++) {
        const cs_column *x = args[a];
        if (!x->validity || x->null_count == 0) continue;
        if (x->length != n) { /* a null literal: every row null */
            cs_px_ensure_validity(c);
            if (!cs_column_is_valid(x, 0)) {
                memset(c->validity, 0, c->validity_size);
                c->null_count = n;
            }
            continue;
        }
        if (!c->validity) {
            alloc_buf(c, &c->validity, &c->validity_size, (size_t)(n + 7) / 8);
            memcpy(c->validity, x->validity, c->validity_size);
        } else {
            for (size_t i = 0; i < c->validity_size; i++)
                c->validity[i] &= x->validity[i];
        }
    }
    if (c->validity) {
        int64_t valid = 0;
        for (int64_t i = 0; i < n; i++)
            valid += cs_bit_get(c->validity, i);
        c->null_count = n - valid;
    }
}

cs_column *cs_px_all_null(cs_col_allocator *alloc, const cs_col_type *type, int64_t n)
{
    cs_col_builder *bld = cs_col_builder_new(alloc, (cs_col_type *)type);
    cs_col_builder_append_nulls(bld, n);
    cs_column *c = cs_col_builder_finish(bld);
    cs_col_builder_free(bld);
    return c;
}

int64_t cs_pexpr_true_rows(const cs_column *predicate, int32_t *sel)
{
    int64_t n = 0;
    const uint8_t *v = predicate->values, *valid = predicate->validity;
    if (!valid || predicate->null_count == 0) {
        for (int64_t i = 0; i < predicate->length; i++) {
            sel[n] = (int32_t)i;
            n += cs_bit_get(v, i);
        }
    } else {
        for (int64_t i = 0; i < predicate->length; i++) {
            sel[n] = (int32_t)i;
            n += cs_bit_get(v, i) & cs_bit_get(valid, i);
        }
    }
    return n;
}

/* validity of rows idx of c into out (nothing when c has no nulls) */
static void take_validity(const cs_column *c, const int32_t *idx, int64_t n, cs_column *out)
{
    if (!c->validity || c->null_count == 0) return;
    cs_px_ensure_validity(out);
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) {
        bool v = cs_bit_get(c->validity, idx[i]);
        if (!v) {
            cs_bit_set(out->validity, i, false);
            nulls++;
        }
    }
    out->null_count = nulls;
}

#define TAKE_WIDTH(T)                                                                              \
    do {                                                                                           \
        const T *src = (const T *)(const void *)c->values;                                         \
        T *dst = (T *)(void *)out->values;                                                         \
        for (int64_t i = 0; i < n; i++)                                                            \
            dst[i] = src[idx[i]];                                                                  \
    } while (0)

/* element ranges of list rows idx of c (array / map) gathered into offsets and an element index */
static int32_t *list_take(const cs_column *c, const int32_t *idx, int64_t n, cs_column *out,
                          int64_t *n_elems)
{
    const int32_t *off = cs_column_offsets(c);
    int32_t *o = (int32_t *)(void *)out->values;
    int64_t total = 0;
    for (int64_t i = 0; i < n; i++) {
        o[i] = (int32_t)total;
        total += off[idx[i] + 1] - off[idx[i]];
    }
    o[n] = (int32_t)total;
    int32_t *el = cs_xmalloc(sizeof *el * (size_t)(total ? total : 1));
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        for (int32_t e = off[idx[i]]; e < off[idx[i] + 1]; e++)
            el[k++] = e;
    *n_elems = total;
    return el;
}

cs_column *cs_px_take(const cs_column *c, const int32_t *idx, int64_t n, cs_col_allocator *a)
{
    cs_column *out = cs_column_new_raw(a, cs_col_type_ref(c->type), n);
    take_validity(c, idx, n, out);
    cs_type_id id = c->type->id;
    if (c->dictionary) {
        out->dictionary = cs_column_ref(c->dictionary);
        filled_buf(out, &out->values, &out->values_size, (size_t)n * 4);
        TAKE_WIDTH(int32_t);
        return out;
    }
    if (cs_col_type_has_offsets(id)) {
        bool bytes = id == CS_TYPE_STRING || id == CS_TYPE_BINARY; /* offsets all written below */
        (bytes ? filled_buf : alloc_buf)(out, &out->values, &out->values_size, (size_t)(n + 1) * 4);
        if (bytes) {
            const int32_t *off = cs_column_offsets(c);
            int32_t *o = (int32_t *)(void *)out->values;
            int64_t total = 0;
            for (int64_t i = 0; i < n; i++) {
                o[i] = (int32_t)total;
                total += off[idx[i] + 1] - off[idx[i]];
            }
            o[n] = (int32_t)total;
            filled_buf(out, &out->data, &out->data_size, (size_t)total);
            for (int64_t i = 0; i < n; i++) {
                int32_t len = off[idx[i] + 1] - off[idx[i]];
                if (len) memcpy(out->data + o[i], c->data + off[idx[i]], (size_t)len);
            }
            return out;
        }
        int64_t ne;
        int32_t *el = list_take(c, idx, n, out, &ne);
        out->n_children = c->n_children;
        out->children = cs_xcalloc((size_t)c->n_children, sizeof *out->children);
        for (int i = 0; i < c->n_children; i++)
            out->children[i] = cs_px_take(c->children[i], el, ne, a);
        free(el);
        return out;
    }
    if (id == CS_TYPE_STRUCT) {
        out->n_children = c->n_children;
        out->children = cs_xcalloc((size_t)c->n_children, sizeof *out->children);
        for (int i = 0; i < c->n_children; i++)
            out->children[i] = cs_px_take(c->children[i], idx, n, a);
        return out;
    }
    if (id == CS_TYPE_NULL) return out;
    if (id == CS_TYPE_BOOLEAN) {
        alloc_buf(out, &out->values, &out->values_size, (size_t)(n + 7) / 8);
        for (int64_t i = 0; i < n; i++)
            if (cs_bit_get(c->values, idx[i])) cs_bit_set(out->values, i, true);
        return out;
    }
    int w = cs_col_type_width(id);
    filled_buf(out, &out->values, &out->values_size, (size_t)n * (size_t)w);
    switch (w) {
    case 1:
        TAKE_WIDTH(uint8_t);
        break;
    case 2:
        TAKE_WIDTH(uint16_t);
        break;
    case 4:
        TAKE_WIDTH(uint32_t);
        break;
    case 8:
        TAKE_WIDTH(uint64_t);
        break;
    default:
        for (int64_t i = 0; i < n; i++)
            memcpy(out->values + i * w, c->values + (int64_t)idx[i] * w, (size_t)w);
    }
    return out;
}

cs_column *cs_column_take(const cs_column *c, const int32_t *idx, int64_t n,
                          cs_col_allocator *alloc)
{
    return cs_px_take(c, idx, n, alloc);
}

cs_col_batch *cs_col_batch_take(cs_col_batch *b, const int32_t *idx, int64_t n,
                                cs_col_allocator *alloc)
{
    cs_column **cols = cs_xmalloc(sizeof *cols * (size_t)(b->n_columns ? b->n_columns : 1));
    for (int i = 0; i < b->n_columns; i++)
        cols[i] = cs_px_take(b->columns[i], idx, n, alloc);
    cs_col_batch *out = cs_col_batch_new(cs_col_type_ref(b->schema), cols, b->n_columns, n, NULL);
    free(cols);
    return out;
}

/* The merge of rows (which[i], row[i]) of src[0..n_src) for any type: nested types recurse into
 * their children with one (which, row) pair per element, so a batch costs a few passes and one
 * allocation per buffer, never one per row. */
static cs_column *merge_any(cs_col_allocator *alloc, const cs_col_type *type, cs_column *const *src,
                            int n_src, const int32_t *which, const int32_t *row, int64_t n)
{
    cs_type_id id = type->id;
    cs_column *out = cs_column_new_raw(alloc, cs_col_type_ref((cs_col_type *)type), n);
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++)
        if (which[i] < 0 || !cs_column_is_valid(src[which[i]], row[i])) nulls++;
    if (nulls) {
        cs_px_ensure_validity(out);
        for (int64_t i = 0; i < n; i++)
            if (which[i] < 0 || !cs_column_is_valid(src[which[i]], row[i])) cs_px_set_null(out, i);
    }
    if (id == CS_TYPE_NULL) return out;
    if (id == CS_TYPE_STRING || id == CS_TYPE_BINARY) {
        filled_buf(out, &out->values, &out->values_size, (size_t)(n + 1) * 4);
        int32_t *o = (int32_t *)(void *)out->values;
        int64_t total = 0;
        for (int64_t i = 0; i < n; i++) {
            o[i] = (int32_t)total;
            int32_t len = 0;
            if (which[i] >= 0 && cs_column_is_valid(src[which[i]], row[i]))
                cs_column_bytes(src[which[i]], row[i], &len);
            total += len;
        }
        o[n] = (int32_t)total;
        filled_buf(out, &out->data, &out->data_size, (size_t)total);
        for (int64_t i = 0; i < n; i++) {
            int32_t len = o[i + 1] - o[i];
            if (len)
                memcpy(out->data + o[i], cs_column_bytes(src[which[i]], row[i], &len), (size_t)len);
        }
        return out;
    }
    if (id == CS_TYPE_STRUCT) {
        cs_column **cs = cs_xcalloc((size_t)n_src + 1, sizeof *cs);
        out->n_children = type->n_fields;
        out->children = cs_xcalloc((size_t)type->n_fields + 1, sizeof *out->children);
        for (int f = 0; f < type->n_fields; f++) {
            for (int s = 0; s < n_src; s++)
                cs[s] = src[s] ? src[s]->children[f] : NULL;
            out->children[f] = merge_any(alloc, type->fields[f].type, cs, n_src, which, row, n);
        }
        free(cs);
        return out;
    }
    if (cs_col_type_has_offsets(id)) { /* array, map: elements of each row, then the children */
        alloc_buf(out, &out->values, &out->values_size, (size_t)(n + 1) * 4);
        int32_t *o = (int32_t *)(void *)out->values;
        int64_t total = 0;
        for (int64_t i = 0; i < n; i++) {
            o[i] = (int32_t)total;
            if (which[i] < 0 || !cs_column_is_valid(src[which[i]], row[i])) continue;
            const int32_t *so = cs_column_offsets(src[which[i]]);
            total += so[row[i] + 1] - so[row[i]];
        }
        o[n] = (int32_t)total;
        size_t sz = sizeof(int32_t) * (size_t)(total ? total : 1);
        int32_t *ew = cs_xmalloc(sz), *er = cs_xmalloc(sz);
        for (int64_t i = 0, k = 0; i < n; i++) {
            if (o[i + 1] == o[i]) continue;
            const int32_t *so = cs_column_offsets(src[which[i]]);
            for (int32_t e = so[row[i]]; e < so[row[i] + 1]; e++, k++) {
                ew[k] = which[i];
                er[k] = e;
            }
        }
        int nc = id == CS_TYPE_MAP ? 2 : 1;
        cs_column **cs = cs_xcalloc((size_t)n_src + 1, sizeof *cs);
        out->n_children = nc;
        out->children = cs_xcalloc((size_t)nc, sizeof *out->children);
        for (int c = 0; c < nc; c++) {
            for (int s = 0; s < n_src; s++)
                cs[s] = src[s] ? src[s]->children[c] : NULL;
            out->children[c] = merge_any(alloc, type->fields[c].type, cs, n_src, ew, er, total);
        }
        free(cs);
        free(ew);
        free(er);
        return out;
    }
    if (id == CS_TYPE_BOOLEAN) {
        alloc_buf(out, &out->values, &out->values_size, (size_t)(n + 7) / 8); /* zero */
        for (int64_t i = 0; i < n; i++)
            if (which[i] >= 0 && cs_bit_get(src[which[i]]->values, row[i]))
                cs_bit_set(out->values, i, true);
        return out;
    }
    int w = cs_col_type_width(id);
    alloc_buf(out, &out->values, &out->values_size, (size_t)n * (size_t)w); /* zero */
    for (int64_t i = 0; i < n; i++)
        if (which[i] >= 0)
            memcpy(out->values + i * w, src[which[i]]->values + (int64_t)row[i] * w, (size_t)w);
    return out;
}

cs_column *cs_px_merge(cs_col_allocator *alloc, const cs_col_type *type, cs_column *const *src,
                       int n_src, const int32_t *which, const int32_t *row, int64_t n)
{
    return merge_any(alloc, type, src, n_src, which, row, n);
}

cs_column *cs_px_list_column(const cs_px_kctx *k, const cs_col_type *type, const int32_t *lens,
                             const uint8_t *null, cs_column **children, int nc)
{
    int64_t n = k->n;
    cs_column *r = cs_column_new_raw(k->alloc, cs_col_type_ref((cs_col_type *)type), n);
    r->values_size = (size_t)(n + 1) * 4;
    r->values = cs_col_buffer_alloc(r->alloc, r->values_size);
    int32_t *off = (int32_t *)(void *)r->values;
    off[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        off[i + 1] = off[i] + lens[i];
        if (null && null[i]) {
            cs_px_ensure_validity(r);
            cs_px_set_null(r, i);
        }
    }
    r->n_children = nc;
    r->children = cs_xcalloc((size_t)nc, sizeof *r->children);
    for (int c = 0; c < nc; c++)
        r->children[c] = children[c];
    return r;
}
