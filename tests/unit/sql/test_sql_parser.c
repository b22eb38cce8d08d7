/*
 * test_sql_parser.c — Spark SQL's parser (src/sql/sql_lexer.c, parser_*.c): every clause of
 * SELECT, joins of every type, set operations with Spark's precedence, CTEs, VALUES, hints,
 * lateral views, table-valued functions and path relations; expressions with Spark's operator
 * precedence and AstBuilder's shapes; literals typed as Spark types them; ANSI interval
 * literals; statements (DDL, INSERT, SET, SHOW, DESCRIBE, CACHE, USE, EXPLAIN); data type
 * strings; keywords case-insensitive and usable as identifiers; nested comments; the 22 TPC-H
 * queries; and errors with Spark 4's exact text and position (the texts below were taken from
 * Spark 4.0.1's parser). Trees are compared through the one-line printer of parse_print.h.
 * A random-mutation round checks that no input crashes the parser or leaves it without an
 * error class.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse_print.h"
#include "sql/sql_parser.h"
#include "sqlexec/sql_error.h"
#include "tpch_queries.h"

/* Parses sql as a script and returns its printed statements ("; "-joined) in buf. */
static const char *parse_to_text(const char *sql, char *buf, size_t cap)
{
    cs_sql_arena *a = cs_sql_arena_new();
    cs_sql_statement **st;
    int n;
    cs_error err = {0};
    cs_sbuf o = CS_SBUF_INIT;
    if (cs_sql_parse(a, sql, &st, &n, &err)) {
        cs_sbuf_printf(&o, "ERR %s", err.msg);
    } else {
        for (int k = 0; k < n; k++) {
            if (k) cs_sbuf_puts(&o, "; ");
            pp_statement(st[k], &o);
        }
    }
    snprintf(buf, cap, "%.*s", (int)o.len, o.data ? o.data : "");
    cs_sbuf_free(&o);
    cs_sql_arena_free(a);
    return buf;
}

static void check(const char *sql, const char *expected)
{
    char buf[16384];
    const char *got = parse_to_text(sql, buf, sizeof buf);
    if (strcmp(got, expected) != 0) {
        fprintf(stderr, "sql:      %s\nexpected: %s\ngot:      %s\n", sql, expected, got);
        fail();
    }
}

/* A syntax or literal error: Spark's class, message and position. */
static void check_error(const char *sql, const char *cls, const char *msg, int line, int pos)
{
    cs_sql_arena *a = cs_sql_arena_new();
    cs_sql_statement **st;
    int n;
    cs_error err = {0};
    cs_sql_origin where = {0, 0};
    int rc = cs_sql_parse_at(a, sql, &st, &n, &where, &err);
    if (rc != CS_EINVAL || strcmp(err.msg, msg) != 0 || !cs_sql_error_is(&err, cls) ||
        where.line != line || where.pos != pos) {
        fprintf(stderr,
                "sql:      %s\nexpected: %s (line %d, pos %d)\ngot:      %s (line %d, pos %d)\n",
                sql, msg, line, pos, err.msg, where.line, where.pos);
        fail();
    }
    cs_sql_arena_free(a);
}

static void test_select_clauses(void **state)
{
    (void)state;
    check("SELECT a, b AS c, d e FROM t WHERE a > 1",
          "Query: Project['a, 'b AS c, 'd AS e](Filter[('a > 1)](Relation[t]))");
    check("SELECT DISTINCT a FROM t", "Query: Distinct(Project['a](Relation[t]))");
    check("SELECT 1", "Query: Project[1](OneRow)");
    check("SELECT a, count(*) FROM t GROUP BY ROLLUP(a, b) HAVING count(*) > 1 ORDER BY 1 "
          "LIMIT 10 OFFSET 5",
          "Query: Limit[10](Offset[5](Sort[#1 ASC](Filter[(count(*) > 1)](Aggregate[rollup('a, "
          "'b); 'a, count(*)](Relation[t])))))");
    check("SELECT a FROM t GROUP BY GROUPING SETS ((a), (a, b), ())",
          "Query: Aggregate[grouping_sets(grouping_set('a), grouping_set('a, 'b), "
          "grouping_set()); 'a](Relation[t])");
    check("SELECT a FROM t GROUP BY CUBE(a, (b, c)), d",
          "Query: Aggregate[cube('a, grouping_set('b, 'c)), 'd; 'a](Relation[t])");
    check("SELECT a FROM t GROUP BY a, b WITH ROLLUP",
          "Query: Aggregate[rollup('a, 'b); 'a](Relation[t])");
    check("SELECT a FROM t GROUP BY 1, 2 ORDER BY 2 DESC NULLS FIRST",
          "Query: Sort[#2 DESC NULLS FIRST](Aggregate[#1, #2; 'a](Relation[t]))");
    check("SELECT sum(a) FROM t HAVING sum(a) > 0",
          "Query: Filter[(sum('a) > 0)](Aggregate[; sum('a)](Relation[t]))");
    check("SELECT a FROM t CLUSTER BY a",
          "Query: Sort[local; 'a ASC](Repartition['a](Project['a](Relation[t])))");
    check("SELECT a FROM t DISTRIBUTE BY a SORT BY b",
          "Query: Sort[local; 'b ASC](Repartition['a](Project['a](Relation[t])))");
    check("SELECT a FROM t SORT BY a DESC",
          "Query: Sort[local; 'a DESC](Project['a](Relation[t]))");
    check("SELECT a FROM t LIMIT ALL", "Query: Project['a](Relation[t])");
    check("SELECT 1 FROM t LIMIT 1 + 1 OFFSET 2",
          "Query: Limit[(1 + 1)](Offset[2](Project[1](Relation[t])))");
    check("SELECT sum(x) OVER w FROM t WINDOW w AS (PARTITION BY a)",
          "Query: Project[sum('x) OVER (PARTITION BY 'a)](Relation[t])");
    check("SELECT count(*) OVER w2 FROM t WINDOW w1 AS (PARTITION BY a), w2 AS (w1 ORDER BY b "
          "ROWS 2 PRECEDING)",
          "Query: Project[count(*) OVER (PARTITION BY 'a ORDER BY 'b ASC ROWS BETWEEN 2 "
          "PRECEDING AND CURRENT ROW)](Relation[t])");
    check("SELECT /*+ BROADCAST(t1), MERGE(t1, t2) */ * FROM t1 JOIN t2",
          "Query: Hint[BROADCAST: 't1](Hint[MERGE: 't1, 't2](Project[*](Join[Inner](Relation[t1], "
          "Relation[t2]))))");
    check("WITH a AS (SELECT 1), b (x) AS (SELECT 2) SELECT * FROM a, b",
          "Query: With[Alias[a](Project[1](OneRow)), Alias[b(x)](Project[2](OneRow))](Project[*]("
          "Join[Inner](Relation[a], Relation[b])))");
    check("VALUES (1, 'a'), (2, 'b')", "Query: Values[2x2: 1, 'a', 2, 'b']");
    check("SELECT * FROM VALUES 1, 2, 3", "Query: Project[*](Values[3x1: 1, 2, 3])");
    check("SELECT * FROM VALUES (1, 2) AS t(a, b)",
          "Query: Project[*](Alias[t(a, b)](Values[1x2: 1, 2]))");
    check("TABLE t", "Query: Project[*](Relation[t])");
    check("SELECT a.*, t.b.c FROM a", "Query: Project[a.*, 't.b.c](Relation[a])");
}

static void test_relations_and_joins(void **state)
{
    (void)state;
    check("SELECT * FROM a NATURAL JOIN b LEFT SEMI JOIN c ON x LEFT ANTI JOIN d USING (k) "
          "CROSS JOIN e, f",
          "Query: Project[*](Join[Inner](Join[Cross](Join[LeftAnti, USING(k)](Join[LeftSemi, "
          "'x](Join[NaturalInner](Relation[a], Relation[b]), Relation[c]), Relation[d]), "
          "Relation[e]), Relation[f]))");
    check("SELECT * FROM t1 FULL OUTER JOIN t2 USING (a, b) RIGHT JOIN t3 ON t2.x = t3.x "
          "LEFT OUTER JOIN t4 ON true INNER JOIN t5 ON false",
          "Query: Project[*](Join[Inner, false](Join[LeftOuter, true](Join[RightOuter, ('t2.x = "
          "'t3.x)](Join[FullOuter, USING(a, b)](Relation[t1], Relation[t2]), Relation[t3]), "
          "Relation[t4]), Relation[t5]))");
    check("SELECT * FROM t LATERAL VIEW OUTER explode(arr) e AS c",
          "Query: Project[*](Generate[outer explode('arr), e, c](Relation[t]))");
    check("SELECT * FROM t LATERAL VIEW explode(a) AS x LATERAL VIEW posexplode(b) p AS i, v",
          "Query: Project[*](Generate[posexplode('b), p, i, v](Generate[explode('a), -, "
          "x](Relation[t])))");
    check("SELECT * FROM (SELECT 1) AS s(a)", "Query: Project[*](Alias[s(a)](Project[1](OneRow)))");
    check("SELECT a FROM (SELECT 1 a) JOIN (SELECT 2 b) ON true",
          "Query: Project['a](Join[Inner, true](Alias[__auto_generated_subquery_name](Project[1 AS "
          "a](OneRow)), Alias[__auto_generated_subquery_name](Project[2 AS b](OneRow))))");
    check("SELECT * FROM range(0, 10, 2) AS r(id)",
          "Query: Project[*](Alias[r(id)](TVF[range: 0, 10, 2]))");
    check("SELECT * FROM parquet.`/tmp/x` p, csv.`/data/x.csv`, json.`s3a://b/k`",
          "Query: Project[*](Join[Inner](Join[Inner](Alias[p](Relation[parquet:/tmp/x]), "
          "Relation[csv:/data/x.csv]), Relation[json:s3a://b/k]))");
    check("SELECT * FROM db.t AS x", "Query: Project[*](Alias[x](Relation[db.t]))");
    check("SELECT x FROM t TABLESAMPLE (10 PERCENT)",
          "Query: Project['x](Sample[0.1](Relation[t]))");
    /* n ROWS is a limit, as Spark's AstBuilder makes it; BUCKET x OUT OF y the fraction x/y */
    check("SELECT x FROM t TABLESAMPLE (5 ROWS)", "Query: Project['x](Limit[5](Relation[t]))");
    check("SELECT x FROM t TABLESAMPLE (BUCKET 1 OUT OF 4)",
          "Query: Project['x](Sample[0.25](Relation[t]))");
}

static void test_set_operations_precedence(void **state)
{
    (void)state;
    /* INTERSECT binds tighter than UNION and EXCEPT, which associate to the left (Spark's
     * tree: Except(Distinct(Union(a, Intersect(b, c))), d)) */
    check("SELECT * FROM a UNION SELECT * FROM b INTERSECT SELECT * FROM c EXCEPT ALL SELECT * "
          "FROM d",
          "Query: Except[all](Union[distinct](Project[*](Relation[a]), "
          "Intersect[distinct](Project[*](Relation[b]), Project[*](Relation[c]))), "
          "Project[*](Relation[d]))");
    check("SELECT a FROM t UNION ALL SELECT b FROM u UNION BY NAME SELECT c FROM v MINUS "
          "SELECT d FROM w",
          "Query: Except[distinct](Union[distinct, by name](Union[all](Project['a](Relation[t]), "
          "Project['b](Relation[u])), Project['c](Relation[v])), Project['d](Relation[w]))");
    check("(SELECT 1) UNION (SELECT 2) ORDER BY 1 LIMIT 1",
          "Query: Limit[1](Sort[#1 ASC](Union[distinct](Project[1](OneRow), "
          "Project[2](OneRow))))");
}

static void test_expression_precedence(void **state)
{
    (void)state;
    check("SELECT 1 + 2 * 3 - 4 / 5 % 6 div 7 || 'x' & 1 | 2 ^ 3",
          "Query: Project[((concat(((1 + (2 * 3)) - div(((4 / 5) % 6), 7)), 'x') & 1) | (2 ^ "
          "3))](OneRow)");
    check("SELECT -a, ~b, NOT c = d, a = b = c",
          "Query: Project[-('a), ~('b), not(('c = 'd)), (('a = 'b) = 'c)](OneRow)");
    check("SELECT NOT a AND b, - a * b, a || b + c, !a OR b AND c",
          "Query: Project[and(not('a), 'b), (-('a) * 'b), (concat('a, 'b) + 'c), "
          "or(not('a), and('b, 'c))](OneRow)");
    check("SELECT a >> 1, a << 2, a >>> 3, a & b | c ^ d",
          "Query: Project[shiftright('a, 1), shiftleft('a, 2), shiftrightunsigned('a, 3), (('a & "
          "'b) | ('c ^ 'd))](OneRow)");
    check("SELECT a IS NOT DISTINCT FROM b, a <=> b, a != b, a <> b, a == b",
          "Query: Project[('a <=> 'b), ('a <=> 'b), not(('a = 'b)), not(('a = 'b)), ('a = "
          "'b)](OneRow)");
    check("SELECT a IS TRUE, b IS NOT FALSE, c IS NULL, d IS NOT NULL, e IS UNKNOWN",
          "Query: Project[('a <=> true), not(('b <=> false)), isnull('c), isnotnull('d), "
          "isnull('e)](OneRow)");
    check("SELECT a FROM t WHERE x IN (1,2) AND NOT y LIKE 'a%' OR z BETWEEN 1 AND 2",
          "Query: Project['a](Filter[or(and('x IN (1, 2), not(like('y, 'a%'))), between('z, 1, "
          "2))](Relation[t]))");
    check("SELECT a BETWEEN 1 AND 2 AND b NOT BETWEEN 3 AND 4",
          "Query: Project[and(between('a, 1, 2), not(between('b, 3, 4)))](OneRow)");
    check("SELECT a LIKE ANY ('a%', 'b%'), b ILIKE 'x' ESCAPE '/', c RLIKE 'r', d REGEXP 'r', "
          "e NOT LIKE ALL ('q'), f NOT RLIKE 'z'",
          "Query: Project[like_any('a, 'a%', 'b%'), ilike('b, 'x', '/'), rlike('c, 'r'), "
          "rlike('d, 'r'), NOT like_all('e, 'q'), NOT rlike('f, 'z')](OneRow)");
    check("SELECT a FROM t WHERE NOT EXISTS (SELECT 1) AND a NOT IN (1, 2) AND (a, b) IN "
          "(SELECT x, y FROM u) AND c IN (SELECT z FROM v)",
          "Query: Project['a](Filter[and(and(and(NOT EXISTS {Project[1](OneRow)}, 'a NOT IN (1, "
          "2)), ('a, 'b) IN {Project['x, 'y](Relation[u])}), 'c IN "
          "{Project['z](Relation[v])})](Relation[t]))");
}

static void test_expression_forms(void **state)
{
    (void)state;
    check("SELECT a.b.c, a[0], m['k'], f(x)[1].y FROM t",
          "Query: Project['a.b.c, 'a[0], 'm['k'], f('x)[1]['y']](Relation[t])");
    check("SELECT count(*), count(DISTINCT a), sum(b) FILTER (WHERE c > 0), first(d) IGNORE "
          "NULLS, first(x IGNORE NULLS) FROM t",
          "Query: Project[count(*), count(DISTINCT 'a), sum('b) FILTER(('c > 0)), first('d) "
          "IGNORE NULLS, first('x) IGNORE NULLS](Relation[t])");
    check("SELECT row_number() OVER (PARTITION BY a ORDER BY b DESC NULLS FIRST ROWS BETWEEN "
          "UNBOUNDED PRECEDING AND CURRENT ROW), sum(x) OVER (ORDER BY d RANGE BETWEEN INTERVAL "
          "1 DAY PRECEDING AND UNBOUNDED FOLLOWING)",
          "Query: Project[row_number() OVER (PARTITION BY 'a ORDER BY 'b DESC NULLS FIRST ROWS "
          "BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW), sum('x) OVER (ORDER BY 'd ASC RANGE "
          "BETWEEN 86400000000:interval day PRECEDING AND UNBOUNDED FOLLOWING)](OneRow)");
    check("SELECT CASE WHEN a THEN 1 ELSE 2 END, CASE a WHEN 1 THEN 'x' END, CAST(a AS "
          "decimal(10,2)), TRY_CAST(b AS int), c::string, x::bigint::string",
          "Query: Project[CASE WHEN 'a THEN 1 ELSE 2 END, CASE WHEN ('a = 1) THEN 'x' END, cast('a "
          "AS decimal(10,2)), try_cast('b AS int), cast('c AS string), cast(cast('x AS bigint) "
          "AS string)](OneRow)");
    check("SELECT EXISTS (SELECT 1), (SELECT max(a) FROM t)",
          "Query: Project[EXISTS {Project[1](OneRow)}, {Project[max('a)](Relation[t])}](OneRow)");
    check("SELECT transform(arr, x -> x + 1), aggregate(arr, 0, (acc, x) -> acc + x)",
          "Query: Project[transform('arr, (x) -> ('x + 1)), aggregate('arr, 0, (acc, x) -> ('acc "
          "+ 'x))](OneRow)");
    check("SELECT EXTRACT(YEAR FROM d), POSITION('a' IN s), TRIM(BOTH 'x' FROM s), "
          "TRIM(LEADING FROM s), TRIM(s), SUBSTRING(s FROM 1 FOR 2), SUBSTR(s, 2)",
          "Query: Project[extract('YEAR', 'd), locate('a', 's, 1), trim('x', 's), ltrim('s), "
          "trim('s), substring('s, 1, 2), substr('s, 2)](OneRow)");
    check("SELECT current_date, current_timestamp(), user, db.fn(1), `My Fn`(2)",
          "Query: Project['current_date, current_timestamp(), 'user, db.fn(1), My Fn(2)](OneRow)");
}

static void test_literals_typed_as_spark(void **state)
{
    (void)state;
    check("SELECT 1.5BD, 1.5D, 1e3, 1.5, 12345678901, 123456789012345678901234, 1L, 1S, 1Y, "
          "1.5F",
          "Query: Project[1.5:decimal(2,1), 1.5:double, 1000:double, 1.5:decimal(2,1), "
          "12345678901:bigint, 123456789012345678901234:decimal(24,0), 1:bigint, 1:smallint, "
          "1:tinyint, 1.5:float](OneRow)");
    check("SELECT 2147483648, 9223372036854775808, -2147483648, 1.0E10BD, .5, 5., 1E-2, 0.001, "
          "-128Y",
          "Query: Project[2147483648:bigint, 9223372036854775808:decimal(19,0), -2147483648, "
          "10000000000:decimal(11,0), 0.5:decimal(1,1), 5:decimal(1,0), 0.01:double, "
          "0.001:decimal(3,3), -128:tinyint](OneRow)");
    check("SELECT 'a' 'b', \"c\", 'it''s', 'a\\tb\\u0041', r'\\n', \"d\"\"q\", '\\101'",
          "Query: Project['ab', 'c', 'its', 'a\tbA', '\\n', 'dq', 'A'](OneRow)");
    check("SELECT DATE '2020-01-01', TIMESTAMP_NTZ '2020-01-01 10:00:00', X'0A0b', true, "
          "false, NULL",
          "Query: Project[18262:date, 1577872800000000:timestamp_ntz, 0x0A0B:binary, true, "
          "false, NULL](OneRow)");
    /* a local TIMESTAMP is its local date-time cast in the session time zone; one with an
     * offset is a value */
    check("SELECT TIMESTAMP '2020-01-01 10:00:00', TIMESTAMP '2020-01-01T10:00:00Z', TIMESTAMP "
          "'2020-01-01 10:00:00.123456+02:00'",
          "Query: Project[cast(1577872800000000:timestamp_ntz AS timestamp), "
          "1577872800000000:timestamp, "
          "1577865600123456:timestamp](OneRow)");
    check("SELECT INTERVAL '1' DAY, INTERVAL 1 DAY 2 HOURS, INTERVAL '1-2' YEAR TO MONTH, "
          "INTERVAL '1 02:03:04' DAY TO SECOND, INTERVAL 1 DAY 2 DAYS",
          "Query: Project[86400000000:interval day, 93600000000:interval day to hour, "
          "14:interval year to month, 93784000000:interval day to second, "
          "259200000000:interval day](OneRow)");
    check("SELECT INTERVAL '10' YEAR, INTERVAL '10' MONTH, INTERVAL 3 HOURS 2 MINUTES, INTERVAL "
          "'-1 10:00:00' DAY TO SECOND, INTERVAL -2 HOURS, INTERVAL '3 days'",
          "Query: Project[120:interval year, 10:interval month, 10920000000:interval hour to "
          "minute, -122400000000:interval day to second, -7200000000:interval hour, "
          "259200000000:interval day](OneRow)");
}

static void test_statements(void **state)
{
    (void)state;
    check("CREATE TABLE t (a INT, b STRING NOT NULL COMMENT 'x') USING parquet OPTIONS "
          "('compression' 'zstd', header = true) PARTITIONED BY (b) LOCATION '/x'",
          "CreateTable t struct<a:int,b:string> using=parquet compression=zstd header=true "
          "part:b location=/x");
    check("CREATE TABLE IF NOT EXISTS t2 USING csv AS SELECT * FROM t",
          "CreateTable if_not_exists t2 using=csv: Project[*](Relation[t])");
    check("CREATE OR REPLACE TEMPORARY VIEW v (a, b) AS SELECT 1, 2",
          "CreateView or_replace temporary v (a, b): Project[1, 2](OneRow)");
    check("CREATE GLOBAL TEMP VIEW v AS SELECT 1",
          "CreateView temporary global v: Project[1](OneRow)");
    check("DROP TABLE IF EXISTS db.t; DROP VIEW v", "Drop TABLE if_exists db.t; Drop VIEW v");
    check("INSERT INTO t SELECT 1; INSERT INTO TABLE t VALUES (1)",
          "Insert t: Project[1](OneRow); Insert t: Values[1x1: 1]");
    check("INSERT OVERWRITE TABLE t PARTITION (p = 1, q) (a, b) SELECT 1, 2",
          "Insert overwrite t (a, b) part:p=1 part:q: Project[1, 2](OneRow)");
    check("INSERT OVERWRITE DIRECTORY '/out' USING parquet SELECT 1",
          "Insert DIRECTORY overwrite using=parquet location=/out: Project[1](OneRow)");
    check("SET spark.sql.shuffle.partitions = 4; SET; SET -v; RESET; RESET a.b",
          "Set SET key=spark.sql.shuffle.partitions value=4; Set SET; Set SET key=-v; Set RESET; "
          "Set RESET key=a.b");
    check("SHOW TABLES; SHOW TABLES IN db LIKE 'a*'; SHOW DATABASES; SHOW COLUMNS FROM t IN db",
          "Show TABLES; Show TABLES db value=a*; Show DATABASES; Show COLUMNS db.t");
    check("DESCRIBE t; DESC EXTENDED db.t; DESCRIBE QUERY SELECT 1",
          "Show DESCRIBE t; Show DESCRIBE EXTENDED db.t; Show DESCRIBE QUERY: Project[1](OneRow)");
    check("CACHE TABLE t; CACHE LAZY TABLE c AS SELECT 1; UNCACHE TABLE IF EXISTS t; CLEAR CACHE",
          "Cache CACHE t; Cache CACHE LAZY c: Project[1](OneRow); Cache UNCACHE if_exists t; "
          "Cache CLEAR");
    check("USE db; USE DATABASE db2", "Use db; Use db2");
    check("EXPLAIN SELECT 1; EXPLAIN EXTENDED SELECT a FROM t; explain formatted select 1",
          "Explain SIMPLE: Query: Project[1](OneRow); Explain EXTENDED: Query: "
          "Project['a](Relation[t]); Explain FORMATTED: Query: Project[1](OneRow)");
    check("SELECT 1; SELECT 2;; SELECT 3;",
          "Query: Project[1](OneRow); Query: Project[2](OneRow); Query: Project[3](OneRow)");
    check("SELECT ';' AS x; SELECT /* ; */ 2",
          "Query: Project[';' AS x](OneRow); Query: Project[2](OneRow)");
}

static void test_keywords_case_and_identifiers(void **state)
{
    (void)state;
    check("select A from T Where b = 1 Group By a Order by A desc",
          "Query: Sort['A DESC](Aggregate['a; 'A](Filter[('b = 1)](Relation[T])))");
    check("SELECT 1 AS from, 2 AS order, 3 AS limit, 4 AS select",
          "Query: Project[1 AS from, 2 AS order, 3 AS limit, 4 AS select](OneRow)");
    check("SELECT user, year, data, date, first, last, range FROM t",
          "Query: Project['user, 'year, 'data, 'date, 'first, 'last, 'range](Relation[t])");
    check("SELECT `weird col`, `a``b`, `select` FROM `db`.`t`",
          "Query: Project['weird col, 'a`b, 'select](Relation[db.t])");
    check("SELECT from.a FROM t AS from", "Query: Project['from.a](Alias[from](Relation[t]))");
    /* Spark takes a clause word ending the statement as an alias */
    check("SELECT * FROM t WHERE", "Query: Project[*](Alias[WHERE](Relation[t]))");
    check("SELECT * FROM", "Query: Project[* AS FROM](OneRow)");
    check("SELECT /* nested /* comment */ still */ 1 -- and a line comment",
          "Query: Project[1](OneRow)");
}

static void test_data_types(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"decimal(10,2)", "decimal(10,2)"},
        {"DECIMAL", "decimal(10,0)"},
        {"array<struct<a:int>>", "array<struct<a:int>>"},
        {"map<string, array<bigint>>", "map<string,array<bigint>>"},
        {"struct<a: int NOT NULL COMMENT 'x', b string>", "struct<a:int,b:string>"},
        {"interval day to second", "interval day to second"},
        {"INTERVAL YEAR TO MONTH", "interval year to month"},
        {"varchar(10)", "string"},
        {"timestamp_ntz", "timestamp_ntz"},
        {"byte", "tinyint"},
        {"long", "bigint"},
        {"array<array<array<int>>>", "array<array<array<int>>>"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cs_sql_arena *a = cs_sql_arena_new();
        cs_col_type *t;
        cs_error err = {0};
        if (cs_sql_parse_data_type(a, cases[k][0], &t, &err)) {
            fprintf(stderr, "%s: %s\n", cases[k][0], err.msg);
            fail();
        }
        cs_sbuf o = CS_SBUF_INIT;
        cs_col_type_simple_string(t, &o);
        assert_string_equal(o.data, cases[k][1]);
        cs_sbuf_free(&o);
        cs_sql_arena_free(a);
    }
    cs_sql_arena *a = cs_sql_arena_new();
    cs_col_type *t;
    cs_error err = {0};
    assert_int_equal(cs_sql_parse_data_type(a, "foo", &t, &err), CS_EINVAL);
    assert_string_equal(err.msg,
                        "[UNSUPPORTED_DATATYPE] Unsupported data type \"FOO\". SQLSTATE: 0A000");
    assert_int_equal(cs_sql_parse_data_type(a, "decimal(40,2)", &t, &err), CS_EINVAL);
    assert_true(cs_sql_error_is(&err, "DECIMAL_PRECISION_EXCEEDS_MAX_PRECISION"));
    assert_int_equal(cs_sql_parse_data_type(a, "array<int", &t, &err), CS_EINVAL);
    assert_true(cs_sql_error_is(&err, "PARSE_SYNTAX_ERROR"));
    cs_sql_arena_free(a);
}

/* A syntax error's message parameters, as Spark's ParseException has them (the client shows
 * them through getMessageParameters()). */
static void test_syntax_error_parameters(void **state)
{
    (void)state;
    const char *cases[][2] = {{"SELEC 1", "{\"error\":\"'SELEC'\",\"hint\":\"\"}"},
                              {"SELECT 1 +", "{\"error\":\"end of input\",\"hint\":\"\"}"}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        cs_sql_arena *a = cs_sql_arena_new();
        cs_sql_statement *st = NULL;
        cs_error err;
        cs_error_clear(&err);
        assert_int_equal(cs_sql_parse_statement(a, cases[k][0], &st, NULL, &err), CS_EINVAL);
        assert_string_equal(err.params, cases[k][1]);
        cs_sql_arena_free(a);
    }
}

/* The texts and positions Spark 4.0.1's parser gives for the same statements. */
static void test_errors_are_sparks(void **state)
{
    (void)state;
    check_error("SELECT 1 +", "PARSE_SYNTAX_ERROR",
                "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input. SQLSTATE: 42601", 1,
                10);
    check_error("SELEC 1", "PARSE_SYNTAX_ERROR",
                "[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELEC'. SQLSTATE: 42601", 1, 0);
    check_error("SELECT 1 FROM t t2 t3", "PARSE_SYNTAX_ERROR",
                "[PARSE_SYNTAX_ERROR] Syntax error at or near 't3': extra input 't3'. SQLSTATE: "
                "42601",
                1, 19);
    check_error("SELECT )", "PARSE_SYNTAX_ERROR",
                "[PARSE_SYNTAX_ERROR] Syntax error at or near ')'. SQLSTATE: 42601", 1, 7);
    check_error("SELECT 'abc", "PARSE_SYNTAX_ERROR",
                "[PARSE_SYNTAX_ERROR] Syntax error at or near '''. SQLSTATE: 42601", 1, 7);
    check_error("SELECT 1 FROM t t2 JOIN", "PARSE_SYNTAX_ERROR",
                "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input. SQLSTATE: 42601", 1,
                23);
    check_error(
        "SELECT 1 FROM t WHERE a = 1)", "PARSE_SYNTAX_ERROR",
        "[PARSE_SYNTAX_ERROR] Syntax error at or near ')': extra input ')'. SQLSTATE: 42601", 1,
        27);
    check_error("SELECT DATE 'xx'", "INVALID_TYPED_LITERAL",
                "[INVALID_TYPED_LITERAL] The value of the typed literal \"DATE\" is invalid: 'xx'. "
                "SQLSTATE: 42604",
                1, 7);
    check_error("SELECT TIMESTAMP '2020-13-45 99'", "INVALID_TYPED_LITERAL",
                "[INVALID_TYPED_LITERAL] The value of the typed literal \"TIMESTAMP\" is invalid: "
                "'2020-13-45 99'. SQLSTATE: 42604",
                1, 7);
    check_error("SELECT INTERVAL '1' FOO", "INVALID_TYPED_LITERAL",
                "[INVALID_TYPED_LITERAL] The value of the typed literal \"INTERVAL\" is invalid: "
                "'1'. SQLSTATE: 42604",
                1, 7);
    check_error("SELECT X'1G'", "INVALID_TYPED_LITERAL",
                "[INVALID_TYPED_LITERAL] The value of the typed literal \"X\" is invalid: '1G'. "
                "SQLSTATE: 42604",
                1, 7);
    check_error("SELECT 128Y", "INVALID_NUMERIC_LITERAL_RANGE",
                "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 128 is outside the valid range "
                "for tinyint with minimum value of -128 and maximum value of 127. Please adjust "
                "the value accordingly. SQLSTATE: 22003",
                1, 7);
    check_error("SELECT 99999999999999999999999999999999999999999L",
                "INVALID_NUMERIC_LITERAL_RANGE",
                "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal "
                "99999999999999999999999999999999999999999 is outside the valid range for bigint "
                "with minimum value of -9223372036854775808 and maximum value of "
                "9223372036854775807. Please adjust the value accordingly. SQLSTATE: 22003",
                1, 7);
    check_error("SELECT 1e400", "INVALID_NUMERIC_LITERAL_RANGE",
                "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 1e400 is outside the valid range "
                "for double with minimum value of -1.7976931348623157E+308 and maximum value of "
                "1.7976931348623157E+308. Please adjust the value accordingly. SQLSTATE: 22003",
                1, 7);
    /* a leftover token inside the statement is no "extra input" for Spark; a negative
     * literal's error points at its minus sign */
    check_error("SELECT a b c FROM t", "PARSE_SYNTAX_ERROR",
                "[PARSE_SYNTAX_ERROR] Syntax error at or near 'c'. SQLSTATE: 42601", 1, 11);
    check_error("SELECT -128Y, -129Y", "INVALID_NUMERIC_LITERAL_RANGE",
                "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal -129 is outside the valid range "
                "for tinyint with minimum value of -128 and maximum value of 127. Please adjust "
                "the value accordingly. SQLSTATE: 22003",
                1, 14);
    check_error("SELECT a FROM t WHERE a IN ()", "PARSE_SYNTAX_ERROR",
                "[PARSE_SYNTAX_ERROR] Syntax error at or near 'IN'. SQLSTATE: 42601", 1, 24);
    check_error("SELECT 3.4e39F", "INVALID_NUMERIC_LITERAL_RANGE",
                "[INVALID_NUMERIC_LITERAL_RANGE] Numeric literal 3.4e39 is outside the valid range "
                "for float with minimum value of -3.4028234663852886E+38 and maximum value of "
                "3.4028234663852886E+38. Please adjust the value accordingly. SQLSTATE: 22003",
                1, 7);
    /* positions on later lines */
    check_error("SELECT a,\n  b\nFROM t\nWHERE (a = 1", "PARSE_SYNTAX_ERROR",
                "[PARSE_SYNTAX_ERROR] Syntax error at or near end of input. SQLSTATE: 42601", 4,
                12);
    check_error(
        "SELECT 1;\nSELECT * FROM t GROUP a", "PARSE_SYNTAX_ERROR",
        "[PARSE_SYNTAX_ERROR] Syntax error at or near 'a': extra input 'a'. SQLSTATE: 42601", 2,
        22);
    check_error("SELECT /* unclosed", "UNCLOSED_BRACKETED_COMMENT",
                "[UNCLOSED_BRACKETED_COMMENT] Found an unclosed bracketed comment. Please, append "
                "*/ at the end of the comment. SQLSTATE: 42601",
                1, 7);
}

static void test_tpch_queries_parse(void **state)
{
    (void)state;
    for (int q = 0; q < 22; q++) {
        char buf[16384];
        const char *got = parse_to_text(tpch_queries[q], buf, sizeof buf);
        if (strncmp(got, "Query: ", 7) != 0) {
            fprintf(stderr, "Q%d: %s\n", q + 1, got);
            fail();
        }
    }
    char buf[16384];
    /* Q1's shape: Sort over Aggregate over Filter, the date arithmetic as Spark's */
    parse_to_text(tpch_queries[0], buf, sizeof buf);
    assert_non_null(
        strstr(buf, "Query: Sort['l_returnflag ASC, 'l_linestatus ASC](Aggregate['l_returnflag, "
                    "'l_linestatus; 'l_returnflag"));
    assert_non_null(strstr(
        buf,
        "Filter[('l_shipdate <= (10561:date - 7776000000000:interval day))](Relation[lineitem])"));
    /* Q13: a left outer join with a NOT LIKE in its condition */
    parse_to_text(tpch_queries[12], buf, sizeof buf);
    assert_non_null(strstr(buf,
                           "Join[LeftOuter, and(('c_custkey = 'o_custkey), NOT like('o_comment, "
                           "'%special%requests%'))](Relation[customer], Relation[orders])"));
    /* Q21: EXISTS and NOT EXISTS over aliased relations */
    parse_to_text(tpch_queries[20], buf, sizeof buf);
    assert_non_null(strstr(buf, "NOT EXISTS {Project[*](Filter["));
    assert_non_null(strstr(buf, "Alias[l3](Relation[lineitem])"));
    /* Q15: the view as a CTE with a scalar subquery over it */
    parse_to_text(tpch_queries[14], buf, sizeof buf);
    assert_non_null(strstr(buf, "Query: With[Alias[revenue0](Aggregate['l_suppkey;"));
    assert_non_null(strstr(buf, "{Project[max('total_revenue)](Relation[revenue0])}"));
}

/* Deep nesting is an error, not a stack overflow; long flat lists are linear. */
static void test_deep_and_long_inputs(void **state)
{
    (void)state;
    size_t n = 200000;
    char *s = malloc(n * 2 + 32);
    strcpy(s, "SELECT ");
    size_t at = 7;
    for (size_t k = 0; k < n; k++)
        s[at++] = '(';
    s[at++] = '1';
    for (size_t k = 0; k < n; k++)
        s[at++] = ')';
    s[at] = '\0';
    cs_sql_arena *a = cs_sql_arena_new();
    cs_sql_statement **st;
    int cnt;
    cs_error err = {0};
    assert_int_equal(cs_sql_parse(a, s, &st, &cnt, &err), CS_EINVAL);
    assert_true(cs_sql_error_is(&err, "PARSE_SYNTAX_ERROR"));
    cs_sql_arena_free(a);
    /* SELECT 1 + 1 + ... (100000 terms) and IN (...) with 100000 items */
    strcpy(s, "SELECT 1");
    at = 8;
    for (size_t k = 0; k < 100000; k++) {
        memcpy(s + at, "+1", 2);
        at += 2;
    }
    s[at] = '\0';
    a = cs_sql_arena_new();
    assert_int_equal(cs_sql_parse(a, s, &st, &cnt, &err), CS_OK);
    cs_sql_arena_free(a);
    /* a.x.x.x... of 100000 names: one UNRESOLVED_ATTR, its parts gathered in one pass */
    strcpy(s, "SELECT a");
    at = 8;
    for (size_t k = 0; k < 100000; k++) {
        memcpy(s + at, ".x", 2);
        at += 2;
    }
    s[at] = '\0';
    a = cs_sql_arena_new();
    assert_int_equal(cs_sql_parse(a, s, &st, &cnt, &err), CS_OK);
    assert_int_equal(st[0]->plan->exprs[0]->n_parts, 100001);
    cs_sql_arena_free(a);
    free(s);
}

/* Random mutations of the corpus (deterministic seed): every input parses or fails with an
 * error class — no crash, no error without a class. */
static void test_mutated_inputs_never_crash(void **state)
{
    (void)state;
    static const char *const pieces[] = {
        "(",    ")",   "'",        "`",    "/*",     "*/",
        "/*+",  "--",  ",",        ";",    "SELECT", "FROM",
        "JOIN", "ON",  "INTERVAL", "DATE", "1e9999", "99999999999999999999999999999999999999999",
        "::",   "->",  "[",        "]",    ".",      "*",
        "CASE", "END", "OVER",     "NOT",  "IN",     "<",
        ">>",   "\\",  "X'",       "\n"};
    unsigned seed = 12345;
    char buf[8192];
    for (int round = 0; round < 3000; round++) {
        const char *base = tpch_queries[round % 22];
        size_t len = strlen(base);
        if (len > 4000) len = 4000;
        memcpy(buf, base, len);
        buf[len] = '\0';
        int edits = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 6;
        for (int e = 0; e < edits; e++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % (len + 1);
            seed = seed * 1103515245u + 12345u;
            int what = (int)((seed >> 16) % 3);
            if (what == 0 && len > 0) { /* cut */
                size_t cut = 1 + (seed >> 4) % 20;
                if (at + cut > len) cut = len - at;
                memmove(buf + at, buf + at + cut, len - at - cut + 1);
                len -= cut;
            } else {
                const char *p = pieces[(seed >> 5) % (sizeof pieces / sizeof pieces[0])];
                size_t pl = strlen(p);
                if (len + pl >= sizeof buf - 1) continue;
                memmove(buf + at + pl, buf + at, len - at + 1);
                memcpy(buf + at, p, pl);
                len += pl;
            }
        }
        cs_sql_arena *a = cs_sql_arena_new();
        cs_sql_statement **st;
        int n;
        cs_error err = {0};
        int rc = cs_sql_parse(a, buf, &st, &n, &err);
        if (rc != CS_OK) {
            assert_int_equal(rc, CS_EINVAL);
            assert_true(err.error_class[0] != '\0');
        }
        cs_sql_arena_free(a);
    }
}

static void test_single_statement_and_expression(void **state)
{
    (void)state;
    cs_sql_arena *a = cs_sql_arena_new();
    cs_sql_statement *s;
    cs_error err = {0};
    cs_sql_origin w;
    assert_int_equal(cs_sql_parse_statement(a, "SELECT 1;", &s, &w, &err), CS_OK);
    assert_int_equal(s->kind, CS_STMT_QUERY);
    assert_int_equal(cs_sql_parse_statement(a, "SELECT 1; SELECT 2", &s, &w, &err), CS_EINVAL);
    assert_string_equal(err.msg, "[PARSE_SYNTAX_ERROR] Syntax error at or near 'SELECT': extra "
                                 "input 'SELECT'. SQLSTATE: 42601");
    assert_int_equal(w.pos, 10);
    cs_sql_expr *e;
    assert_int_equal(cs_sql_parse_expression(a, "a + 1 > b", &e, &w, &err), CS_OK);
    cs_sbuf o = CS_SBUF_INIT;
    pp_expr(e, &o);
    assert_string_equal(o.data, "(('a + 1) > 'b)");
    cs_sbuf_free(&o);
    assert_int_equal(e->line, 1);
    assert_int_equal(e->pos, 0);
    assert_int_equal(e->args[1]->pos, 8);
    cs_sql_arena_free(a);
}

/* spark.sql(text, args): `?` and `:name` stand for the given expressions */
static void test_parameter_markers_bound(void **state)
{
    (void)state;
    cs_sql_arena *a = cs_sql_arena_new();
    cs_sql_statement *s, *want;
    cs_error err = {0};
    cs_sql_expr *one, *x;
    assert_int_equal(cs_sql_parse_expression(a, "1", &one, NULL, &err), CS_OK);
    assert_int_equal(cs_sql_parse_expression(a, "'x'", &x, NULL, &err), CS_OK);
    cs_sql_expr *pos[2] = {one, x};
    cs_sql_params params = {.n_pos = 2, .pos = pos};
    assert_int_equal(cs_sql_parse_statement_params(a, "SELECT a FROM t WHERE a > ? AND s = ?",
                                                   &params, &s, NULL, &err),
                     CS_OK);
    assert_int_equal(
        cs_sql_parse_statement(a, "SELECT a FROM t WHERE a > 1 AND s = 'x'", &want, NULL, &err),
        CS_OK);
    cs_sbuf g = CS_SBUF_INIT, w = CS_SBUF_INIT;
    pp_statement(s, &g);
    pp_statement(want, &w);
    assert_string_equal(g.data, w.data);
    cs_sbuf_free(&g);
    cs_sbuf_free(&w);
    const char *names[1] = {"lo"};
    cs_sql_params named = {.n_named = 1, .names = names, .named = pos};
    assert_int_equal(cs_sql_parse_statement_params(a, "SELECT :lo + :lo", &named, &s, NULL, &err),
                     CS_OK);
    assert_int_equal(cs_sql_parse_statement_params(a, "SELECT :hi", &named, &s, NULL, &err),
                     CS_EINVAL);
    assert_string_equal(err.error_class, "UNBOUND_SQL_PARAMETER");
    assert_int_equal(cs_sql_parse_statement_params(a, "SELECT ?, ?, ?", &params, &s, NULL, &err),
                     CS_EINVAL);
    assert_non_null(strstr(err.msg, "unbound parameter: _13."));
    assert_int_equal(cs_sql_parse_statement_params(a, "SELECT ?, :lo", &params, &s, NULL, &err),
                     CS_EINVAL);
    assert_string_equal(err.error_class, "INVALID_QUERY_MIXED_QUERY_PARAMETERS");
    /* without values a marker is still a syntax error */
    assert_int_equal(cs_sql_parse_statement(a, "SELECT ?", &s, NULL, &err), CS_EINVAL);
    assert_string_equal(err.error_class, "PARSE_SYNTAX_ERROR");
    /* parseExpression reads a named expression, as Spark's singleExpression */
    cs_sql_expr *e;
    assert_int_equal(cs_sql_parse_expression(a, "a * 2 AS twice", &e, NULL, &err), CS_OK);
    assert_int_equal(e->kind, CS_EX_ALIAS);
    assert_string_equal(e->name, "twice");
    cs_sql_arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_select_clauses),
        cmocka_unit_test(test_relations_and_joins),
        cmocka_unit_test(test_set_operations_precedence),
        cmocka_unit_test(test_expression_precedence),
        cmocka_unit_test(test_expression_forms),
        cmocka_unit_test(test_literals_typed_as_spark),
        cmocka_unit_test(test_statements),
        cmocka_unit_test(test_keywords_case_and_identifiers),
        cmocka_unit_test(test_data_types),
        cmocka_unit_test(test_errors_are_sparks),
        cmocka_unit_test(test_syntax_error_parameters),
        cmocka_unit_test(test_tpch_queries_parse),
        cmocka_unit_test(test_deep_and_long_inputs),
        cmocka_unit_test(test_mutated_inputs_never_crash),
        cmocka_unit_test(test_single_statement_and_expression),
        cmocka_unit_test(test_parameter_markers_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
