/*
 * plan_expressions.c — Spark Connect expressions (spark.connect.Expression) as the unresolved
 * expressions the SQL parser makes for the same text, following SparkConnectPlanner's
 * transformExpression:
 *
 *   literal                    plan_literals.c
 *   unresolved_attribute       UNRESOLVED_ATTR of the name's parts (`a.b` two parts); with a
 *                              plan id, qualified by the relation's alias (plan_internal.h)
 *   unresolved_function        a call by name (lower case, as the parser writes names), the
 *                              registry resolves it; the client's operator spellings become the
 *                              parser's: "==" is "=", "!=" not(=), "in" an IN list, "when" a
 *                              CASE (when(c, v, c, v, ..., else)); distributed_sequence_id()
 *                              (Connect's own, not SQL's) the rows numbered from 0
 *   call_function              a call by name
 *   expression_string          parsed as Spark's parseExpression (selectExpr, expr())
 *   unresolved_star            `*`, `t.*`, df["*"] (the relation's alias)
 *   alias                      AS name; several names AS (a, b) for a generator (metadata
 *                              is not kept: cspark's schemas carry none)
 *   cast                       to a DataType or a type string; LEGACY / ANSI / TRY modes
 *   sort_order                 ASC | DESC (unspecified is DESC, as Spark's), NULLS FIRST|LAST
 *   window                     OVER (PARTITION BY ... ORDER BY ... frame): a frame bound's
 *                              value v is `-v PRECEDING` / `v FOLLOWING` / CURRENT ROW
 *   lambda_function, unresolved_named_lambda_variable   (x, y) -> body; variables by name
 *   unresolved_extract_value   a[i], m[k], s.field of an expression
 *   unresolved_regex           a plain name only (a back-quoted regex is refused)
 *   named_argument_expression  k => v (the parser's alias form)
 *   common_inline_user_defined_function   a Python UDF (row at a time, scalar pandas): a
 *                              PYTHON_UDF call carrying the pickled function and eval type
 *   update_fields              withField / dropFields: the struct rebuilt (plan_update_fields.c)
 * Refused with UNSUPPORTED_FEATURE: other user-defined functions (Scala, Java, other eval
 * types), subquery, merge and typed aggregate expressions, extensions.
 *
 * Called by the relation translators. Ownership: nodes in the translation's arena.
 */
#include <ctype.h>
#include <string.h>

#include "columnar/col_builder.h"
#include "connect/plan_internal.h"
#include "sql/sql_parser.h"

/* SparkConnectPlanner's DistributedSequenceID (pandas-on-Spark's default index): the rows
 * numbered from 0 in the order of the input's partitions, as Spark's AttachDistributedSequence
 * (zipWithIndex) numbers them; here the count of the rows before each in a window over the whole
 * input ordered by monotonically_increasing_id(), which counts partition by partition (a bigint,
 * never null, as Spark's; the window's running frame counts as it goes) */
#define DISTRIBUTED_SEQUENCE_ID                                                                    \
    "count(1) OVER (ORDER BY monotonically_increasing_id() "                                       \
    "ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)"

static char *lower_dup(cs_cp *c, const char *s)
{
    char *d = cs_sql_strdup(c->a, s);
    for (char *p = d; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return d;
}

static int need(cs_cp *c, const void *field, const char *what)
{
    return field ? 0 : cs_cp_invalid(c, "%s is missing", what);
}

int cs_cp_expressions(cs_cp *c, Spark__Connect__Expression *const *es, size_t n, cs_sql_expr ***out)
{
    *out = NULL;
    if (n == 0) return 0;
    cs_sql_expr **list = (cs_sql_expr **)cs_cp_array(c, n);
    for (size_t i = 0; i < n; i++) {
        int rc = cs_cp_expression(c, es[i], &list[i]);
        if (rc) return rc;
    }
    *out = list;
    return 0;
}

/* ---- names and stars ---- */

static int attribute(cs_cp *c, const Spark__Connect__Expression__UnresolvedAttribute *a,
                     cs_sql_expr **out)
{
    const char **parts;
    int n;
    int rc =
        cs_cp_attribute_name(c, a->unparsed_identifier ? a->unparsed_identifier : "", &parts, &n);
    if (rc) return rc;
    const char *qual = CS_CP_HAS(a, plan_id) ? cs_cp_plan_qualifier(c, a->plan_id) : NULL;
    if (qual) {
        const char **q = (const char **)cs_cp_array(c, (size_t)n + 1);
        q[0] = qual;
        memcpy(q + 1, parts, sizeof *q * (size_t)n);
        parts = q;
        n++;
    }
    *out = cs_cp_column(c, parts, n);
    return 0;
}

static int star(cs_cp *c, const Spark__Connect__Expression__UnresolvedStar *s, cs_sql_expr **out)
{
    bool target = CS_CP_HAS(s, unparsed_target), plan = CS_CP_HAS(s, plan_id);
    cs_sql_expr *e = cs_sql_expr_new(c->a, CS_EX_STAR, 0);
    if (target && plan)
        return cs_cp_invalid(c, "UnresolvedStar with both target and plan id is not supported.");
    if (target) {
        const char *t = s->unparsed_target;
        size_t n = strlen(t);
        if (n < 2 || strcmp(t + n - 2, ".*") != 0)
            return cs_cp_invalid(
                c, "UnresolvedStar requires a unparsed target ending with '.*', but got %s.", t);
        int rc = cs_cp_attribute_name(c, cs_sql_strndup(c->a, t, n - 2), &e->parts, &e->n_parts);
        if (rc) return rc;
    } else if (plan) {
        const char *qual = cs_cp_plan_qualifier(c, s->plan_id);
        if (qual) {
            e->n_parts = 1;
            e->parts = (const char **)cs_cp_array(c, 1);
            e->parts[0] = qual;
        }
    }
    *out = e;
    return 0;
}

static int regex(cs_cp *c, const Spark__Connect__Expression__UnresolvedRegex *r, cs_sql_expr **out)
{
    const char *name = r->col_name ? r->col_name : "";
    size_t n = strlen(name);
    if (n >= 2 && name[n - 1] == '`' && strchr(name, '`') != name + n - 1)
        return cs_cp_unsupported(c, "column names as regular expressions (colRegex(%s))", name);
    Spark__Connect__Expression__UnresolvedAttribute a =
        SPARK__CONNECT__EXPRESSION__UNRESOLVED_ATTRIBUTE__INIT;
    a.unparsed_identifier = (char *)name;
    a._plan_id_case = (Spark__Connect__Expression__UnresolvedAttribute__PlanIdCase)r->_plan_id_case;
    a.plan_id = r->plan_id;
    return attribute(c, &a, out);
}

/* ---- functions ---- */

/* when(c1, v1, c2, v2, ..., [else]): a CASE as the parser makes it */
static cs_sql_expr *case_of(cs_cp *c, cs_sql_expr **args, int n)
{
    cs_sql_expr *e = cs_sql_expr_new(c->a, CS_EX_CASE, n);
    for (int i = 0; i < n; i++)
        e->args[i] = args[i];
    e->has_else = n % 2 == 1;
    return e;
}

static int function(cs_cp *c, const char *name, Spark__Connect__Expression *const *argv,
                    size_t argc, bool distinct, cs_sql_expr **out)
{
    cs_sql_expr **args;
    int rc = cs_cp_expressions(c, argv, argc, &args);
    if (rc) return rc;
    int n = (int)argc;
    const char *fn = lower_dup(c, name ? name : "");
    if (strcmp(fn, "==") == 0) fn = "=";
    if (strcmp(fn, "!=") == 0 && n == 2) {
        cs_sql_expr *eq = cs_cp_call(c, "=", args, 2);
        *out = cs_cp_call(c, "not", &eq, 1);
        return 0;
    }
    if (strcmp(fn, "in") == 0 && n >= 1) {
        cs_sql_expr *e = cs_sql_expr_new(c->a, CS_EX_IN_LIST, n);
        memcpy(e->args, args, sizeof *args * (size_t)n);
        *out = e;
        return 0;
    }
    if (strcmp(fn, "when") == 0 && n >= 2) {
        *out = case_of(c, args, n);
        return 0;
    }
    if (strcmp(fn, "distributed_sequence_id") == 0 && n == 0)
        return cs_sql_parse_expression(c->a, DISTRIBUTED_SEQUENCE_ID, out, NULL, c->err);
    cs_sql_expr *e = cs_cp_call(c, fn, args, n);
    e->distinct = distinct;
    *out = e;
    return 0;
}

/* ---- casts ---- */

static int cast(cs_cp *c, const Spark__Connect__Expression__Cast *x, cs_sql_expr **out)
{
    int rc = need(c, x->expr, "the expression of a cast");
    cs_sql_expr *e = cs_sql_expr_new(c->a, CS_EX_CAST, 1);
    if (!rc) rc = cs_cp_expression(c, x->expr, &e->args[0]);
    if (rc) return rc;
    if (x->cast_to_type_case == SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE)
        rc = cs_cp_data_type(c, x->type, &e->cast_type);
    else if (x->cast_to_type_case == SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE_STR)
        rc = cs_sql_parse_data_type(c->a, x->type_str ? x->type_str : "", &e->cast_type, c->err);
    else
        rc = cs_cp_invalid(c, "This oneOf field in spark.connect.Expression.Cast is not set: "
                              "CASTTOTYPE_NOT_SET");
    if (rc) return rc;
    switch (x->eval_mode) {
    case SPARK__CONNECT__EXPRESSION__CAST__EVAL_MODE__EVAL_MODE_LEGACY:
        e->cast_mode = CS_CAST_LEGACY;
        break;
    case SPARK__CONNECT__EXPRESSION__CAST__EVAL_MODE__EVAL_MODE_TRY:
        e->cast_mode = CS_CAST_TRY;
        break;
    default: /* ANSI, or unspecified under spark.sql.ansi.enabled (Spark 4's default) */
        e->cast_mode = CS_CAST_ANSI;
        break;
    }
    *out = e;
    return 0;
}

/* ---- sort orders and windows ---- */

int cs_cp_sort_order(cs_cp *c, const Spark__Connect__Expression__SortOrder *o, cs_sql_expr **out)
{
    int rc = need(c, o, "a sort order");
    if (!rc) rc = need(c, o->child, "the expression of a sort order");
    cs_sql_expr *s = cs_sql_expr_new(c->a, CS_EX_SORT_ORDER, 1);
    if (!rc) rc = cs_cp_expression(c, o->child, &s->args[0]);
    if (rc) return rc;
    s->descending =
        o->direction !=
        SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_ASCENDING;
    s->nulls_first =
        o->null_ordering == SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_FIRST;
    *out = s;
    return 0;
}

/* The sign of a numeric or interval literal: -1, 0, 1; 2 when it is not such a literal. */
static int literal_sign(const cs_sql_expr *e)
{
    if (e->kind != CS_EX_LITERAL || !e->literal || !cs_column_is_valid(e->literal, 0)) return 2;
    const void *v = e->literal->values;
    switch (e->literal->type->id) {
    case CS_TYPE_BYTE: {
        int8_t x = *(const int8_t *)v;
        return (x > 0) - (x < 0);
    }
    case CS_TYPE_SHORT: {
        int16_t x = *(const int16_t *)v;
        return (x > 0) - (x < 0);
    }
    case CS_TYPE_INT:
    case CS_TYPE_INTERVAL_YM: {
        int32_t x = *(const int32_t *)v;
        return (x > 0) - (x < 0);
    }
    case CS_TYPE_LONG:
    case CS_TYPE_INTERVAL_DT: {
        int64_t x = *(const int64_t *)v;
        return (x > 0) - (x < 0);
    }
    case CS_TYPE_FLOAT: {
        float x = *(const float *)v;
        return (x > 0) - (x < 0);
    }
    case CS_TYPE_DOUBLE: {
        double x = *(const double *)v;
        return (x > 0) - (x < 0);
    }
    case CS_TYPE_DECIMAL: {
        __int128 x;
        memcpy(&x, v, sizeof x);
        return (x > 0) - (x < 0);
    }
    default:
        return 2;
    }
}

/* -v of a negative numeric or interval literal v (literal_sign -1): a literal again, as the
 * parser's `n PRECEDING` offset is. */
static cs_sql_expr *negated_literal(cs_cp *c, const cs_sql_expr *e)
{
    union {
        int8_t b;
        int16_t s;
        int32_t i;
        int64_t l;
        float f;
        double d;
        __int128 x;
    } u;
    const void *v = e->literal->values;
    cs_col_type *t = e->literal->type;
    switch (t->id) {
    case CS_TYPE_BYTE:
        u.b = (int8_t) - *(const int8_t *)v;
        break;
    case CS_TYPE_SHORT:
        u.s = (int16_t) - *(const int16_t *)v;
        break;
    case CS_TYPE_INT:
    case CS_TYPE_INTERVAL_YM:
        u.i = -*(const int32_t *)v;
        break;
    case CS_TYPE_FLOAT:
        u.f = -*(const float *)v;
        break;
    case CS_TYPE_DOUBLE:
        u.d = -*(const double *)v;
        break;
    case CS_TYPE_DECIMAL:
        memcpy(&u.x, v, sizeof u.x);
        u.x = -u.x;
        break;
    default: /* long, interval day to second */
        u.l = -*(const int64_t *)v;
        break;
    }
    cs_col_builder *b = cs_col_builder_new(NULL, t);
    cs_col_builder_append_values(b, &u, 1, NULL);
    cs_column *col = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return cs_sql_expr_literal(c->a, col);
}

static int frame_bound(cs_cp *c,
                       const Spark__Connect__Expression__Window__WindowFrame__FrameBoundary *b,
                       bool lower, cs_frame_bound *out)
{
    if (!b)
        return cs_cp_invalid(c, "%s is required in WindowFrame",
                             lower ? "LowerBound" : "UpperBound");
    switch (b->boundary_case) {
    case SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_CURRENT_ROW:
        out->kind = CS_BOUND_CURRENT_ROW;
        return 0;
    case SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_UNBOUNDED:
        out->kind = lower ? CS_BOUND_UNBOUNDED_PRECEDING : CS_BOUND_UNBOUNDED_FOLLOWING;
        return 0;
    case SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_VALUE: {
        cs_sql_expr *v;
        int rc = cs_cp_expression(c, b->value, &v);
        if (rc) return rc;
        int sign = literal_sign(v);
        if (sign == 2)
            return cs_cp_unsupported(c, "a window frame boundary that is not a numeric or "
                                        "interval literal");
        if (sign == 0) {
            out->kind = CS_BOUND_CURRENT_ROW;
        } else if (sign < 0) { /* -n: n PRECEDING, as the parser writes it */
            out->kind = CS_BOUND_PRECEDING;
            out->offset = negated_literal(c, v);
        } else {
            out->kind = CS_BOUND_FOLLOWING;
            out->offset = v;
        }
        return 0;
    }
    default:
        return cs_cp_invalid(c, "Unknown FrameBoundary BOUNDARY_NOT_SET");
    }
}

static int window(cs_cp *c, const Spark__Connect__Expression__Window *w, cs_sql_expr **out)
{
    if (!w->window_function)
        return cs_cp_invalid(c, "WindowFunction is required in WindowExpression");
    cs_sql_expr *e = cs_sql_expr_new(c->a, CS_EX_WINDOW, 1);
    int rc = cs_cp_expression(c, w->window_function, &e->args[0]);
    if (rc) return rc;
    cs_window_spec *s = cs_sql_alloc(c->a, sizeof *s);
    if ((rc = cs_cp_expressions(c, w->partition_spec, w->n_partition_spec, &s->partition)) != 0)
        return rc;
    s->n_partition = (int)w->n_partition_spec;
    s->n_order = (int)w->n_order_spec;
    s->order = (cs_sql_expr **)cs_cp_array(c, w->n_order_spec);
    for (size_t i = 0; i < w->n_order_spec; i++)
        if ((rc = cs_cp_sort_order(c, w->order_spec[i], &s->order[i])) != 0) return rc;
    const Spark__Connect__Expression__Window__WindowFrame *f = w->frame_spec;
    if (f) {
        if (f->frame_type ==
            SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_TYPE__FRAME_TYPE_ROW)
            s->frame_type = CS_FRAME_ROWS;
        else if (f->frame_type ==
                 SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_TYPE__FRAME_TYPE_RANGE)
            s->frame_type = CS_FRAME_RANGE;
        else
            return cs_cp_invalid(c, "Unknown FrameType FRAME_TYPE_UNDEFINED");
        s->has_frame = true;
        if ((rc = frame_bound(c, f->lower, true, &s->lower)) != 0 ||
            (rc = frame_bound(c, f->upper, false, &s->upper)) != 0)
            return rc;
    }
    e->window = s;
    *out = e;
    return 0;
}

/* ---- lambdas ---- */

static int lambda(cs_cp *c, const Spark__Connect__Expression__LambdaFunction *l, cs_sql_expr **out)
{
    if (l->n_arguments == 0 || l->n_arguments > 3)
        return cs_cp_invalid(c, "LambdaFunction requires 1 ~ 3 arguments, but got %zu ones!",
                             l->n_arguments);
    int rc = need(c, l->function, "the body of a lambda function");
    cs_sql_expr *e = cs_sql_expr_new(c->a, CS_EX_LAMBDA, 1);
    if (!rc) rc = cs_cp_expression(c, l->function, &e->args[0]);
    if (rc) return rc;
    e->n_parts = (int)l->n_arguments;
    e->parts = (const char **)cs_cp_array(c, l->n_arguments);
    for (size_t i = 0; i < l->n_arguments; i++) {
        const Spark__Connect__Expression__UnresolvedNamedLambdaVariable *v = l->arguments[i];
        if (!v || v->n_name_parts == 0)
            return cs_cp_invalid(c,
                                 "UnresolvedNamedLambdaVariable requires at least one name part!");
        e->parts[i] = cs_sql_strdup(c->a, v->name_parts[0]);
    }
    *out = e;
    return 0;
}

static int lambda_variable(cs_cp *c,
                           const Spark__Connect__Expression__UnresolvedNamedLambdaVariable *v,
                           cs_sql_expr **out)
{
    if (v->n_name_parts == 0)
        return cs_cp_invalid(c, "UnresolvedNamedLambdaVariable requires at least one name part!");
    const char **parts = (const char **)cs_cp_array(c, v->n_name_parts);
    for (size_t i = 0; i < v->n_name_parts; i++)
        parts[i] = cs_sql_strdup(c->a, v->name_parts[i]);
    *out = cs_cp_column(c, parts, (int)v->n_name_parts);
    return 0;
}

/* ---- aliases ---- */

static int alias(cs_cp *c, const Spark__Connect__Expression__Alias *a, cs_sql_expr **out)
{
    int rc = need(c, a->expr, "the expression of an alias");
    if (!rc && a->n_name == 0) rc = cs_cp_invalid(c, "an alias without a name");
    if (!rc && a->n_name > 1 && CS_CP_HAS(a, metadata))
        rc = cs_cp_invalid(c, "Alias expressions with more than 1 identifier must not use "
                              "optional metadata.");
    cs_sql_expr *e = cs_sql_expr_new(c->a, CS_EX_ALIAS, 1);
    if (!rc) rc = cs_cp_expression(c, a->expr, &e->args[0]);
    if (rc) return rc;
    e->name = cs_sql_strdup(c->a, a->name[0]);
    if (a->n_name > 1) { /* AS (a, b): a generator's columns */
        e->n_parts = (int)a->n_name;
        e->parts = (const char **)cs_cp_array(c, a->n_name);
        for (size_t i = 0; i < a->n_name; i++)
            e->parts[i] = cs_sql_strdup(c->a, a->name[i]);
    }
    *out = e;
    return 0;
}

/* A CommonInlineUserDefinedFunction: a Python UDF of the eval types the engine runs (row at a
 * time, scalar pandas, grouped-aggregate pandas, scalar iterator pandas) becomes a PYTHON_UDF call
 * over its arguments (SparkConnectPlanner's transformPythonUDF). */
int cs_cp_python_udf(cs_cp *c, const Spark__Connect__CommonInlineUserDefinedFunction *f,
                     cs_cp_udf_place place, cs_sql_expr **out)
{
    const char *name = f->function_name && f->function_name[0] ? f->function_name : "udf";
    if (f->function_case !=
        SPARK__CONNECT__COMMON_INLINE_USER_DEFINED_FUNCTION__FUNCTION_PYTHON_UDF)
        return cs_cp_unsupported(c, "user-defined functions that are not Python UDFs (%s)", name);
    const Spark__Connect__PythonUDF *p = f->python_udf;
    int t = p->eval_type;
    bool ok = place == CS_CP_UDF_GROUP_MAP  ? t == 201 || t == 209
              : place == CS_CP_UDF_MAP_ITER ? t == 205 || t == 207
              : place == CS_CP_UDF_COGROUP_MAP
                  ? t == 206 || t == 210
                  : t == 100 || t == 101 || t == 200 || t == 202 || t == 204;
    static const char *const where[] = {"in an expression", "in applyInPandas / applyInArrow",
                                        "in mapInPandas / mapInArrow",
                                        "in cogroup().applyInPandas / applyInArrow"};
    if (!ok)
        return cs_cp_unsupported(c, "Python UDFs of eval type %d %s (%s)", t, where[place], name);
    if (!p->output_type) return cs_cp_invalid(c, "Python UDF %s without an output type", name);
    if (f->is_distinct) return cs_cp_unsupported(c, "DISTINCT calls of a Python UDF (%s)", name);
    cs_col_type *type;
    int rc = cs_cp_data_type(c, p->output_type, &type);
    if (rc) return rc;
    cs_sql_python_udf *u = cs_sql_alloc(c->a, sizeof *u);
    uint8_t *cmd = cs_sql_alloc(c->a, p->command.len + 1);
    if (p->command.len) memcpy(cmd, p->command.data, p->command.len);
    *u = (cs_sql_python_udf){p->eval_type, cmd, p->command.len,
                             cs_sql_strdup(c->a, p->python_ver ? p->python_ver : ""),
                             f->deterministic};
    cs_sql_expr *x = cs_sql_expr_new(c->a, CS_EX_PYTHON_UDF, (int)f->n_arguments);
    x->name = cs_sql_strdup(c->a, name);
    x->python_udf = u;
    x->type = type;
    x->nullable = true;
    for (size_t i = 0; i < f->n_arguments; i++)
        if ((rc = cs_cp_expression(c, f->arguments[i], &x->args[i])) != 0) return rc;
    *out = x;
    return 0;
}

/* ---- the dispatcher ---- */

static int expression(cs_cp *c, const Spark__Connect__Expression *e, cs_sql_expr **out)
{
    switch (e->expr_type_case) {
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL:
        return cs_cp_literal(c, e->literal, out);
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE:
        return attribute(c, e->unresolved_attribute, out);
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION: {
        const Spark__Connect__Expression__UnresolvedFunction *f = e->unresolved_function;
        return function(c, f->function_name, f->arguments, f->n_arguments, f->is_distinct, out);
    }
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CALL_FUNCTION: {
        const Spark__Connect__CallFunction *f = e->call_function;
        return function(c, f->function_name, f->arguments, f->n_arguments, false, out);
    }
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_EXPRESSION_STRING:
        return cs_sql_parse_expression(
            c->a, e->expression_string->expression ? e->expression_string->expression : "", out,
            NULL, c->err);
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR:
        return star(c, e->unresolved_star, out);
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS:
        return alias(c, e->alias, out);
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST:
        return cast(c, e->cast, out);
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_REGEX:
        return regex(c, e->unresolved_regex, out);
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_SORT_ORDER:
        return cs_cp_sort_order(c, e->sort_order, out);
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LAMBDA_FUNCTION:
        return lambda(c, e->lambda_function, out);
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_NAMED_LAMBDA_VARIABLE:
        return lambda_variable(c, e->unresolved_named_lambda_variable, out);
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_WINDOW:
        return window(c, e->window, out);
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_EXTRACT_VALUE: {
        const Spark__Connect__Expression__UnresolvedExtractValue *x = e->unresolved_extract_value;
        cs_sql_expr *v = cs_sql_expr_new(c->a, CS_EX_UNRESOLVED_EXTRACT_VALUE, 2);
        int rc = need(c, x->child, "the child of an extract value");
        if (!rc) rc = need(c, x->extraction, "the extraction of an extract value");
        if (!rc) rc = cs_cp_expression(c, x->child, &v->args[0]);
        if (!rc) rc = cs_cp_expression(c, x->extraction, &v->args[1]);
        if (!rc) *out = v;
        return rc;
    }
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_NAMED_ARGUMENT_EXPRESSION: {
        const Spark__Connect__NamedArgumentExpression *x = e->named_argument_expression;
        cs_sql_expr *v;
        int rc = need(c, x->value, "the value of a named argument");
        if (!rc) rc = cs_cp_expression(c, x->value, &v);
        if (!rc) {
            *out = cs_cp_alias(c, v, cs_sql_strdup(c->a, x->key ? x->key : ""));
            (*out)->named_argument = true;
        }
        return rc;
    }
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UPDATE_FIELDS:
        return cs_cp_update_fields(c, e->update_fields, out);
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_COMMON_INLINE_USER_DEFINED_FUNCTION:
        return cs_cp_python_udf(c, e->common_inline_user_defined_function, CS_CP_UDF_EXPRESSION,
                                out);
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_SUBQUERY_EXPRESSION:
        return cs_cp_unsupported(c, "DataFrame subquery expressions");
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_MERGE_ACTION:
        return cs_cp_unsupported(c, "MERGE INTO actions");
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_TYPED_AGGREGATE_EXPRESSION:
        return cs_cp_unsupported(c, "typed aggregate expressions (Scala aggregators)");
    case SPARK__CONNECT__EXPRESSION__EXPR_TYPE_EXTENSION:
        return cs_cp_unsupported(c, "Spark Connect expression extensions");
    default:
        return cs_cp_invalid(c, "Expression with ID: %d is not supported", (int)e->expr_type_case);
    }
}

int cs_cp_expression(cs_cp *c, const Spark__Connect__Expression *e, cs_sql_expr **out)
{
    if (!e) return cs_cp_invalid(c, "an expression is missing");
    if (++c->depth > CS_CP_MAX_DEPTH) return cs_cp_invalid(c, "the expression nests too deeply");
    int rc = expression(c, e, out);
    c->depth--;
    return rc;
}
