/*
 * analyzer_json_tuple.c — json_tuple(json, k1, ..., kn), Spark's JsonTuple generator, resolved as
 * the generator it equals: inline(array(named_struct('c0', get_json_object(json, '$['k1']'), ...)))
 * — one row per input row, columns c0..c(n-1) holding each top-level field as a string (nested
 * values as JSON text), all null when the text is not JSON or is NULL. Spark's argument errors
 * (WRONG_NUM_ARGS, DATATYPE_MISMATCH.NON_STRING_TYPE) come first. Called by the analyzer's
 * function resolution (analyzer_expr.c) for a call named json_tuple; the rewritten tree lives in
 * the statement's arena.
 */
#include <stdio.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "sql/analyzer_internal.h"

static cs_sql_expr *text_literal(cs_an_ctx *c, const char *v, size_t len)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_STRING));
    cs_col_builder_append_string(b, v, len);
    cs_sql_expr *e = cs_sql_expr_literal(c->a, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    return e;
}

static cs_sql_expr *call(cs_an_ctx *c, const char *fn, int n)
{
    cs_sql_expr *f = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_FUNC, n);
    f->name = fn;
    return f;
}

/* the path $['key'] of a key argument: a literal built here, else concat('$[''', k, ''']') */
static cs_sql_expr *key_path(cs_an_ctx *c, cs_sql_expr *key)
{
    if (key->kind == CS_EX_LITERAL && key->literal && !key->literal->null_count &&
        key->literal->type->id == CS_TYPE_STRING) {
        int32_t len = 0;
        const uint8_t *p = cs_column_bytes(key->literal, 0, &len);
        cs_sbuf sb = {0};
        cs_sbuf_puts(&sb, "$['");
        cs_sbuf_append(&sb, p, (size_t)len);
        cs_sbuf_puts(&sb, "']");
        cs_sql_expr *e = text_literal(c, sb.data, sb.len);
        cs_sbuf_free(&sb);
        return e;
    }
    cs_sql_expr *f = call(c, "concat", 3);
    f->args[0] = text_literal(c, "$['", 3);
    f->args[1] = key;
    f->args[2] = text_literal(c, "']", 2);
    return f;
}

cs_sql_expr *cs_an_json_tuple(cs_an_ctx *c, const cs_sql_expr *e, const cs_an_scope *s, int flags)
{
    int n = e->n_args;
    if (n < 2) {
        cs_sql_error_set(c->err, CS_EINVAL, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
                         "The `json_tuple` requires > 1 parameters but the actual number is %d. "
                         "Please, refer to 'https://spark.apache.org/docs/latest/"
                         "sql-ref-functions.html' for a fix.",
                         n);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        cs_sql_expr *r = cs_an_expr(c, e->args[i], s, flags & ~CS_AN_ALLOW_GENERATOR);
        if (!r) return NULL;
        if (r->type->id != CS_TYPE_STRING) {
            cs_sbuf x = {0};
            cs_sql_expr_pretty_name(e, &x);
            cs_sql_error_set(c->err, CS_EINVAL, "DATATYPE_MISMATCH.NON_STRING_TYPE", "42K09",
                             "Cannot resolve \"%s\" due to data type mismatch: all arguments of "
                             "the function `json_tuple` must be strings.",
                             cs_sbuf_str(&x));
            cs_sbuf_free(&x);
            return NULL;
        }
    }
    cs_sql_expr *st = call(c, "named_struct", 2 * (n - 1));
    for (int i = 1; i < n; i++) {
        char name[24];
        int len = snprintf(name, sizeof name, "c%d", i - 1);
        cs_sql_expr *get = call(c, "get_json_object", 2);
        get->args[0] = e->args[0];
        get->args[1] = key_path(c, e->args[i]);
        st->args[2 * (i - 1)] = text_literal(c, name, (size_t)len);
        st->args[2 * (i - 1) + 1] = get;
    }
    cs_sql_expr *arr = call(c, "array", 1);
    arr->args[0] = st;
    cs_sql_expr *gen = call(c, "inline", 1);
    gen->args[0] = arr;
    gen->line = e->line;
    gen->pos = e->pos;
    return cs_an_expr(c, gen, s, flags);
}
