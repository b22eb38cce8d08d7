/*
 * pexpr.c — the physical expression tree of pexpr.h: constructors, free, Spark's EXPLAIN text
 * and cs_pexpr_has_kernel (which asks the same kernel lookups cs_pexpr_compile uses). Called by
 * the planner, the operators and the function registry's test.
 */
#include "sqlexec/pexpr.h"

#include <stdlib.h>
#include <string.h>

#include "sqlexec/pexpr_internal.h"

static cs_pexpr *node_new(cs_pexpr_kind kind, cs_col_type *type, bool nullable, cs_pexpr **args,
                          int n_args)
{
    cs_pexpr *e = cs_xcalloc(1, sizeof *e);
    e->kind = kind;
    e->type = type;
    e->nullable = nullable;
    e->n_args = n_args;
    if (n_args > 0) {
        e->args = cs_xmalloc(sizeof *e->args * (size_t)n_args);
        memcpy(e->args, args, sizeof *e->args * (size_t)n_args);
    }
    return e;
}

cs_pexpr *cs_pexpr_column(int ordinal, cs_col_type *type, bool nullable)
{
    cs_pexpr *e = node_new(CS_PX_COLUMN, type, nullable, NULL, 0);
    e->ordinal = ordinal;
    return e;
}

cs_pexpr *cs_pexpr_literal(cs_column *one_row)
{
    cs_pexpr *e =
        node_new(CS_PX_LITERAL, cs_col_type_ref(one_row->type), one_row->null_count > 0, NULL, 0);
    e->literal = one_row;
    return e;
}

cs_pexpr *cs_pexpr_call(const char *fn, cs_col_type *type, bool nullable, cs_pexpr **args,
                        int n_args)
{
    cs_pexpr *e = node_new(CS_PX_CALL, type, nullable, args, n_args);
    e->fn = cs_xstrdup(fn);
    return e;
}

cs_pexpr *cs_pexpr_cast(cs_pexpr *child, cs_col_type *type, cs_cast_mode mode)
{
    cs_pexpr *e = node_new(CS_PX_CAST, type, child->nullable || mode != CS_CAST_ANSI, &child, 1);
    e->cast_mode = mode;
    return e;
}

cs_pexpr *cs_pexpr_case(cs_col_type *type, bool nullable, cs_pexpr **args, int n_args,
                        bool has_else)
{
    cs_pexpr *e = node_new(CS_PX_CASE, type, nullable, args, n_args);
    e->has_else = has_else;
    return e;
}

cs_pexpr *cs_pexpr_in(cs_pexpr *value, cs_pexpr **list, int n_list)
{
    cs_pexpr **all = cs_xmalloc(sizeof *all * (size_t)(n_list + 1));
    all[0] = value;
    bool nullable = value->nullable;
    for (int i = 0; i < n_list; i++) {
        all[i + 1] = list[i];
        nullable = nullable || list[i]->nullable;
    }
    cs_pexpr *e =
        node_new(CS_PX_IN, cs_col_type_primitive(CS_TYPE_BOOLEAN), nullable, all, n_list + 1);
    free(all);
    return e;
}

cs_pexpr *cs_pexpr_clone(const cs_pexpr *e)
{
    if (!e) return NULL;
    cs_pexpr *c = cs_xcalloc(1, sizeof *c);
    *c = *e;
    c->type = cs_col_type_ref(e->type);
    c->fn = cs_xstrdup(e->fn);
    if (e->literal) c->literal = cs_column_ref(e->literal);
    c->args = NULL;
    if (e->n_args > 0) {
        c->args = cs_xmalloc(sizeof *c->args * (size_t)e->n_args);
        for (int i = 0; i < e->n_args; i++)
            c->args[i] = cs_pexpr_clone(e->args[i]);
    }
    return c;
}

void cs_pexpr_free(cs_pexpr *e)
{
    if (!e) return;
    for (int i = 0; i < e->n_args; i++)
        cs_pexpr_free(e->args[i]);
    free(e->args);
    free(e->fn);
    if (e->literal) cs_column_unref(e->literal);
    cs_col_type_unref(e->type);
    free(e);
}

static bool is_operator(const char *fn)
{
    static const char *const ops[] = {"+", "-",  "*", "/",  "%",   "div", "=", "<=>",
                                      "<", "<=", ">", ">=", "and", "or",  NULL};
    for (int i = 0; ops[i]; i++)
        if (strcmp(fn, ops[i]) == 0) return true;
    return false;
}

static void explain_literal(const cs_column *c, cs_sbuf *out)
{
    if (!cs_column_is_valid(c, 0)) {
        cs_sbuf_puts(out, "null");
        return;
    }
    char buf[64];
    switch (c->type->id) {
    case CS_TYPE_BOOLEAN:
        cs_sbuf_puts(out, cs_bit_get(c->values, 0) ? "true" : "false");
        return;
    case CS_TYPE_BYTE:
        cs_sbuf_printf(out, "%d", ((const int8_t *)c->values)[0]);
        return;
    case CS_TYPE_SHORT:
        cs_sbuf_printf(out, "%d", ((const int16_t *)(const void *)c->values)[0]);
        return;
    case CS_TYPE_INT:
    case CS_TYPE_DATE:
        cs_sbuf_printf(out, "%d", ((const int32_t *)(const void *)c->values)[0]);
        return;
    case CS_TYPE_LONG:
    case CS_TYPE_TIMESTAMP:
    case CS_TYPE_TIMESTAMP_NTZ:
        cs_sbuf_printf(out, "%lld", (long long)((const int64_t *)(const void *)c->values)[0]);
        return;
    case CS_TYPE_FLOAT:
        cs_sbuf_printf(out, "%g", ((const float *)(const void *)c->values)[0]);
        return;
    case CS_TYPE_DOUBLE:
        cs_sbuf_printf(out, "%g", ((const double *)(const void *)c->values)[0]);
        return;
    case CS_TYPE_DECIMAL:
        cs_px_dec_format(cs_px_dec_get(c, 0), c->type->scale, buf);
        cs_sbuf_puts(out, buf);
        return;
    case CS_TYPE_STRING: {
        int32_t len;
        const uint8_t *p = cs_column_bytes(c, 0, &len);
        cs_sbuf_append(out, p, (size_t)len);
        return;
    }
    default:
        cs_col_type_simple_string(c->type, out);
        cs_sbuf_puts(out, " literal");
        return;
    }
}

void cs_pexpr_explain(const cs_pexpr *e, cs_sbuf *out)
{
    switch (e->kind) {
    case CS_PX_COLUMN:
        cs_sbuf_printf(out, "input[%d, ", e->ordinal);
        cs_col_type_simple_string(e->type, out);
        cs_sbuf_puts(out, e->nullable ? ", true]" : ", false]");
        return;
    case CS_PX_LITERAL:
        explain_literal(e->literal, out);
        return;
    case CS_PX_CAST:
        cs_sbuf_puts(out, e->cast_mode == CS_CAST_TRY ? "try_cast(" : "cast(");
        cs_pexpr_explain(e->args[0], out);
        cs_sbuf_puts(out, " as ");
        cs_col_type_simple_string(e->type, out);
        cs_sbuf_puts(out, ")");
        return;
    case CS_PX_CASE: {
        cs_sbuf_puts(out, "CASE");
        int pairs = (e->n_args - (e->has_else ? 1 : 0)) / 2;
        for (int i = 0; i < pairs; i++) {
            cs_sbuf_puts(out, " WHEN ");
            cs_pexpr_explain(e->args[2 * i], out);
            cs_sbuf_puts(out, " THEN ");
            cs_pexpr_explain(e->args[2 * i + 1], out);
        }
        if (e->has_else) {
            cs_sbuf_puts(out, " ELSE ");
            cs_pexpr_explain(e->args[e->n_args - 1], out);
        }
        cs_sbuf_puts(out, " END");
        return;
    }
    case CS_PX_IN:
        cs_pexpr_explain(e->args[0], out);
        cs_sbuf_puts(out, " IN (");
        for (int i = 1; i < e->n_args; i++) {
            if (i > 1) cs_sbuf_puts(out, ",");
            cs_pexpr_explain(e->args[i], out);
        }
        cs_sbuf_puts(out, ")");
        return;
    case CS_PX_CALL:
        if (e->n_args == 2 && is_operator(e->fn)) {
            cs_sbuf_puts(out, "(");
            cs_pexpr_explain(e->args[0], out);
            cs_sbuf_printf(out, " %s ", e->fn);
            cs_pexpr_explain(e->args[1], out);
            cs_sbuf_puts(out, ")");
            return;
        }
        if (strcmp(e->fn, "not") == 0 && e->n_args == 1) {
            cs_sbuf_puts(out, "NOT ");
            cs_pexpr_explain(e->args[0], out);
            return;
        }
        cs_sbuf_printf(out, "%s(", e->fn);
        for (int i = 0; i < e->n_args; i++) {
            if (i) cs_sbuf_puts(out, ", ");
            cs_pexpr_explain(e->args[i], out);
        }
        cs_sbuf_puts(out, ")");
        return;
    }
}

cs_px_kernel cs_px_lookup_call(const char *fn, const cs_col_type *const *t, int n,
                               const cs_col_type *result)
{
    cs_px_kernel k = cs_px_arith_lookup(fn, t, n, result);
    if (!k) k = cs_px_compare_lookup(fn, t, n, result);
    if (!k) k = cs_px_collation_lookup(fn, t, n, result);
    if (!k) k = cs_px_logic_lookup(fn, t, n, result);
    if (!k) k = cs_px_hash_lookup(fn, t, n, result);
    if (!k) k = cs_px_math_lookup(fn, t, n, result);
    if (!k) k = cs_px_datetime_lookup(fn, t, n, result);
    if (!k) k = cs_px_string_lookup(fn, t, n, result);
    if (!k) k = cs_px_regexp_lookup(fn, t, n, result);
    if (!k) k = cs_px_zone_lookup(fn, t, n, result);
    if (!k) k = cs_px_collection_lookup(fn, t, n, result);
    if (!k) k = cs_px_json_lookup(fn, t, n, result);
    if (!k) k = cs_px_construct_lookup(fn, t, n, result);
    if (!k) k = cs_px_misc_lookup(fn, t, n, result);
    if (!k) k = cs_px_random_lookup(fn, t, n, result);
    if (!k) k = cs_px_sentences_lookup(fn, t, n, result);
    if (!k) k = cs_px_mask_lookup(fn, t, n, result);
    if (!k) k = cs_px_digest_lookup(fn, t, n, result);
    if (!k) k = cs_px_access_lookup(fn, t, n, result);
    if (!k) k = cs_px_math_more_lookup(fn, t, n, result);
    if (!k) k = cs_px_integral_lookup(fn, t, n, result);
    if (!k) k = cs_px_string_more_lookup(fn, t, n, result);
    if (!k) k = cs_px_datetime_more_lookup(fn, t, n, result);
    if (!k) k = cs_px_datetime_format_lookup(fn, t, n, result);
    if (!k) k = cs_px_array_set_lookup(fn, t, n, result);
    if (!k) k = cs_px_format_lookup(fn, t, n, result);
    if (!k) k = cs_px_compare_complex_lookup(fn, t, n, result);
    if (!k) k = cs_px_map_lookup(fn, t, n, result);
    if (!k) k = cs_px_charset_lookup(fn, t, n, result);
    if (!k) k = cs_px_interval_lookup(fn, t, n, result);
    return k;
}

bool cs_pexpr_has_kernel(const char *fn, const cs_col_type *const *arg_types, int n_args)
{
    if (cs_px_is_lazy(fn)) return true;
    /* the result type is the analyzer's; for the question "is there one" the first argument's
     * type stands in where the kernel depends on it (decimal arithmetic) */
    const cs_col_type *result = n_args > 0 ? arg_types[0] : cs_col_type_primitive(CS_TYPE_NULL);
    return cs_px_lookup_call(fn, arg_types, n_args, result) != NULL;
}
