/*
 * test_sql_result_text.c — src/session/sql_result_text.c: a result's rows in spark-sql's
 * tab-separated form (HiveResult: nested strings quoted, [1,null], {"k":v}), in the golden form
 * of tests/sql/README.md (strings quoted and escaped, binary as X'..', nested values as Spark's
 * CAST to string: [1, null], {a -> 1}, {1, x, null}) and in the table form; and a failed
 * statement's error line and golden block.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "columnar/col_builder.h"
#include "session/sql_result_text.h"
#include "sqlexec/sql_error.h"

static cs_col_type *prim(cs_type_id id)
{
    return cs_col_type_primitive(id);
}

static void put_ints(cs_col_builder *b, const int32_t *v, const uint8_t *valid, int64_t n)
{
    cs_col_builder_append_values(b, v, n, valid);
}

/* Two rows: i int (7, null), s string ("a\"b\tc", null), x binary (0AFF, empty), xs
 * array<int> ([1, null, 3], null), m map<string,int> ({a -> 1, b -> null}, {}), st
 * struct<x:int,y:string> ({1, x}, {null, null}). */
static cs_sql_result make_result(void)
{
    cs_col_field sf[2] = {{"x", prim(CS_TYPE_INT), true}, {"y", prim(CS_TYPE_STRING), true}};
    cs_col_field f[6] = {
        {"i", prim(CS_TYPE_INT), true},
        {"s", prim(CS_TYPE_STRING), true},
        {"x", prim(CS_TYPE_BINARY), true},
        {"xs", cs_col_type_array(prim(CS_TYPE_INT), true), true},
        {"m", cs_col_type_map(prim(CS_TYPE_STRING), prim(CS_TYPE_INT), true), true},
        {"st", cs_col_type_struct(sf, 2), true},
    };
    cs_col_type *schema = cs_col_type_struct(f, 6);
    cs_column *cols[6];
    uint8_t one_null[2] = {1, 0};

    cs_col_builder *b = cs_col_builder_new(NULL, schema->fields[0].type);
    int32_t iv[2] = {7, 0};
    put_ints(b, iv, one_null, 2);
    cols[0] = cs_col_builder_finish(b);
    cs_col_builder_free(b);

    b = cs_col_builder_new(NULL, schema->fields[1].type);
    cs_col_builder_append_string(b, "a\"b\tc", 5);
    cs_col_builder_append_nulls(b, 1);
    cols[1] = cs_col_builder_finish(b);
    cs_col_builder_free(b);

    b = cs_col_builder_new(NULL, schema->fields[2].type);
    cs_col_builder_append_string(b, "\x0a\xff", 2);
    cs_col_builder_append_string(b, "", 0);
    cols[2] = cs_col_builder_finish(b);
    cs_col_builder_free(b);

    b = cs_col_builder_new(NULL, schema->fields[3].type);
    int32_t lens[2] = {3, 0};
    cs_col_builder_append_lists(b, lens, 2, one_null);
    int32_t ev[3] = {1, 0, 3};
    uint8_t evalid[3] = {1, 0, 1};
    put_ints(cs_col_builder_child(b, 0), ev, evalid, 3);
    cols[3] = cs_col_builder_finish(b);
    cs_col_builder_free(b);

    b = cs_col_builder_new(NULL, schema->fields[4].type);
    int32_t mlens[2] = {2, 0};
    cs_col_builder_append_lists(b, mlens, 2, NULL);
    cs_col_builder_append_string(cs_col_builder_child(b, 0), "a", 1);
    cs_col_builder_append_string(cs_col_builder_child(b, 0), "b", 1);
    int32_t mv[2] = {1, 0};
    put_ints(cs_col_builder_child(b, 1), mv, one_null, 2);
    cols[4] = cs_col_builder_finish(b);
    cs_col_builder_free(b);

    b = cs_col_builder_new(NULL, schema->fields[5].type);
    cs_col_builder_append_structs(b, 2, NULL);
    int32_t xv[2] = {1, 0};
    put_ints(cs_col_builder_child(b, 0), xv, one_null, 2);
    cs_col_builder_append_string(cs_col_builder_child(b, 1), "x", 1);
    cs_col_builder_append_nulls(cs_col_builder_child(b, 1), 1);
    cols[5] = cs_col_builder_finish(b);
    cs_col_builder_free(b);

    cs_error err = {0};
    cs_sql_result r = {0};
    r.schema = cs_col_type_ref(schema);
    cs_col_batch *batch = cs_col_batch_new(schema, cols, 6, 2, &err);
    assert_non_null(batch);
    r.batches = calloc(1, sizeof *r.batches);
    r.batches[0] = batch;
    r.n_batches = 1;
    r.num_rows = 2;
    return r;
}

static void check_text(cs_sql_text_form form, bool header, const char *expected)
{
    cs_sql_result r = make_result();
    cs_sbuf out = CS_SBUF_INIT;
    cs_error err = {0};
    int rc = cs_sql_result_text(&r, form, header, "UTC", &out, &err);
    if (rc != 0) fail_msg("%s", err.msg);
    assert_string_equal(cs_sbuf_str(&out), expected);
    cs_sbuf_free(&out);
    cs_sql_result_free(&r);
}

static void test_hive_form(void **state)
{
    (void)state;
    check_text(CS_SQL_TEXT_HIVE, true,
               "i\ts\tx\txs\tm\tst\n"
               "7\ta\"b\tc\t\n\xff\t[1,null,3]\t{\"a\":1,\"b\":null}\t{\"x\":1,\"y\":\"x\"}\n"
               "NULL\tNULL\t\tNULL\t{}\t{\"x\":null,\"y\":null}\n");
}

static void test_golden_form(void **state)
{
    (void)state;
    check_text(CS_SQL_TEXT_GOLDEN, false,
               "-- schema\n"
               "struct<i:int,s:string,x:binary,xs:array<int>,m:map<string,int>,"
               "st:struct<x:int,y:string>>\n"
               "-- types int\tstring\tbinary\tarray<int>\tmap<string,int>\tstruct<x:int,y:string>\n"
               "-- rows 2 sorted\n"
               "7\t\"a\\\"b\\tc\"\tX'0AFF'\t[1, null, 3]\t{a -> 1, b -> null}\t{1, x}\n"
               "NULL\tNULL\tX''\tNULL\t{}\t{null, null}\n");
}

static void test_table_form(void **state)
{
    (void)state;
    cs_col_field f[1] = {{"name", prim(CS_TYPE_STRING), true}};
    cs_col_type *schema = cs_col_type_struct(f, 1);
    cs_col_builder *b = cs_col_builder_new(NULL, schema->fields[0].type);
    cs_col_builder_append_string(b, "h\xc3\xa9llo", 6); /* 5 characters */
    cs_col_builder_append_nulls(b, 1);
    cs_column *col = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_error err = {0};
    cs_sql_result r = {.schema = cs_col_type_ref(schema), .n_batches = 1, .num_rows = 2};
    r.batches = calloc(1, sizeof *r.batches);
    r.batches[0] = cs_col_batch_new(schema, &col, 1, 2, &err);
    cs_sbuf out = CS_SBUF_INIT;
    assert_int_equal(cs_sql_result_text(&r, CS_SQL_TEXT_TABLE, false, "UTC", &out, &err), 0);
    assert_string_equal(cs_sbuf_str(&out), "+-----+\n"
                                           "| name|\n"
                                           "+-----+\n"
                                           "|h\xc3\xa9llo|\n"
                                           "| NULL|\n"
                                           "+-----+\n");
    cs_sbuf_free(&out);
    cs_sql_result_free(&r);
}

static void test_errors(void **state)
{
    (void)state;
    cs_error e = {0};
    cs_sql_error_set(&e, CS_ETASK, "DIVIDE_BY_ZERO", "22012", "Division by zero.\nmore");
    cs_sbuf out = CS_SBUF_INIT;
    cs_sql_error_line(&e, &out);
    assert_string_equal(cs_sbuf_str(&out), "[DIVIDE_BY_ZERO] Division by zero.");
    out.len = 0;
    cs_sql_error_golden(&e, &out);
    assert_string_equal(cs_sbuf_str(&out), "-- error\n[DIVIDE_BY_ZERO] 22012\n"
                                           "message: [DIVIDE_BY_ZERO] Division by zero.\n");
    cs_error plain = {0};
    cs_error_set(&plain, CS_EIO, "disk on fire");
    out.len = 0;
    cs_sql_error_line(&plain, &out);
    assert_string_equal(cs_sbuf_str(&out), "[INTERNAL_ERROR] disk on fire");
    cs_sbuf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hive_form),
        cmocka_unit_test(test_golden_form),
        cmocka_unit_test(test_table_form),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
