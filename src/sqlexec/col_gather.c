/*
 * col_gather.c — gathers rows from one or several batches into new columns: the row movement of
 * the hash join (probe rows with their build matches, null for an outer side's missing match),
 * the sort and top-N (rows of many input batches in sorted order) and limit (a slice). One pass
 * per column over the index vectors; a dictionary string column is gathered into a plain one.
 * (pexpr.h's cs_column_take is the single-source gather of the expression engine; this one adds
 * several sources and null rows, which the join and sort need.) The gather of runs copies whole
 * runs of consecutive rows (an exchange's partition held in partition order, batches concatenated):
 * one memcpy per run and buffer instead of one load and store per row.
 */
#include "sqlexec/sql_ops_internal.h"

#include "columnar/col_builder.h"

#include <stdlib.h>
#include <string.h>

static const cs_column *src_of(cs_column *const *srcs, const int32_t *bidx, int64_t i)
{
    return srcs[bidx ? bidx[i] : 0];
}

/* The validity of the gathered rows: none when no row is null (no null row index, no source
 * holding a null: null_count is the column's invariant, so a source's bitmap without nulls is
 * not read row by row). */
static void set_validity(cs_column *out, cs_column *const *srcs, int32_t nsrc, const int32_t *bidx,
                         const int32_t *ridx, int64_t n)
{
    int32_t min_row = 0;
    for (int64_t i = 0; i < n; i++)
        min_row = ridx[i] < min_row ? ridx[i] : min_row;
    bool src_nulls = false;
    for (int32_t s = 0; s < nsrc && !src_nulls; s++)
        src_nulls = srcs[s] && srcs[s]->validity && srcs[s]->null_count > 0;
    if (!src_nulls && min_row >= 0) return;
    out->validity_size = (size_t)(n + 7) / 8;
    out->validity = cs_col_buffer_alloc(out->alloc, out->validity_size);
    int64_t nulls = 0;
    for (int64_t i = 0; i < n; i++) {
        bool v = ridx[i] >= 0 && (!src_nulls || cs_column_is_valid(src_of(srcs, bidx, i), ridx[i]));
        if (v)
            out->validity[i >> 3] |= (uint8_t)(1u << (i & 7));
        else
            nulls++;
    }
    out->null_count = nulls;
    if (nulls == 0) {
        cs_col_buffer_free(out->alloc, out->validity, out->validity_size);
        out->validity = NULL;
        out->validity_size = 0;
    }
}

/* Offsets of list/string rows gathered: out offsets and, through *total, the element count. */
static int32_t *gather_offsets(cs_column *out, cs_column *const *srcs, const int32_t *bidx,
                               const int32_t *ridx, int64_t n, int64_t *total)
{
    out->values_size = (size_t)(n + 1) * 4;
    out->values = cs_col_buffer_alloc(out->alloc, out->values_size);
    int32_t *o = (int32_t *)(void *)out->values;
    int64_t t = 0;
    for (int64_t i = 0; i < n; i++) {
        o[i] = (int32_t)t;
        if (ridx[i] < 0) continue;
        const cs_column *s = src_of(srcs, bidx, i);
        const int32_t *so = cs_column_offsets(s);
        t += so[ridx[i] + 1] - so[ridx[i]];
    }
    o[n] = (int32_t)t;
    *total = t;
    return o;
}

/* Values of a fixed width w from several sources (or one), a loop per width so that each value
 * is one load and one store (a null row's value stays zero). */
#define GATHER_LOOP(T)                                                                             \
    for (int64_t i = 0; i < n; i++)                                                                \
        if (ridx[i] >= 0)                                                                          \
            ((T *)(void *)d)[i] = ((const T *)(const void *)src_of(srcs, bidx, i)->values)[ridx[i]];

static void gather_fixed(uint8_t *d, int w, cs_column *const *srcs, const int32_t *bidx,
                         const int32_t *ridx, int64_t n)
{
    switch (w) {
    case 1:
        GATHER_LOOP(uint8_t)
        return;
    case 2:
        GATHER_LOOP(uint16_t)
        return;
    case 4:
        GATHER_LOOP(uint32_t)
        return;
    case 8:
        GATHER_LOOP(uint64_t)
        return;
    case 16:
        for (int64_t i = 0; i < n; i++)
            if (ridx[i] >= 0)
                memcpy(d + (size_t)i * 16, src_of(srcs, bidx, i)->values + (size_t)ridx[i] * 16,
                       16);
        return;
    default:
        for (int64_t i = 0; i < n; i++)
            if (ridx[i] >= 0)
                memcpy(d + (size_t)i * (size_t)w,
                       src_of(srcs, bidx, i)->values + (size_t)ridx[i] * (size_t)w, (size_t)w);
    }
}
#undef GATHER_LOOP

cs_column *cs_sql_gather(cs_col_type *type, cs_column *const *srcs, const int32_t *bidx,
                         const int32_t *ridx, int64_t n, cs_col_allocator *alloc)
{
    bool any_row = false;
    for (int64_t i = 0; i < n && !any_row; i++)
        any_row = ridx[i] >= 0;
    if (!any_row) { /* all null: no source needed (an outer join's empty side) */
        cs_col_builder *b = cs_col_builder_new(alloc, type);
        cs_col_builder_append_nulls(b, n);
        cs_column *c = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        return c;
    }
    int32_t nsrc = 1; /* the sources the rows read: srcs[0, nsrc) */
    if (bidx)
        for (int64_t i = 0; i < n; i++)
            nsrc = bidx[i] >= nsrc ? bidx[i] + 1 : nsrc;
    cs_column *out = cs_column_new_raw(alloc, cs_col_type_ref(type), n);
    set_validity(out, srcs, nsrc, bidx, ridx, n);
    cs_type_id id = type->id;
    if (id == CS_TYPE_NULL) return out;
    if (id == CS_TYPE_BOOLEAN) {
        out->values_size = (size_t)(n + 7) / 8;
        out->values = cs_col_buffer_alloc(out->alloc, out->values_size);
        for (int64_t i = 0; i < n; i++)
            if (ridx[i] >= 0 && cs_bit_get(src_of(srcs, bidx, i)->values, ridx[i]))
                out->values[i >> 3] |= (uint8_t)(1u << (i & 7));
        return out;
    }
    int w = cs_col_type_width(id);
    if (w > 0) {
        out->values_size = (size_t)n * (size_t)w;
        /* widths 4 and 8 write every row (zero for a null one); the others only the rows read */
        out->values = w == 4 || w == 8 ? cs_col_buffer_alloc_unset(out->alloc, out->values_size)
                                       : cs_col_buffer_alloc(out->alloc, out->values_size);
        uint8_t *d = out->values;
        if (!bidx && w == 8) {
            const int64_t *s = (const int64_t *)(const void *)srcs[0]->values;
            int64_t *o = (int64_t *)(void *)d;
            for (int64_t i = 0; i < n; i++)
                o[i] = ridx[i] >= 0 ? s[ridx[i]] : 0;
        } else if (!bidx && w == 4) {
            const int32_t *s = (const int32_t *)(const void *)srcs[0]->values;
            int32_t *o = (int32_t *)(void *)d;
            for (int64_t i = 0; i < n; i++)
                o[i] = ridx[i] >= 0 ? s[ridx[i]] : 0;
        } else if (w == 8 || w == 4) { /* several sources: their value arrays, then one loop */
            const uint8_t **vals = cs_xmalloc(sizeof *vals * (size_t)nsrc);
            for (int32_t s = 0; s < nsrc; s++)
                vals[s] = srcs[s] ? srcs[s]->values : NULL;
            if (w == 8)
                for (int64_t i = 0; i < n; i++)
                    ((int64_t *)(void *)d)[i] =
                        ridx[i] >= 0 ? ((const int64_t *)(const void *)vals[bidx[i]])[ridx[i]] : 0;
            else
                for (int64_t i = 0; i < n; i++)
                    ((int32_t *)(void *)d)[i] =
                        ridx[i] >= 0 ? ((const int32_t *)(const void *)vals[bidx[i]])[ridx[i]] : 0;
            free(vals);
        } else {
            gather_fixed(d, w, srcs, bidx, ridx, n);
        }
        return out;
    }
    if (id == CS_TYPE_STRING || id == CS_TYPE_BINARY) {
        out->values_size = (size_t)(n + 1) * 4;
        out->values = cs_col_buffer_alloc_unset(out->alloc, out->values_size);
        int32_t *o = (int32_t *)(void *)out->values;
        int64_t t = 0;
        for (int64_t i = 0; i < n; i++) {
            o[i] = (int32_t)t;
            if (ridx[i] < 0) continue;
            int32_t len;
            cs_column_bytes(src_of(srcs, bidx, i), ridx[i], &len);
            t += len;
        }
        o[n] = (int32_t)t;
        out->data_size = (size_t)t;
        out->data = cs_col_buffer_alloc_unset(out->alloc, out->data_size);
        for (int64_t i = 0; i < n; i++) {
            if (ridx[i] < 0) continue;
            int32_t len;
            const uint8_t *p = cs_column_bytes(src_of(srcs, bidx, i), ridx[i], &len);
            if (len) memcpy(out->data + o[i], p, (size_t)len);
        }
        return out;
    }
    if (id == CS_TYPE_STRUCT) {
        int nf = type->n_fields;
        out->n_children = nf;
        out->children = cs_xcalloc((size_t)(nf > 0 ? nf : 1), sizeof *out->children);
        cs_column **ch = cs_xmalloc(sizeof *ch * (size_t)nsrc);
        for (int f = 0; f < nf; f++) {
            for (int s = 0; s < nsrc; s++)
                ch[s] = srcs[s]->children[f];
            out->children[f] = cs_sql_gather(type->fields[f].type, ch, bidx, ridx, n, alloc);
        }
        free(ch);
        return out;
    }
    /* array, map: offsets, then the children's elements gathered by an element index list */
    int64_t total;
    int32_t *o = gather_offsets(out, srcs, bidx, ridx, n, &total);
    int32_t *eb = bidx ? cs_xmalloc(sizeof *eb * (size_t)(total > 0 ? total : 1)) : NULL;
    int32_t *er = cs_xmalloc(sizeof *er * (size_t)(total > 0 ? total : 1));
    for (int64_t i = 0; i < n; i++) {
        if (ridx[i] < 0) continue;
        const int32_t *so = cs_column_offsets(src_of(srcs, bidx, i));
        for (int32_t j = so[ridx[i]], k = o[i]; j < so[ridx[i] + 1]; j++, k++) {
            er[k] = j;
            if (eb) eb[k] = bidx[i];
        }
    }
    int nch = srcs[0]->n_children;
    out->n_children = nch;
    out->children = cs_xcalloc((size_t)(nch > 0 ? nch : 1), sizeof *out->children);
    cs_column **ch = cs_xmalloc(sizeof *ch * (size_t)nsrc);
    for (int f = 0; f < nch; f++) {
        for (int s = 0; s < nsrc; s++)
            ch[s] = srcs[s]->children[f];
        out->children[f] = cs_sql_gather(ch[0]->type, ch, eb, er, total, alloc);
    }
    free(ch);
    free(eb);
    free(er);
    return out;
}

cs_col_batch *cs_sql_gather_batch(cs_col_type *schema, cs_col_batch *const *batches,
                                  const int32_t *bidx, const int32_t *ridx, int64_t n,
                                  cs_col_allocator *alloc)
{
    int nc = schema->n_fields, nsrc = 1;
    if (bidx)
        for (int64_t i = 0; i < n; i++)
            if (bidx[i] + 1 > nsrc) nsrc = bidx[i] + 1;
    cs_column **cols = cs_xmalloc(sizeof *cols * (size_t)(nc > 0 ? nc : 1));
    cs_column **src = cs_xmalloc(sizeof *src * (size_t)nsrc);
    for (int c = 0; c < nc; c++) {
        for (int s = 0; s < nsrc; s++)
            src[s] = batches[s] ? batches[s]->columns[c] : NULL;
        for (int s = 1; s < nsrc; s++) /* a missing source is never read: stand in */
            if (!src[s]) src[s] = src[0];
        cols[c] = cs_sql_gather(schema->fields[c].type, src, bidx, ridx, n, alloc);
    }
    free(src);
    cs_col_batch *b = cs_col_batch_new(cs_col_type_ref(schema), cols, nc, n, NULL);
    free(cols);
    return b;
}

/* ---- runs of consecutive rows ---- */

/* The null of each gathered row from the runs' sources (none when no source holds a null). */
static void set_run_validity(cs_column *out, cs_column *const *srcs, const cs_sql_row_run *runs,
                             int n_runs, int64_t n)
{
    bool src_nulls = false;
    for (int r = 0; r < n_runs && !src_nulls; r++) {
        const cs_column *s = srcs[runs[r].batch];
        src_nulls = s->validity && s->null_count > 0;
    }
    if (!src_nulls) return;
    out->validity_size = (size_t)(n + 7) / 8;
    out->validity = cs_col_buffer_alloc(out->alloc, out->validity_size);
    int64_t at = 0, nulls = 0;
    for (int r = 0; r < n_runs; r++) {
        const cs_column *s = srcs[runs[r].batch];
        int64_t from = runs[r].start, len = runs[r].len;
        if (!s->validity || s->null_count == 0) {
            for (int64_t i = 0; i < len; i++)
                out->validity[(at + i) >> 3] |= (uint8_t)(1u << ((at + i) & 7));
        } else {
            for (int64_t i = 0; i < len; i++) {
                if (cs_bit_get(s->validity, from + i))
                    out->validity[(at + i) >> 3] |= (uint8_t)(1u << ((at + i) & 7));
                else
                    nulls++;
            }
        }
        at += len;
    }
    out->null_count = nulls;
}

/* The runs of a struct's field f: ch[r] is run r's source's field column, fr[r] the run over it
 * (batch r of ch). */
static void field_runs(cs_column *const *srcs, const cs_sql_row_run *runs, int n_runs, int f,
                       cs_column **ch, cs_sql_row_run *fr)
{
    for (int r = 0; r < n_runs; r++) {
        ch[r] = srcs[runs[r].batch]->children[f];
        fr[r] = (cs_sql_row_run){.batch = r, .start = runs[r].start, .len = runs[r].len};
    }
}

/* Whether every run's source can be copied run by run: not a dictionary-encoded string, not an
 * array or map (whose elements would need their own runs); a struct when its fields can. */
static bool runs_copyable(const cs_col_type *type, cs_column *const *srcs,
                          const cs_sql_row_run *runs, int n_runs)
{
    cs_type_id id = type->id;
    if (id == CS_TYPE_ARRAY || id == CS_TYPE_MAP) return false;
    if (id == CS_TYPE_STRING || id == CS_TYPE_BINARY) {
        for (int r = 0; r < n_runs; r++)
            if (srcs[runs[r].batch]->dictionary) return false;
        return true;
    }
    if (id != CS_TYPE_STRUCT) return true;
    bool ok = true;
    cs_column **ch = cs_xmalloc(sizeof *ch * (size_t)(n_runs > 0 ? n_runs : 1));
    cs_sql_row_run *fr = cs_xmalloc(sizeof *fr * (size_t)(n_runs > 0 ? n_runs : 1));
    for (int f = 0; f < type->n_fields && ok; f++) {
        field_runs(srcs, runs, n_runs, f, ch, fr);
        ok = runs_copyable(type->fields[f].type, ch, fr, n_runs);
    }
    free(fr);
    free(ch);
    return ok;
}

/* The runs' rows one after another, every source copyable (runs_copyable). */
static cs_column *copy_runs(cs_col_type *type, cs_column *const *srcs, const cs_sql_row_run *runs,
                            int n_runs, int64_t n, cs_col_allocator *alloc)
{
    cs_column *out = cs_column_new_raw(alloc, cs_col_type_ref(type), n);
    set_run_validity(out, srcs, runs, n_runs, n);
    cs_type_id id = type->id;
    if (id == CS_TYPE_NULL) return out;
    int64_t at = 0;
    if (id == CS_TYPE_BOOLEAN) {
        out->values_size = (size_t)(n + 7) / 8;
        out->values = cs_col_buffer_alloc(out->alloc, out->values_size);
        for (int r = 0; r < n_runs; r++) {
            const uint8_t *v = srcs[runs[r].batch]->values;
            for (int64_t i = 0; i < runs[r].len; i++, at++)
                if (cs_bit_get(v, runs[r].start + i))
                    out->values[at >> 3] |= (uint8_t)(1u << (at & 7));
        }
        return out;
    }
    int w = cs_col_type_width(id);
    if (w > 0) {
        out->values_size = (size_t)n * (size_t)w; /* the runs cover all n rows */
        out->values = cs_col_buffer_alloc_unset(out->alloc, out->values_size);
        for (int r = 0; r < n_runs; r++) {
            memcpy(out->values + (size_t)at * (size_t)w,
                   srcs[runs[r].batch]->values + (size_t)runs[r].start * (size_t)w,
                   (size_t)runs[r].len * (size_t)w);
            at += runs[r].len;
        }
        return out;
    }
    if (id == CS_TYPE_STRING || id == CS_TYPE_BINARY) {
        out->values_size = (size_t)(n + 1) * 4;
        out->values = cs_col_buffer_alloc_unset(out->alloc, out->values_size);
        int32_t *o = (int32_t *)(void *)out->values;
        int64_t t = 0;
        for (int r = 0; r < n_runs; r++) {
            const int32_t *so = cs_column_offsets(srcs[runs[r].batch]);
            t += so[runs[r].start + runs[r].len] - so[runs[r].start];
        }
        out->data_size = (size_t)t;
        out->data = cs_col_buffer_alloc_unset(out->alloc, out->data_size);
        t = 0;
        for (int r = 0; r < n_runs; r++) {
            const cs_column *s = srcs[runs[r].batch];
            const int32_t *so = cs_column_offsets(s) + runs[r].start;
            int64_t len = runs[r].len;
            int32_t base = so[0], rebase = (int32_t)t - base;
            for (int64_t i = 0; i < len; i++)
                o[at + i] = so[i] + rebase;
            if (so[len] > base) memcpy(out->data + t, s->data + base, (size_t)(so[len] - base));
            t += so[len] - base;
            at += len;
        }
        o[n] = (int32_t)t;
        return out;
    }
    /* struct: each field the same runs of the sources' field */
    int nf = type->n_fields;
    out->n_children = nf;
    out->children = cs_xcalloc((size_t)(nf > 0 ? nf : 1), sizeof *out->children);
    cs_column **ch = cs_xmalloc(sizeof *ch * (size_t)(n_runs > 0 ? n_runs : 1));
    cs_sql_row_run *fr = cs_xmalloc(sizeof *fr * (size_t)(n_runs > 0 ? n_runs : 1));
    for (int f = 0; f < nf; f++) {
        field_runs(srcs, runs, n_runs, f, ch, fr);
        out->children[f] = copy_runs(type->fields[f].type, ch, fr, n_runs, n, alloc);
    }
    free(fr);
    free(ch);
    return out;
}

cs_column *cs_sql_gather_runs(cs_col_type *type, cs_column *const *srcs, const cs_sql_row_run *runs,
                              int n_runs, cs_col_allocator *alloc)
{
    int64_t n = 0;
    for (int r = 0; r < n_runs; r++)
        n += runs[r].len;
    if (runs_copyable(type, srcs, runs, n_runs))
        return copy_runs(type, srcs, runs, n_runs, n, alloc);
    /* row by row (dictionary strings, arrays, maps) */
    int32_t *bidx = cs_xmalloc(sizeof *bidx * (size_t)(n > 0 ? n : 1));
    int32_t *ridx = cs_xmalloc(sizeof *ridx * (size_t)(n > 0 ? n : 1));
    int64_t at = 0;
    for (int r = 0; r < n_runs; r++)
        for (int64_t i = 0; i < runs[r].len; i++, at++) {
            bidx[at] = runs[r].batch;
            ridx[at] = (int32_t)(runs[r].start + i);
        }
    cs_column *out = cs_sql_gather(type, srcs, bidx, ridx, n, alloc);
    free(bidx);
    free(ridx);
    return out;
}

cs_col_batch *cs_sql_gather_runs_batch(cs_col_type *schema, cs_col_batch *const *batches,
                                       const cs_sql_row_run *runs, int n_runs,
                                       cs_col_allocator *alloc)
{
    int nc = schema->n_fields, nsrc = 1;
    int64_t n = 0;
    for (int r = 0; r < n_runs; r++) {
        nsrc = runs[r].batch + 1 > nsrc ? runs[r].batch + 1 : nsrc;
        n += runs[r].len;
    }
    cs_column **cols = cs_xmalloc(sizeof *cols * (size_t)(nc > 0 ? nc : 1));
    cs_column **src = cs_xcalloc((size_t)nsrc, sizeof *src);
    for (int c = 0; c < nc; c++) {
        /* a batch no run reads is never read: the first run's stands in */
        for (int s = 0; s < nsrc && n_runs > 0; s++)
            src[s] = batches[runs[0].batch]->columns[c];
        for (int r = 0; r < n_runs; r++)
            src[runs[r].batch] = batches[runs[r].batch]->columns[c];
        cols[c] = cs_sql_gather_runs(schema->fields[c].type, src, runs, n_runs, alloc);
    }
    free(src);
    cs_col_batch *b = cs_col_batch_new(cs_col_type_ref(schema), cols, nc, n, NULL);
    free(cols);
    return b;
}
