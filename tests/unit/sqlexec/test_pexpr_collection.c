/*
 * test_pexpr_collection.c — the array and map kernels (src/sqlexec/kernels_collection.c)
 * against Spark 4.0.1's answers in tests/sql/golden/corpus/: array_distinct(array(1, 1, 2)) =
 * [1, 2] (clauses 18), array_position(array(3, 4), 4) = 2 (19), slice(array(1, 2, 3, 4), 2, 2)
 * = [2, 3], array_max / array_min = 5 / 1 (20), map_keys / map_values (22), size of an empty
 * array, of NULL (NULL under ANSI) and of array(1, NULL) = 2 (31), reverse(array(1, 2, 3)) =
 * [3, 2, 1] (strings 19), split with a limit and a regexp (strings 8); array_sort puts nulls last;
 * slice's errors for start 0 and a negative length.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "px_test.h"

/* one-row array<int> literal; null entries where valid[i] == 0 */
static cs_pexpr *arr(const int32_t *v, const uint8_t *valid, int32_t n)
{
    cs_col_type *t = cs_col_type_array(T(CS_TYPE_INT), true);
    cs_col_builder *b = cs_col_builder_new(NULL, t);
    cs_col_builder_append_lists(b, &n, 1, NULL);
    cs_col_builder_append_values(cs_col_builder_child(b, 0), v, n, valid);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_col_type_unref(t);
    return lit(c);
}

static cs_col_type *arr_type(void)
{
    return cs_col_type_array(T(CS_TYPE_INT), true);
}

static cs_column *run(cs_pexpr *e, int *rc, cs_error *err)
{
    cs_col_batch *b = batch_rows(2);
    cs_column *out = NULL;
    *rc = eval(e, b, &out, err);
    cs_col_batch_unref(b);
    return out;
}

/* "[1, 2, null]" of row 1 of an array<int> or array<string> column */
static void text(const cs_column *c, char *buf, size_t cap)
{
    const int32_t *off = cs_column_offsets(c);
    const cs_column *el = c->children[0];
    size_t n = (size_t)snprintf(buf, cap, "[");
    for (int32_t e = off[1]; e < off[2]; e++) {
        const char *sep = e > off[1] ? ", " : "";
        if (!cs_column_is_valid(el, e))
            n += (size_t)snprintf(buf + n, cap - n, "%snull", sep);
        else if (el->type->id == CS_TYPE_STRING) {
            int32_t len;
            const uint8_t *p = cs_column_bytes(el, e, &len);
            n += (size_t)snprintf(buf + n, cap - n, "%s%.*s", sep, (int)len, (const char *)p);
        } else
            n += (size_t)snprintf(buf + n, cap - n, "%s%d", sep, I32(el, e));
    }
    snprintf(buf + n, cap - n, "]");
}

static void assert_array(cs_pexpr *e, const char *want)
{
    int rc;
    cs_error err;
    cs_column *c = run(e, &rc, &err);
    assert_int_equal(rc, CS_OK);
    assert_int_equal(c->length, 2);
    char got[128];
    text(c, got, sizeof got);
    assert_string_equal(got, want);
    cs_column_unref(c);
}

static void test_array_functions(void **state)
{
    (void)state;
    const int32_t v[] = {3, 0, 1, 2}, dup[] = {1, 1, 2}, four[] = {1, 2, 3, 4};
    const uint8_t one_null[] = {1, 0, 1, 1};
    assert_array(call1("array_sort", arr_type(), arr(v, one_null, 4)), "[1, 2, 3, null]");
    assert_array(call1("array_distinct", arr_type(), arr(dup, NULL, 3)), "[1, 2]");
    assert_array(call1("reverse", arr_type(), arr(four, NULL, 3)), "[3, 2, 1]");
    cs_pexpr *s = cs_pexpr_call("slice", arr_type(), true,
                                (cs_pexpr *[]){arr(four, NULL, 4), lit_i32(2), lit_i32(2)}, 3);
    assert_array(s, "[2, 3]");
    s = cs_pexpr_call("slice", arr_type(), true,
                      (cs_pexpr *[]){arr(four, NULL, 4), lit_i32(-1), lit_i32(5)}, 3);
    assert_array(s, "[4]");
    s = cs_pexpr_call("slice", arr_type(), true,
                      (cs_pexpr *[]){arr(four, NULL, 4), lit_i32(9), lit_i32(1)}, 3);
    assert_array(s, "[]");
    int rc;
    cs_error err;
    s = cs_pexpr_call("slice", arr_type(), true,
                      (cs_pexpr *[]){arr(four, NULL, 4), lit_i32(0), lit_i32(1)}, 3);
    assert_null(run(s, &rc, &err));
    assert_string_equal(err.error_class, "INVALID_PARAMETER_VALUE.START");
    s = cs_pexpr_call("slice", arr_type(), true,
                      (cs_pexpr *[]){arr(four, NULL, 4), lit_i32(1), lit_i32(-1)}, 3);
    assert_null(run(s, &rc, &err));
    assert_string_equal(err.error_class, "INVALID_PARAMETER_VALUE.LENGTH");

    const int32_t pos[] = {3, 4}, mm[] = {1, 5, 2};
    cs_column *c =
        run(call2("array_position", T(CS_TYPE_LONG), arr(pos, NULL, 2), lit_i32(4)), &rc, &err);
    assert_int_equal(I64(c, 1), 2);
    cs_column_unref(c);
    c = run(call2("array_position", T(CS_TYPE_LONG), arr(pos, NULL, 2), lit_i32(7)), &rc, &err);
    assert_int_equal(I64(c, 1), 0);
    cs_column_unref(c);
    c = run(call1("array_max", T(CS_TYPE_INT), arr(mm, NULL, 3)), &rc, &err);
    assert_int_equal(I32(c, 1), 5);
    cs_column_unref(c);
    c = run(call1("array_min", T(CS_TYPE_INT), arr(mm, NULL, 3)), &rc, &err);
    assert_int_equal(I32(c, 1), 1);
    cs_column_unref(c);
    const uint8_t all_null[] = {0};
    c = run(call1("array_max", T(CS_TYPE_INT), arr(mm, all_null, 1)), &rc, &err);
    assert_false(VALID(c, 1));
    cs_column_unref(c);
}

static void test_size_and_maps(void **state)
{
    (void)state;
    int rc;
    cs_error err;
    const int32_t v[] = {1, 0};
    const uint8_t second_null[] = {1, 0};
    cs_column *c = run(call1("size", T(CS_TYPE_INT), arr(v, NULL, 0)), &rc, &err);
    assert_int_equal(I32(c, 1), 0);
    cs_column_unref(c);
    c = run(call1("size", T(CS_TYPE_INT), arr(v, second_null, 2)), &rc, &err);
    assert_int_equal(I32(c, 1), 2);
    cs_column_unref(c);
    c = run(call1("size", T(CS_TYPE_INT), lit_null(CS_TYPE_NULL)), &rc, &err);
    assert_int_equal(rc, CS_OK);
    assert_false(VALID(c, 1));
    cs_column_unref(c);

    /* map('a', 1, 'b', 2) */
    cs_col_type *mt = cs_col_type_map(T(CS_TYPE_STRING), T(CS_TYPE_INT), true);
    cs_col_builder *b = cs_col_builder_new(NULL, mt);
    int32_t two = 2;
    cs_col_builder_append_lists(b, &two, 1, NULL);
    cs_col_builder_append_string(cs_col_builder_child(b, 0), "a", 1);
    cs_col_builder_append_string(cs_col_builder_child(b, 0), "b", 1);
    const int32_t vals[] = {1, 2};
    cs_col_builder_append_values(cs_col_builder_child(b, 1), vals, 2, NULL);
    cs_column *m = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_col_type_unref(mt);
    assert_array(
        call1("map_keys", cs_col_type_array(T(CS_TYPE_STRING), false), lit(cs_column_ref(m))),
        "[a, b]");
    assert_array(call1("map_values", arr_type(), lit(m)), "[1, 2]");
}

static cs_pexpr *split3(const char *s, const char *re, int32_t limit)
{
    return cs_pexpr_call("split", cs_col_type_array(T(CS_TYPE_STRING), true), true,
                         (cs_pexpr *[]){lit(col_str(&s, 1)), lit(col_str(&re, 1)), lit_i32(limit)},
                         3);
}

static void test_split(void **state)
{
    (void)state;
    /* strings.out: split('a,b,,c', ','), split('a1b22c', '[0-9]+'), split('abc', ''),
     * split('a,b,c', ',', 2) */
    assert_array(split3("a,b,,c", ",", -1), "[a, b, , c]");
    assert_array(split3("a1b22c", "[0-9]+", -1), "[a, b, c]");
    assert_array(split3("abc", "", -1), "[a, b, c]");
    assert_array(split3("a,b,c", ",", 2), "[a, b,c]");
    /* Spark's documented example: trailing empty strings stay (limit -1 and 0 alike) */
    assert_array(split3("oneAtwoBthreeC", "[ABC]", -1), "[one, two, three, ]");
    assert_array(split3("oneAtwoBthreeC", "[ABC]", 0), "[one, two, three, ]");
    assert_array(split3("h\xc3\xa9llo", "l", 1), "[h\xc3\xa9llo]");
    int rc;
    cs_error err;
    assert_null(run(split3("abc", "(", -1), &rc, &err));
    assert_string_equal(err.error_class, "INVALID_PARAMETER_VALUE.PATTERN");
}

static void assert_json(const char *json, const char *path, const char *want)
{
    int rc;
    cs_error err;
    cs_column *c = run(
        call2("get_json_object", T(CS_TYPE_STRING), lit(col_str(&json, 1)), lit(col_str(&path, 1))),
        &rc, &err);
    assert_int_equal(rc, CS_OK);
    if (!want) {
        assert_false(VALID(c, 1));
    } else {
        int32_t len;
        const uint8_t *p = cs_column_bytes(c, 1, &len);
        char got[128];
        snprintf(got, sizeof got, "%.*s", (int)len, (const char *)p);
        assert_string_equal(got, want);
    }
    cs_column_unref(c);
}

static void test_get_json_object(void **state)
{
    (void)state;
    const char *doc = "{\"a\": {\"b\": [1, 2]}, \"s\": \"x y\", \"n\": null, \"z\": 1.5}";
    assert_json("{\"a\": {\"b\": [1, 2]}}", "$.a.b[1]", "2"); /* clauses.out query 35 */
    assert_json(doc, "$.a", "{\"b\":[1,2]}");
    assert_json(doc, "$['s']", "x y");
    assert_json(doc, "$.z", "1.5");
    assert_json(doc, "$.n", NULL);
    assert_json(doc, "$.missing", NULL);
    assert_json(doc, "$.a.b[*]", "[1,2]");
    assert_json(doc, "a.b", NULL);
    assert_json("{not json", "$.a", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_array_functions),
        cmocka_unit_test(test_size_and_maps),
        cmocka_unit_test(test_split),
        cmocka_unit_test(test_get_json_object),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
