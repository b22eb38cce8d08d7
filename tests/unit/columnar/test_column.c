/*
 * test_column.c — column batches (src/columnar): buffers are 64-byte aligned, zero-padded and
 * charged to the task's execution memory until the last reference goes; builders append in
 * bulk (fixed width, booleans, strings, nulls, lists, maps, structs) into Arrow's layout
 * (validity bitmap made only when a null arrives, offsets + bytes); batches check their columns'
 * types and lengths, move by reference and project without copying; a dictionary-encoded
 * string column equals its decoded form; cs_column_validate refuses each broken invariant;
 * types print as Spark's simpleString and decimal precision is checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "columnar/col_builder.h"

static void test_buffers_aligned_and_charged_to_task_memory(void **state)
{
    cs_task_memory tm;
    cs_task_memory_init(&tm, 1 << 20);
    cs_col_allocator a;
    cs_col_allocator_init(&a, &tm);
    cs_col_builder *b = cs_col_builder_new(&a, cs_col_type_primitive(CS_TYPE_LONG));
    int64_t v[1000];
    for (int i = 0; i < 1000; i++)
        v[i] = i * 3;
    cs_col_builder_append_values(b, v, 1000, NULL);
    cs_column *c = cs_col_builder_finish(b);
    assert_int_equal((uintptr_t)c->values % 64, 0);
    assert_true(c->values_size >= 8000);
    assert_null(c->validity);
    assert_int_equal(tm.used, atomic_load(&a.allocated));
    assert_true(tm.used >= 8000);
    /* padding past the values is zero */
    for (size_t i = 8000; i < cs_col_padded(c->values_size); i++)
        assert_int_equal(c->values[i], 0);
    cs_col_batch_unref(cs_col_batch_new(
        cs_col_type_struct(&(cs_col_field){"v", cs_col_type_primitive(CS_TYPE_LONG), true}, 1),
        (cs_column *[]){cs_column_ref(c)}, 1, 1000, NULL));
    assert_true(tm.used > 0); /* still referenced by c */
    cs_column_unref(c);
    cs_col_builder_free(b);
    assert_int_equal(tm.used, 0);
    assert_int_equal(atomic_load(&a.allocated), 0);
    assert_true(tm.peak >= 8000);
    /* over the budget: the allocator says so */
    cs_task_memory_init(&tm, 4096);
    cs_col_allocator_init(&a, &tm);
    void *p = cs_col_buffer_alloc(&a, 8192);
    assert_true(cs_col_allocator_over(&a));
    cs_col_buffer_free(&a, p, 8192);
    assert_false(cs_col_allocator_over(&a));
}

/* Growing a large buffer (the realloc path) keeps its bytes, zeroes the new ones, stays
 * aligned and charges only the difference; small to large and large to small alike. */
static void test_large_buffers_grow_keeping_bytes_and_charge(void **state)
{
    cs_task_memory tm;
    cs_task_memory_init(&tm, (int64_t)1 << 40);
    cs_col_allocator a;
    cs_col_allocator_init(&a, &tm);
    size_t n = 1000;
    uint8_t *p = cs_col_buffer_alloc(&a, n);
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(i * 7 + 1);
    while (n < ((size_t)48 << 20)) { /* 1000 bytes to 48 MiB by doubling, uneven sizes */
        size_t m = 2 * n + 13;
        p = cs_col_buffer_realloc(&a, p, n, m);
        assert_int_equal((uintptr_t)p % 64, 0);
        assert_int_equal(atomic_load(&a.allocated), (int64_t)cs_col_padded(m));
        assert_int_equal(tm.used, (int64_t)cs_col_padded(m));
        for (size_t i = 0; i < 1000; i++)
            assert_int_equal(p[i], (uint8_t)(i * 7 + 1));
        for (size_t i = 1000; i < cs_col_padded(m); i += 4093)
            assert_int_equal(p[i], 0);
        assert_int_equal(p[cs_col_padded(m) - 1], 0);
        n = m;
    }
    p = cs_col_buffer_realloc(&a, p, n, 500); /* shrinking copies */
    for (size_t i = 0; i < 500; i++)
        assert_int_equal(p[i], (uint8_t)(i * 7 + 1));
    assert_int_equal(tm.used, (int64_t)cs_col_padded(500));
    cs_col_buffer_free(&a, p, 500);
    assert_int_equal(tm.used, 0);
    assert_int_equal(atomic_load(&a.allocated), 0);
}

static void test_builders_make_arrow_layout(void **state)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_STRING));
    int32_t off[] = {0, 1, 3, 3, 6};
    uint8_t valid[] = {1, 1, 0, 1};
    cs_col_builder_append_binary(b, off, (const uint8_t *)"abcdef", 4, valid);
    cs_col_builder_append_string(b, "xyz", 3);
    cs_col_builder_append_nulls(b, 2);
    cs_column *c = cs_col_builder_finish(b);
    assert_int_equal(c->length, 7);
    assert_int_equal(c->null_count, 3);
    assert_non_null(c->validity);
    assert_int_equal(c->validity[0], 0x1b); /* rows 0,1,3,4 valid */
    const int32_t *o = cs_column_offsets(c);
    int32_t want[] = {0, 1, 3, 3, 6, 9, 9, 9};
    assert_memory_equal(o, want, sizeof want);
    assert_memory_equal(c->data, "abcdefxyz", 9);
    assert_int_equal(cs_column_validate(c, NULL), CS_OK);
    int32_t len;
    assert_memory_equal(cs_column_bytes(c, 4, &len), "xyz", 3);
    assert_int_equal(len, 3);
    cs_column_unref(c);
    /* the builder is empty again and reusable */
    cs_col_builder_append_string(b, "q", 1);
    c = cs_col_builder_finish(b);
    assert_int_equal(c->length, 1);
    assert_null(c->validity);
    cs_column_unref(c);
    cs_col_builder_free(b);

    b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_BOOLEAN));
    uint8_t bools[20];
    for (int i = 0; i < 20; i++)
        bools[i] = i % 3 == 0;
    cs_col_builder_append_values(b, bools, 20, NULL);
    c = cs_col_builder_finish(b);
    for (int i = 0; i < 20; i++)
        assert_int_equal(cs_bit_get(c->values, i), i % 3 == 0);
    cs_column_unref(c);
    cs_col_builder_free(b);
}

static cs_column *int_map_column(void)
{
    cs_col_type *t = cs_col_type_map(cs_col_type_primitive(CS_TYPE_STRING),
                                     cs_col_type_primitive(CS_TYPE_INT), true);
    cs_col_builder *b = cs_col_builder_new(NULL, t);
    cs_col_type_unref(t);
    int32_t lens[] = {2, 0, 1};
    uint8_t valid[] = {1, 0, 1};
    cs_col_builder_append_lists(b, lens, 3, valid);
    int32_t koff[] = {0, 1, 2, 3};
    cs_col_builder_append_binary(cs_col_builder_child(b, 0), koff, (const uint8_t *)"abc", 3, NULL);
    int32_t vals[] = {1, 2, 3};
    uint8_t vvalid[] = {1, 0, 1};
    cs_col_builder_append_values(cs_col_builder_child(b, 1), vals, 3, vvalid);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

static void test_nested_builders_and_batches(void **state)
{
    cs_column *m = int_map_column();
    assert_int_equal(cs_column_validate(m, NULL), CS_OK);
    assert_int_equal(m->children[0]->length, 3);
    assert_int_equal(m->children[1]->null_count, 1);
    cs_col_field sf[] = {
        {"a", cs_col_type_primitive(CS_TYPE_INT), true},
        {"b", cs_col_type_array(cs_col_type_primitive(CS_TYPE_DOUBLE), true), true}};
    cs_col_type *st = cs_col_type_struct(sf, 2);
    cs_col_builder *b = cs_col_builder_new(NULL, st);
    uint8_t valid[] = {1, 0, 1};
    cs_col_builder_append_structs(b, 3, valid);
    int32_t a[] = {7, 8, 9};
    cs_col_builder_append_values(cs_col_builder_child(b, 0), a, 3, NULL);
    int32_t lens[] = {1, 0, 2};
    cs_col_builder_append_lists(cs_col_builder_child(b, 1), lens, 3, NULL);
    double d[] = {0.5, 1.5, 2.5};
    cs_col_builder_append_values(cs_col_builder_child(cs_col_builder_child(b, 1), 0), d, 3, NULL);
    cs_column *s = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    assert_int_equal(cs_column_validate(s, NULL), CS_OK);

    cs_col_field bf[] = {{"m", cs_col_type_ref(m->type), true}, {"s", st, true}};
    cs_col_type *schema = cs_col_type_struct(bf, 2);
    cs_sbuf txt = CS_SBUF_INIT;
    cs_col_type_simple_string(schema, &txt);
    assert_string_equal(cs_sbuf_str(&txt),
                        "struct<m:map<string,int>,s:struct<a:int,b:array<double>>>");
    cs_sbuf_free(&txt);
    cs_error err;
    cs_col_batch *batch =
        cs_col_batch_new(cs_col_type_ref(schema), (cs_column *[]){m, s}, 2, 3, &err);
    assert_non_null(batch);
    /* moved by reference: a projection shares the column, nothing copied */
    cs_col_batch *p = cs_col_batch_project(batch, (int[]){1}, 1, &err);
    assert_ptr_equal(p->columns[0], s);
    assert_int_equal(atomic_load(&s->refs), 2);
    assert_int_equal(cs_col_batch_memory(p), cs_column_memory(s));
    cs_col_batch_unref(p);
    assert_null(cs_col_batch_project(batch, (int[]){2}, 1, &err));
    /* wrong length or type: refused naming the column */
    cs_column *m2 = int_map_column();
    assert_null(cs_col_batch_new(cs_col_type_ref(schema), (cs_column *[]){m2, cs_column_ref(m)}, 2,
                                 3, &err));
    assert_non_null(strstr(err.msg, "column 1 (s)"));
    cs_col_batch_unref(batch);
    cs_col_type_unref(schema);
}

static void test_dictionary_column_equals_decoded(void **state)
{
    cs_col_builder *db = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_STRING));
    cs_col_builder_append_string(db, "red", 3);
    cs_col_builder_append_string(db, "green", 5);
    cs_column *dict = cs_col_builder_finish(db);
    cs_col_builder_free(db);
    cs_col_builder *b = cs_col_builder_new_dictionary(NULL, dict);
    int32_t idx[] = {1, 0, 0, 1};
    uint8_t valid[] = {1, 1, 0, 1};
    cs_col_builder_append_values(b, idx, 4, valid);
    cs_column *enc = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    assert_int_equal(cs_column_validate(enc, NULL), CS_OK);
    cs_column *dec = cs_column_decode(enc, NULL);
    assert_null(dec->dictionary);
    assert_true(cs_column_equal(enc, dec));
    int32_t len;
    assert_memory_equal(cs_column_bytes(dec, 0, &len), "green", 5);
    assert_memory_equal(cs_column_bytes(enc, 3, &len), "green", 5);
    /* an index out of the dictionary is caught */
    ((int32_t *)(void *)enc->values)[1] = 2;
    cs_error err;
    assert_int_equal(cs_column_validate(enc, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "dictionary index"));
    /* a dictionary holding a null is refused: its rows would be null behind a valid bit */
    ((int32_t *)(void *)enc->values)[1] = 0;
    cs_column *with_null = cs_column_decode(enc, NULL);
    cs_column_unref(enc->dictionary);
    enc->dictionary = with_null;
    assert_int_equal(cs_column_validate(enc, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "a dictionary with null values"));
    cs_column_unref(enc);
    cs_column_unref(dec);
    cs_column_unref(dict);
}

static void test_validate_refuses_broken_columns(void **state)
{
    cs_error err;
    cs_column *c = int_map_column();
    int32_t *off = (int32_t *)(void *)c->values;
    off[1] = 5; /* past the children */
    assert_int_equal(cs_column_validate(c, &err), CS_EINVAL);
    off[1] = 2;
    off[2] = 1; /* decreasing */
    assert_int_equal(cs_column_validate(c, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "offsets decrease"));
    off[2] = 2;
    assert_int_equal(cs_column_validate(c, NULL), CS_OK);
    c->null_count = 2; /* does not match the bitmap */
    assert_int_equal(cs_column_validate(c, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "null count"));
    assert_non_null(strstr(err.msg, "map<string,int> column of 3 rows"));
    cs_column_unref(c);

    assert_null(cs_col_type_decimal(39, 0, &err));
    assert_non_null(strstr(err.msg, "decimal(39,0)"));
    assert_null(cs_col_type_decimal(10, 11, NULL));
    cs_col_type *d = cs_col_type_decimal(38, 38, NULL);
    assert_non_null(d);
    cs_col_type_unref(d);
}

/* A column of the null type (SQL's NULL literal) has no values buffer: appending nulls must not
 * touch one (UBSan caught a memset on the missing buffer). */
static void test_null_type_column_of_nulls(void **state)
{
    (void)state;
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_NULL));
    cs_col_builder_append_nulls(b, 1);
    cs_col_builder_append_nulls(b, 2);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    assert_int_equal(c->length, 3);
    assert_int_equal(c->null_count, 3);
    assert_false(cs_column_is_valid(c, 2));
    cs_error err = {0};
    assert_int_equal(cs_column_validate(c, &err), 0);
    cs_column_unref(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_buffers_aligned_and_charged_to_task_memory),
        cmocka_unit_test(test_large_buffers_grow_keeping_bytes_and_charge),
        cmocka_unit_test(test_builders_make_arrow_layout),
        cmocka_unit_test(test_nested_builders_and_batches),
        cmocka_unit_test(test_dictionary_column_equals_decoded),
        cmocka_unit_test(test_validate_refuses_broken_columns),
        cmocka_unit_test(test_null_type_column_of_nulls),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
