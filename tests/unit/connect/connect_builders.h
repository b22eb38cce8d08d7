/*
 * connect_builders.h — builders of Spark Connect protobuf messages for the plan translation's
 * tests, shaped as PySpark's client builds them (pyspark/sql/connect/plan.py, column.py):
 * `read_table("t")`, `project(in, 2, col("a"), alias(fn("+", 2, col("b"), lit_i(1)), "c"))`.
 * Every message is allocated from the test's arena (P_ARENA) and freed with it. The session
 * fixture gives a session with the temporary view
 *   t(a int, b bigint, s string, f double)  over VALUES (1, 10, 'x', 1.5), (2, NULL, NULL, NaN)
 *   u(a int, c int)                         over VALUES (1, 7)
 * and compares a translated plan with the parser's plan of the same query, both analyzed and
 * printed (cs_logical_plan_print) with expression ids left out. Test-only.
 */
#ifndef CSPARK_TESTS_CONNECT_BUILDERS_H
#define CSPARK_TESTS_CONNECT_BUILDERS_H

#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "connect/connect_plan.h"
#include "session/sql_session.h"
#include "spark/connect/commands.pb-c.h"
#include "spark/connect/expressions.pb-c.h"
#include "spark/connect/relations.pb-c.h"
#include "sql/sql_parser.h"

static cs_sql_arena *P_ARENA;
static cs_sql_session *SESSION;
static cs_error ERR;

static inline void *pnew(size_t n)
{
    return cs_sql_alloc(P_ARENA, n);
}

#define NEW(T, init)                                                                               \
    ({                                                                                             \
        T *m_ = pnew(sizeof(T));                                                                   \
        init(m_);                                                                                  \
        m_;                                                                                        \
    })

/* ---- expressions ---- */

typedef Spark__Connect__Expression Expr;
typedef Spark__Connect__Relation Rel;

static inline Expr *expr_new(void)
{
    return NEW(Expr, spark__connect__expression__init);
}

static inline Expr *col(const char *name)
{
    Expr *e = expr_new();
    Spark__Connect__Expression__UnresolvedAttribute *a =
        NEW(Spark__Connect__Expression__UnresolvedAttribute,
            spark__connect__expression__unresolved_attribute__init);
    a->unparsed_identifier = (char *)name;
    e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE;
    e->unresolved_attribute = a;
    return e;
}

/* df["name"]: a column of the DataFrame with that plan id */
static inline Expr *df_col(int64_t plan_id, const char *name)
{
    Expr *e = col(name);
    e->unresolved_attribute->_plan_id_case =
        SPARK__CONNECT__EXPRESSION__UNRESOLVED_ATTRIBUTE___PLAN_ID_PLAN_ID;
    e->unresolved_attribute->plan_id = plan_id;
    return e;
}

static inline Spark__Connect__Expression__Literal *literal_new(void)
{
    return NEW(Spark__Connect__Expression__Literal, spark__connect__expression__literal__init);
}

static inline Expr *lit_expr(Spark__Connect__Expression__Literal *l)
{
    Expr *e = expr_new();
    e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_LITERAL;
    e->literal = l;
    return e;
}

static inline Spark__Connect__Expression__Literal *l_int(int32_t v)
{
    Spark__Connect__Expression__Literal *l = literal_new();
    l->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_INTEGER;
    l->integer = v;
    return l;
}

static inline Spark__Connect__Expression__Literal *l_long(int64_t v)
{
    Spark__Connect__Expression__Literal *l = literal_new();
    l->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_LONG;
    l->long_ = v;
    return l;
}

static inline Spark__Connect__Expression__Literal *l_str(const char *v)
{
    Spark__Connect__Expression__Literal *l = literal_new();
    l->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_STRING;
    l->string = (char *)v;
    return l;
}

static inline Spark__Connect__Expression__Literal *l_double(double v)
{
    Spark__Connect__Expression__Literal *l = literal_new();
    l->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DOUBLE;
    l->double_ = v;
    return l;
}

static inline Expr *lit_i(int32_t v)
{
    return lit_expr(l_int(v));
}

static inline Expr *lit_s(const char *v)
{
    return lit_expr(l_str(v));
}

static inline Expr **expr_list(int n, va_list ap)
{
    Expr **l = pnew(sizeof *l * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        l[i] = va_arg(ap, Expr *);
    return l;
}

static inline Expr *fn(const char *name, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    Expr *e = expr_new();
    Spark__Connect__Expression__UnresolvedFunction *f =
        NEW(Spark__Connect__Expression__UnresolvedFunction,
            spark__connect__expression__unresolved_function__init);
    f->function_name = (char *)name;
    f->n_arguments = (size_t)n;
    f->arguments = expr_list(n, ap);
    va_end(ap);
    e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_FUNCTION;
    e->unresolved_function = f;
    return e;
}

static inline Spark__Connect__Expression__Alias *alias_msg(Expr *x, const char *name)
{
    Spark__Connect__Expression__Alias *a =
        NEW(Spark__Connect__Expression__Alias, spark__connect__expression__alias__init);
    a->expr = x;
    a->n_name = 1;
    a->name = pnew(sizeof *a->name);
    a->name[0] = (char *)name;
    return a;
}

static inline Expr *alias(Expr *x, const char *name)
{
    Expr *e = expr_new();
    e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_ALIAS;
    e->alias = alias_msg(x, name);
    return e;
}

static inline Expr *expr_str(const char *text)
{
    Expr *e = expr_new();
    Spark__Connect__Expression__ExpressionString *s =
        NEW(Spark__Connect__Expression__ExpressionString,
            spark__connect__expression__expression_string__init);
    s->expression = (char *)text;
    e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_EXPRESSION_STRING;
    e->expression_string = s;
    return e;
}

static inline Expr *star(const char *target)
{
    Expr *e = expr_new();
    Spark__Connect__Expression__UnresolvedStar *s =
        NEW(Spark__Connect__Expression__UnresolvedStar,
            spark__connect__expression__unresolved_star__init);
    if (target) {
        s->_unparsed_target_case =
            SPARK__CONNECT__EXPRESSION__UNRESOLVED_STAR___UNPARSED_TARGET_UNPARSED_TARGET;
        s->unparsed_target = (char *)target;
    }
    e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_STAR;
    e->unresolved_star = s;
    return e;
}

static inline Expr *cast_str(Expr *x, const char *type)
{
    Expr *e = expr_new();
    Spark__Connect__Expression__Cast *c =
        NEW(Spark__Connect__Expression__Cast, spark__connect__expression__cast__init);
    c->expr = x;
    c->cast_to_type_case = SPARK__CONNECT__EXPRESSION__CAST__CAST_TO_TYPE_TYPE_STR;
    c->type_str = (char *)type;
    e->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_CAST;
    e->cast = c;
    return e;
}

static inline Spark__Connect__Expression__SortOrder *order_msg(Expr *x, bool asc)
{
    Spark__Connect__Expression__SortOrder *o =
        NEW(Spark__Connect__Expression__SortOrder, spark__connect__expression__sort_order__init);
    o->child = x;
    o->direction =
        asc ? SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_ASCENDING
            : SPARK__CONNECT__EXPRESSION__SORT_ORDER__SORT_DIRECTION__SORT_DIRECTION_DESCENDING;
    o->null_ordering = asc ? SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_FIRST
                           : SPARK__CONNECT__EXPRESSION__SORT_ORDER__NULL_ORDERING__SORT_NULLS_LAST;
    return o;
}

/* ---- relations ---- */

static inline Rel *rel_new(void)
{
    return NEW(Rel, spark__connect__relation__init);
}

static inline Rel *with_plan_id(Rel *r, int64_t id)
{
    r->common = NEW(Spark__Connect__RelationCommon, spark__connect__relation_common__init);
    r->common->_plan_id_case = SPARK__CONNECT__RELATION_COMMON___PLAN_ID_PLAN_ID;
    r->common->plan_id = id;
    return r;
}

static inline Rel *read_table(const char *name)
{
    Rel *r = rel_new();
    Spark__Connect__Read *rd = NEW(Spark__Connect__Read, spark__connect__read__init);
    rd->read_type_case = SPARK__CONNECT__READ__READ_TYPE_NAMED_TABLE;
    rd->named_table =
        NEW(Spark__Connect__Read__NamedTable, spark__connect__read__named_table__init);
    rd->named_table->unparsed_identifier = (char *)name;
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_READ;
    r->read = rd;
    return r;
}

static inline Rel *project(Rel *in, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    Rel *r = rel_new();
    Spark__Connect__Project *p = NEW(Spark__Connect__Project, spark__connect__project__init);
    p->input = in;
    p->n_expressions = (size_t)n;
    p->expressions = expr_list(n, ap);
    va_end(ap);
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_PROJECT;
    r->project = p;
    return r;
}

static inline Rel *filter(Rel *in, Expr *cond)
{
    Rel *r = rel_new();
    Spark__Connect__Filter *f = NEW(Spark__Connect__Filter, spark__connect__filter__init);
    f->input = in;
    f->condition = cond;
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_FILTER;
    r->filter = f;
    return r;
}

static inline Rel *sql_rel(const char *text)
{
    Rel *r = rel_new();
    Spark__Connect__SQL *s = NEW(Spark__Connect__SQL, spark__connect__sql__init);
    s->query = (char *)text;
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SQL;
    r->sql = s;
    return r;
}

static inline Rel *join(Rel *l, Rel *rr, Spark__Connect__Join__JoinType type, Expr *cond)
{
    Rel *r = rel_new();
    Spark__Connect__Join *j = NEW(Spark__Connect__Join, spark__connect__join__init);
    j->left = l;
    j->right = rr;
    j->join_type = type;
    j->join_condition = cond;
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_JOIN;
    r->join = j;
    return r;
}

static inline Rel *set_op(Rel *l, Rel *rr, Spark__Connect__SetOperation__SetOpType type, bool all,
                          bool by_name)
{
    Rel *r = rel_new();
    Spark__Connect__SetOperation *s =
        NEW(Spark__Connect__SetOperation, spark__connect__set_operation__init);
    s->left_input = l;
    s->right_input = rr;
    s->set_op_type = type;
    s->_is_all_case = SPARK__CONNECT__SET_OPERATION___IS_ALL_IS_ALL;
    s->is_all = all;
    s->_by_name_case = SPARK__CONNECT__SET_OPERATION___BY_NAME_BY_NAME;
    s->by_name = by_name;
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SET_OP;
    r->set_op = s;
    return r;
}

static inline Rel *sort(Rel *in, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    Rel *r = rel_new();
    Spark__Connect__Sort *s = NEW(Spark__Connect__Sort, spark__connect__sort__init);
    s->input = in;
    s->n_order = (size_t)n;
    s->order = pnew(sizeof *s->order * (size_t)n);
    for (int i = 0; i < n; i++)
        s->order[i] = va_arg(ap, Spark__Connect__Expression__SortOrder *);
    va_end(ap);
    s->_is_global_case = SPARK__CONNECT__SORT___IS_GLOBAL_IS_GLOBAL;
    s->is_global = true;
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SORT;
    r->sort = s;
    return r;
}

static inline Rel *limit(Rel *in, int32_t n)
{
    Rel *r = rel_new();
    r->limit = NEW(Spark__Connect__Limit, spark__connect__limit__init);
    r->limit->input = in;
    r->limit->limit = n;
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LIMIT;
    return r;
}

static inline Rel *offset(Rel *in, int32_t n)
{
    Rel *r = rel_new();
    r->offset = NEW(Spark__Connect__Offset, spark__connect__offset__init);
    r->offset->input = in;
    r->offset->offset = n;
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_OFFSET;
    return r;
}

static inline Rel *aggregate(Rel *in, Spark__Connect__Aggregate__GroupType type, int ng, Expr **g,
                             int na, Expr **a)
{
    Rel *r = rel_new();
    Spark__Connect__Aggregate *x = NEW(Spark__Connect__Aggregate, spark__connect__aggregate__init);
    x->input = in;
    x->group_type = type;
    x->n_grouping_expressions = (size_t)ng;
    x->grouping_expressions = g;
    x->n_aggregate_expressions = (size_t)na;
    x->aggregate_expressions = a;
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_AGGREGATE;
    r->aggregate = x;
    return r;
}

static inline Expr **exprs(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    Expr **l = expr_list(n, ap);
    va_end(ap);
    return l;
}

static inline char **names(int n, ...)
{
    va_list ap;
    va_start(ap, n);
    char **l = pnew(sizeof *l * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        l[i] = va_arg(ap, char *);
    va_end(ap);
    return l;
}

static inline Rel *subquery_alias(Rel *in, const char *name)
{
    Rel *r = rel_new();
    r->subquery_alias = NEW(Spark__Connect__SubqueryAlias, spark__connect__subquery_alias__init);
    r->subquery_alias->input = in;
    r->subquery_alias->alias = (char *)name;
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_SUBQUERY_ALIAS;
    return r;
}

static inline Rel *range_rel(int64_t start, int64_t end, int64_t step)
{
    Rel *r = rel_new();
    r->range = NEW(Spark__Connect__Range, spark__connect__range__init);
    r->range->_start_case = SPARK__CONNECT__RANGE___START_START;
    r->range->start = start;
    r->range->end = end;
    r->range->step = step;
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_RANGE;
    return r;
}

/* ---- the session fixture ---- */

static inline int session_setup(void **state)
{
    (void)state;
    cs_error_clear(&ERR);
    SESSION = cs_sql_session_new(NULL, &ERR);
    if (!SESSION) return -1;
    static const char *const views[] = {
        "CREATE TEMPORARY VIEW t AS SELECT * FROM VALUES (1, 10L, 'x', 1.5D), "
        "(2, NULL, NULL, CAST('NaN' AS DOUBLE)) AS v(a, b, s, f)",
        "CREATE TEMPORARY VIEW u AS SELECT * FROM VALUES (1, 7) AS v(a, c)"};
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
        cs_sql_result r;
        if (cs_sql_session_execute(SESSION, views[i], &r, &ERR) != 0) {
            print_message("setup: %s\n", ERR.msg);
            return -1;
        }
        cs_sql_result_free(&r);
    }
    P_ARENA = cs_sql_arena_new();
    return 0;
}

static inline int session_teardown(void **state)
{
    (void)state;
    cs_sql_arena_free(P_ARENA);
    cs_sql_session_free(SESSION);
    return 0;
}

static inline cs_connect_plan_ctx plan_ctx(void)
{
    cs_error_clear(&ERR);
    cs_connect_plan_ctx c = {P_ARENA, SESSION, &ERR};
    return c;
}

/* The analyzed plan printed, with every expression id (#12) left out. */
static inline char *analyzed_text(const cs_logical_plan *p)
{
    cs_logical_plan *r = NULL;
    if (cs_sql_session_analyze(SESSION, P_ARENA, p, &r, &ERR) != 0) {
        print_message("analysis failed: %s\n", ERR.msg);
        return NULL;
    }
    cs_sbuf b = CS_SBUF_INIT;
    cs_logical_plan_print(r, &b);
    const char *s = cs_sbuf_str(&b);
    char *out = pnew(strlen(s) + 1);
    size_t k = 0;
    for (const char *q = s; *q; q++) {
        if (*q == '#' && isdigit((unsigned char)q[1])) {
            while (isdigit((unsigned char)q[1]))
                q++;
            continue;
        }
        out[k++] = *q;
    }
    out[k] = '\0';
    cs_sbuf_free(&b);
    return out;
}

/* The translated relation, analyzed, is the parser's plan of sql, analyzed. */
#define assert_same_plan(rel, sql)                                                                 \
    do {                                                                                           \
        cs_connect_plan_ctx ctx_ = plan_ctx();                                                     \
        cs_logical_plan *got_ = NULL;                                                              \
        int rc_ = cs_connect_plan_relation(&ctx_, (rel), &got_);                                   \
        if (rc_ != 0) print_message("translation failed: %s\n", ERR.msg);                          \
        assert_int_equal(rc_, 0);                                                                  \
        char *g_ = analyzed_text(got_);                                                            \
        assert_non_null(g_);                                                                       \
        cs_sql_statement *st_ = NULL;                                                              \
        assert_int_equal(cs_sql_parse_statement(P_ARENA, (sql), &st_, NULL, &ERR), 0);             \
        char *w_ = analyzed_text(st_->plan);                                                       \
        assert_non_null(w_);                                                                       \
        assert_string_equal(g_, w_);                                                               \
    } while (0)

/* The translation fails with this error class. */
#define assert_plan_error(rel, cls)                                                                \
    do {                                                                                           \
        cs_connect_plan_ctx ctx_ = plan_ctx();                                                     \
        cs_logical_plan *got_ = NULL;                                                              \
        int rc_ = cs_connect_plan_relation(&ctx_, (rel), &got_);                                   \
        assert_true(rc_ < 0);                                                                      \
        assert_null(got_);                                                                         \
        assert_string_equal(ERR.error_class, (cls));                                               \
    } while (0)

#endif /* CSPARK_TESTS_CONNECT_BUILDERS_H */
