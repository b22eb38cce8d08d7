/*
 * test_connect_plan.c — Spark Connect relations and expressions translated into cspark's
 * unresolved plans (connect/connect_plan.h): each plan, built as PySpark's client builds it,
 * must analyze to the same tree as the SQL a user would write for it (connect_builders.h
 * compares the printed analyzed plans without expression ids).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "columnar/col_builder.h"
#include "connect_builders.h"
#include "formats/arrow_ipc.h"

#define INNER SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_INNER
#define GROUPBY SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_GROUPBY

static void test_project_filter_as_select_where(void **state)
{
    (void)state;
    Rel *r = project(filter(read_table("t"), fn(">", 2, col("a"), lit_i(1))), 2, col("a"),
                     alias(fn("+", 2, col("b"), lit_i(1)), "c"));
    assert_same_plan(r, "SELECT a, b + 1 AS c FROM t WHERE a > 1");
    /* the client's operator spellings: ==, !=, in, when, isNull */
    r = project(filter(read_table("t"), fn("and", 2, fn("==", 2, col("a"), lit_i(1)),
                                           fn("!=", 2, col("s"), lit_s("y")))),
                3, fn("in", 3, col("a"), lit_i(1), lit_i(2)),
                fn("when", 3, fn("isNull", 1, col("b")), lit_i(0), col("b")),
                fn("startsWith", 2, col("s"), lit_s("x")));
    assert_same_plan(r, "SELECT a IN (1, 2), CASE WHEN isnull(b) THEN 0 ELSE b END, "
                        "startswith(s, 'x') FROM t WHERE a = 1 AND NOT s = 'y'");
}

static void test_expression_kinds_as_sql(void **state)
{
    (void)state;
    Rel *r = aggregate(read_table("t"), GROUPBY, 0, NULL, 1, exprs(1, fn("count", 1, star(NULL))));
    assert_same_plan(r, "SELECT count(*) FROM t");
    r = project(read_table("t"), 4, expr_str("a * 2 AS twice"), star("t.*"),
                cast_str(col("a"), "string"), alias(col("`s`"), "name"));
    assert_same_plan(r, "SELECT a * 2 AS twice, t.*, CAST(a AS STRING), s AS name FROM t");
}

static void test_sql_relation_binds_arguments(void **state)
{
    (void)state;
    Rel *r = sql_rel("SELECT a, s FROM t WHERE a > ? AND s = ?");
    r->sql->n_pos_arguments = 2;
    r->sql->pos_arguments = exprs(2, lit_i(1), lit_s("x"));
    assert_same_plan(r, "SELECT a, s FROM t WHERE a > 1 AND s = 'x'");

    r = sql_rel("SELECT a FROM t WHERE a > :lo");
    Spark__Connect__SQL__NamedArgumentsEntry *e = NEW(
        Spark__Connect__SQL__NamedArgumentsEntry, spark__connect__sql__named_arguments_entry__init);
    e->key = "lo";
    e->value = lit_i(0);
    r->sql->n_named_arguments = 1;
    r->sql->named_arguments = pnew(sizeof *r->sql->named_arguments);
    r->sql->named_arguments[0] = e;
    assert_same_plan(r, "SELECT a FROM t WHERE a > 0");

    /* the deprecated literal arguments (older clients) */
    r = sql_rel("SELECT ? + 1");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    r->sql->n_pos_args = 1;
    r->sql->pos_args = pnew(sizeof *r->sql->pos_args);
    r->sql->pos_args[0] = l_long(41);
#pragma GCC diagnostic pop
    assert_same_plan(r, "SELECT 41L + 1");

    r = sql_rel("SELECT ?, :x");
    r->sql->n_pos_arguments = 1;
    r->sql->pos_arguments = exprs(1, lit_i(1));
    assert_plan_error(r, "INVALID_QUERY_MIXED_QUERY_PARAMETERS");
    r = sql_rel("SELECT a FROM t WHERE a > :missing"); /* a named marker, positional values */
    r->sql->n_pos_arguments = 1;
    r->sql->pos_arguments = exprs(1, lit_i(1));
    assert_plan_error(r, "UNBOUND_SQL_PARAMETER");
    r = sql_rel("SELECT ?, ?");
    r->sql->n_pos_arguments = 1;
    r->sql->pos_arguments = exprs(1, lit_i(1));
    assert_plan_error(r, "UNBOUND_SQL_PARAMETER");
    assert_non_null(strstr(ERR.msg, "_10"));
}

static Rel *read_csv(const char *path, const char *schema)
{
    Rel *r = rel_new();
    Spark__Connect__Read *rd = NEW(Spark__Connect__Read, spark__connect__read__init);
    rd->read_type_case = SPARK__CONNECT__READ__READ_TYPE_DATA_SOURCE;
    rd->data_source =
        NEW(Spark__Connect__Read__DataSource, spark__connect__read__data_source__init);
    rd->data_source->_format_case = SPARK__CONNECT__READ__DATA_SOURCE___FORMAT_FORMAT;
    rd->data_source->format = "csv";
    rd->data_source->n_paths = 1;
    rd->data_source->paths = names(1, path);
    if (schema) {
        rd->data_source->_schema_case = SPARK__CONNECT__READ__DATA_SOURCE___SCHEMA_SCHEMA;
        rd->data_source->schema = (char *)schema;
    }
    static const char *const kv[][2] = {{"header", "true"}, {"inferSchema", "true"}};
    rd->data_source->n_options = 2;
    rd->data_source->options = pnew(sizeof *rd->data_source->options * 2);
    for (int i = 0; i < 2; i++) {
        Spark__Connect__Read__DataSource__OptionsEntry *o =
            NEW(Spark__Connect__Read__DataSource__OptionsEntry,
                spark__connect__read__data_source__options_entry__init);
        o->key = (char *)kv[i][0];
        o->value = (char *)kv[i][1];
        rd->data_source->options[i] = o;
    }
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_READ;
    r->read = rd;
    return r;
}

/* spark.read.option("header", True).option("inferSchema", True).csv(path) [.schema(st)], the
 * schema as PySpark sends a StructType: its JSON */
static void test_read_data_source_with_options(void **state)
{
    (void)state;
    char dir[] = "/tmp/cspark-connect-read-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/people.csv", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("id,name\n1,ann\n2,bob\n", f);
    fclose(f);
    cs_connect_plan_ctx ctx = plan_ctx();
    cs_logical_plan *p = NULL, *res = NULL;
    int rc = cs_connect_plan_relation(&ctx, read_csv(path, NULL), &p);
    if (rc == 0) rc = cs_sql_session_analyze(SESSION, P_ARENA, p, &res, &ERR);
    if (rc == 0) {
        assert_int_equal(res->n_output, 2);
        assert_string_equal(res->output[0]->name, "id");         /* the header option was read */
        assert_int_equal(res->output[0]->type->id, CS_TYPE_INT); /* and inferSchema */
        ctx = plan_ctx();
        rc = cs_connect_plan_relation(
            &ctx,
            read_csv(path, "{\"type\":\"struct\",\"fields\":[{\"name\":\"k\",\"type\":"
                           "\"long\",\"nullable\":true,\"metadata\":{}},{\"name\":"
                           "\"v\",\"type\":\"string\",\"nullable\":true,"
                           "\"metadata\":{}}]}"),
            &p);
        if (rc == 0) rc = cs_sql_session_analyze(SESSION, P_ARENA, p, &res, &ERR);
    }
    if (rc == 0) {
        assert_string_equal(res->output[0]->name, "k");
        assert_int_equal(res->output[0]->type->id, CS_TYPE_LONG);
    }
    unlink(path);
    rmdir(dir);
    if (rc) print_message("%s\n", ERR.msg);
    assert_int_equal(rc, 0);
}

static void test_range_and_limit_offset_sort(void **state)
{
    (void)state;
    assert_same_plan(project(range_rel(0, 10, 2), 1, star(NULL)), "SELECT * FROM range(0, 10, 2)");
    Rel *r = limit(offset(sort(project(read_table("t"), 1, star(NULL)), 2,
                               order_msg(col("a"), false), order_msg(col("s"), true)),
                          1),
                   5);
    assert_same_plan(r, "SELECT * FROM t ORDER BY a DESC NULLS LAST, s ASC NULLS FIRST "
                        "LIMIT 5 OFFSET 1");
}

static void test_aggregate_group_types(void **state)
{
    (void)state;
    Rel *r =
        aggregate(read_table("t"), GROUPBY, 1, exprs(1, col("s")), 2,
                  exprs(2, alias(fn("sum", 1, col("b")), "total"), fn("count", 1, star(NULL))));
    assert_same_plan(r, "SELECT s, sum(b) AS total, count(*) FROM t GROUP BY s");
    r = aggregate(read_table("t"), SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_ROLLUP, 2,
                  exprs(2, col("s"), col("a")), 1, exprs(1, fn("max", 1, col("b"))));
    assert_same_plan(r, "SELECT s, a, max(b) FROM t GROUP BY ROLLUP(s, a)");
    r = aggregate(read_table("t"), SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_CUBE, 2,
                  exprs(2, col("s"), col("a")), 1, exprs(1, fn("max", 1, col("b"))));
    assert_same_plan(r, "SELECT s, a, max(b) FROM t GROUP BY CUBE(s, a)");
    r = aggregate(read_table("t"), SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_GROUPING_SETS,
                  2, exprs(2, col("s"), col("a")), 1, exprs(1, fn("max", 1, col("b"))));
    Spark__Connect__Aggregate__GroupingSets *g1 = NEW(
        Spark__Connect__Aggregate__GroupingSets, spark__connect__aggregate__grouping_sets__init);
    Spark__Connect__Aggregate__GroupingSets *g2 = NEW(
        Spark__Connect__Aggregate__GroupingSets, spark__connect__aggregate__grouping_sets__init);
    g1->n_grouping_set = 2;
    g1->grouping_set = exprs(2, col("s"), col("a"));
    g2->n_grouping_set = 1;
    g2->grouping_set = exprs(1, col("s"));
    r->aggregate->n_grouping_sets = 2;
    r->aggregate->grouping_sets = pnew(sizeof *r->aggregate->grouping_sets * 2);
    r->aggregate->grouping_sets[0] = g1;
    r->aggregate->grouping_sets[1] = g2;
    assert_same_plan(r, "SELECT s, a, max(b) FROM t GROUP BY GROUPING SETS ((s, a), (s))");
}

static void test_pivot_is_aggregate_of_aggregate(void **state)
{
    (void)state;
    Rel *r = aggregate(read_table("t"), SPARK__CONNECT__AGGREGATE__GROUP_TYPE__GROUP_TYPE_PIVOT, 1,
                       exprs(1, col("s")), 1, exprs(1, fn("sum", 1, col("b"))));
    Spark__Connect__Aggregate__Pivot *p =
        NEW(Spark__Connect__Aggregate__Pivot, spark__connect__aggregate__pivot__init);
    p->col = col("a");
    p->n_values = 2;
    p->values = pnew(sizeof *p->values * 2);
    p->values[0] = l_int(1);
    p->values[1] = l_int(2);
    r->aggregate->pivot = p;
    assert_same_plan(r, "SELECT s, first(if(__pivot_col <=> 1, __pivot_agg_0, NULL)) IGNORE NULLS "
                        "AS `1`, first(if(__pivot_col <=> 2, __pivot_agg_0, NULL)) IGNORE NULLS "
                        "AS `2` FROM (SELECT s, a AS __pivot_col, sum(b) AS __pivot_agg_0 FROM t "
                        "GROUP BY s, a) GROUP BY s");
}

static void test_joins_of_every_type(void **state)
{
    (void)state;
    static const struct {
        Spark__Connect__Join__JoinType type;
        const char *sql;
    } cases[] = {
        {INNER, "SELECT * FROM t JOIN u ON t.a = u.a"},
        {SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_OUTER,
         "SELECT * FROM t LEFT JOIN u ON t.a = u.a"},
        {SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_RIGHT_OUTER,
         "SELECT * FROM t RIGHT JOIN u ON t.a = u.a"},
        {SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_FULL_OUTER,
         "SELECT * FROM t FULL JOIN u ON t.a = u.a"},
        {SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_SEMI,
         "SELECT * FROM t LEFT SEMI JOIN u ON t.a = u.a"},
        {SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_LEFT_ANTI,
         "SELECT * FROM t LEFT ANTI JOIN u ON t.a = u.a"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        Rel *r = project(join(read_table("t"), read_table("u"), cases[i].type,
                              fn("==", 2, col("t.a"), col("u.a"))),
                         1, star(NULL));
        assert_same_plan(r, cases[i].sql);
    }
    Rel *cross = project(join(read_table("t"), read_table("u"),
                              SPARK__CONNECT__JOIN__JOIN_TYPE__JOIN_TYPE_CROSS, NULL),
                         1, star(NULL));
    assert_same_plan(cross, "SELECT * FROM t CROSS JOIN u");
    Rel *using = join(read_table("t"), read_table("u"), INNER, NULL);
    using->join->n_using_columns = 1;
    using->join->using_columns = names(1, "a");
    assert_same_plan(project(using, 1, star(NULL)), "SELECT * FROM t JOIN u USING (a)");
}

static void test_dataframe_columns_resolve_each_side(void **state)
{
    (void)state;
    /* df1 = spark.table("t"); df2 = spark.table("t"); df1.join(df2, df1.a == df2.a)
     *   .select(df1.a, df2.b) */
    Rel *j = join(with_plan_id(read_table("t"), 1), with_plan_id(read_table("t"), 2), INNER,
                  fn("==", 2, df_col(1, "a"), df_col(2, "a")));
    Rel *r = project(j, 2, df_col(1, "a"), df_col(2, "b"));
    assert_same_plan(r, "SELECT __plan_id_1.a, __plan_id_2.b FROM t AS __plan_id_1 JOIN t AS "
                        "__plan_id_2 ON __plan_id_1.a = __plan_id_2.a");
    /* df.alias("x") keeps its own name as the qualifier */
    j = join(with_plan_id(subquery_alias(read_table("t"), "x"), 3), read_table("u"), INNER,
             fn("==", 2, df_col(3, "a"), col("u.a")));
    assert_same_plan(project(j, 1, df_col(3, "s")), "SELECT x.s FROM t AS x JOIN u ON x.a = u.a");
    /* outside a join a DataFrame's column is its name */
    r = project(with_plan_id(read_table("t"), 4), 1, df_col(4, "a"));
    assert_same_plan(r, "SELECT a FROM t");
}

static void test_set_operations(void **state)
{
    (void)state;
#define SET(t) SPARK__CONNECT__SET_OPERATION__SET_OP_TYPE__SET_OP_TYPE_##t
    Rel *l = project(read_table("t"), 1, col("a")), *rr = project(read_table("u"), 1, col("a"));
    assert_same_plan(set_op(l, rr, SET(UNION), true, false),
                     "SELECT a FROM t UNION ALL SELECT a FROM u");
    assert_same_plan(set_op(l, rr, SET(UNION), false, false),
                     "SELECT a FROM t UNION SELECT a FROM u");
    assert_same_plan(set_op(l, rr, SET(INTERSECT), false, false),
                     "SELECT a FROM t INTERSECT SELECT a FROM u");
    assert_same_plan(set_op(l, rr, SET(EXCEPT), true, false),
                     "SELECT a FROM t EXCEPT ALL SELECT a FROM u");
    Rel *l2 = project(read_table("t"), 2, col("a"), col("b"));
    Rel *r2 = project(read_table("t"), 2, col("b"), col("a"));
    assert_same_plan(set_op(l2, r2, SET(UNION), true, true),
                     "SELECT a, b FROM t UNION ALL BY NAME SELECT b, a FROM t");
    assert_plan_error(set_op(l, rr, SET(EXCEPT), false, true), "INTERNAL_ERROR");
    /* unionByName(u, allowMissingColumns=True): nulls for the columns a side lacks */
    Rel *m = set_op(read_table("t"), read_table("u"), SET(UNION), true, true);
    m->set_op->_allow_missing_columns_case =
        SPARK__CONNECT__SET_OPERATION___ALLOW_MISSING_COLUMNS_ALLOW_MISSING_COLUMNS;
    m->set_op->allow_missing_columns = true;
    assert_same_plan(m, "SELECT a, b, s, f, CAST(NULL AS INT) AS c FROM t UNION ALL SELECT a, "
                        "CAST(NULL AS BIGINT) AS b, CAST(NULL AS STRING) AS s, CAST(NULL AS "
                        "DOUBLE) AS f, c FROM u");
#undef SET
}

static Rel *with_columns(Rel *in, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    Rel *r = rel_new();
    r->with_columns = NEW(Spark__Connect__WithColumns, spark__connect__with_columns__init);
    r->with_columns->input = in;
    r->with_columns->n_aliases = (size_t)n;
    r->with_columns->aliases = pnew(sizeof *r->with_columns->aliases * (size_t)n);
    for (int i = 0; i < n; i++) {
        const char *name = va_arg(ap, const char *);
        r->with_columns->aliases[i] = alias_msg(va_arg(ap, Expr *), name);
    }
    va_end(ap);
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_WITH_COLUMNS;
    return r;
}

static void test_column_relations(void **state)
{
    (void)state;
    Rel *r = with_columns(read_table("t"), 2, "c", fn("+", 2, col("a"), lit_i(1)), "B",
                          fn("*", 2, col("a"), lit_i(2)));
    assert_same_plan(r, "SELECT a, a * 2 AS B, s, f, a + 1 AS c FROM t");

    r = rel_new();
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_WITH_COLUMNS_RENAMED;
    r->with_columns_renamed =
        NEW(Spark__Connect__WithColumnsRenamed, spark__connect__with_columns_renamed__init);
    r->with_columns_renamed->input = read_table("t");
    Spark__Connect__WithColumnsRenamed__Rename *a =
        NEW(Spark__Connect__WithColumnsRenamed__Rename,
            spark__connect__with_columns_renamed__rename__init);
    a->col_name = "a";
    a->new_col_name = "x";
    r->with_columns_renamed->n_renames = 1;
    r->with_columns_renamed->renames = pnew(sizeof a);
    r->with_columns_renamed->renames[0] = a;
    assert_same_plan(r, "SELECT a AS x, b, s, f FROM t");

    r = rel_new();
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_DROP;
    r->drop = NEW(Spark__Connect__Drop, spark__connect__drop__init);
    r->drop->input = read_table("t");
    r->drop->n_column_names = 2;
    r->drop->column_names = names(2, "B", "nothere");
    r->drop->n_columns = 1;
    r->drop->columns = exprs(1, col("f"));
    assert_same_plan(r, "SELECT a, s FROM t");

    r = rel_new();
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_TO_DF;
    r->to_df = NEW(Spark__Connect__ToDF, spark__connect__to_df__init);
    r->to_df->input = project(read_table("t"), 2, col("a"), col("s"));
    r->to_df->n_column_names = 2;
    r->to_df->column_names = names(2, "x", "y");
    assert_same_plan(project(r, 1, star(NULL)),
                     "SELECT * FROM (SELECT a, s FROM t) AS __auto_generated_subquery_name(x, y)");
}

static void test_to_schema_reorders_and_casts(void **state)
{
    (void)state;
    Rel *r = rel_new();
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_TO_SCHEMA;
    r->to_schema = NEW(Spark__Connect__ToSchema, spark__connect__to_schema__init);
    r->to_schema->input = read_table("t");
    Spark__Connect__DataType *t = NEW(Spark__Connect__DataType, spark__connect__data_type__init);
    t->kind_case = SPARK__CONNECT__DATA_TYPE__KIND_UNPARSED;
    t->unparsed =
        NEW(Spark__Connect__DataType__Unparsed, spark__connect__data_type__unparsed__init);
    t->unparsed->data_type_string = "s string, a bigint";
    r->to_schema->schema = t;
    assert_same_plan(r, "SELECT s AS s, CAST(a AS BIGINT) AS a FROM t");
    t->unparsed->data_type_string = "zz int";
    assert_plan_error(r, "UNRESOLVED_COLUMN.WITHOUT_SUGGESTION");
}

static Rel *unpivot(Rel *in, Expr **ids, int n_ids, Expr **values, int n_values)
{
    Rel *r = rel_new();
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_UNPIVOT;
    r->unpivot = NEW(Spark__Connect__Unpivot, spark__connect__unpivot__init);
    r->unpivot->input = in;
    r->unpivot->n_ids = (size_t)n_ids;
    r->unpivot->ids = ids;
    if (values) {
        r->unpivot->_values_case = SPARK__CONNECT__UNPIVOT___VALUES_VALUES;
        r->unpivot->values =
            NEW(Spark__Connect__Unpivot__Values, spark__connect__unpivot__values__init);
        r->unpivot->values->n_values = (size_t)n_values;
        r->unpivot->values->values = values;
    }
    r->unpivot->variable_column_name = "var";
    r->unpivot->value_column_name = "val";
    return r;
}

static void test_unpivot_stat_and_references(void **state)
{
    (void)state;
    assert_same_plan(
        unpivot(read_table("t"), exprs(1, col("a")), 1, exprs(2, col("b"), col("f")), 2),
        "SELECT a, stack(2, 'b', CAST(b AS DOUBLE), 'f', f) AS (var, val) FROM t");
    /* melt without values: every column but the ids */
    assert_same_plan(unpivot(read_table("u"), exprs(1, col("a")), 1, NULL, 0),
                     "SELECT a, stack(1, 'c', c) AS (var, val) FROM u");
    /* df.stat.cov("a", "b") */
    Rel *cov = rel_new();
    cov->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_COV;
    cov->cov = NEW(Spark__Connect__StatCov, spark__connect__stat_cov__init);
    cov->cov->input = read_table("t");
    cov->cov->col1 = "a";
    cov->cov->col2 = "b";
    assert_same_plan(cov, "SELECT covar_samp(a, b) FROM t");
    /* spark.tvf.range(0, 3) */
    Rel *tvf = rel_new();
    tvf->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_UNRESOLVED_TABLE_VALUED_FUNCTION;
    tvf->unresolved_table_valued_function =
        NEW(Spark__Connect__UnresolvedTableValuedFunction,
            spark__connect__unresolved_table_valued_function__init);
    tvf->unresolved_table_valued_function->function_name = "range";
    tvf->unresolved_table_valued_function->n_arguments = 2;
    tvf->unresolved_table_valued_function->arguments = exprs(2, lit_i(0), lit_i(3));
    assert_same_plan(project(tvf, 1, star(NULL)), "SELECT * FROM range(0, 3)");
    /* spark.sql("SELECT * FROM {df} WHERE a > 0", df=spark.table("t")) */
    Rel *w = rel_new();
    w->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_WITH_RELATIONS;
    w->with_relations = NEW(Spark__Connect__WithRelations, spark__connect__with_relations__init);
    w->with_relations->root = sql_rel("SELECT * FROM df1 WHERE a > 0");
    w->with_relations->n_references = 1;
    w->with_relations->references = pnew(sizeof(Rel *));
    w->with_relations->references[0] =
        subquery_alias(project(read_table("t"), 1, star(NULL)), "df1");
    assert_same_plan(w, "WITH df1 AS (SELECT * FROM t) SELECT * FROM df1 WHERE a > 0");
}

static Rel *dedup(Rel *in, int n, char **cols)
{
    Rel *r = rel_new();
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_DEDUPLICATE;
    r->deduplicate = NEW(Spark__Connect__Deduplicate, spark__connect__deduplicate__init);
    r->deduplicate->input = in;
    if (n == 0) {
        r->deduplicate->_all_columns_as_keys_case =
            SPARK__CONNECT__DEDUPLICATE___ALL_COLUMNS_AS_KEYS_ALL_COLUMNS_AS_KEYS;
        r->deduplicate->all_columns_as_keys = true;
    }
    r->deduplicate->n_column_names = (size_t)n;
    r->deduplicate->column_names = cols;
    return r;
}

static void test_drop_duplicates(void **state)
{
    (void)state;
    assert_same_plan(dedup(project(read_table("t"), 1, star(NULL)), 0, NULL),
                     "SELECT DISTINCT * FROM t");
    assert_same_plan(dedup(read_table("t"), 1, names(1, "s")),
                     "SELECT first(a) AS a, first(b) AS b, s, first(f) AS f FROM t GROUP BY s");
    assert_plan_error(dedup(read_table("t"), 1, names(1, "zz")), "INTERNAL_ERROR");
}

static void test_na_functions(void **state)
{
    (void)state;
    Rel *r = rel_new();
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_FILL_NA;
    r->fill_na = NEW(Spark__Connect__NAFill, spark__connect__nafill__init);
    r->fill_na->input = read_table("t");
    r->fill_na->n_values = 1;
    r->fill_na->values = pnew(sizeof *r->fill_na->values);
    r->fill_na->values[0] = l_long(0);
    assert_same_plan(r, "SELECT coalesce(a, CAST(0L AS INT)) AS a, coalesce(b, CAST(0L AS BIGINT)) "
                        "AS b, s, coalesce(nanvl(f, NULL), CAST(0L AS DOUBLE)) AS f FROM t");

    r = rel_new();
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_DROP_NA;
    r->drop_na = NEW(Spark__Connect__NADrop, spark__connect__nadrop__init);
    r->drop_na->input = read_table("t");
    r->drop_na->n_cols = 2;
    r->drop_na->cols = names(2, "s", "f");
    assert_same_plan(project(r, 1, star(NULL)),
                     "SELECT * FROM t WHERE CASE WHEN isnotnull(s) THEN 1 ELSE 0 END + CASE WHEN "
                     "isnotnull(f) AND NOT isnan(f) THEN 1 ELSE 0 END >= 2");

    r = rel_new();
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_REPLACE;
    r->replace = NEW(Spark__Connect__NAReplace, spark__connect__nareplace__init);
    r->replace->input = read_table("t");
    Spark__Connect__NAReplace__Replacement *rep =
        NEW(Spark__Connect__NAReplace__Replacement, spark__connect__nareplace__replacement__init);
    rep->old_value = l_str("x");
    rep->new_value = l_str("y");
    r->replace->n_replacements = 1;
    r->replace->replacements = pnew(sizeof rep);
    r->replace->replacements[0] = rep;
    assert_same_plan(r, "SELECT a, b, CASE WHEN s = 'x' THEN CAST('y' AS STRING) ELSE s END AS s, "
                        "f FROM t");
}

static void test_describe_has_summary_rows(void **state)
{
    (void)state;
    Rel *r = rel_new();
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_DESCRIBE;
    r->describe = NEW(Spark__Connect__StatDescribe, spark__connect__stat_describe__init);
    r->describe->input = read_table("t");
    r->describe->n_cols = 2;
    r->describe->cols = names(2, "a", "s");
    cs_connect_plan_ctx ctx = plan_ctx();
    cs_logical_plan *p = NULL, *res = NULL;
    assert_int_equal(cs_connect_plan_relation(&ctx, r, &p), 0);
    assert_int_equal(cs_sql_session_analyze(SESSION, P_ARENA, p, &res, &ERR), 0);
    assert_int_equal(res->n_output, 3);
    assert_string_equal(res->output[0]->name, "summary");
    assert_string_equal(res->output[1]->name, "a");
    assert_string_equal(res->output[2]->name, "s");
    for (int i = 0; i < 3; i++)
        assert_int_equal(res->output[i]->type->id, CS_TYPE_STRING);
}

/* createDataFrame([(1, "x"), (2, None)], "a int, s string") as PySpark sends it */
static void test_local_relation_from_arrow(void **state)
{
    (void)state;
    cs_col_field f[2] = {{"_1", cs_col_type_primitive(CS_TYPE_LONG), true},
                         {"_2", cs_col_type_primitive(CS_TYPE_STRING), true}};
    cs_col_type *schema = cs_col_type_struct(f, 2);
    cs_col_builder *b1 = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_LONG));
    int64_t v[2] = {1, 2};
    cs_col_builder_append_values(b1, v, 2, NULL);
    cs_col_builder *b2 = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_STRING));
    cs_col_builder_append_string(b2, "x", 1);
    cs_col_builder_append_nulls(b2, 1);
    cs_column *cols[2] = {cs_col_builder_finish(b1), cs_col_builder_finish(b2)};
    cs_col_builder_free(b1);
    cs_col_builder_free(b2);
    cs_col_batch *batch = cs_col_batch_new(cs_col_type_ref(schema), cols, 2, 2, &ERR);
    assert_non_null(batch);
    cs_sbuf bytes = CS_SBUF_INIT;
    cs_ipc_writer *w = cs_ipc_writer_new(schema, cs_ipc_write_sbuf, &bytes);
    assert_int_equal(cs_ipc_writer_write(w, batch, &ERR), 0);
    assert_int_equal(cs_ipc_writer_close(w, &ERR), 0);
    cs_ipc_writer_free(w);
    cs_col_batch_unref(batch);
    cs_col_type_unref(schema);

    Rel *r = rel_new();
    r->rel_type_case = SPARK__CONNECT__RELATION__REL_TYPE_LOCAL_RELATION;
    r->local_relation = NEW(Spark__Connect__LocalRelation, spark__connect__local_relation__init);
    r->local_relation->_data_case = SPARK__CONNECT__LOCAL_RELATION___DATA_DATA;
    r->local_relation->data.len = bytes.len;
    r->local_relation->data.data = pnew(bytes.len);
    memcpy(r->local_relation->data.data, cs_sbuf_str(&bytes), bytes.len);
    cs_sbuf_free(&bytes);
    r->local_relation->_schema_case = SPARK__CONNECT__LOCAL_RELATION___SCHEMA_SCHEMA;
    r->local_relation->schema =
        "{\"type\":\"struct\",\"fields\":[{\"name\":\"a\",\"type\":\"integer\",\"nullable\":"
        "true,\"metadata\":{}},{\"name\":\"s\",\"type\":\"string\",\"nullable\":true,"
        "\"metadata\":{}}]}";
    cs_connect_plan_ctx ctx = plan_ctx();
    cs_logical_plan *p = NULL, *res = NULL;
    assert_int_equal(cs_connect_plan_relation(&ctx, r, &p), 0);
    assert_int_equal(cs_sql_session_analyze(SESSION, P_ARENA, p, &res, &ERR), 0);
    assert_int_equal(res->n_output, 2);
    assert_string_equal(res->output[0]->name, "a");
    assert_int_equal(res->output[0]->type->id, CS_TYPE_INT); /* cast from the stream's bigint */
    assert_string_equal(res->output[1]->name, "s");
    assert_int_equal(p->kind, CS_LP_PROJECT); /* the cast to the schema's types */
    assert_int_equal(p->children[0]->children[0]->n_batches, 1);
    assert_int_equal(p->children[0]->children[0]->batches[0]->num_rows, 2);

    /* the empty DataFrame of a DDL schema */
    r->local_relation->_data_case = 0;
    r->local_relation->schema = "x bigint, y string";
    ctx = plan_ctx();
    int rc = cs_connect_plan_relation(&ctx, r, &p);
    if (rc) print_message("%s\n", ERR.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(cs_sql_session_analyze(SESSION, P_ARENA, p, &res, &ERR), 0);
    assert_int_equal(res->n_output, 2);
    assert_string_equal(res->output[1]->name, "y");
}

static void test_literals_of_every_type(void **state)
{
    (void)state;
    Spark__Connect__Expression__Literal *dec = literal_new();
    dec->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DECIMAL;
    dec->decimal = NEW(Spark__Connect__Expression__Literal__Decimal,
                       spark__connect__expression__literal__decimal__init);
    dec->decimal->value = "12.345";
    dec->decimal->_precision_case =
        SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___PRECISION_PRECISION;
    dec->decimal->precision = 5;
    dec->decimal->_scale_case = SPARK__CONNECT__EXPRESSION__LITERAL__DECIMAL___SCALE_SCALE;
    dec->decimal->scale = 3;
    Spark__Connect__Expression__Literal *date = literal_new();
    date->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DATE;
    date->date = 18263;
    Spark__Connect__Expression__Literal *ntz = literal_new();
    ntz->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_TIMESTAMP_NTZ;
    ntz->timestamp_ntz = 1577836800000000LL + 3723000000LL;
    Spark__Connect__Expression__Literal *dt = literal_new();
    dt->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_DAY_TIME_INTERVAL;
    dt->day_time_interval = 86400000000LL;
    Spark__Connect__Expression__Literal *bin = literal_new();
    bin->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BINARY;
    bin->binary.data = (uint8_t *)"\x0a\x0b";
    bin->binary.len = 2;
    Spark__Connect__Expression__Literal *b = literal_new();
    b->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_BOOLEAN;
    b->boolean = 1;
    Rel *r = project(NULL, 7, lit_expr(dec), lit_expr(date), lit_expr(ntz), lit_expr(dt),
                     lit_expr(bin), lit_expr(b), lit_expr(l_double(0.5)));
    assert_same_plan(r, "SELECT 12.345, DATE '2020-01-02', TIMESTAMP_NTZ '2020-01-01 01:02:03', "
                        "INTERVAL '1 00:00:00' DAY TO SECOND, X'0A0B', true, 0.5D");

    Spark__Connect__Expression__Literal *arr = literal_new();
    arr->literal_type_case = SPARK__CONNECT__EXPRESSION__LITERAL__LITERAL_TYPE_ARRAY;
    arr->array = NEW(Spark__Connect__Expression__Literal__Array,
                     spark__connect__expression__literal__array__init);
    arr->array->n_elements = 2;
    arr->array->elements = pnew(sizeof *arr->array->elements * 2);
    arr->array->elements[0] = l_int(1);
    arr->array->elements[1] = l_int(2);
    assert_same_plan(project(NULL, 1, lit_expr(arr)), "SELECT array(1, 2)");
}

static void test_window_expression(void **state)
{
    (void)state;
    Expr *w = expr_new();
    w->expr_type_case = SPARK__CONNECT__EXPRESSION__EXPR_TYPE_WINDOW;
    w->window = NEW(Spark__Connect__Expression__Window, spark__connect__expression__window__init);
    w->window->window_function = fn("sum", 1, col("b"));
    w->window->n_partition_spec = 1;
    w->window->partition_spec = exprs(1, col("s"));
    w->window->n_order_spec = 1;
    w->window->order_spec = pnew(sizeof *w->window->order_spec);
    w->window->order_spec[0] = order_msg(col("a"), true);
    Spark__Connect__Expression__Window__WindowFrame *f =
        NEW(Spark__Connect__Expression__Window__WindowFrame,
            spark__connect__expression__window__window_frame__init);
    f->frame_type = SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_TYPE__FRAME_TYPE_ROW;
    f->lower = NEW(Spark__Connect__Expression__Window__WindowFrame__FrameBoundary,
                   spark__connect__expression__window__window_frame__frame_boundary__init);
    f->lower->boundary_case =
        SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_VALUE;
    f->lower->value = lit_i(-1);
    f->upper = NEW(Spark__Connect__Expression__Window__WindowFrame__FrameBoundary,
                   spark__connect__expression__window__window_frame__frame_boundary__init);
    f->upper->boundary_case =
        SPARK__CONNECT__EXPRESSION__WINDOW__WINDOW_FRAME__FRAME_BOUNDARY__BOUNDARY_CURRENT_ROW;
    f->upper->current_row = 1;
    w->window->frame_spec = f;
    assert_same_plan(project(read_table("t"), 2, col("a"), alias(w, "w")),
                     "SELECT a, sum(b) OVER (PARTITION BY s ORDER BY a ASC NULLS FIRST ROWS "
                     "BETWEEN 1 PRECEDING AND CURRENT ROW) AS w FROM t");
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, session_setup, session_teardown)
    const struct CMUnitTest tests[] = {
        T(test_project_filter_as_select_where),
        T(test_expression_kinds_as_sql),
        T(test_sql_relation_binds_arguments),
        T(test_read_data_source_with_options),
        T(test_range_and_limit_offset_sort),
        T(test_aggregate_group_types),
        T(test_pivot_is_aggregate_of_aggregate),
        T(test_joins_of_every_type),
        T(test_dataframe_columns_resolve_each_side),
        T(test_set_operations),
        T(test_column_relations),
        T(test_to_schema_reorders_and_casts),
        T(test_unpivot_stat_and_references),
        T(test_drop_duplicates),
        T(test_na_functions),
        T(test_describe_has_summary_rows),
        T(test_local_relation_from_arrow),
        T(test_literals_of_every_type),
        T(test_window_expression),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
