/*
 * test_partitioning.c — src/datasource/partitioning.c against Spark's PartitioningUtils: the
 * type inferred for each kind of folder value and the type two folders' values widen to, nulls
 * (__HIVE_DEFAULT_PARTITION__), escaped names and values both ways, inference switched off,
 * _temporary folders ignored, and Spark's errors for conflicting column names and conflicting
 * directory structures.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "datasource/partitioning.h"
#include "datasource/ds_task.h"

static const char *base[] = {"/t"};

/* Infers dirs[0..n) under /t; the spec is the caller's. */
static int infer(const char *const *dirs, int n, bool inference, cs_ds_partition_spec *s, int *rows,
                 cs_error *err)
{
    cs_error_clear(err);
    return cs_ds_infer_partitions(base, 1, dirs, n, inference, s, rows, err);
}

static void assert_type(const cs_ds_partition_spec *s, int col, const char *name, const char *type)
{
    assert_string_equal(s->schema->fields[col].name, name);
    cs_sbuf t = CS_SBUF_INIT;
    cs_col_type_simple_string(s->schema->fields[col].type, &t);
    assert_string_equal(cs_sbuf_str(&t), type);
    cs_sbuf_free(&t);
}

/* The text of (row, col) as a folder shows it, "null" for a null. */
static void assert_value(const cs_ds_partition_spec *s, int row, int col, const char *want)
{
    cs_sbuf t = CS_SBUF_INIT;
    bool valid = cs_ds_value_text(s->values->columns[col], row, &t);
    assert_string_equal(valid ? cs_sbuf_str(&t) : "null", want);
    cs_sbuf_free(&t);
}

/* The type inferred when one folder a=<raw> is alone, and its value. */
static void one(const char *raw, const char *type, const char *value)
{
    char dir[256];
    snprintf(dir, sizeof dir, "/t/a=%s", raw);
    const char *dirs[] = {dir};
    cs_ds_partition_spec s;
    int rows[1];
    cs_error err;
    assert_int_equal(infer(dirs, 1, true, &s, rows, &err), 0);
    assert_int_equal(rows[0], 0);
    assert_type(&s, 0, "a", type);
    assert_value(&s, 0, 0, value);
    cs_ds_partition_spec_free(&s);
}

static void test_value_types(void **state)
{
    (void)state;
    one("1", "int", "1");
    one("-2147483648", "int", "-2147483648");
    one("2147483648", "bigint", "2147483648");
    one("123456789012345678901", "decimal(21,0)", "123456789012345678901");
    one("1.5", "double", "1.5");
    one("2024-01-31", "date", "2024-01-31");
    one("2024-01-31 12%3A30%3A00", "timestamp", "2024-01-31 12:30:00");
    one("2024-01-31 12%3A30%3A00.25", "timestamp", "2024-01-31 12:30:00.25");
    one("abc", "string", "abc");
    one("x%2Fy%3Dz", "string", "x/y=z");                 /* unescaped */
    one("__HIVE_DEFAULT_PARTITION__", "string", "null"); /* a lone null column is a string */
    one("2024-1-31", "string", "2024-1-31");             /* not yyyy-MM-dd */
}

/* The type two folders a=x, a=y widen to, and their values in order. */
static void two(const char *x, const char *y, const char *type, const char *vx, const char *vy)
{
    char d1[256], d2[256];
    snprintf(d1, sizeof d1, "/t/a=%s", x);
    snprintf(d2, sizeof d2, "/t/a=%s", y);
    const char *dirs[] = {d1, d2};
    cs_ds_partition_spec s;
    int rows[2];
    cs_error err;
    assert_int_equal(infer(dirs, 2, true, &s, rows, &err), 0);
    assert_int_equal(s.n_dirs, 2);
    assert_type(&s, 0, "a", type);
    assert_value(&s, rows[0], 0, vx);
    assert_value(&s, rows[1], 0, vy);
    cs_ds_partition_spec_free(&s);
}

static void test_widening(void **state)
{
    (void)state;
    two("1", "2147483648", "bigint", "1", "2147483648");
    two("1", "2.5", "double", "1.0", "2.5");
    two("1", "123456789012345678901", "decimal(21,0)", "1", "123456789012345678901");
    two("2147483648", "2.5", "string", "2147483648", "2.5"); /* long and double */
    two("1", "x", "string", "1", "x");
    two("01", "x", "string", "1", "x"); /* Spark casts the int, not the folder's text */
    two("1", "__HIVE_DEFAULT_PARTITION__", "int", "1", "null");
    two("2024-01-31", "2024-02-01 10%3A00%3A00", "timestamp", "2024-01-31 00:00:00",
        "2024-02-01 10:00:00");
    two("2024-01-31", "7", "string", "2024-01-31", "7");
}

static void test_columns_and_rows(void **state)
{
    (void)state;
    const char *dirs[] = {"/t/year=2024/month=1", "/t/year=2024/month=12", "/t/year=2024/month=1",
                          "/t/year=2025/month=2"};
    cs_ds_partition_spec s;
    int rows[4];
    cs_error err;
    assert_int_equal(infer(dirs, 4, true, &s, rows, &err), 0);
    assert_int_equal(s.schema->n_fields, 2);
    assert_type(&s, 0, "year", "int");
    assert_type(&s, 1, "month", "int");
    assert_int_equal(s.n_dirs, 3); /* one row per folder */
    assert_int_equal(rows[0], rows[2]);
    assert_value(&s, rows[1], 1, "12");
    assert_value(&s, rows[3], 0, "2025");
    cs_ds_partition_spec_free(&s);

    /* escaped column name; files directly under the base have no partition */
    const char *esc[] = {"/t/a%3Db=1", "/t"};
    assert_int_equal(infer(esc, 2, true, &s, rows, &err), 0);
    assert_type(&s, 0, "a=b", "int");
    assert_int_equal(rows[1], -1);
    cs_ds_partition_spec_free(&s);

    /* a non-partition folder below partition folders ends the walk, as Spark's */
    const char *tmp[] = {"/t/a=1/_temporary/0", "/t/a=2"};
    assert_int_equal(infer(tmp, 2, true, &s, rows, &err), 0);
    assert_int_equal(rows[0], -1);
    assert_int_equal(s.n_dirs, 1);
    cs_ds_partition_spec_free(&s);
}

static void test_inference_off(void **state)
{
    (void)state;
    const char *dirs[] = {"/t/a=1/b=2024-01-31", "/t/a=__HIVE_DEFAULT_PARTITION__/b=x"};
    cs_ds_partition_spec s;
    int rows[2];
    cs_error err;
    assert_int_equal(infer(dirs, 2, false, &s, rows, &err), 0);
    assert_type(&s, 0, "a", "string");
    assert_type(&s, 1, "b", "string");
    assert_value(&s, rows[0], 0, "1");
    assert_value(&s, rows[1], 0, "null");
    cs_ds_partition_spec_free(&s);
}

static void test_conflicts(void **state)
{
    (void)state;
    cs_ds_partition_spec s;
    int rows[2];
    cs_error err;
    const char *names[] = {"/t/a=1", "/t/b=1"};
    assert_int_not_equal(infer(names, 2, true, &s, rows, &err), 0);
    assert_non_null(strstr(err.msg, "[CONFLICTING_PARTITION_COLUMN_NAMES]"));
    assert_non_null(strstr(err.msg, "/t/b=1"));
    const char *bases[] = {"/t/a=1", "/t/x/a=2"};
    assert_int_not_equal(infer(bases, 2, true, &s, rows, &err), 0);
    assert_non_null(strstr(err.msg, "Conflicting directory structures detected"));
    const char *empty[] = {"/t/a="};
    assert_int_not_equal(infer(empty, 1, true, &s, rows, &err), 0);
    assert_non_null(strstr(err.msg, "Empty partition column value in 'a='"));
}

static void test_escaping(void **state)
{
    (void)state;
    cs_sbuf b = CS_SBUF_INIT;
    cs_ds_partition_path_part("a/b", "x:y=z %", 7, &b);
    assert_string_equal(cs_sbuf_str(&b), "a%2Fb=x%3Ay%3Dz %25");
    b.len = 0;
    cs_ds_partition_path_part("d", NULL, 0, &b);
    assert_string_equal(cs_sbuf_str(&b), "d=__HIVE_DEFAULT_PARTITION__");
    b.len = 0;
    cs_ds_partition_path_part("d", "", 0, &b); /* an empty string too, as Spark's */
    assert_string_equal(cs_sbuf_str(&b), "d=__HIVE_DEFAULT_PARTITION__");
    b.len = 0;
    cs_ds_unescape_path_name("x%2Fy%zz%4", 10, &b);
    assert_string_equal(cs_sbuf_str(&b), "x/y%zz%4");
    cs_sbuf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_types),      cmocka_unit_test(test_widening),
        cmocka_unit_test(test_columns_and_rows), cmocka_unit_test(test_inference_off),
        cmocka_unit_test(test_conflicts),        cmocka_unit_test(test_escaping),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
