/*
 * op_window.c — Window (Spark's WindowExec): the input arrives sorted by the partition keys then
 * the order keys; every input row comes out once with one more column per window function:
 * row_number, rank, dense_rank, percent_rank, cume_dist, ntile (over the order keys' peers),
 * lag / lead (offset, default, ignore nulls; frameless), nth_value / first_value / last_value
 * (ignore nulls) and every aggregate of agg_functions.c over its frame: ROWS or RANGE, bounds
 * UNBOUNDED PRECEDING / n PRECEDING / CURRENT ROW / n FOLLOWING / UNBOUNDED FOLLOWING, RANGE
 * offsets over a single numeric, decimal, date or timestamp order key (DESC flips the offset's
 * sign and NULL keys frame their NULL peers, as Spark's RangeBoundOrdering). A function whose
 * frame's upper bound is UNBOUNDED PRECEDING (the zeroed frame) gets Spark's default frame: RANGE
 * UNBOUNDED PRECEDING AND CURRENT ROW with order keys, the whole partition without.
 *
 * Flow: input batches are queued (references) with two flags per row: a partition starts here
 * (its encoded partition keys differ from the row before: sort_keys.c's grouping equality) and a
 * peer group starts here (the order keys differ). Once a batch closes one or more partitions,
 * the closed rows are a chunk: the argument columns (and the order key for RANGE offsets) are
 * gathered once into contiguous columns, each function computes its result column for the
 * chunk partition by partition, and a queued batch comes out — its own columns shared, the
 * function columns gathered from the chunks' results — as soon as all its rows have results.
 * A partition is thus held whole until it closes.
 *
 * Spilling: when the task is over its execution memory while batches are queued
 * (cs_sql_should_spill over the queued rows), every queued batch still in memory is written, whole
 * rows in queue order, to the open spill file of a FIFO of spill files (batch_spill.c), and only
 * the columns the functions read (arguments, the RANGE order key) are kept, copied into narrow
 * columns; the partition and peer flags are already taken. A spill file is finished (closed for
 * writing) when its first batch is due to come out; later spills open a new file, so the files'
 * batches read back in queue order. A queued batch that spilled comes out by reading its rows
 * back and adding the function columns, as one that did not. A partition larger than memory is
 * thus held as its function arguments, flags and results (a few bytes a row for ranking
 * functions), not as its rows, as Spark's ExternalAppendOnlyUnsafeRowArray spills the rows of a
 * window partition.
 *
 * Aggregates use the aggregate functions' own states (Complete mode): a frame whose lower bound
 * is UNBOUNDED PRECEDING is a running aggregate (rows folded once, in order, the state copied to
 * each row: Spark's UnboundedPreceding / Unbounded frames), any other frame is recomputed from
 * its first row for every row whose frame moved (Spark's sliding and unbounded-following frames
 * recompute the same way, so floating point sums equal Spark's). Nothing is allocated per row:
 * per-chunk state rows, index vectors and one result column per function.
 *
 * The frames and the ranking and value functions are window_frames.c's (window_internal.h).
 * Called by the physical plan builder; ownership as every sql_ops.h operator.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/sql_error.h"
#include "sqlexec/sql_ops_internal.h"
#include "sqlexec/window_internal.h"

typedef struct res_chunk {
    int64_t start, n; /* global rows */
    cs_column **cols; /* one per function */
} res_chunk;

/* A queued input batch: in memory (b), or spilled with only the gathered columns kept. */
typedef struct q_ent {
    cs_col_batch *b;    /* NULL once spilled */
    cs_column **narrow; /* spilled: the columns need[0..n_need), n_need of them */
    int64_t rows;
    int64_t narrow_bytes;
} q_ent;

typedef struct win_op {
    cs_sql_op base;
    cs_sort_key *pkeys, *okeys;
    int n_pkeys, n_okeys;
    cs_sql_win_fn *fns;
    int n_fns;
    int *need; /* input ordinals gathered per chunk */
    int n_need;
    int order_col; /* gathered index of the order key (RANGE offsets), -1: none */
    /* queued input */
    q_ent *q;
    int nq, qcap;
    /* spill files of queued batches, oldest first: all but the last are finished; sp_left:
     * queued batches still to read from each */
    cs_sql_spill **sp;
    int64_t *sp_left;
    int nsp, spcap;
    bool sp_tail_open;                /* the last file is still written */
    int64_t qbase;                    /* global row of q[0]'s first row */
    int64_t end;                      /* global rows read */
    int64_t processed;                /* rows [.., processed) have results */
    uint8_t *part_start, *peer_start; /* per queued row (index: global - base) */
    int64_t flags_cap;
    bool input_done;
    cs_sql_keybuf kb;
    uint8_t *last_pkey, *last_okey;
    size_t last_plen, last_olen, last_pcap, last_ocap;
    bool have_last;
    /* results */
    res_chunk *rc;
    int nrc, rccap;
    /* chunk scratch */
    cs_sql_arena arena;
    uint8_t *states;
    size_t states_cap;
    int32_t *zeros, *ridx, *bidx;
    int64_t scratch_cap;
} win_op;

/* ---- input queue and flags ---- */

static void ensure_flags(win_op *w, int64_t n)
{
    if (n <= w->flags_cap) return;
    int64_t cap = w->flags_cap ? w->flags_cap : 4096;
    while (cap < n)
        cap *= 2;
    w->part_start = cs_xrealloc(w->part_start, (size_t)cap);
    w->peer_start = cs_xrealloc(w->peer_start, (size_t)cap);
    w->flags_cap = cap;
}

static void keep_key(uint8_t **dst, size_t *len, size_t *cap, const uint8_t *src, size_t n)
{
    if (n > *cap) {
        *cap = n * 2;
        *dst = cs_xrealloc(*dst, *cap);
    }
    if (n) memcpy(*dst, src, n);
    *len = n;
}

/* Sets the flags of batch b's rows (queued at global row at). */
static void flag_rows(win_op *w, cs_col_batch *b, int64_t at)
{
    int64_t n = b->num_rows, o = at - w->qbase;
    ensure_flags(w, o + n);
    uint8_t *ps = w->part_start + o, *pe = w->peer_start + o;
    memset(ps, 0, (size_t)n);
    cs_sql_keys_encode(&w->kb, b, w->pkeys, w->n_pkeys, false);
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *k = w->kb.bytes + w->kb.off[i];
        size_t len = (size_t)(w->kb.off[i + 1] - w->kb.off[i]);
        const uint8_t *pk = i ? w->kb.bytes + w->kb.off[i - 1] : w->last_pkey;
        size_t plen = i ? (size_t)(w->kb.off[i] - w->kb.off[i - 1]) : w->last_plen;
        if ((i == 0 && !w->have_last) || len != plen || (len && memcmp(k, pk, len) != 0)) ps[i] = 1;
    }
    keep_key(&w->last_pkey, &w->last_plen, &w->last_pcap, w->kb.bytes + w->kb.off[n - 1],
             (size_t)(w->kb.off[n] - w->kb.off[n - 1]));
    memcpy(pe, ps, (size_t)n);
    if (w->n_okeys > 0) {
        cs_sql_keys_encode(&w->kb, b, w->okeys, w->n_okeys, false);
        for (int64_t i = 0; i < n; i++) {
            const uint8_t *k = w->kb.bytes + w->kb.off[i];
            size_t len = (size_t)(w->kb.off[i + 1] - w->kb.off[i]);
            const uint8_t *pk = i ? w->kb.bytes + w->kb.off[i - 1] : w->last_okey;
            size_t plen = i ? (size_t)(w->kb.off[i] - w->kb.off[i - 1]) : w->last_olen;
            if (len != plen || (len && memcmp(k, pk, len) != 0)) pe[i] = 1;
        }
        keep_key(&w->last_okey, &w->last_olen, &w->last_ocap, w->kb.bytes + w->kb.off[n - 1],
                 (size_t)(w->kb.off[n] - w->kb.off[n - 1]));
    }
    w->have_last = true;
}

static void ensure_scratch(win_op *w, int64_t n)
{
    if (n <= w->scratch_cap) return;
    w->scratch_cap = n;
    free(w->zeros);
    free(w->ridx);
    free(w->bidx);
    w->zeros = cs_xcalloc((size_t)n, sizeof *w->zeros);
    w->ridx = cs_xmalloc(sizeof *w->ridx * (size_t)n);
    w->bidx = cs_xmalloc(sizeof *w->bidx * (size_t)n);
}

static int aggregate(win_op *w, cs_sql_win_fn *fn, const cs_column *in, const cs_column *in2,
                     const cs_sql_win_part *pcs, int npc, int64_t n, cs_column **out, cs_error *err)
{
    const cs_sql_agg *a = &fn->agg;
    size_t stride = fn->stride;
    size_t need = stride * (size_t)(n + 1);
    if (need > w->states_cap) {
        cs_col_buffer_free(w->base.ctx->alloc, w->states, w->states_cap);
        w->states = cs_col_buffer_alloc(w->base.ctx->alloc, need);
        w->states_cap = need;
    }
    memset(w->states, 0, need);
    uint8_t *run = w->states + stride * (size_t)n; /* the running state */
    bool ansi = w->base.ctx->ansi;
    /* collect_* and percentile_approx keep their values behind a pointer that later rows
     * would change: their frames are recomputed row by row */
    bool shared = a->fn == CS_AGG_COLLECT_LIST || a->fn == CS_AGG_COLLECT_SET ||
                  a->fn == CS_AGG_PERCENTILE_APPROX;
    bool running = fn->f.frame.lower_kind == CS_WB_UNBOUNDED_PRECEDING && !shared;
    int rc = CS_OK;
    for (int p = 0; p < npc && rc == CS_OK; p++) {
        const cs_sql_win_part *pc = &pcs[p];
        int64_t done = pc->p0, plo = -1, phi = -1;
        memset(run, 0, stride);
        for (int64_t i = pc->p0; i < pc->p1 && rc == CS_OK; i++) {
            int64_t lo, hi;
            cs_sql_win_frame(fn, pc, i, &lo, &hi);
            uint8_t *st = w->states + stride * (size_t)i;
            if (running) {
                if (hi > done) {
                    rc = cs_sql_agg_update_rows(a, run, stride, w->zeros, in, in2, done, hi - done,
                                                ansi, &w->arena, err);
                    done = hi;
                }
                memcpy(st, run, stride);
            } else if (lo == plo && hi == phi) {
                memcpy(st, st - stride, stride);
            } else if (hi > lo) {
                rc = cs_sql_agg_update_rows(a, st, stride, w->zeros, in, in2, lo, hi - lo, ansi,
                                            &w->arena, err);
            }
            plo = lo;
            phi = hi;
        }
    }
    if (rc == CS_OK)
        rc = cs_sql_agg_evaluate(a, w->states, stride, 0, n, ansi, w->base.ctx->alloc, out, err);
    return rc;
}

/* Results of the rows [c0, c1) (whole partitions). */
static int process_chunk(win_op *w, int64_t c0, int64_t c1, cs_error *err)
{
    cs_col_allocator *al = w->base.ctx->alloc;
    int64_t n = c1 - c0;
    ensure_scratch(w, n + 1);
    /* the argument columns of the chunk, contiguous */
    int nb = 0;
    int64_t at = w->qbase;
    for (int b = 0; b < w->nq; b++) {
        int64_t bn = w->q[b].rows;
        for (int64_t r = 0; r < bn; r++, at++)
            if (at >= c0 && at < c1) {
                w->bidx[at - c0] = b;
                w->ridx[at - c0] = (int32_t)r;
            }
        nb = b + 1;
        if (at >= c1) break;
    }
    cs_column **cols = cs_xcalloc((size_t)(w->n_need > 0 ? w->n_need : 1), sizeof *cols);
    cs_column **srcs = cs_xcalloc((size_t)nb, sizeof *srcs);
    for (int k = 0; k < w->n_need; k++) {
        for (int b = 0; b < nb; b++)
            srcs[b] = w->q[b].b ? w->q[b].b->columns[w->need[k]] : w->q[b].narrow[k];
        cs_col_type *t = w->base.children[0]->schema->fields[w->need[k]].type;
        cols[k] = cs_sql_gather(t, srcs, w->bidx, w->ridx, n, al);
    }
    free(srcs);
    /* partitions and peer groups */
    const uint8_t *ps = w->part_start + (c0 - w->qbase), *pe = w->peer_start + (c0 - w->qbase);
    int64_t *peer_end = cs_xmalloc(sizeof *peer_end * (size_t)(n + 1));
    int64_t *peer_first = cs_xmalloc(sizeof *peer_first * (size_t)(n + 1));
    int64_t *nn = cs_xmalloc(sizeof *nn * (size_t)(n + 1));
    int npc = 0, cap = 16;
    cs_sql_win_part *pcs = cs_xmalloc(sizeof *pcs * (size_t)cap);
    for (int64_t i = 0; i < n; i++) {
        if (ps[i] || i == 0) {
            if (npc == cap) {
                cap *= 2;
                pcs = cs_xrealloc(pcs, sizeof *pcs * (size_t)cap);
            }
            if (npc) pcs[npc - 1].p1 = i;
            pcs[npc++] = (cs_sql_win_part){
                .p0 = i, .peer_start = pe, .peer_end = peer_end, .peer_first = peer_first};
        }
        peer_first[i] = pe[i] || ps[i] || i == 0 ? i : peer_first[i - 1];
    }
    if (npc) pcs[npc - 1].p1 = n;
    for (int64_t i = n - 1; i >= 0; i--)
        peer_end[i] = i == n - 1 || pe[i + 1] || ps[i + 1] ? i + 1 : peer_end[i + 1];
    if (w->order_col >= 0)
        for (int p = 0; p < npc; p++)
            pcs[p].ok =
                (cs_sql_win_okey){.c = cols[w->order_col],
                                  .is_double = cols[w->order_col]->type->id == CS_TYPE_FLOAT ||
                                               cols[w->order_col]->type->id == CS_TYPE_DOUBLE,
                                  .desc = w->okeys[0].descending,
                                  .nulls_first = w->okeys[0].nulls_first};
    /* the functions */
    res_chunk rch = {.start = c0, .n = n};
    rch.cols = cs_xcalloc((size_t)w->n_fns, sizeof *rch.cols);
    int rc = CS_OK;
    for (int f = 0; f < w->n_fns && rc == CS_OK; f++) {
        cs_sql_win_fn *fn = &w->fns[f];
        const cs_column *in = fn->col >= 0 ? cols[fn->col] : NULL;
        switch (fn->f.kind) {
        case CS_WIN_AGGREGATE:
            rc = aggregate(w, fn, in, fn->col2 >= 0 ? cols[fn->col2] : NULL, pcs, npc, n,
                           &rch.cols[f], err);
            cs_sql_arena_reset(&w->arena);
            break;
        case CS_WIN_LAG:
        case CS_WIN_LEAD:
        case CS_WIN_NTH_VALUE:
        case CS_WIN_FIRST_VALUE:
        case CS_WIN_LAST_VALUE: {
            for (int p = 0; p < npc; p++)
                cs_sql_win_value_rows(fn, in, &pcs[p], w->ridx, nn);
            cs_column *src2[2] = {(cs_column *)in, fn->f.default_value};
            for (int64_t i = 0; i < n; i++) {
                w->bidx[i] = w->ridx[i] == -2 && fn->f.default_value ? 1 : 0;
                if (w->ridx[i] == -2) w->ridx[i] = fn->f.default_value ? 0 : -1;
            }
            rch.cols[f] = cs_sql_gather(fn->f.type, src2, w->bidx, w->ridx, n, al);
            break;
        }
        default:
            rch.cols[f] = cs_sql_win_ranking(fn, pcs, npc, n, al);
            break;
        }
    }
    for (int k = 0; k < w->n_need; k++)
        cs_column_unref(cols[k]);
    free(cols);
    free(pcs);
    free(peer_end);
    free(peer_first);
    free(nn);
    if (rc != CS_OK) {
        for (int f = 0; f < w->n_fns; f++)
            cs_column_unref(rch.cols[f]);
        free(rch.cols);
        return rc;
    }
    if (w->nrc == w->rccap) {
        w->rccap = w->rccap ? 2 * w->rccap : 8;
        w->rc = cs_xrealloc(w->rc, sizeof *w->rc * (size_t)w->rccap);
    }
    w->rc[w->nrc++] = rch;
    w->processed = c1;
    return CS_OK;
}

/* The rows of a spilled queued batch, read back from the oldest spill file. */
static int read_spilled(win_op *w, const q_ent *e, cs_col_batch **out, cs_error *err)
{
    *out = NULL;
    if (w->nsp == 0)
        return cs_error_set(err, CS_EIO, "Window: a spilled batch has no spill file to read");
    int rc = CS_OK;
    if (w->nsp == 1 && w->sp_tail_open) {
        w->sp_tail_open = false;
        if ((rc = cs_sql_spill_finish(w->sp[0], w->base.ctx->alloc, err)) != CS_OK) return rc;
    }
    rc = cs_sql_spill_next(w->sp[0], out, err);
    if (rc < 0) return rc;
    if (rc == 0 || (*out)->num_rows != e->rows) {
        int64_t got = *out ? (*out)->num_rows : 0;
        cs_col_batch_unref(*out);
        *out = NULL;
        return cs_error_set(err, CS_EIO,
                            "Window: a spill file gave %lld rows where its batch had %lld",
                            (long long)got, (long long)e->rows);
    }
    if (--w->sp_left[0] == 0) {
        cs_sql_spill_free(w->sp[0]);
        memmove(w->sp, w->sp + 1, sizeof *w->sp * (size_t)(w->nsp - 1));
        memmove(w->sp_left, w->sp_left + 1, sizeof *w->sp_left * (size_t)(w->nsp - 1));
        w->nsp--;
    }
    return CS_OK;
}

static void ent_release(const win_op *w, q_ent *e)
{
    cs_col_batch_unref(e->b);
    if (e->narrow) {
        for (int k = 0; k < w->n_need; k++)
            cs_column_unref(e->narrow[k]);
        free(e->narrow);
    }
    memset(e, 0, sizeof *e);
}

/* Writes every queued batch still in memory to the open spill file (a new one when none is
 * open), keeping only the columns the functions read. */
static int spill_queue(win_op *w, int64_t held, cs_error *err)
{
    const cs_sql_exec_ctx *ctx = w->base.ctx;
    if (w->nsp == 0 || !w->sp_tail_open) {
        cs_sql_spill *sp = cs_sql_spill_new(ctx->spill_dir, w->base.children[0]->schema, err);
        if (!sp) return CS_EIO;
        if (w->nsp == w->spcap) {
            w->spcap = w->spcap ? 2 * w->spcap : 4;
            w->sp = cs_xrealloc(w->sp, sizeof *w->sp * (size_t)w->spcap);
            w->sp_left = cs_xrealloc(w->sp_left, sizeof *w->sp_left * (size_t)w->spcap);
        }
        w->sp[w->nsp] = sp;
        w->sp_left[w->nsp++] = 0;
        w->sp_tail_open = true;
    }
    cs_sql_spill *sp = w->sp[w->nsp - 1];
    int64_t before = cs_sql_spill_bytes(sp);
    int rc = CS_OK;
    for (int q = 0; q < w->nq && rc == CS_OK; q++) {
        q_ent *e = &w->q[q];
        if (!e->b) continue;
        if ((rc = cs_sql_spill_write(sp, e->b, err)) != CS_OK) break;
        e->narrow = cs_xcalloc((size_t)(w->n_need > 0 ? w->n_need : 1), sizeof *e->narrow);
        ensure_scratch(w, e->rows + 1);
        for (int64_t r = 0; r < e->rows; r++)
            w->ridx[r] = (int32_t)r;
        e->narrow_bytes = 0;
        for (int k = 0; k < w->n_need; k++) {
            cs_column *src = e->b->columns[w->need[k]];
            e->narrow[k] = cs_sql_gather(src->type, &src, NULL, w->ridx, e->rows, ctx->alloc);
            e->narrow_bytes += cs_column_memory(e->narrow[k]);
        }
        cs_col_batch_unref(e->b);
        e->b = NULL;
        w->sp_left[w->nsp - 1]++;
    }
    cs_sql_note_spill(&w->base, held, cs_sql_spill_bytes(sp) - before);
    return rc;
}

/* The first queued batch with its function columns (all its rows have results). */
static int emit_first(win_op *w, cs_col_batch **out, cs_error *err)
{
    cs_col_batch *b = w->q[0].b;
    if (!b) {
        int rc = read_spilled(w, &w->q[0], &b, err);
        if (rc != CS_OK) return rc;
    } else {
        cs_col_batch_ref(b);
    }
    int64_t n = b->num_rows, b0 = w->qbase;
    ensure_scratch(w, n + 1);
    int first = 0;
    while (first < w->nrc && w->rc[first].start + w->rc[first].n <= b0)
        first++;
    int last = first;
    for (int64_t i = 0; i < n; i++) {
        while (w->rc[last].start + w->rc[last].n <= b0 + i)
            last++;
        w->bidx[i] = last - first;
        w->ridx[i] = (int32_t)(b0 + i - w->rc[last].start);
    }
    int nin = b->n_columns, nc = w->base.schema->n_fields;
    cs_column **cols = cs_xcalloc((size_t)nc, sizeof *cols);
    for (int c = 0; c < nin; c++)
        cols[c] = cs_column_ref(b->columns[c]);
    bool whole = first == last && w->rc[first].start == b0 && w->rc[first].n == n;
    cs_column **srcs = cs_xcalloc((size_t)(last - first + 1), sizeof *srcs);
    for (int f = 0; f < w->n_fns; f++) {
        if (whole) {
            cols[nin + f] = cs_column_ref(w->rc[first].cols[f]);
            continue;
        }
        for (int k = first; k <= last; k++)
            srcs[k - first] = w->rc[k].cols[f];
        cols[nin + f] =
            cs_sql_gather(w->fns[f].f.type, srcs, w->bidx, w->ridx, n, w->base.ctx->alloc);
    }
    free(srcs);
    *out = cs_col_batch_new(cs_col_type_ref(w->base.schema), cols, nc, n, NULL);
    free(cols);
    ent_release(w, &w->q[0]);
    /* pop the batch, its flags and the result chunks wholly before the next batch */
    memmove(w->q, w->q + 1, sizeof *w->q * (size_t)(w->nq - 1));
    w->nq--;
    int64_t left = w->end - (b0 + n);
    memmove(w->part_start, w->part_start + n, (size_t)left);
    memmove(w->peer_start, w->peer_start + n, (size_t)left);
    w->qbase = b0 + n;
    int drop = 0;
    while (drop < w->nrc && w->rc[drop].start + w->rc[drop].n <= w->qbase) {
        for (int f = 0; f < w->n_fns; f++)
            cs_column_unref(w->rc[drop].cols[f]);
        free(w->rc[drop].cols);
        drop++;
    }
    memmove(w->rc, w->rc + drop, sizeof *w->rc * (size_t)(w->nrc - drop));
    w->nrc -= drop;
    cs_col_batch_unref(b);
    return CS_OK;
}

/* Bytes of the queued batches held in memory: all of them (whole or narrow), and *whole_bytes
 * of those held whole (what a spill would write). */
static int64_t held_bytes(const win_op *w, int64_t *whole_bytes)
{
    int64_t h = 0, whole = 0;
    for (int b = 0; b < w->nq; b++) {
        if (w->q[b].b)
            whole += cs_col_batch_memory(w->q[b].b);
        else
            h += w->q[b].narrow_bytes;
    }
    *whole_bytes = whole;
    return h + whole;
}

static int win_next(cs_sql_op *op, cs_col_batch **out, cs_error *err)
{
    win_op *w = (win_op *)op;
    for (;;) {
        if (w->nq > 0 && w->qbase + w->q[0].rows <= w->processed) return emit_first(w, out, err);
        if (w->input_done) {
            if (w->processed < w->end) {
                int rc = process_chunk(w, w->processed, w->end, err);
                if (rc != CS_OK) return rc;
                continue;
            }
            return CS_OK;
        }
        cs_col_batch *b;
        int rc = cs_sql_op_next(op->children[0], &b, err);
        if (rc != CS_OK) return rc;
        if (!b) {
            w->input_done = true;
            continue;
        }
        if (b->num_rows == 0) {
            cs_col_batch_unref(b);
            continue;
        }
        if (w->nq == w->qcap) {
            w->qcap = w->qcap ? 2 * w->qcap : 8;
            w->q = cs_xrealloc(w->q, sizeof *w->q * (size_t)w->qcap);
        }
        if (w->nq == 0) w->qbase = w->end;
        int64_t bn = b->num_rows; /* b may be spilled (freed) below */
        w->q[w->nq++] = (q_ent){.b = b, .rows = bn};
        flag_rows(w, b, w->end);
        w->end += bn;
        int64_t whole, held = held_bytes(w, &whole);
        if (held > op->metrics.peak_memory) op->metrics.peak_memory = held;
        if (cs_sql_should_spill(op->ctx, whole) && (rc = spill_queue(w, whole, err)) != CS_OK)
            return rc;
        /* the rows before the last partition start of this batch are whole partitions */
        int64_t last = -1;
        for (int64_t i = w->end - 1; i >= w->end - bn && last < 0; i--)
            if (w->part_start[i - w->qbase]) last = i;
        if (last > w->processed) {
            rc = process_chunk(w, w->processed, last, err);
            if (rc != CS_OK) return rc;
        }
    }
}

static int win_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err)
{
    win_op *w = (win_op *)op;
    w->arena.alloc = ctx->alloc;
    w->qbase = w->end = w->processed = 0;
    w->input_done = w->have_last = false;
    return cs_sql_op_open(op->children[0], ctx, err);
}

static void win_close(cs_sql_op *op)
{
    win_op *w = (win_op *)op;
    for (int b = 0; b < w->nq; b++)
        ent_release(w, &w->q[b]);
    w->nq = 0;
    for (int k = 0; k < w->nsp; k++)
        cs_sql_spill_free(w->sp[k]);
    w->nsp = 0;
    w->sp_tail_open = false;
    for (int k = 0; k < w->nrc; k++) {
        for (int f = 0; f < w->n_fns; f++)
            cs_column_unref(w->rc[k].cols[f]);
        free(w->rc[k].cols);
    }
    w->nrc = 0;
    if (op->ctx) {
        cs_col_buffer_free(op->ctx->alloc, w->states, w->states_cap);
        cs_sql_arena_reset(&w->arena);
    }
    w->states = NULL;
    w->states_cap = 0;
    cs_sql_keybuf_free(&w->kb);
    cs_sql_op_close(op->children[0]);
}

static void fn_release(cs_window_fn *f)
{
    cs_column_unref(f->default_value);
    cs_column_unref(f->frame.lower_value);
    cs_column_unref(f->frame.upper_value);
    cs_col_type_unref(f->type);
    cs_col_type_unref((cs_col_type *)f->agg.arg_type);
    free(f->name);
}

static void win_destroy(cs_sql_op *op)
{
    win_op *w = (win_op *)op;
    for (int f = 0; f < w->n_fns; f++) {
        fn_release(&w->fns[f].f);
        if (w->fns[f].f.kind == CS_WIN_AGGREGATE) cs_sql_agg_release(&w->fns[f].agg);
    }
    free(w->fns);
    free(w->pkeys);
    free(w->okeys);
    free(w->need);
    free(w->q);
    free(w->sp);
    free(w->sp_left);
    free(w->rc);
    free(w->part_start);
    free(w->peer_start);
    free(w->last_pkey);
    free(w->last_okey);
    free(w->zeros);
    free(w->ridx);
    free(w->bidx);
    free(w);
}

static const char *const win_fn_names[] = {
    "row_number", "rank", "dense_rank", "percent_rank", "cume_dist",  "ntile",
    "lag",        "lead", "nth_value",  "first_value",  "last_value", "aggregate"};

static void win_explain(const cs_sql_op *op, cs_sbuf *out)
{
    const win_op *w = (const win_op *)op;
    const cs_col_type *in = op->children[0]->schema;
    cs_sbuf_putc(out, '[');
    for (int f = 0; f < w->n_fns; f++)
        cs_sbuf_printf(out, "%s%s() AS %s", f ? ", " : "", win_fn_names[w->fns[f].f.kind],
                       w->fns[f].f.name);
    cs_sbuf_puts(out, "], [");
    for (int k = 0; k < w->n_pkeys; k++)
        cs_sbuf_printf(out, "%s%s", k ? ", " : "", in->fields[w->pkeys[k].ordinal].name);
    cs_sbuf_puts(out, "], [");
    for (int k = 0; k < w->n_okeys; k++)
        cs_sbuf_printf(out, "%s%s %s", k ? ", " : "", in->fields[w->okeys[k].ordinal].name,
                       w->okeys[k].descending ? "DESC NULLS LAST" : "ASC NULLS FIRST");
    cs_sbuf_putc(out, ']');
}

static const cs_sql_op_vtable win_vt = {
    .name = "Window",
    .open = win_open,
    .next = win_next,
    .close = win_close,
    .destroy = win_destroy,
    .explain_args = win_explain,
};

static int need_col(win_op *w, int ordinal)
{
    for (int k = 0; k < w->n_need; k++)
        if (w->need[k] == ordinal) return k;
    w->need[w->n_need] = ordinal;
    return w->n_need++;
}

static bool range_key_ok(cs_type_id id)
{
    return (id >= CS_TYPE_BYTE && id <= CS_TYPE_DECIMAL) || id == CS_TYPE_DATE ||
           id == CS_TYPE_TIMESTAMP || id == CS_TYPE_TIMESTAMP_NTZ || id == CS_TYPE_INTERVAL_YM ||
           id == CS_TYPE_INTERVAL_DT;
}

static bool is_ranking(cs_window_fn_kind k)
{
    return k <= CS_WIN_NTILE;
}

/* Checks one function against the input; fills fn's frame default. */
static int check_fn(const cs_col_type *in, cs_window_fn *f, int n_okeys, const cs_sort_key *ok,
                    cs_error *err)
{
    const char *nm = f->name ? f->name : win_fn_names[f->kind];
    if ((int)f->kind < 0 || f->kind > CS_WIN_AGGREGATE)
        return cs_error_set(err, CS_EINVAL, "Window: function %s has an unknown kind %d", nm,
                            (int)f->kind);
    if (!f->type) return cs_error_set(err, CS_EINVAL, "Window: function %s has no type", nm);
    int input = f->kind == CS_WIN_AGGREGATE ? f->agg.input : f->input;
    bool needs_input =
        !is_ranking(f->kind) && !(f->kind == CS_WIN_AGGREGATE && f->agg.fn == CS_AGG_COUNT_STAR);
    if (needs_input && (input < 0 || input >= in->n_fields))
        return cs_error_set(err, CS_EINVAL,
                            "Window: function %s's input ordinal %d is not a column of its input "
                            "(%d columns)",
                            nm, input, in->n_fields);
    if (is_ranking(f->kind) && f->kind != CS_WIN_ROW_NUMBER && f->kind != CS_WIN_NTILE &&
        n_okeys == 0)
        return cs_error_set(err, CS_EINVAL, "Window: function %s requires window to be ordered",
                            nm);
    if ((f->kind == CS_WIN_NTILE || f->kind == CS_WIN_NTH_VALUE) && f->offset <= 0)
        return cs_error_set(err, CS_EINVAL,
                            "Window: %s's argument must be a positive integer, got %lld", nm,
                            (long long)f->offset);
    if (f->kind >= CS_WIN_LAG && f->kind <= CS_WIN_LAST_VALUE &&
        !cs_col_type_equal(f->type, in->fields[input].type))
        return cs_error_set(err, CS_EINVAL, "Window: %s's type is not its input column's", nm);
    if (f->default_value &&
        (!cs_col_type_equal(f->default_value->type, f->type) || f->default_value->length != 1))
        return cs_error_set(err, CS_EINVAL,
                            "Window: %s's default must be one value of the function's type", nm);
    cs_window_frame *fr = &f->frame;
    if (fr->upper_kind == CS_WB_UNBOUNDED_PRECEDING) { /* unspecified: Spark's default */
        memset(fr, 0, sizeof *fr);
        fr->range = n_okeys > 0;
        fr->lower_kind = CS_WB_UNBOUNDED_PRECEDING;
        fr->upper_kind = n_okeys > 0 ? CS_WB_CURRENT_ROW : CS_WB_UNBOUNDED_FOLLOWING;
    }
    if (fr->lower_kind == CS_WB_UNBOUNDED_FOLLOWING)
        return cs_error_set(err, CS_EINVAL, "Window: %s's frame starts at UNBOUNDED FOLLOWING", nm);
    bool offs = fr->lower_kind == CS_WB_OFFSET || fr->upper_kind == CS_WB_OFFSET;
    if (fr->range && offs && !is_ranking(f->kind) && f->kind != CS_WIN_LAG &&
        f->kind != CS_WIN_LEAD) {
        if (n_okeys != 1 || !range_key_ok(in->fields[ok[0].ordinal].type->id))
            return cs_error_set(err, CS_EINVAL,
                                "Window: %s's RANGE frame with an offset needs one numeric, "
                                "date, timestamp or interval order key",
                                nm);
        const cs_column *vals[2] = {fr->lower_value, fr->upper_value};
        for (int s = 0; s < 2; s++)
            if (vals[s] &&
                (vals[s]->length != 1 || !cs_column_is_valid(vals[s], 0) ||
                 vals[s]->type->id == CS_TYPE_INTERVAL_YM || !range_key_ok(vals[s]->type->id) ||
                 vals[s]->type->id == CS_TYPE_FLOAT || vals[s]->type->id == CS_TYPE_DOUBLE))
                return cs_error_set(err, CS_EINVAL,
                                    "Window: %s's RANGE offset must be one non-null decimal or "
                                    "day-time interval value",
                                    nm);
    }
    return CS_OK;
}

cs_sql_op *cs_sql_op_window(cs_sql_op *child, const int *partition_keys, int n_partition_keys,
                            const cs_sort_key *order_keys, int n_order_keys,
                            const cs_window_fn *fns, int n_fns, cs_error *err)
{
    const cs_col_type *in = child->schema;
    int rc = CS_OK;
    for (int k = 0; k < n_partition_keys && rc == CS_OK; k++)
        if (partition_keys[k] < 0 || partition_keys[k] >= in->n_fields ||
            !cs_sql_key_type_ok(in->fields[partition_keys[k]].type))
            rc = cs_error_set(err, CS_EINVAL,
                              "Window: partition key %d (ordinal %d) is not a groupable column "
                              "of its input",
                              k, partition_keys[k]);
    for (int k = 0; k < n_order_keys && rc == CS_OK; k++)
        if (order_keys[k].ordinal < 0 || order_keys[k].ordinal >= in->n_fields ||
            !cs_sql_key_type_ok(in->fields[order_keys[k].ordinal].type))
            rc = cs_error_set(err, CS_EINVAL,
                              "Window: order key %d (ordinal %d) is not an orderable column of "
                              "its input",
                              k, order_keys[k].ordinal);
    win_op *w = cs_xcalloc(1, sizeof *w);
    w->fns = cs_xcalloc((size_t)(n_fns > 0 ? n_fns : 1), sizeof *w->fns);
    w->need = cs_xcalloc((size_t)(2 * n_fns + 2), sizeof *w->need);
    w->order_col = -1;
    int made = 0;
    for (int f = 0; f < n_fns && rc == CS_OK; f++) {
        cs_sql_win_fn *wf = &w->fns[f];
        wf->f = fns[f];
        rc = check_fn(in, &wf->f, n_order_keys, order_keys, err);
        if (rc != CS_OK) break;
        wf->f.default_value = fns[f].default_value ? cs_column_ref(fns[f].default_value) : NULL;
        wf->f.frame.lower_value =
            wf->f.frame.lower_value ? cs_column_ref(wf->f.frame.lower_value) : NULL;
        wf->f.frame.upper_value =
            wf->f.frame.upper_value ? cs_column_ref(wf->f.frame.upper_value) : NULL;
        wf->f.type = cs_col_type_ref(fns[f].type);
        wf->f.agg.arg_type =
            fns[f].agg.arg_type ? cs_col_type_ref((cs_col_type *)fns[f].agg.arg_type) : NULL;
        wf->f.name = cs_xstrdup(fns[f].name ? fns[f].name : win_fn_names[fns[f].kind]);
        wf->f.agg.name = NULL;
        made = f + 1;
        int input = wf->f.kind == CS_WIN_AGGREGATE ? wf->f.agg.input : wf->f.input;
        wf->col = input >= 0 && !is_ranking(wf->f.kind) ? need_col(w, input) : -1;
        wf->col2 = -1;
        if (wf->f.kind == CS_WIN_AGGREGATE && cs_agg_takes_two_inputs(wf->f.agg.fn)) {
            if (wf->f.agg.input2 < 0 || wf->f.agg.input2 >= in->n_fields) {
                rc = cs_error_set(err, CS_EINVAL,
                                  "Window: %s's second input ordinal %d is not a column of its "
                                  "input (%d columns)",
                                  wf->f.name, wf->f.agg.input2, in->n_fields);
                wf->f.kind = CS_WIN_ROW_NUMBER; /* nothing bound to release */
                break;
            }
            wf->col2 = need_col(w, wf->f.agg.input2);
        }
        if (wf->f.kind == CS_WIN_AGGREGATE) {
            wf->f.agg.arg2_type = NULL; /* borrowed pointers of the caller's spec */
            wf->f.agg.percentages = NULL;
            rc = cs_sql_agg_bind_spec(&wf->agg, &fns[f].agg, err);
            if (rc != CS_OK) {
                wf->f.kind = CS_WIN_ROW_NUMBER; /* nothing bound to release */
                break;
            }
            wf->stride = ((size_t)wf->agg.state_size + 15) & ~(size_t)15;
            if (!cs_col_type_equal(wf->agg.result_type, wf->f.type)) {
                cs_sbuf a = {0}, b = {0};
                cs_col_type_simple_string(wf->agg.result_type, &a);
                cs_col_type_simple_string(wf->f.type, &b);
                rc = cs_error_set(err, CS_EINVAL,
                                  "Window: %s's type %s is not its aggregate's result type %s",
                                  wf->f.name, b.data, a.data);
                cs_sbuf_free(&a);
                cs_sbuf_free(&b);
            }
        }
        const cs_window_frame *fr = &wf->f.frame;
        if (fr->range && (fr->lower_kind == CS_WB_OFFSET || fr->upper_kind == CS_WB_OFFSET) &&
            n_order_keys == 1)
            w->order_col = need_col(w, order_keys[0].ordinal);
    }
    if (rc != CS_OK) {
        for (int f = 0; f < made; f++) {
            fn_release(&w->fns[f].f);
            if (w->fns[f].f.kind == CS_WIN_AGGREGATE) cs_sql_agg_release(&w->fns[f].agg);
        }
        free(w->fns);
        free(w->need);
        free(w);
        cs_sql_op_free(child);
        return NULL;
    }
    w->n_fns = n_fns;
    w->n_pkeys = n_partition_keys;
    w->pkeys = cs_xcalloc((size_t)n_partition_keys + 1, sizeof *w->pkeys);
    for (int k = 0; k < n_partition_keys; k++)
        w->pkeys[k] = (cs_sort_key){.ordinal = partition_keys[k], .nulls_first = true};
    w->n_okeys = n_order_keys;
    w->okeys = cs_xcalloc((size_t)n_order_keys + 1, sizeof *w->okeys);
    if (n_order_keys) memcpy(w->okeys, order_keys, sizeof *order_keys * (size_t)n_order_keys);
    cs_col_field *fl = cs_xcalloc((size_t)(in->n_fields + n_fns), sizeof *fl);
    for (int c = 0; c < in->n_fields; c++) {
        fl[c] = in->fields[c];
        cs_col_type_ref(fl[c].type);
    }
    for (int f = 0; f < n_fns; f++)
        fl[in->n_fields + f] =
            (cs_col_field){w->fns[f].f.name, cs_col_type_ref(w->fns[f].f.type), true};
    cs_col_type *schema = cs_col_type_struct(fl, in->n_fields + n_fns);
    free(fl);
    cs_sql_op_init(&w->base, &win_vt, schema, &child, 1);
    return &w->base;
}
