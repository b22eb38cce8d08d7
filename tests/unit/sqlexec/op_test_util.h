/*
 * op_test_util.h — helpers of the operator tests (test_op_*.c): batches built with col_builder
 * from plain arrays, a leaf operator over them, and an operator's whole output printed as one
 * text line per row ("1|NULL|abc") so that results compare with a reference the test computes
 * itself (as a sequence for orders, sorted for sets). Header-only (static functions), included by
 * each test.
 */
#ifndef CSPARK_TESTS_OP_TEST_UTIL_H
#define CSPARK_TESTS_OP_TEST_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sqlexec/operator.h"
#include "sqlexec/sql_ops.h"

static inline cs_col_type *t_schema(int n, const char *const *names, cs_col_type *const *types)
{
    cs_col_field f[16];
    for (int i = 0; i < n; i++)
        f[i] = (cs_col_field){(char *)names[i], types[i], true};
    return cs_col_type_struct(f, n);
}

/* A column of n values of fixed-width type t (values: n * width bytes; valid NULL: all). */
static inline cs_column *t_fixed(cs_col_type *t, const void *values, int64_t n,
                                 const uint8_t *valid)
{
    cs_col_builder *b = cs_col_builder_new(NULL, t);
    cs_col_builder_append_values(b, values, n, valid);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

static inline cs_column *t_longs(const int64_t *v, int64_t n, const uint8_t *valid)
{
    return t_fixed(cs_col_type_primitive(CS_TYPE_LONG), v, n, valid);
}

static inline cs_column *t_doubles(const double *v, int64_t n, const uint8_t *valid)
{
    return t_fixed(cs_col_type_primitive(CS_TYPE_DOUBLE), v, n, valid);
}

/* Strings: s[i] NULL is a null. */
static inline cs_column *t_strings(const char *const *s, int64_t n)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_STRING));
    for (int64_t i = 0; i < n; i++) {
        if (s[i])
            cs_col_builder_append_string(b, s[i], strlen(s[i]));
        else
            cs_col_builder_append_nulls(b, 1);
    }
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

static inline cs_col_batch *t_batch(cs_col_type *schema, cs_column **cols, int64_t n)
{
    cs_error err = {0};
    cs_col_batch *b = cs_col_batch_new(cs_col_type_ref(schema), cols, schema->n_fields, n, &err);
    if (!b) fprintf(stderr, "t_batch: %s\n", err.msg);
    return b;
}

/* A leaf over batches (references taken over from b[]). */
static inline cs_sql_op *t_leaf(cs_col_type *schema, cs_col_batch **b, int n)
{
    cs_sql_op *op = cs_sql_op_batches(cs_col_type_ref(schema), b, n);
    for (int i = 0; i < n; i++)
        cs_col_batch_unref(b[i]);
    return op;
}

static inline void t_value(const cs_column *c, int64_t i, cs_sbuf *out)
{
    if (!cs_column_is_valid(c, i) || c->type->id == CS_TYPE_NULL) {
        cs_sbuf_puts(out, "NULL");
        return;
    }
    const uint8_t *v = c->values;
    switch (c->type->id) {
    case CS_TYPE_STRUCT: /* {field, field} */
        cs_sbuf_putc(out, '{');
        for (int f = 0; f < c->n_children; f++) {
            if (f) cs_sbuf_puts(out, ", ");
            t_value(c->children[f], i, out);
        }
        cs_sbuf_putc(out, '}');
        break;
    case CS_TYPE_ARRAY: { /* [element, element] */
        const int32_t *off = cs_column_offsets(c);
        cs_sbuf_putc(out, '[');
        for (int32_t e = off[i]; e < off[i + 1]; e++) {
            if (e > off[i]) cs_sbuf_puts(out, ", ");
            t_value(c->children[0], e, out);
        }
        cs_sbuf_putc(out, ']');
        break;
    }
    case CS_TYPE_BOOLEAN:
        cs_sbuf_puts(out, cs_bit_get(v, i) ? "true" : "false");
        break;
    case CS_TYPE_BYTE:
        cs_sbuf_printf(out, "%d", ((const int8_t *)(const void *)v)[i]);
        break;
    case CS_TYPE_SHORT:
        cs_sbuf_printf(out, "%d", ((const int16_t *)(const void *)v)[i]);
        break;
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
        cs_sbuf_printf(out, "%d", ((const int32_t *)(const void *)v)[i]);
        break;
    case CS_TYPE_FLOAT:
        cs_sbuf_printf(out, "%.9g", ((const float *)(const void *)v)[i]);
        break;
    case CS_TYPE_DOUBLE: {
        double d = ((const double *)(const void *)v)[i];
        if (isnan(d))
            cs_sbuf_puts(out, "NaN");
        else
            cs_sbuf_printf(out, "%.17g", d);
        break;
    }
    case CS_TYPE_DECIMAL: {
        __int128 x;
        memcpy(&x, v + 16 * i, 16);
        char digits[64];
        int n = 0, scale = c->type->scale;
        bool neg = x < 0;
        unsigned __int128 u = neg ? (unsigned __int128)(-(x + 1)) + 1 : (unsigned __int128)x;
        do {
            digits[n++] = (char)('0' + (int)(u % 10));
            u /= 10;
        } while (u || n <= scale);
        if (neg) cs_sbuf_putc(out, '-');
        for (int k = n - 1; k >= 0; k--) {
            cs_sbuf_putc(out, digits[k]);
            if (k == scale && scale > 0) cs_sbuf_putc(out, '.');
        }
        break;
    }
    case CS_TYPE_STRING:
    case CS_TYPE_BINARY: {
        int32_t len;
        const uint8_t *p = cs_column_bytes(c, i, &len);
        cs_sbuf_putc(out, '\'');
        for (int32_t k = 0; k < len; k++) {
            if (p[k] < 32)
                cs_sbuf_printf(out, "\\x%02x", p[k]);
            else
                cs_sbuf_putc(out, (char)p[k]);
        }
        cs_sbuf_putc(out, '\'');
        break;
    }
    default:
        cs_sbuf_printf(out, "%lld", (long long)((const int64_t *)(const void *)v)[i]);
        break;
    }
}

typedef struct t_rows {
    char **row;
    int64_t n, cap;
    int rc;
    cs_error err;
} t_rows;

static inline void t_rows_add(t_rows *r, const char *s)
{
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->row = realloc(r->row, sizeof *r->row * (size_t)r->cap);
    }
    r->row[r->n++] = strdup(s);
}

static inline void t_rows_of_batch(t_rows *r, const cs_col_batch *b)
{
    cs_sbuf sb = {0};
    for (int64_t i = 0; i < b->num_rows; i++) {
        sb.len = 0;
        cs_sbuf_puts(&sb, "");
        for (int c = 0; c < b->n_columns; c++) {
            if (c) cs_sbuf_putc(&sb, '|');
            t_value(b->columns[c], i, &sb);
        }
        t_rows_add(r, sb.data);
    }
    cs_sbuf_free(&sb);
}

/* Runs op to its end (open, next..., close) and prints its rows; r.rc is the first error. The
 * caller frees the operator (its metrics stay readable until then). */
static inline t_rows t_run(cs_sql_op *op, const cs_sql_exec_ctx *ctx)
{
    t_rows r = {0};
    r.rc = cs_sql_op_open(op, ctx, &r.err);
    while (r.rc == CS_OK) {
        cs_col_batch *b;
        r.rc = cs_sql_op_next(op, &b, &r.err);
        if (r.rc != CS_OK || !b) break;
        t_rows_of_batch(&r, b);
        cs_col_batch_unref(b);
    }
    cs_sql_op_close(op);
    return r;
}

static inline int t_cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static inline void t_rows_sort(t_rows *r)
{
    if (r->n > 1) qsort(r->row, (size_t)r->n, sizeof *r->row, t_cmp_str);
}

static inline void t_rows_free(t_rows *r)
{
    for (int64_t i = 0; i < r->n; i++)
        free(r->row[i]);
    free(r->row);
    memset(r, 0, sizeof *r);
}

/* Whether two row lists are equal (in order); prints the first difference. */
static inline bool t_rows_equal(const t_rows *a, const t_rows *b)
{
    for (int64_t i = 0; i < a->n && i < b->n; i++)
        if (strcmp(a->row[i], b->row[i]) != 0) {
            fprintf(stderr, "row %lld differs: [%s] vs [%s]\n", (long long)i, a->row[i], b->row[i]);
            return false;
        }
    if (a->n != b->n) {
        fprintf(stderr, "row counts differ: %lld vs %lld\n", (long long)a->n, (long long)b->n);
        return false;
    }
    return true;
}

/* Java's Double.toString as the goldens print doubles (tests/sql/golden): ".0" for whole
 * numbers below 10^7, else the shortest digits that read back to the same double. */
static inline void t_java_double(double d, char *out, size_t n)
{
    if (d == floor(d) && fabs(d) < 1e7) {
        snprintf(out, n, "%.1f", d);
        return;
    }
    for (int p = 1; p <= 17; p++) {
        snprintf(out, n, "%.*g", p, d);
        if (strtod(out, NULL) == d) break;
    }
}

/* A context without a memory limit (alloc: the default allocator). */
static inline cs_sql_exec_ctx t_ctx(void)
{
    return (cs_sql_exec_ctx){
        .alloc = cs_col_default_allocator(), .ansi = true, .session_tz = "UTC"};
}

/* Deterministic pseudo-random numbers (xorshift). */
static inline uint64_t t_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

#endif /* CSPARK_TESTS_OP_TEST_UTIL_H */
