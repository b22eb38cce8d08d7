/*
 * test_catalog_commands.c — the SQL commands over the session catalog's databases and functions
 * (session/catalog_commands.c), run through cs_sql_session_execute in a fresh directory (the
 * warehouse, spark-warehouse, is made there): CREATE/DROP DATABASE with Spark's errors
 * (SCHEMA_ALREADY_EXISTS, SCHEMA_NOT_EMPTY, SCHEMA_NOT_FOUND, UNSUPPORTED_FEATURE.DROP_DATABASE)
 * and their folders, USE and the current database that one-part names resolve in, managed
 * tables under <warehouse>/<db>.db/<t>, SHOW DATABASES / TABLES / FUNCTIONS, DESCRIBE DATABASE /
 * FUNCTION, and persistent functions (recorded with their class; calling one, or registering a
 * temporary one, is CANNOT_LOAD_FUNCTION_CLASS).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/fsutil.h"
#include "session/sql_session.h"

static cs_sql_session *S;
static char DIR_[64];

static int setup(void **state)
{
    (void)state;
    snprintf(DIR_, sizeof DIR_, "/tmp/cs-catalog-cmd-XXXXXX");
    if (!mkdtemp(DIR_) || chdir(DIR_) != 0) return -1;
    cs_error err;
    cs_error_clear(&err);
    S = cs_sql_session_new(NULL, &err);
    return S ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cs_sql_session_free(S);
    if (chdir("/") != 0) return -1;
    cs_remove_tree(DIR_);
    return 0;
}

/* Runs sql: 0, or the error class in cls. The rows' first column joined by ',' in text. */
static int run(const char *sql, char *cls, char *text, size_t cap)
{
    cs_error err;
    cs_error_clear(&err);
    cs_sql_result r;
    int rc = cs_sql_session_execute(S, sql, &r, &err);
    if (cls) snprintf(cls, 128, "%s", rc ? err.error_class : "");
    if (text) text[0] = '\0';
    for (int bi = 0; rc == 0 && text && bi < r.n_batches; bi++) {
        const cs_col_batch *b = r.batches[bi];
        for (int64_t i = 0; i < b->num_rows; i++) {
            int32_t len;
            const uint8_t *p = cs_column_bytes(b->columns[0], i, &len);
            size_t at = strlen(text);
            snprintf(text + at, cap - at, "%s%.*s", at ? "," : "", (int)len, (const char *)p);
        }
    }
    cs_sql_result_free(&r);
    return rc;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void test_databases(void **state)
{
    (void)state;
    char cls[128], text[4096];
    assert_int_equal(
        run("CREATE DATABASE d1 COMMENT 'first' WITH DBPROPERTIES (b='2', a='1')", NULL, NULL, 0),
        0);
    assert_true(is_dir("spark-warehouse/d1.db"));
    assert_int_not_equal(run("CREATE SCHEMA d1", cls, NULL, 0), 0);
    assert_string_equal(cls, "SCHEMA_ALREADY_EXISTS");
    assert_int_equal(run("CREATE NAMESPACE IF NOT EXISTS d1", NULL, NULL, 0), 0);
    assert_int_equal(run("SHOW DATABASES", NULL, text, sizeof text), 0);
    assert_string_equal(text, "d1,default");
    assert_int_equal(run("SHOW DATABASES LIKE 'd?|x*'", NULL, text, sizeof text), 0);
    assert_string_equal(text, "d1");
    assert_int_equal(run("DESCRIBE DATABASE EXTENDED d1", NULL, text, sizeof text), 0);
    assert_string_equal(text, "Catalog Name,Namespace Name,Comment,Location,Owner,Properties");

    assert_int_not_equal(run("USE nope", cls, NULL, 0), 0);
    assert_string_equal(cls, "SCHEMA_NOT_FOUND");
    assert_int_equal(run("USE d1", NULL, NULL, 0), 0);
    /* a one-part name is a table of the current database, managed under its folder */
    assert_int_equal(run("CREATE TABLE t (a INT, b STRING) USING parquet", NULL, NULL, 0), 0);
    assert_true(is_dir("spark-warehouse/d1.db/t"));
    assert_int_equal(run("SHOW TABLES", NULL, text, sizeof text), 0);
    assert_string_equal(text, "d1");
    assert_int_equal(run("SHOW TABLES IN default", NULL, text, sizeof text), 0);
    assert_string_equal(text, "");
    assert_int_equal(run("DESCRIBE TABLE spark_catalog.d1.t", NULL, text, sizeof text), 0);
    assert_string_equal(text, "a,b");
    assert_int_equal(run("USE default", NULL, NULL, 0), 0);

    assert_int_not_equal(run("DROP DATABASE d1", cls, NULL, 0), 0);
    assert_string_equal(cls, "SCHEMA_NOT_EMPTY");
    assert_int_not_equal(run("DROP DATABASE default", cls, NULL, 0), 0);
    assert_string_equal(cls, "UNSUPPORTED_FEATURE.DROP_DATABASE");
    assert_int_equal(run("DROP DATABASE d1 CASCADE", NULL, NULL, 0), 0);
    assert_false(is_dir("spark-warehouse/d1.db"));
    assert_int_not_equal(run("DROP SCHEMA d1", cls, NULL, 0), 0);
    assert_string_equal(cls, "SCHEMA_NOT_FOUND");
    assert_int_equal(run("DROP DATABASE IF EXISTS d1 RESTRICT", NULL, NULL, 0), 0);
    assert_int_not_equal(run("SELECT * FROM d1.t", cls, NULL, 0), 0);
    assert_string_equal(cls, "TABLE_OR_VIEW_NOT_FOUND");
}

static void test_managed_table_of_default_dropped_with_its_folder(void **state)
{
    (void)state;
    assert_int_equal(run("CREATE TABLE m (x BIGINT) USING json", NULL, NULL, 0), 0);
    assert_true(is_dir("spark-warehouse/m"));
    assert_int_equal(run("DROP TABLE m", NULL, NULL, 0), 0);
    assert_false(is_dir("spark-warehouse/m"));
}

static void test_functions(void **state)
{
    (void)state;
    char cls[128], text[8192];
    assert_int_equal(
        run("CREATE FUNCTION f AS 'org.example.F' USING JAR '/nowhere/f.jar'", NULL, NULL, 0), 0);
    assert_int_not_equal(run("CREATE FUNCTION f AS 'org.example.F'", cls, NULL, 0), 0);
    assert_string_equal(cls, "ROUTINE_ALREADY_EXISTS");
    assert_int_equal(run("CREATE OR REPLACE FUNCTION f AS 'org.example.G'", NULL, NULL, 0), 0);
    assert_int_not_equal(run("CREATE TEMPORARY FUNCTION g AS 'org.example.G'", cls, NULL, 0), 0);
    assert_string_equal(cls, "CANNOT_LOAD_FUNCTION_CLASS");
    assert_int_not_equal(run("SELECT f(1)", cls, NULL, 0), 0);
    assert_string_equal(cls, "CANNOT_LOAD_FUNCTION_CLASS");
    assert_int_not_equal(run("SELECT default.f(1)", cls, NULL, 0), 0);
    assert_string_equal(cls, "CANNOT_LOAD_FUNCTION_CLASS");
    assert_int_not_equal(run("SELECT nodb.f(1)", cls, NULL, 0), 0);
    assert_string_equal(cls, "UNRESOLVED_ROUTINE");
    assert_int_equal(run("SHOW USER FUNCTIONS", NULL, text, sizeof text), 0);
    assert_string_equal(text, "spark_catalog.default.f");
    assert_int_equal(run("SHOW FUNCTIONS LIKE 'f|abs'", NULL, text, sizeof text), 0);
    assert_string_equal(text, "abs,spark_catalog.default.f");
    assert_int_equal(run("SHOW SYSTEM FUNCTIONS LIKE 'current_*'", NULL, text, sizeof text), 0);
    assert_non_null(strstr(text, "current_database"));
    assert_int_equal(run("DESCRIBE FUNCTION f", NULL, text, sizeof text), 0);
    assert_string_equal(text, "Function: spark_catalog.default.f,Class: org.example.G,Usage: N/A.");
    assert_int_equal(run("DESCRIBE FUNCTION `+`", NULL, text, sizeof text), 0);
    assert_string_equal(text, "Function: +,Class: org.apache.spark.sql.catalyst.expressions.Add,"
                              "Usage: expr1 + expr2 - Returns `expr1`+`expr2`.");
    assert_int_equal(run("DROP FUNCTION f", NULL, NULL, 0), 0);
    assert_int_not_equal(run("DROP FUNCTION f", cls, NULL, 0), 0);
    assert_string_equal(cls, "UNRESOLVED_ROUTINE");
    assert_int_equal(run("DROP FUNCTION IF EXISTS f", NULL, NULL, 0), 0);
    assert_int_not_equal(run("DROP TEMPORARY FUNCTION nope", cls, NULL, 0), 0);
    assert_string_equal(cls, "ROUTINE_NOT_FOUND");
    assert_int_equal(run("SHOW USER FUNCTIONS", NULL, text, sizeof text), 0);
    assert_string_equal(text, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_databases),
        cmocka_unit_test(test_managed_table_of_default_dropped_with_its_folder),
        cmocka_unit_test(test_functions),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
