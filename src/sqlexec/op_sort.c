/*
 * op_sort.c — Sort (Spark's SortExec with its UnsafeExternalSorter) and TopN (Spark's
 * TakeOrderedAndProjectExec, one task's part): orders the child's rows by key ordinals with
 * ASC/DESC and NULLS FIRST/LAST in Spark's ordering of each type.
 *
 * Rows are never copied to sort them: each input batch is kept (a reference), its sort keys are
 * encoded a batch at a time into normalized bytes (sort_keys.c: memcmp order = Spark's order)
 * copied into an arena of the task's memory, and an array of entries {key, batch, row} is sorted
 * (ties broken by arrival, so the sort is stable). Output batches are gathered from the kept
 * batches in that order (col_gather.c).
 *
 * Spilling (Sort): when the task is over its execution memory after a batch
 * (cs_sql_should_spill), the rows held are sorted and written as one sorted run to a spill file,
 * and memory is released. At the end, if anything spilled, the rest becomes a last run and the
 * runs are merged with a binary heap over each run's current row (ties: the earlier run first,
 * which keeps the sort stable).
 *
 * TopN keeps at most 2 x (limit + offset) rows: past that, it sorts what it holds and keeps the
 * first limit + offset rows (one gathered batch), so memory is bounded by the limit, not by the
 * input. After its first shrink a TopN knows its worst kept row's key, and a batch's rows whose
 * keys do not sort strictly before it are dropped before they are held or sorted (a tie arrives
 * later, so it would sort after the worst row: the output is the same). A TopN given a bound
 * (topn_bound.h) publishes its worst kept row's key at each shrink, and then shrinks as soon as it
 * holds twice limit + offset rows, so that the scan under it learns the tighter bound early.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr.h"
#include "sqlexec/sql_error.h"
#include "sqlexec/sql_ops_internal.h"
#include "sqlexec/topn_bound.h"

typedef struct sort_ent {
    uint64_t prefix; /* the key's first 8 bytes, big-endian, zero-padded: most compares end here */
    const uint8_t *key;
    uint32_t len;
    int32_t b, r;
} sort_ent;

typedef struct sorter {
    cs_col_allocator *alloc;
    const cs_sort_key *keys;
    int n_keys;
    cs_col_batch **bb;
    int nbb, bb_cap;
    int64_t bb_memory; /* bytes of the kept batches */
    sort_ent *ents;
    int64_t n, cap;
    cs_sql_arena arena;
    cs_sql_keybuf kb;
} sorter;

/* Entries for rows sel[0..n) of b (sel NULL: rows 0..n), whose keys s->kb holds (encoded from
 * b): b is kept as it is (all rows) or as a batch of just those rows (its row i = sel[i]). */
static void sorter_add_encoded(sorter *s, cs_col_batch *b, const int32_t *sel, int64_t n)
{
    if (sel) {
        cs_col_batch *t = cs_col_batch_take(b, sel, n, s->alloc);
        cs_col_batch_unref(b);
        b = t;
    }
    if (s->nbb == s->bb_cap) {
        s->bb_cap = s->bb_cap ? 2 * s->bb_cap : 64;
        s->bb = cs_xrealloc(s->bb, sizeof *s->bb * (size_t)s->bb_cap);
    }
    int bi = s->nbb++;
    s->bb[bi] = b;
    s->bb_memory += cs_col_batch_memory(b);
    if (s->n + n > s->cap) {
        int64_t nc = s->cap ? 2 * s->cap : 4096;
        while (nc < s->n + n)
            nc *= 2;
        s->ents = cs_col_buffer_realloc(s->alloc, s->ents, (size_t)s->cap * sizeof *s->ents,
                                        (size_t)nc * sizeof *s->ents);
        s->cap = nc;
    }
    size_t total = 0;
    if (sel)
        for (int64_t i = 0; i < n; i++)
            total += (size_t)(s->kb.off[sel[i] + 1] - s->kb.off[sel[i]]);
    else
        total = (size_t)s->kb.off[n];
    uint8_t *dst = cs_sql_arena_alloc(&s->arena, total ? total : 1);
    if (!sel && total) memcpy(dst, s->kb.bytes, total);
    for (int64_t i = 0; i < n; i++) {
        int64_t r = sel ? sel[i] : i;
        sort_ent *e = &s->ents[s->n++];
        e->len = (uint32_t)(s->kb.off[r + 1] - s->kb.off[r]);
        if (sel) memcpy(dst, s->kb.bytes + s->kb.off[r], e->len);
        e->key = sel ? dst : dst + s->kb.off[r];
        if (sel) dst += e->len;
        uint64_t p = 0;
        for (uint32_t k = 0; k < 8; k++)
            p = p << 8 | (k < e->len ? e->key[k] : 0);
        e->prefix = p;
        e->b = bi;
        e->r = (int32_t)i;
    }
}

static void sorter_add(sorter *s, cs_col_batch *b)
{
    cs_sql_keys_encode(&s->kb, b, s->keys, s->n_keys, false);
    sorter_add_encoded(s, b, NULL, b->num_rows);
}

static inline int cmp_ent(const sort_ent *a, const sort_ent *b)
{
    if (a->prefix != b->prefix) return a->prefix < b->prefix ? -1 : 1;
    uint32_t m = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->key, b->key, m);
    if (c) return c;
    if (a->len != b->len) return a->len < b->len ? -1 : 1;
    if (a->b != b->b) return a->b < b->b ? -1 : 1;
    return (a->r > b->r) - (a->r < b->r);
}

/* Entries sorted by cmp_ent (a total order: no two entries tie): runs of 16 by insertion, then
 * bottom-up merges between the array and tmp, with the comparison inlined (qsort's is a call
 * through a pointer and its moves a generic copy). */
#define SORT_RUN 16
static void sort_ents(sort_ent *a, int64_t n)
{
    for (int64_t lo = 0; lo < n; lo += SORT_RUN) {
        int64_t hi = lo + SORT_RUN < n ? lo + SORT_RUN : n;
        for (int64_t i = lo + 1; i < hi; i++) {
            sort_ent x = a[i];
            int64_t j = i;
            for (; j > lo && cmp_ent(&x, &a[j - 1]) < 0; j--)
                a[j] = a[j - 1];
            a[j] = x;
        }
    }
    if (n <= SORT_RUN) return;
    sort_ent *tmp = cs_xmalloc(sizeof *tmp * (size_t)n), *src = a, *dst = tmp;
    for (int64_t w = SORT_RUN; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = cmp_ent(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        sort_ent *t = src;
        src = dst;
        dst = t;
    }
    if (src != a) memcpy(a, src, sizeof *a * (size_t)n);
    free(tmp);
}

static void sorter_sort(sorter *s)
{
    if (s->n > 1) sort_ents(s->ents, s->n);
}

/* Entries [from, from + n) as a batch of schema. */
static cs_col_batch *sorter_batch(sorter *s, cs_col_type *schema, int64_t from, int64_t n)
{
    int32_t *bi = cs_xmalloc(sizeof *bi * (size_t)(n > 0 ? n : 1));
    int32_t *ri = cs_xmalloc(sizeof *ri * (size_t)(n > 0 ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        bi[i] = s->ents[from + i].b;
        ri[i] = s->ents[from + i].r;
    }
    cs_col_batch *out = cs_sql_gather_batch(schema, s->bb, bi, ri, n, s->alloc);
    free(bi);
    free(ri);
    return out;
}

static int64_t sorter_held(const sorter *s)
{
    return s->bb_memory + s->arena.held + s->cap * (int64_t)sizeof(sort_ent);
}

static void sorter_reset(sorter *s)
{
    for (int i = 0; i < s->nbb; i++)
        cs_col_batch_unref(s->bb[i]);
    s->nbb = 0;
    s->bb_memory = 0;
    cs_col_buffer_free(s->alloc, s->ents, (size_t)s->cap * sizeof *s->ents);
    s->ents = NULL;
    s->n = s->cap = 0;
    cs_sql_arena_reset(&s->arena);
}

static void sorter_free(sorter *s)
{
    sorter_reset(s);
    free(s->bb);
    s->bb = NULL;
    s->bb_cap = 0;
    cs_sql_keybuf_free(&s->kb);
}

/* ---- a sorted run being merged ---- */

typedef struct run {
    cs_sql_spill *spill;
    cs_col_batch *cur; /* NULL: exhausted */
    int64_t pos;
    cs_sql_keybuf kb;
} run;

static int run_advance(run *r, const sorter *s, cs_error *err)
{
    r->pos++;
    while (!r->cur || r->pos >= r->cur->num_rows) {
        if (r->cur) cs_col_batch_unref(r->cur);
        r->cur = NULL;
        r->pos = 0;
        int rc = cs_sql_spill_next(r->spill, &r->cur, err);
        if (rc <= 0) return rc;
        cs_sql_keys_encode(&r->kb, r->cur, s->keys, s->n_keys, false);
    }
    return CS_OK;
}

static int run_cmp(const run *a, int ia, const run *b, int ib)
{
    const uint8_t *ka = a->kb.bytes + a->kb.off[a->pos], *kb = b->kb.bytes + b->kb.off[b->pos];
    int64_t la = a->kb.off[a->pos + 1] - a->kb.off[a->pos];
    int64_t lb = b->kb.off[b->pos + 1] - b->kb.off[b->pos];
    int c = memcmp(ka, kb, (size_t)(la < lb ? la : lb));
    if (c) return c;
    if (la != lb) return la < lb ? -1 : 1;
    return (ia > ib) - (ia < ib);
}

/* ---- the operator (Sort and TopN) ---- */

typedef struct sort_op {
    cs_sql_op base;
    cs_sort_key *keys;
    int n_keys;
    bool top_n;
    int64_t limit, offset;
    sorter s;
    bool sorted;
    int64_t emit, end;
    /* spilled runs */
    run *runs;
    int n_runs, runs_cap;
    int *heap;
    int heap_n;
    bool merging;
    cs_sql_topn_bound *bound; /* TopN: published to the scan below, or NULL */
    /* TopN holding limit + offset rows: its worst kept row's key (a copy); only rows whose key
     * sorts strictly before it can enter (a tie arrives later, so it sorts after) */
    uint8_t *worst;
    size_t worst_len;
    bool has_worst;
    int32_t *sel; /* rows of a batch that may enter (sel_cap) */
    int64_t sel_cap;
} sort_op;

static int spill_run(sort_op *o, cs_error *err)
{
    const cs_sql_exec_ctx *ctx = o->base.ctx;
    sorter *s = &o->s;
    sorter_sort(s);
    cs_sql_spill *sp = cs_sql_spill_new(ctx->spill_dir, o->base.schema, err);
    if (!sp) return CS_EIO;
    int rc = CS_OK;
    int64_t chunk = cs_sql_batch_rows(ctx);
    for (int64_t i = 0; i < s->n && rc == CS_OK; i += chunk) {
        cs_col_batch *b = sorter_batch(s, o->base.schema, i, s->n - i < chunk ? s->n - i : chunk);
        rc = cs_sql_spill_write(sp, b, err);
        cs_col_batch_unref(b);
    }
    if (rc == CS_OK) rc = cs_sql_spill_finish(sp, ctx->alloc, err);
    if (o->n_runs == o->runs_cap) {
        o->runs_cap = o->runs_cap ? 2 * o->runs_cap : 8;
        o->runs = cs_xrealloc(o->runs, sizeof *o->runs * (size_t)o->runs_cap);
    }
    o->runs[o->n_runs++] = (run){.spill = sp};
    cs_sql_note_spill(&o->base, sorter_held(s), cs_sql_spill_bytes(sp));
    sorter_reset(s);
    return rc;
}

static void sift_down(sort_op *o, int i)
{
    for (;;) {
        int l = 2 * i + 1, m = i;
        if (l < o->heap_n &&
            run_cmp(&o->runs[o->heap[l]], o->heap[l], &o->runs[o->heap[m]], o->heap[m]) < 0)
            m = l;
        if (l + 1 < o->heap_n &&
            run_cmp(&o->runs[o->heap[l + 1]], o->heap[l + 1], &o->runs[o->heap[m]], o->heap[m]) < 0)
            m = l + 1;
        if (m == i) return;
        int t = o->heap[i];
        o->heap[i] = o->heap[m];
        o->heap[m] = t;
        i = m;
    }
}

static int start_merge(sort_op *o, cs_error *err)
{
    o->heap = cs_xmalloc(sizeof *o->heap * (size_t)o->n_runs);
    o->heap_n = 0;
    for (int i = 0; i < o->n_runs; i++) {
        run *r = &o->runs[i];
        r->pos = -1;
        int rc = run_advance(r, &o->s, err);
        if (rc < 0) return rc;
        if (r->cur) o->heap[o->heap_n++] = i;
    }
    for (int i = o->heap_n / 2 - 1; i >= 0; i--)
        sift_down(o, i);
    o->merging = true;
    return CS_OK;
}

/* The next merged batch: rows picked from the runs' current batches (kept referenced in a
 * small list of sources until the batch is gathered). */
static int merge_next(sort_op *o, cs_col_batch **out, cs_error *err)
{
    int64_t chunk = cs_sql_batch_rows(o->base.ctx), n = 0;
    if (o->heap_n == 0) return CS_OK;
    int32_t *bi = cs_xmalloc(sizeof *bi * (size_t)chunk);
    int32_t *ri = cs_xmalloc(sizeof *ri * (size_t)chunk);
    cs_col_batch **src = NULL;
    int nsrc = 0, src_cap = 0;
    int rc = CS_OK;
    while (n < chunk && o->heap_n > 0) {
        run *r = &o->runs[o->heap[0]];
        if (nsrc == 0 || src[nsrc - 1] != r->cur) {
            int k = nsrc - 1;
            while (k >= 0 && src[k] != r->cur)
                k--;
            if (k < 0) {
                if (nsrc == src_cap) {
                    src_cap = src_cap ? 2 * src_cap : 8;
                    src = cs_xrealloc(src, sizeof *src * (size_t)src_cap);
                }
                src[nsrc++] = cs_col_batch_ref(r->cur);
            }
        }
        int k = nsrc - 1;
        while (src[k] != r->cur)
            k--;
        bi[n] = k;
        ri[n++] = (int32_t)r->pos;
        if ((rc = run_advance(r, &o->s, err)) < 0) break;
        rc = CS_OK;
        if (!r->cur) o->heap[0] = o->heap[--o->heap_n];
        sift_down(o, 0);
    }
    if (rc == CS_OK && n > 0)
        *out = cs_sql_gather_batch(o->base.schema, src, bi, ri, n, o->base.ctx->alloc);
    for (int i = 0; i < nsrc; i++)
        cs_col_batch_unref(src[i]);
    free(src);
    free(bi);
    free(ri);
    return rc;
}

/* TopN: keep only the first limit + offset rows of what is held. */
static void top_n_shrink(sort_op *o)
{
    sorter *s = &o->s;
    int64_t keep = o->limit + o->offset;
    sorter_sort(s);
    if (keep > s->n) keep = s->n;
    cs_col_batch *b = sorter_batch(s, o->base.schema, 0, keep);
    sorter_reset(s);
    sorter_add(s, b);
    if (keep == o->limit + o->offset && keep > 0) {
        const sort_ent *worst = &s->ents[keep - 1];
        o->worst = cs_xrealloc(o->worst, worst->len ? worst->len : 1);
        memcpy(o->worst, worst->key, worst->len);
        o->worst_len = worst->len;
        o->has_worst = true;
        if (o->bound) cs_sql_topn_bound_set(o->bound, b, worst->r, worst->key, worst->len);
    }
}

/* TopN past its first full shrink: only b's rows whose key sorts strictly before the worst kept
 * row's are held (b's other rows could not enter: the output is the same, without sorting
 * them). Takes b. */
static void top_n_add(sort_op *o, cs_col_batch *b)
{
    sorter *s = &o->s;
    if (!o->has_worst) {
        sorter_add(s, b);
        return;
    }
    int64_t n = b->num_rows, m = 0;
    cs_sql_keys_encode(&s->kb, b, s->keys, s->n_keys, false);
    if (n > o->sel_cap) {
        o->sel_cap = n;
        free(o->sel);
        o->sel = cs_xmalloc(sizeof *o->sel * (size_t)n);
    }
    for (int64_t i = 0; i < n; i++) {
        size_t len = (size_t)(s->kb.off[i + 1] - s->kb.off[i]);
        int c =
            memcmp(s->kb.bytes + s->kb.off[i], o->worst, len < o->worst_len ? len : o->worst_len);
        if (c < 0 || (c == 0 && len < o->worst_len)) o->sel[m++] = (int32_t)i;
    }
    if (m == 0)
        cs_col_batch_unref(b);
    else
        sorter_add_encoded(s, b, m == n ? NULL : o->sel, m);
}

static int sort_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    sort_op *o = (sort_op *)op;
    o->s.alloc = ctx->alloc;
    o->s.arena.alloc = ctx->alloc;
    o->s.keys = o->keys;
    o->s.n_keys = o->n_keys;
    o->sorted = false;
    o->merging = false;
    o->has_worst = false;
    if (o->bound) cs_sql_topn_bound_attach(o->bound, ctx->ansi, ctx->session_tz);
    return cs_sql_op_open(op->children[0], ctx, err);
}

static int consume(sort_op *o, cs_error *err)
{
    int rc;
    int64_t keep = o->limit + o->offset;
    for (;;) {
        cs_col_batch *b;
        if ((rc = cs_sql_op_next(o->base.children[0], &b, err)) != CS_OK) return rc;
        if (!b) break;
        if (b->num_rows == 0 || (o->top_n && keep == 0)) {
            cs_col_batch_unref(b);
            continue;
        }
        if (o->top_n)
            top_n_add(o, b);
        else
            sorter_add(&o->s, b);
        int64_t held = sorter_held(&o->s);
        if (held > o->base.metrics.peak_memory) o->base.metrics.peak_memory = held;
        if (o->top_n) {
            if (o->s.n > 2 * keep && (o->s.n > 1024 || o->bound)) top_n_shrink(o);
        } else if (cs_sql_should_spill(o->base.ctx, held) && (rc = spill_run(o, err)) != CS_OK) {
            return rc;
        }
    }
    if (o->n_runs > 0) {
        if (o->s.n > 0 && (rc = spill_run(o, err)) != CS_OK) return rc;
        return start_merge(o, err);
    }
    sorter_sort(&o->s);
    o->emit = o->top_n ? o->offset : 0;
    o->end = o->s.n;
    if (o->top_n && o->end > o->limit + o->offset) o->end = o->limit + o->offset;
    return CS_OK;
}

static int sort_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    sort_op *o = (sort_op *)op;
    if (!o->sorted) {
        o->sorted = true;
        int rc = consume(o, err);
        if (rc != CS_OK) return rc;
    }
    if (o->merging) return merge_next(o, out, err);
    if (o->emit >= o->end) return CS_OK;
    int64_t n = o->end - o->emit, max = cs_sql_batch_rows(op->ctx);
    if (n > max) n = max;
    *out = sorter_batch(&o->s, op->schema, o->emit, n);
    o->emit += n;
    return CS_OK;
}

static void sort_close(cs_sql_op *op)
{
    sort_op *o = (sort_op *)op;
    sorter_free(&o->s);
    for (int i = 0; i < o->n_runs; i++) {
        cs_col_batch_unref(o->runs[i].cur);
        cs_sql_spill_free(o->runs[i].spill);
        cs_sql_keybuf_free(&o->runs[i].kb);
    }
    free(o->runs);
    o->runs = NULL;
    o->n_runs = o->runs_cap = 0;
    free(o->heap);
    o->heap = NULL;
    free(o->worst);
    free(o->sel);
    o->worst = NULL;
    o->sel = NULL;
    o->sel_cap = 0;
    o->has_worst = false;
    cs_sql_op_close(op->children[0]);
}

static void sort_destroy(cs_sql_op *op)
{
    sort_op *o = (sort_op *)op;
    cs_sql_topn_bound_unref(o->bound);
    free(o->keys);
    free(o);
}

static void sort_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const sort_op *o = (const sort_op *)op;
    if (o->top_n) cs_sbuf_printf(out, "(limit=%lld, orderBy=", (long long)o->limit);
    cs_sbuf_putc(out, '[');
    for (int k = 0; k < o->n_keys; k++) {
        const cs_sort_key *key = &o->keys[k];
        cs_sbuf_printf(out, "%s%s %s NULLS %s", k ? ", " : "",
                       op->schema->fields[key->ordinal].name, key->descending ? "DESC" : "ASC",
                       key->nulls_first ? "FIRST" : "LAST");
    }
    cs_sbuf_puts(out, o->top_n ? "])" : "], false, 0");
}

static const cs_sql_op_vtable sort_vt = {
    .name = "Sort",
    .open = sort_open,
    .next = sort_next,
    .close = sort_close,
    .destroy = sort_destroy,
    .explain_args = sort_explain,
};

static const cs_sql_op_vtable top_n_vt = {
    .name = "TakeOrderedAndProject",
    .open = sort_open,
    .next = sort_next,
    .close = sort_close,
    .destroy = sort_destroy,
    .explain_args = sort_explain,
};

static cs_sql_op *make_sort(cs_sql_op *child, const cs_sort_key *keys, int n_keys, bool top_n,
                            int64_t limit, int64_t offset, cs_error *err)
{
    const cs_col_type *in = child->schema;
    int rc = CS_OK;
    for (int k = 0; k < n_keys && rc == CS_OK; k++) {
        int o = keys[k].ordinal;
        if (o < 0 || o >= in->n_fields)
            rc = cs_error_set(err, CS_EINVAL,
                              "Sort: key ordinal %d is not a column of its "
                              "%d-column input",
                              o, in->n_fields);
        else if (!cs_sql_struct_key_type_ok(in->fields[o].type))
            rc =
                cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.INVALID_ORDERING_TYPE", "42K09",
                                 "Cannot resolve \"%s\" due to data type mismatch: "
                                 "the sort key's type is not orderable.",
                                 in->fields[o].name);
    }
    if (rc == CS_OK && top_n && (limit < 0 || offset < 0))
        rc = cs_error_set(err, CS_EINVAL, "TopN: limit %lld and offset %lld must be >= 0",
                          (long long)limit, (long long)offset);
    if (rc != CS_OK) {
        cs_sql_op_free(child);
        return NULL;
    }
    sort_op *o = cs_xcalloc(1, sizeof *o);
    o->keys = cs_xmalloc(sizeof *o->keys * (size_t)(n_keys + 1));
    memcpy(o->keys, keys, sizeof *keys * (size_t)n_keys);
    o->n_keys = n_keys;
    o->top_n = top_n;
    o->limit = limit;
    o->offset = offset;
    cs_sql_op_init(&o->base, top_n ? &top_n_vt : &sort_vt, cs_col_type_ref(child->schema), &child,
                   1);
    return &o->base;
}

cs_sql_op *cs_sql_op_sort(cs_sql_op *child, const cs_sort_key *keys, int n_keys, cs_error *err)
{
    return make_sort(child, keys, n_keys, false, 0, 0, err);
}

cs_sql_op *cs_sql_op_top_n(cs_sql_op *child, const cs_sort_key *keys, int n_keys, int64_t limit,
                           int64_t offset, cs_error *err)
{
    return make_sort(child, keys, n_keys, true, limit, offset, err);
}

void cs_sql_op_top_n_publish(cs_sql_op *top_n, cs_sql_topn_bound *tb)
{
    sort_op *o = (sort_op *)top_n;
    if (top_n->vt != &top_n_vt || o->bound) return;
    o->bound = cs_sql_topn_bound_ref(tb);
}
