/*
 * test_pexpr_construct.c — the constructors and accessors of complex values
 * (src/sqlexec/kernels_construct.c, kernels_access.c, kernels_cast_complex.c) and the merge of
 * nested columns (pexpr_take.c), against Spark 4.0.1's answers in tests/sql/golden/corpus/:
 * array(c0, NULL, 3) per row (canonical 10), map('a', c0) and its DUPLICATED_MAP_KEY /
 * NULL_MAP_KEY errors, named_struct(...).y (clauses 22), array(1, 2, 3)[3] is
 * INVALID_ARRAY_INDEX and element_at(array(1, 2, 3), -1) = 3 (clauses 22, 23), map['b'] of a
 * missing key is NULL (errors 33), coalesce of arrays (a nested merge), CAST(array<int> AS
 * array<bigint>) and AS STRING (casts 23), string to binary, interval year to month to string
 * (canonical 9), and NULL cast to an array.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "px_test.h"

static cs_pexpr *str_lit(const char *s)
{
    return lit(col_str((const char *const[]){s}, 1));
}

static cs_col_type *arr_of(cs_type_id id)
{
    return cs_col_type_array(T(id), true);
}

/* "[1, null, 3]" of row r of an array<int> / array<bigint> column */
static void arr_text(const cs_column *c, int64_t r, char *buf, size_t cap)
{
    const int32_t *off = cs_column_offsets(c);
    const cs_column *el = c->children[0];
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int32_t e = off[r]; e < off[r + 1]; e++) {
        const char *sep = e > off[r] ? ", " : "";
        if (!cs_column_is_valid(el, e))
            n += (size_t)snprintf(buf + n, cap - n, "%snull", sep);
        else if (el->type->id == CS_TYPE_LONG)
            n += (size_t)snprintf(buf + n, cap - n, "%s%lld", sep, (long long)I64(el, e));
        else
            n += (size_t)snprintf(buf + n, cap - n, "%s%d", sep, I32(el, e));
    }
    snprintf(buf + n, cap - n, "]");
}

static cs_pexpr *array3(cs_col_batch *b)
{
    cs_pexpr *args[3] = {colref(0, b->columns[0]),
                         cs_pexpr_cast(lit_null(CS_TYPE_NULL), T(CS_TYPE_INT), CS_CAST_ANSI),
                         lit_i32(3)};
    return cs_pexpr_call("array", arr_of(CS_TYPE_INT), false, args, 3);
}

static void test_array_per_row(void **state)
{
    (void)state;
    cs_col_batch *b = batch_rows(2);
    cs_column *out = NULL;
    cs_error err;
    assert_int_equal(eval(array3(b), b, &out, &err), CS_OK);
    char t[64];
    arr_text(out, 0, t, sizeof t);
    assert_string_equal(t, "[0, null, 3]");
    arr_text(out, 1, t, sizeof t);
    assert_string_equal(t, "[1, null, 3]");
    cs_column_unref(out);

    /* cast to array<bigint>: one element cast over the whole child */
    cs_pexpr *c = cs_pexpr_cast(array3(b), arr_of(CS_TYPE_LONG), CS_CAST_ANSI);
    assert_int_equal(eval(c, b, &out, &err), CS_OK);
    assert_int_equal(out->children[0]->type->id, CS_TYPE_LONG);
    arr_text(out, 1, t, sizeof t);
    assert_string_equal(t, "[1, null, 3]");
    cs_column_unref(out);

    /* coalesce(CAST(NULL AS array<int>), array(...)): branches merged with their elements */
    cs_pexpr *nul = cs_pexpr_cast(lit_null(CS_TYPE_NULL), arr_of(CS_TYPE_INT), CS_CAST_ANSI);
    cs_pexpr *co =
        cs_pexpr_call("coalesce", arr_of(CS_TYPE_INT), true, (cs_pexpr *[]){nul, array3(b)}, 2);
    assert_int_equal(eval(co, b, &out, &err), CS_OK);
    arr_text(out, 0, t, sizeof t);
    assert_string_equal(t, "[0, null, 3]");
    cs_column_unref(out);

    /* CAST(array AS STRING): Spark's [1, null, 3] */
    c = cs_pexpr_cast(array3(b), T(CS_TYPE_STRING), CS_CAST_ANSI);
    assert_int_equal(eval(c, b, &out, &err), CS_OK);
    int32_t len;
    const uint8_t *p = cs_column_bytes(out, 1, &len);
    assert_int_equal(len, (int)strlen("[1, null, 3]"));
    assert_memory_equal(p, "[1, null, 3]", (size_t)len);
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

static cs_col_type *map_type(void)
{
    return cs_col_type_map(T(CS_TYPE_STRING), T(CS_TYPE_INT), true);
}

static void test_map_and_errors(void **state)
{
    (void)state;
    cs_col_batch *b = batch_rows(2);
    cs_column *out = NULL;
    cs_error err;
    cs_pexpr *m = cs_pexpr_call(
        "map", map_type(), false,
        (cs_pexpr *[]){str_lit("a"), colref(0, b->columns[0]), str_lit("b"), lit_i32(7)}, 4);
    cs_pexpr *get =
        cs_pexpr_call("get_map_value", T(CS_TYPE_INT), true, (cs_pexpr *[]){m, str_lit("a")}, 2);
    assert_int_equal(eval(get, b, &out, &err), CS_OK);
    assert_int_equal(I32(out, 0), 0);
    assert_int_equal(I32(out, 1), 1);
    cs_column_unref(out);

    /* a missing key is null */
    m = cs_pexpr_call("map", map_type(), false, (cs_pexpr *[]){str_lit("a"), lit_i32(1)}, 2);
    get = cs_pexpr_call("get_map_value", T(CS_TYPE_INT), true, (cs_pexpr *[]){m, str_lit("b")}, 2);
    assert_int_equal(eval(get, b, &out, &err), CS_OK);
    assert_false(VALID(out, 0));
    cs_column_unref(out);

    m = cs_pexpr_call("map", map_type(), false,
                      (cs_pexpr *[]){str_lit("k"), lit_i32(1), str_lit("k"), lit_i32(2)}, 4);
    assert_int_not_equal(eval(m, b, &out, &err), CS_OK);
    assert_true(cs_sql_error_is(&err, "DUPLICATED_MAP_KEY"));
    cs_pexpr *nk = cs_pexpr_cast(lit_null(CS_TYPE_NULL), T(CS_TYPE_STRING), CS_CAST_ANSI);
    m = cs_pexpr_call("map", map_type(), false, (cs_pexpr *[]){nk, lit_i32(1)}, 2);
    assert_int_not_equal(eval(m, b, &out, &err), CS_OK);
    assert_true(cs_sql_error_is(&err, "NULL_MAP_KEY"));
    cs_col_batch_unref(b);
}

static void test_struct_field(void **state)
{
    (void)state;
    cs_col_batch *b = batch_rows(2);
    cs_column *out = NULL;
    cs_error err;
    cs_col_field f[2] = {{(char *)"x", T(CS_TYPE_INT), true},
                         {(char *)"y", T(CS_TYPE_STRING), true}};
    cs_col_type *st = cs_col_type_struct(f, 2);
    cs_pexpr *s = cs_pexpr_call(
        "named_struct", st, false,
        (cs_pexpr *[]){str_lit("x"), colref(0, b->columns[0]), str_lit("y"), str_lit("z")}, 4);
    cs_pexpr *get = cs_pexpr_call("get_struct_field", T(CS_TYPE_STRING), true,
                                  (cs_pexpr *[]){s, str_lit("y")}, 2);
    assert_int_equal(eval(get, b, &out, &err), CS_OK);
    int32_t len;
    const uint8_t *p = cs_column_bytes(out, 1, &len);
    assert_int_equal(len, 1);
    assert_memory_equal(p, "z", 1);
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

static void test_array_index_errors(void **state)
{
    (void)state;
    cs_col_batch *b = batch_rows(1);
    cs_column *out = NULL;
    cs_error err;
    cs_pexpr *a = cs_pexpr_call("array", arr_of(CS_TYPE_INT), false,
                                (cs_pexpr *[]){lit_i32(1), lit_i32(2), lit_i32(3)}, 3);
    cs_pexpr *at = call2("get_array_item", T(CS_TYPE_INT), a, lit_i32(3));
    assert_int_not_equal(eval(at, b, &out, &err), CS_OK);
    assert_true(cs_sql_error_is(&err, "INVALID_ARRAY_INDEX"));
    assert_non_null(strstr(err.msg, "The index 3 is out of bounds. The array has 3 elements"));
    a = cs_pexpr_call("array", arr_of(CS_TYPE_INT), false,
                      (cs_pexpr *[]){lit_i32(1), lit_i32(2), lit_i32(3)}, 3);
    at = call2("element_at", T(CS_TYPE_INT), a, lit_i32(-1));
    assert_int_equal(eval(at, b, &out, &err), CS_OK);
    assert_int_equal(I32(out, 0), 3);
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

static void test_casts(void **state)
{
    (void)state;
    cs_col_batch *b = batch_rows(1);
    cs_column *out = NULL;
    cs_error err;
    int32_t months = 14;
    cs_col_type *ym =
        cs_col_type_interval(CS_TYPE_INTERVAL_YM, CS_INTERVAL_YEAR, CS_INTERVAL_MONTH, NULL);
    cs_pexpr *c =
        cs_pexpr_cast(lit(col_fixed(ym, &months, NULL, 1)), T(CS_TYPE_STRING), CS_CAST_ANSI);
    assert_int_equal(eval(c, b, &out, &err), CS_OK);
    int32_t len;
    const uint8_t *p = cs_column_bytes(out, 0, &len);
    assert_int_equal(len, (int)strlen("INTERVAL '1-2' YEAR TO MONTH"));
    assert_memory_equal(p, "INTERVAL '1-2' YEAR TO MONTH", (size_t)len);
    cs_column_unref(out);

    c = cs_pexpr_cast(str_lit("Spark"), T(CS_TYPE_BINARY), CS_CAST_ANSI);
    assert_int_equal(eval(c, b, &out, &err), CS_OK);
    assert_int_equal(out->type->id, CS_TYPE_BINARY);
    p = cs_column_bytes(out, 0, &len);
    assert_memory_equal(p, "Spark", 5);
    cs_column_unref(out);

    c = cs_pexpr_cast(lit_null(CS_TYPE_NULL), arr_of(CS_TYPE_INT), CS_CAST_ANSI);
    assert_int_equal(eval(c, b, &out, &err), CS_OK);
    assert_false(VALID(out, 0));
    cs_column_unref(out);
    cs_col_batch_unref(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_per_row), cmocka_unit_test(test_map_and_errors),
        cmocka_unit_test(test_struct_field),  cmocka_unit_test(test_array_index_errors),
        cmocka_unit_test(test_casts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
