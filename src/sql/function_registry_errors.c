/*
 * function_registry_errors.c — Spark's analysis errors of function calls, shared by the
 * registry's type rules (function_registry.c, function_registry_collections.c):
 * WRONG_NUM_ARGS.WITHOUT_SUGGESTION, DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE and
 * DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES, DATATYPE_MISMATCH.HASH_MAP_TYPE, with the call printed as
 * Spark's toSQLExpr does (cs_fn_sql_expr_quoted, which the analyzer's other errors use too).
 */
#include <stdio.h>
#include <string.h>

#include "sql/function_registry.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

void cs_fn_sql_expr_quoted(const cs_sql_expr *e, cs_sbuf *out)
{
    cs_sbuf_putc(out, '"');
    cs_sql_expr_pretty_name(e, out);
    cs_sbuf_putc(out, '"');
}

static const char *ordinal_word(int i)
{
    static const char *const w[] = {"first", "second",  "third",  "fourth", "fifth",
                                    "sixth", "seventh", "eighth", "ninth",  "tenth"};
    return i >= 0 && i < 10 ? w[i] : "next";
}

int cs_fn_err_unexpected_type(cs_error *err, const cs_sql_expr *call_resolved, int index,
                              const char *required, const cs_sql_expr *arg)
{
    cs_sbuf expr = {0}, input = {0}, type = {0};
    cs_fn_sql_expr_quoted(call_resolved, &expr);
    cs_fn_sql_expr_quoted(arg, &input);
    cs_tc_type_sql(arg->type, &type);
    cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "42K09",
                     "Cannot resolve %s due to data type mismatch: The %s parameter requires the "
                     "%s type, however %s has the type \"%s\".",
                     cs_sbuf_str(&expr), ordinal_word(index), required, cs_sbuf_str(&input),
                     cs_sbuf_str(&type));
    cs_sbuf_free(&expr);
    cs_sbuf_free(&input);
    cs_sbuf_free(&type);
    return CS_EINVAL;
}

int cs_fn_err_binary_diff(cs_error *err, const cs_sql_expr *e)
{
    cs_sbuf expr = {0}, l = {0}, r = {0};
    cs_fn_sql_expr_quoted(e, &expr);
    cs_tc_type_sql(e->args[0]->type, &l);
    cs_tc_type_sql(e->args[1]->type, &r);
    cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.BINARY_OP_DIFF_TYPES", "42K09",
                     "Cannot resolve %s due to data type mismatch: the left and right operands "
                     "of the binary operator have incompatible types (\"%s\" and \"%s\").",
                     cs_sbuf_str(&expr), cs_sbuf_str(&l), cs_sbuf_str(&r));
    cs_sbuf_free(&expr);
    cs_sbuf_free(&l);
    cs_sbuf_free(&r);
    return CS_EINVAL;
}

int cs_fn_err_num_args(cs_error *err, const char *name, const cs_fn_info *f, int n)
{
    char expected[64];
    if (f->max_args == f->min_args)
        snprintf(expected, sizeof expected, "%d", f->min_args);
    else if (f->max_args < 0)
        snprintf(expected, sizeof expected, "> %d", f->min_args - 1);
    else if (f->max_args == f->min_args + 1)
        snprintf(expected, sizeof expected, "[%d, %d]", f->min_args, f->max_args);
    else {
        cs_sbuf b = {0};
        cs_sbuf_putc(&b, '[');
        for (int i = f->min_args; i <= f->max_args; i++)
            cs_sbuf_printf(&b, "%s%d", i > f->min_args ? ", " : "", i);
        cs_sbuf_putc(&b, ']');
        cs_str_copy(expected, sizeof expected, cs_sbuf_str(&b));
        cs_sbuf_free(&b);
    }
    return cs_sql_error_set(
        err, CS_EINVAL, "WRONG_NUM_ARGS.WITHOUT_SUGGESTION", "42605",
        "The `%s` requires %s parameters but the actual number is %d. Please, "
        "refer to 'https://spark.apache.org/docs/latest/sql-ref-functions.html' "
        "for a fix.",
        name, expected, n);
}

static bool holds_map(const cs_col_type *t)
{
    if (t->id == CS_TYPE_MAP) return true;
    for (int i = 0; i < t->n_fields; i++)
        if (holds_map(t->fields[i].type)) return true;
    return false;
}

int cs_fn_check_hash_args(cs_error *err, const cs_sql_expr *e, const char *fn)
{
    if (strcmp(fn, "hash") != 0 && strcmp(fn, "xxhash64") != 0) return 0;
    bool any = false;
    for (int i = 0; i < e->n_args && !any; i++)
        any = holds_map(e->args[i]->type);
    if (!any) return 0;
    cs_sbuf expr = {0};
    cs_fn_sql_expr_quoted(e, &expr);
    cs_sql_error_set(err, CS_EINVAL, "DATATYPE_MISMATCH.HASH_MAP_TYPE", "42K09",
                     "Cannot resolve %s due to data type mismatch: Input to the function `%s` "
                     "cannot contain elements of the \"MAP\" type. In Spark, same maps may have "
                     "different hashcode, thus hash expressions are prohibited on \"MAP\" "
                     "elements. To restore previous behavior set "
                     "\"spark.sql.legacy.allowHashOnMapType\" to \"true\".",
                     cs_sbuf_str(&expr), fn);
    cs_sbuf_free(&expr);
    return CS_EINVAL;
}

/* The error of a + or - no rule above takes, as Spark's: its analyzer first rewrites the
 * operator by its operands' types (ResolveBinaryArithmetic) and the rewritten call then
 * rejects the operand: date +- x is date_add / date_sub(date, x), whose second parameter must
 * be an int; x + day-time interval is TimeAdd(x, interval) (interval + x: TimeAdd(x, interval)),
 * x - day-time interval likewise, whose first parameter must be a timestamp. Other pairs are
 * BINARY_OP_DIFF_TYPES. */
int cs_fn_err_add_operands(const cs_sql_expr *e, bool minus, cs_error *err)
{
    const cs_col_type *l = e->args[0]->type, *r = e->args[1]->type;
    cs_sql_expr call = *e;
    if (l->id == CS_TYPE_DATE && !cs_tc_is_string(r)) {
        call.fn = call.name = minus ? "date_sub" : "date_add";
        return cs_fn_err_unexpected_type(err, &call, 1, "(\"INT\" or \"SMALLINT\" or \"TINYINT\")",
                                         e->args[1]);
    }
    if (!minus && r->id == CS_TYPE_DATE && !cs_tc_is_string(l)) {
        cs_sql_expr *swapped[2] = {e->args[1], e->args[0]};
        call.fn = call.name = "date_add";
        call.args = swapped;
        return cs_fn_err_unexpected_type(err, &call, 1, "(\"INT\" or \"SMALLINT\" or \"TINYINT\")",
                                         e->args[0]);
    }
    const char *ts = "\"(TIMESTAMP OR TIMESTAMP WITHOUT TIME ZONE)\"";
    if (r->id == CS_TYPE_INTERVAL_DT && l->id != CS_TYPE_INTERVAL_DT && !cs_tc_is_string(l) &&
        l->id != CS_TYPE_NULL)
        return cs_fn_err_unexpected_type(err, e, 0, ts, e->args[0]);
    if (!minus && l->id == CS_TYPE_INTERVAL_DT && r->id != CS_TYPE_INTERVAL_DT &&
        !cs_tc_is_string(r) && r->id != CS_TYPE_NULL) {
        cs_sql_expr *swapped[2] = {e->args[1], e->args[0]};
        call.args = swapped;
        return cs_fn_err_unexpected_type(err, &call, 0, ts, e->args[1]);
    }
    return cs_fn_err_binary_diff(err, e);
}
