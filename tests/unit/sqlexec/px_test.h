/*
 * px_test.h — helpers shared by the expression and operator unit tests of src/sqlexec: build
 * columns from C arrays (NULL-able), literals, batches, and evaluate one expression over a
 * batch. Test-only; included by tests/unit/sqlexec/test_*.c.
 */
#ifndef CSPARK_TESTS_PX_TEST_H
#define CSPARK_TESTS_PX_TEST_H

#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/pexpr.h"
#include "sqlexec/sql_error.h"

static inline cs_col_type *T(cs_type_id id)
{
    return cs_col_type_primitive(id);
}
static inline cs_col_type *DEC(int p, int s)
{
    return cs_col_type_decimal(p, s, NULL);
}

/* n fixed-width values; valid may be NULL (all valid) */
static inline cs_column *col_fixed(cs_col_type *t, const void *v, const uint8_t *valid, int n)
{
    cs_col_builder *b = cs_col_builder_new(NULL, t);
    cs_col_builder_append_values(b, v, n, valid);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_col_type_unref(t);
    return c;
}

/* strings, NULL entries are nulls */
static inline cs_column *col_str(const char *const *v, int n)
{
    cs_col_builder *b = cs_col_builder_new(NULL, T(CS_TYPE_STRING));
    for (int i = 0; i < n; i++) {
        if (v[i])
            cs_col_builder_append_string(b, v[i], strlen(v[i]));
        else
            cs_col_builder_append_nulls(b, 1);
    }
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

/* "12.34" at scale s -> unscaled */
static __int128 unscaled(const char *text, int s)
{
    __int128 v = 0;
    int neg = *text == '-', frac = -1;
    for (const char *p = text + neg; *p; p++) {
        if (*p == '.') {
            frac = 0;
            continue;
        }
        v = v * 10 + (*p - '0');
        if (frac >= 0) frac++;
    }
    for (int f = frac < 0 ? 0 : frac; f < s; f++)
        v *= 10;
    return neg ? -v : v;
}

/* decimals from text, NULL entries are nulls */
static inline cs_column *col_dec(int p, int s, const char *const *v, int n)
{
    __int128 *u = calloc((size_t)n, sizeof *u);
    uint8_t *valid = calloc((size_t)n, 1);
    for (int i = 0; i < n; i++) {
        valid[i] = v[i] != NULL;
        if (v[i]) u[i] = unscaled(v[i], s);
    }
    cs_column *c = col_fixed(DEC(p, s), u, valid, n);
    free(u);
    free(valid);
    return c;
}

static inline void dec_text(const cs_column *c, int64_t i, char *buf)
{
    __int128 v;
    memcpy(&v, c->values + i * 16, 16);
    int s = c->type->scale, neg = v < 0, n = 0;
    unsigned __int128 m = neg ? -(unsigned __int128)v : (unsigned __int128)v;
    char d[64];
    do {
        d[n++] = (char)('0' + (int)(m % 10));
        m /= 10;
    } while (m);
    while (n <= s)
        d[n++] = '0';
    int k = 0;
    if (neg) buf[k++] = '-';
    for (int j = n - 1; j >= 0; j--) {
        buf[k++] = d[j];
        if (j == s && s > 0) buf[k++] = '.';
    }
    buf[k] = 0;
}

static inline cs_pexpr *lit(cs_column *c)
{
    return cs_pexpr_literal(c);
}
static inline cs_pexpr *lit_i32(int32_t v)
{
    return lit(col_fixed(T(CS_TYPE_INT), &v, NULL, 1));
}
static inline cs_pexpr *lit_null(cs_type_id id)
{
    uint8_t zero[16] = {0}, invalid = 0;
    return lit(col_fixed(T(id), zero, &invalid, 1));
}
static inline cs_pexpr *colref(int ordinal, const cs_column *c)
{
    return cs_pexpr_column(ordinal, cs_col_type_ref(c->type), true);
}
static inline cs_pexpr *call2(const char *fn, cs_col_type *t, cs_pexpr *a, cs_pexpr *b)
{
    return cs_pexpr_call(fn, t, true, (cs_pexpr *[]){a, b}, 2);
}
static inline cs_pexpr *call1(const char *fn, cs_col_type *t, cs_pexpr *a)
{
    return cs_pexpr_call(fn, t, true, (cs_pexpr *[]){a}, 1);
}

/* a batch of the given columns (references taken over), fields c0, c1, ... */
static inline cs_col_batch *batch_of(cs_column **cols, int n)
{
    cs_col_field f[8];
    static const char *names[] = {"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7"};
    for (int i = 0; i < n; i++) {
        f[i].name = (char *)names[i];
        f[i].type = cs_col_type_ref(cols[i]->type);
        f[i].nullable = true;
    }
    return cs_col_batch_new(cs_col_type_struct(f, n), cols, n, cols[0]->length, NULL);
}

/* a batch of one column of n ints 0..n-1 (for expressions over literals only) */
static inline cs_col_batch *batch_rows(int n)
{
    int32_t *v = calloc((size_t)n + 1, sizeof *v);
    for (int i = 0; i < n; i++)
        v[i] = i;
    cs_column *c = col_fixed(T(CS_TYPE_INT), v, NULL, n);
    free(v);
    return batch_of(&c, 1);
}

static inline cs_sql_exec_ctx test_ctx(bool ansi)
{
    cs_sql_exec_ctx ctx = {0};
    ctx.alloc = cs_col_default_allocator();
    ctx.ansi = ansi;
    ctx.session_tz = "UTC";
    return ctx;
}

/* compiles and evaluates e (freed) over b; CS_OK or the error */
static inline int eval_ansi(cs_pexpr *e, cs_col_batch *b, bool ansi, cs_column **out, cs_error *err)
{
    memset(err, 0, sizeof *err);
    cs_pexpr_program *p = cs_pexpr_compile(e, b->schema, err);
    cs_pexpr_free(e);
    if (!p) return err->code ? err->code : -1;
    cs_sql_exec_ctx ctx = test_ctx(ansi);
    int rc = cs_pexpr_eval(p, b, &ctx, out, err);
    cs_pexpr_program_free(p);
    return rc;
}
static inline int eval(cs_pexpr *e, cs_col_batch *b, cs_column **out, cs_error *err)
{
    return eval_ansi(e, b, true, out, err);
}

#define I32(c, i) (((const int32_t *)(const void *)(c)->values)[i])
#define I64(c, i) (((const int64_t *)(const void *)(c)->values)[i])
#define F64(c, i) (((const double *)(const void *)(c)->values)[i])
#define VALID(c, i) cs_column_is_valid((c), (i))
#define BOOLV(c, i) cs_bit_get((c)->values, (i))

#endif /* CSPARK_TESTS_PX_TEST_H */
