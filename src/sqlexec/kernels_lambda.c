/*
 * kernels_lambda.c — Spark's higher-order functions in the engine: transform, filter, exists,
 * forall, aggregate, zip_with, map_filter, transform_keys, transform_values and array_sort with
 * a comparator, and the lambdas they call.
 *
 * A lambda is bound by the planner (sql/planner_bind.c) as lambdafunction(body, var0, ...): the
 * body reads the columns of the batch the function is evaluated over and its variables as the
 * columns after them. cs_px_lambda_compile (called by pexpr_compile.c) compiles the body once
 * for an "element batch": the input columns the body reads (only those: the others are left
 * out and the body's ordinals renumbered) followed by the variables. A function then evaluates
 * its lambda batch at a time: one element batch of every element of every row of its input
 * (the outer columns gathered once per element, cs_px_take), one evaluation of the body, and
 * the result laid back over the arrays' offsets — never one call per row. aggregate folds
 * element j of every array in one evaluation per position j; array_sort's comparator is
 * evaluated once over every pair of elements of every row, and the pairs' results sort each row.
 * Nested lambdas work the same way, their element batches built from their parent's.
 *
 * Null semantics are Spark's: a null array or map gives null; exists is true when some element
 * is true, else null when some is null, else false; forall is false when some is false, else
 * null when some is null, else true; filter keeps the elements whose predicate is true.
 *
 * Ownership: a cs_px_lambda belongs to its compiled node (freed by cs_px_lambda_free); the
 * kernels' arguments are borrowed, their results one new reference each.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

struct cs_px_lambda {
    cs_pexpr_program *body;
    cs_col_type *schema; /* the element batch: used input columns, then the variables */
    int n_used;
    int *used; /* ordinals of the input the body reads */
    int n_vars;
};

bool cs_px_is_lambda(const cs_pexpr *e)
{
    return e->kind == CS_PX_CALL && strcmp(e->fn, "lambdafunction") == 0;
}

static void mark_used(const cs_pexpr *e, int n_input, bool *used)
{
    if (e->kind == CS_PX_COLUMN && e->ordinal >= 0 && e->ordinal < n_input) used[e->ordinal] = true;
    for (int i = 0; i < e->n_args; i++)
        mark_used(e->args[i], n_input, used);
}

static void renumber(cs_pexpr *e, int n_input, int n_used, const int *map)
{
    if (e->kind == CS_PX_COLUMN)
        e->ordinal = e->ordinal < n_input ? map[e->ordinal] : e->ordinal - n_input + n_used;
    for (int i = 0; i < e->n_args; i++)
        renumber(e->args[i], n_input, n_used, map);
}

int cs_px_lambda_compile(cs_px_node *n, const cs_pexpr *e, const cs_col_type *schema, cs_error *err)
{
    int n_input = schema->n_fields, n_vars = e->n_args - 1;
    if (n_vars < 1) return cs_error_set(err, CS_EINVAL, "a lambda function without variables");
    cs_px_lambda *l = cs_xcalloc(1, sizeof *l);
    n->lambda = l;
    bool *used = cs_xcalloc((size_t)n_input + 1, sizeof *used);
    int *map = cs_xcalloc((size_t)n_input + 1, sizeof *map);
    mark_used(e->args[0], n_input, used);
    l->used = cs_xcalloc((size_t)n_input + 1, sizeof *l->used);
    for (int i = 0; i < n_input; i++)
        if (used[i]) {
            map[i] = l->n_used;
            l->used[l->n_used++] = i;
        }
    l->n_vars = n_vars;
    cs_col_field *fields = cs_xcalloc((size_t)(l->n_used + n_vars), sizeof *fields);
    for (int i = 0; i < l->n_used; i++) {
        const cs_col_field *f = &schema->fields[l->used[i]];
        fields[i] = (cs_col_field){f->name, cs_col_type_ref(f->type), f->nullable};
    }
    for (int i = 0; i < n_vars; i++) {
        const cs_pexpr *v = e->args[1 + i];
        fields[l->n_used + i] = (cs_col_field){"v", cs_col_type_ref(v->type), true};
    }
    l->schema = cs_col_type_struct(fields, l->n_used + n_vars);
    free(fields);
    cs_pexpr *body = cs_pexpr_clone(e->args[0]);
    renumber(body, n_input, l->n_used, map);
    l->body = cs_pexpr_compile(body, l->schema, err);
    cs_pexpr_free(body);
    free(used);
    free(map);
    return l->body ? CS_OK : CS_EINVAL;
}

void cs_px_lambda_free(cs_px_lambda *l)
{
    if (!l) return;
    cs_pexpr_program_free(l->body);
    cs_col_type_unref(l->schema);
    free(l->used);
    free(l);
}

/* The lambda of node `lam` over n elements: element e belongs to input row rows[e] of b and
 * its variables are vars[v] row e. *out: n values. */
static int run_lambda(const cs_px_kctx *k, const cs_px_node *lam, cs_col_batch *b,
                      const int32_t *rows, int64_t n, cs_column *const *vars, cs_column **out)
{
    const cs_px_lambda *l = lam->lambda;
    int nc = l->n_used + l->n_vars;
    cs_column **cols = cs_xcalloc((size_t)nc, sizeof *cols);
    for (int i = 0; i < l->n_used; i++)
        cols[i] = cs_px_take(b->columns[l->used[i]], rows, n, k->alloc);
    for (int i = 0; i < l->n_vars; i++)
        cols[l->n_used + i] = cs_column_ref(vars[i]);
    cs_col_batch *eb = cs_col_batch_new(cs_col_type_ref(l->schema), cols, nc, n, k->err);
    free(cols);
    if (!eb) return CS_EINVAL;
    int rc = cs_pexpr_eval(l->body, eb, k->ctx, out, k->err);
    cs_col_batch_unref(eb);
    return rc;
}

/* The elements of the rows of a list column (array or map) a, for a result of k->n rows:
 * row_of / pos / at per element (input row, index in its list, index in the children),
 * len per row (-1: a null row). */
typedef struct elems {
    int64_t total;
    int32_t *row_of, *pos, *at, *len;
} elems;

static void elems_of(const cs_px_kctx *k, const cs_column *a, elems *el)
{
    int64_t n = k->n, st = cs_px_stride(a, n);
    const int32_t *off = cs_column_offsets(a);
    el->len = cs_xmalloc(sizeof *el->len * (size_t)(n ? n : 1));
    el->total = 0;
    for (int64_t r = 0; r < n; r++) {
        int64_t i = r * st;
        el->len[r] = cs_column_is_valid(a, i) ? off[i + 1] - off[i] : -1;
        if (el->len[r] > 0) el->total += el->len[r];
    }
    size_t sz = sizeof(int32_t) * (size_t)(el->total ? el->total : 1);
    el->row_of = cs_xmalloc(sz);
    el->pos = cs_xmalloc(sz);
    el->at = cs_xmalloc(sz);
    int64_t e = 0;
    for (int64_t r = 0; r < n; r++)
        for (int32_t j = 0; j < el->len[r]; j++, e++) {
            el->row_of[e] = (int32_t)r;
            el->pos[e] = j;
            el->at[e] = off[r * st] + j;
        }
}

static void elems_free(elems *el)
{
    free(el->row_of);
    free(el->pos);
    free(el->at);
    free(el->len);
}

/* A list column of k->n rows of `type` with lens (-1: null) over the children (taken over). */
static cs_column *list_of(const cs_px_kctx *k, const cs_col_type *type, const int32_t *len,
                          cs_column **children, int nc)
{
    int64_t n = k->n;
    cs_column *r = cs_column_new_raw(k->alloc, cs_col_type_ref((cs_col_type *)type), n);
    r->values_size = (size_t)(n + 1) * 4;
    r->values = cs_col_buffer_alloc(r->alloc, r->values_size);
    int32_t *off = (int32_t *)(void *)r->values;
    off[0] = 0;
    for (int64_t i = 0; i < n; i++) {
        off[i + 1] = off[i] + (len[i] > 0 ? len[i] : 0);
        if (len[i] < 0) {
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

static cs_column *int_column(const cs_px_kctx *k, const int32_t *v, int64_t n)
{
    cs_column *c = cs_px_new_fixed(k->alloc, cs_col_type_primitive(CS_TYPE_INT), n);
    if (n) memcpy(c->values, v, sizeof(int32_t) * (size_t)n);
    return c;
}

/* A boolean element result: 1 true, 0 false, -1 null. */
static inline int truth(const cs_column *c, int64_t i)
{
    if (!cs_column_is_valid(c, i)) return -1;
    return cs_bit_get(c->values, i);
}

/* transform, filter, exists, forall: (x) or (x, i) over an array's elements. */
static int hof_array(const cs_px_kctx *k, const cs_px_node *n, cs_col_batch *b,
                     cs_column *const *args, cs_column **out)
{
    const char *fn = n->e->fn;
    const cs_column *arr = args[0];
    elems el;
    elems_of(k, arr, &el);
    const cs_px_node *lam = &n->children[1];
    cs_column *vars[2] = {cs_px_take(arr->children[0], el.at, el.total, k->alloc), NULL};
    if (lam->lambda->n_vars > 1) vars[1] = int_column(k, el.pos, el.total);
    cs_column *res = NULL;
    int rc = run_lambda(k, lam, b, el.row_of, el.total, vars, &res);
    for (int i = 0; i < 2; i++)
        if (vars[i]) cs_column_unref(vars[i]);
    if (rc) goto done;
    if (strcmp(fn, "transform") == 0) {
        *out = list_of(k, n->e->type, el.len, &res, 1);
        res = NULL;
    } else if (strcmp(fn, "filter") == 0) {
        int32_t *keep = cs_xmalloc(sizeof *keep * (size_t)(el.total ? el.total : 1));
        int64_t m = 0;
        for (int64_t e = 0; e < el.total; e++)
            if (truth(res, e) == 1) {
                keep[m++] = el.at[e];
            } else {
                el.len[el.row_of[e]]--;
            }
        cs_column *child = cs_px_take(arr->children[0], keep, m, k->alloc);
        *out = list_of(k, n->e->type, el.len, &child, 1);
        free(keep);
    } else { /* exists / forall */
        bool all = strcmp(fn, "forall") == 0;
        cs_column *r = cs_px_new_fixed(k->alloc, n->e->type, k->n);
        cs_px_ensure_validity(r);
        int64_t e = 0;
        for (int64_t i = 0; i < k->n; i++) {
            int v = all ? 1 : 0;
            for (int32_t j = 0; j < el.len[i]; j++, e++) {
                int t = truth(res, e);
                if (t == (all ? 0 : 1))
                    v = t;
                else if (t < 0 && v != (all ? 0 : 1))
                    v = -1;
            }
            if (el.len[i] < 0 || v < 0)
                cs_px_set_null(r, i);
            else
                cs_bit_set(r->values, i, v);
        }
        *out = r;
    }
done:
    if (res) cs_column_unref(res);
    elems_free(&el);
    return rc;
}

/* zip_with(a, b, (x, y) -> ...): the longer array's length, the shorter padded with nulls. */
static int hof_zip_with(const cs_px_kctx *k, const cs_px_node *n, cs_col_batch *b,
                        cs_column *const *args, cs_column **out)
{
    elems ea, eb;
    elems_of(k, args[0], &ea);
    elems_of(k, args[1], &eb);
    int32_t *len = cs_xmalloc(sizeof *len * (size_t)(k->n ? k->n : 1));
    int64_t total = 0;
    for (int64_t i = 0; i < k->n; i++) {
        len[i] = ea.len[i] < 0 || eb.len[i] < 0 ? -1
                 : ea.len[i] > eb.len[i]        ? ea.len[i]
                                                : eb.len[i];
        if (len[i] > 0) total += len[i];
    }
    size_t sz = sizeof(int32_t) * (size_t)(total ? total : 1);
    int32_t *row_of = cs_xmalloc(sz), *wa = cs_xmalloc(sz), *ra = cs_xmalloc(sz);
    int32_t *wb = cs_xmalloc(sz), *rb = cs_xmalloc(sz);
    int64_t e = 0, xa = 0, xb = 0;
    for (int64_t i = 0; i < k->n; i++) {
        for (int32_t j = 0; j < len[i]; j++, e++) {
            row_of[e] = (int32_t)i;
            wa[e] = j < ea.len[i] ? 0 : -1;
            ra[e] = j < ea.len[i] ? ea.at[xa + j] : 0;
            wb[e] = j < eb.len[i] ? 0 : -1;
            rb[e] = j < eb.len[i] ? eb.at[xb + j] : 0;
        }
        xa += ea.len[i] > 0 ? ea.len[i] : 0;
        xb += eb.len[i] > 0 ? eb.len[i] : 0;
    }
    cs_column *ca = args[0]->children[0], *cb = args[1]->children[0];
    cs_column *vars[2] = {cs_px_merge(k->alloc, ca->type, &ca, 1, wa, ra, total),
                          cs_px_merge(k->alloc, cb->type, &cb, 1, wb, rb, total)};
    cs_column *res = NULL;
    int rc = run_lambda(k, &n->children[2], b, row_of, total, vars, &res);
    if (rc == CS_OK) *out = list_of(k, n->e->type, len, &res, 1);
    cs_column_unref(vars[0]);
    cs_column_unref(vars[1]);
    free(row_of);
    free(wa);
    free(ra);
    free(wb);
    free(rb);
    free(len);
    elems_free(&ea);
    elems_free(&eb);
    return rc;
}

/* map_filter, transform_values, transform_keys: (k, v) over a map's entries. */
static int hof_map(const cs_px_kctx *k, const cs_px_node *n, cs_col_batch *b,
                   cs_column *const *args, cs_column **out)
{
    const char *fn = n->e->fn;
    const cs_column *m = args[0];
    elems el;
    elems_of(k, m, &el);
    cs_column *vars[2] = {cs_px_take(m->children[0], el.at, el.total, k->alloc),
                          cs_px_take(m->children[1], el.at, el.total, k->alloc)};
    cs_column *res = NULL;
    int rc = run_lambda(k, &n->children[1], b, el.row_of, el.total, vars, &res);
    if (rc) goto done;
    if (strcmp(fn, "map_filter") == 0) {
        int32_t *keep = cs_xmalloc(sizeof *keep * (size_t)(el.total ? el.total : 1));
        int64_t kept = 0;
        for (int64_t e = 0; e < el.total; e++)
            if (truth(res, e) == 1)
                keep[kept++] = el.at[e];
            else
                el.len[el.row_of[e]]--;
        cs_column *ch[2] = {cs_px_take(m->children[0], keep, kept, k->alloc),
                            cs_px_take(m->children[1], keep, kept, k->alloc)};
        *out = list_of(k, n->e->type, el.len, ch, 2);
        free(keep);
    } else if (strcmp(fn, "transform_values") == 0) {
        cs_column *ch[2] = {cs_column_ref(vars[0]), res};
        res = NULL;
        *out = list_of(k, n->e->type, el.len, ch, 2);
    } else { /* transform_keys: Spark's key checks (no null key, no key twice) */
        int64_t e = 0;
        for (int64_t i = 0; i < k->n && rc == CS_OK; i++)
            for (int32_t j = 0; j < el.len[i] && rc == CS_OK; j++, e++) {
                if (!cs_column_is_valid(res, e)) {
                    rc = cs_px_err_map_key(k, res, e, true);
                    break;
                }
                for (int64_t x = e - j; x < e && rc == CS_OK; x++)
                    if (cs_px_elem_cmp(res, x, res, e) == 0)
                        rc = cs_px_err_map_key(k, res, e, false);
            }
        if (rc == CS_OK) {
            cs_column *ch[2] = {res, cs_column_ref(vars[1])};
            res = NULL;
            *out = list_of(k, n->e->type, el.len, ch, 2);
        }
    }
done:
    if (res) cs_column_unref(res);
    cs_column_unref(vars[0]);
    cs_column_unref(vars[1]);
    elems_free(&el);
    return rc;
}

/* aggregate(a, zero, (acc, x) -> merge, acc -> finish): the merge evaluated once per element
 * position over the rows whose arrays are that long, then finish over every row. */
static int hof_aggregate(const cs_px_kctx *k, const cs_px_node *n, cs_col_batch *b,
                         cs_column *const *args, cs_column **out)
{
    elems el;
    elems_of(k, args[0], &el);
    int64_t rows = k->n;
    size_t sz = sizeof(int32_t) * (size_t)(rows ? rows : 1);
    int32_t *idx = cs_xmalloc(sz), *at = cs_xmalloc(sz), *which = cs_xmalloc(sz),
            *row = cs_xmalloc(sz), *first = cs_xmalloc(sz);
    int64_t st = cs_px_stride(args[1], rows);
    for (int64_t i = 0, e = 0; i < rows; i++) {
        idx[i] = (int32_t)(i * st);
        first[i] = (int32_t)e;
        e += el.len[i] > 0 ? el.len[i] : 0;
    }
    cs_column *acc = cs_px_take(args[1], idx, rows, k->alloc);
    int rc = CS_OK;
    for (int32_t j = 0; rc == CS_OK; j++) {
        int64_t m = 0;
        for (int64_t i = 0; i < rows; i++)
            if (el.len[i] > j) {
                idx[m] = (int32_t)i;
                at[m++] = el.at[first[i] + j];
            }
        if (m == 0) break;
        cs_column *vars[2] = {cs_px_take(acc, idx, m, k->alloc),
                              cs_px_take(args[0]->children[0], at, m, k->alloc)};
        cs_column *step = NULL;
        rc = run_lambda(k, &n->children[2], b, idx, m, vars, &step);
        cs_column_unref(vars[0]);
        cs_column_unref(vars[1]);
        if (rc) break;
        for (int64_t i = 0; i < rows; i++) {
            which[i] = 0;
            row[i] = (int32_t)i;
        }
        for (int64_t x = 0; x < m; x++) {
            which[idx[x]] = 1;
            row[idx[x]] = (int32_t)x;
        }
        cs_column *src[2] = {acc, step};
        cs_column *next = cs_px_merge(k->alloc, acc->type, src, 2, which, row, rows);
        cs_column_unref(step);
        cs_column_unref(acc);
        acc = next;
    }
    cs_column *fin = NULL;
    if (rc == CS_OK) {
        for (int64_t i = 0; i < rows; i++)
            idx[i] = (int32_t)i;
        rc = run_lambda(k, &n->children[3], b, idx, rows, &acc, &fin);
    }
    if (rc == CS_OK) { /* a null array: null */
        for (int64_t i = 0; i < rows; i++) {
            which[i] = el.len[i] < 0 ? -1 : 0;
            row[i] = (int32_t)i;
        }
        *out = cs_px_merge(k->alloc, n->e->type, &fin, 1, which, row, rows);
    }
    if (fin) cs_column_unref(fin);
    cs_column_unref(acc);
    free(idx);
    free(at);
    free(which);
    free(row);
    free(first);
    elems_free(&el);
    return rc;
}

/* array_sort(a, (l, r) -> int): the comparator over every pair (x < y) of every row's elements
 * in one evaluation, then a stable merge sort of each row reading the pairs' results. */
typedef struct pair_cmp {
    const int32_t *cmp; /* the row's L*(L-1)/2 results, pair (x < y) at x*L - x*(x+1)/2 + y-x-1 */
    int32_t len;
} pair_cmp;

static int32_t cmp_of(const pair_cmp *p, int32_t x, int32_t y)
{
    if (x == y) return 0;
    int32_t lo = x < y ? x : y, hi = x < y ? y : x;
    int64_t at = (int64_t)lo * p->len - (int64_t)lo * (lo + 1) / 2 + (hi - lo - 1);
    return x < y ? p->cmp[at] : -p->cmp[at];
}

static void sort_row(const pair_cmp *p, int32_t *idx, int32_t *tmp, int32_t n)
{
    if (n < 2) return;
    int32_t h = n / 2, i = 0, j = h, o = 0;
    sort_row(p, idx, tmp, h);
    sort_row(p, idx + h, tmp, n - h);
    while (i < h && j < n)
        tmp[o++] = cmp_of(p, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
    while (i < h)
        tmp[o++] = idx[i++];
    while (j < n)
        tmp[o++] = idx[j++];
    memcpy(idx, tmp, sizeof *idx * (size_t)n);
}

static int hof_array_sort(const cs_px_kctx *k, const cs_px_node *n, cs_col_batch *b,
                          cs_column *const *args, cs_column **out)
{
    elems el;
    elems_of(k, args[0], &el);
    int64_t pairs = 0;
    for (int64_t i = 0; i < k->n; i++)
        if (el.len[i] > 1) pairs += (int64_t)el.len[i] * (el.len[i] - 1) / 2;
    size_t sz = sizeof(int32_t) * (size_t)(pairs ? pairs : 1);
    int32_t *row_of = cs_xmalloc(sz), *l = cs_xmalloc(sz), *r = cs_xmalloc(sz);
    int64_t p = 0, e = 0;
    for (int64_t i = 0; i < k->n; i++) {
        for (int32_t x = 0; x < el.len[i]; x++)
            for (int32_t y = x + 1; y < el.len[i]; y++, p++) {
                row_of[p] = (int32_t)i;
                l[p] = el.at[e + x];
                r[p] = el.at[e + y];
            }
        e += el.len[i] > 0 ? el.len[i] : 0;
    }
    cs_column *child = args[0]->children[0];
    cs_column *vars[2] = {cs_px_take(child, l, pairs, k->alloc),
                          cs_px_take(child, r, pairs, k->alloc)};
    cs_column *res = NULL;
    int rc = run_lambda(k, &n->children[1], b, row_of, pairs, vars, &res);
    cs_column_unref(vars[0]);
    cs_column_unref(vars[1]);
    if (rc == CS_OK && res->null_count > 0)
        rc = cs_sql_error_set(k->err, CS_ETASK, "COMPARATOR_RETURNS_NULL", "22004",
                              "The comparator has returned a NULL for a comparison between %s "
                              "and %s. It should return a positive integer for \"greater than\", "
                              "0 for \"equal\" and a negative integer for \"less than\". To revert "
                              "to deprecated behavior where NULL is treated as 0 (equal), you "
                              "must set \"spark.sql.legacy.allowNullComparisonResultInArraySort\" "
                              "to \"true\".",
                              "an element", "another");
    if (rc == CS_OK) {
        int32_t *order = cs_xmalloc(sizeof *order * (size_t)(el.total ? el.total : 1));
        int32_t *tmp = cs_xmalloc(sizeof *tmp * (size_t)(el.total ? el.total : 1));
        const int32_t *cmp = (const int32_t *)(const void *)res->values;
        int64_t base = 0;
        p = 0;
        for (int64_t i = 0; i < k->n; i++) {
            int32_t len = el.len[i] > 0 ? el.len[i] : 0;
            pair_cmp pc = {cmp + p, len};
            for (int32_t x = 0; x < len; x++)
                order[base + x] = x;
            sort_row(&pc, order + base, tmp, len);
            for (int32_t x = 0; x < len; x++)
                order[base + x] = el.at[base + order[base + x]];
            base += len;
            p += (int64_t)len * (len > 0 ? len - 1 : 0) / 2;
        }
        cs_column *sorted = cs_px_take(child, order, el.total, k->alloc);
        *out = list_of(k, n->e->type, el.len, &sorted, 1);
        free(order);
        free(tmp);
    }
    if (res) cs_column_unref(res);
    free(row_of);
    free(l);
    free(r);
    elems_free(&el);
    return rc;
}

cs_px_hof cs_px_hof_lookup(const cs_pexpr *e)
{
    const char *fn = e->fn;
    int n = e->n_args;
    bool arr = n >= 2 && e->args[0]->type->id == CS_TYPE_ARRAY;
    bool map = n == 2 && e->args[0]->type->id == CS_TYPE_MAP && cs_px_is_lambda(e->args[1]);
    if ((strcmp(fn, "transform") == 0 || strcmp(fn, "filter") == 0 || strcmp(fn, "exists") == 0 ||
         strcmp(fn, "forall") == 0) &&
        arr && n == 2 && cs_px_is_lambda(e->args[1]))
        return hof_array;
    if (strcmp(fn, "array_sort") == 0 && arr && n == 2 && cs_px_is_lambda(e->args[1]))
        return hof_array_sort;
    if (strcmp(fn, "zip_with") == 0 && arr && n == 3 && cs_px_is_lambda(e->args[2]) &&
        e->args[1]->type->id == CS_TYPE_ARRAY)
        return hof_zip_with;
    if (strcmp(fn, "aggregate") == 0 && arr && n == 4 && cs_px_is_lambda(e->args[2]) &&
        cs_px_is_lambda(e->args[3]))
        return hof_aggregate;
    if ((strcmp(fn, "map_filter") == 0 || strcmp(fn, "transform_values") == 0 ||
         strcmp(fn, "transform_keys") == 0) &&
        map)
        return hof_map;
    return NULL;
}
