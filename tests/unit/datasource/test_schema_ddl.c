/*
 * test_schema_ddl.c — src/datasource/schema_ddl.c: Spark's DDL type names and aliases,
 * backquoted names, decimals with and without precision, and one clear error for a bad schema.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "datasource/schema_ddl.h"

static void assert_ddl(const char *ddl, const char *want)
{
    cs_error err;
    cs_col_type *t = cs_ds_parse_ddl(ddl, &err);
    assert_non_null(t);
    cs_sbuf s = CS_SBUF_INIT;
    cs_col_type_simple_string(t, &s);
    assert_string_equal(cs_sbuf_str(&s), want);
    cs_sbuf_free(&s);
    cs_col_type_unref(t);
}

static void test_types(void **state)
{
    (void)state;
    assert_ddl("a INT, b STRING", "struct<a:int,b:string>");
    assert_ddl("a long,b byte, c short ,d boolean",
               "struct<a:bigint,b:tinyint,c:smallint,d:boolean>");
    assert_ddl("`x y` double, z: float", "struct<x y:double,z:float>");
    assert_ddl(
        "d DECIMAL(12, 3), e decimal, f date, g timestamp, h timestamp_ntz, i binary",
        "struct<d:decimal(12,3),e:decimal(10,0),f:date,g:timestamp,h:timestamp_ntz,i:binary>");
}

static void test_errors(void **state)
{
    (void)state;
    cs_error err;
    assert_null(cs_ds_parse_ddl("a INTEGR", &err));
    assert_non_null(
        strstr(err.msg, "schema 'a INTEGR': unknown or unsupported data type 'INTEGR'"));
    assert_null(cs_ds_parse_ddl("a int b int", &err));
    assert_non_null(strstr(err.msg, "expected ','"));
    assert_null(cs_ds_parse_ddl("", &err));
    assert_null(cs_ds_parse_ddl("a decimal(40,2)", &err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_types), cmocka_unit_test(test_errors)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
