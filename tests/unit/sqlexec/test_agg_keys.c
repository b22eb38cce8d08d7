/*
 * test_agg_keys.c — the hash aggregate's word layout of group keys (src/sqlexec/agg_keys.c):
 * integral keys of every width and string / binary keys (empty, null, embedded zero bytes, long)
 * as words: rows equal exactly when their keys are (an empty string is not a null, "a" is not
 * "a\0b"), equal rows hash alike, the key columns come back equal to the input after a group's
 * copy into the arena, and a row's encoded hash is the XXH3 of sort_keys.c's encoding of its keys
 * (the spill partition the encoded table would give it), nulls and zero bytes included, and that
 * encoding decodes back to the input (cs_sql_keys_decode).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "op_test_util.h"
#include "sqlexec/agg_keys.h"

enum { ROWS = 12, KEYS = 6 };

static cs_column *binaries(const char *const *s, const int *len, int64_t n)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_BINARY));
    for (int64_t i = 0; i < n; i++) {
        if (s[i])
            cs_col_builder_append_string(b, s[i], (size_t)len[i]);
        else
            cs_col_builder_append_nulls(b, 1);
    }
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return c;
}

static cs_col_batch *key_batch(cs_col_type **schema)
{
    const char *names[KEYS] = {"b", "h", "s", "i", "bin", "l"};
    cs_col_type *types[KEYS] = {
        cs_col_type_primitive(CS_TYPE_BYTE),   cs_col_type_primitive(CS_TYPE_SHORT),
        cs_col_type_primitive(CS_TYPE_STRING), cs_col_type_primitive(CS_TYPE_DATE),
        cs_col_type_primitive(CS_TYPE_BINARY), cs_col_type_primitive(CS_TYPE_LONG)};
    *schema = t_schema(KEYS, names, types);
    int8_t b8[ROWS] = {-128, 127, -128, 0, 0, 5, 5, 5, 5, 5, -1, -128};
    int16_t h16[ROWS] = {-32768, 32767, -32768, 0, 0, 5, 5, 5, 5, 5, -1, -32768};
    int32_t i32[ROWS] = {-1, 19000, -1, 0, 0, 5, 5, 5, 5, 5, -1, -1};
    int64_t l64[ROWS] = {INT64_MIN, INT64_MAX, INT64_MIN, 0, 0, 5, 5, 5, 5, 5, -1, INT64_MIN};
    uint8_t valid[ROWS] = {1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1};
    const char *str[ROWS] = {"a",  "a longer string than a word", "a", NULL, "", "", NULL, "a",
                             "ab", "a longer string than a word", "x", "a"};
    const char *bin[ROWS] = {"a\0b", "",    "a\0b", NULL, "",   "a",
                             "a",    "a\0", "a",    NULL, "\0", "a\0b"};
    int blen[ROWS] = {3, 0, 3, 0, 0, 1, 1, 2, 1, 0, 1, 3};
    cs_column *cols[KEYS] = {t_fixed(cs_col_type_primitive(CS_TYPE_BYTE), b8, ROWS, valid),
                             t_fixed(cs_col_type_primitive(CS_TYPE_SHORT), h16, ROWS, valid),
                             t_strings(str, ROWS),
                             t_fixed(cs_col_type_primitive(CS_TYPE_DATE), i32, ROWS, valid),
                             binaries(bin, blen, ROWS),
                             t_longs(l64, ROWS, NULL)};
    return t_batch(*schema, cols, ROWS);
}

static void test_rows_compare_hash_and_decode_exactly(void **state)
{
    cs_col_type *schema;
    cs_col_batch *b = key_batch(&schema);
    cs_agg_keys l;
    cs_col_type *types[KEYS];
    cs_sort_key keys[KEYS];
    for (int k = 0; k < KEYS; k++) {
        types[k] = schema->fields[k].type;
        keys[k] = (cs_sort_key){.ordinal = k, .nulls_first = true};
    }
    assert_true(cs_agg_keys_init(&l, types, KEYS));
    assert_int_equal(l.wstride, 4 + 2 * 2 + 1);
    assert_int_equal(l.n_str, 2);
    uint64_t *w = calloc((size_t)ROWS * (size_t)l.wstride, 8), hash[ROWS];
    cs_agg_keys_batch(&l, b, keys, ROWS, w, hash);
    /* rows 0, 2 and 11 are one key; every other pair differs (a null string is not "", "a" is
     * not "a\0" nor "a\0b", the same string beside another binary is another key) */
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < ROWS; j++) {
            bool same = i == j || ((i == 0 || i == 2 || i == 11) && (j == 0 || j == 2 || j == 11));
            assert_int_equal(cs_agg_keys_equal(&l, w + i * l.wstride, w + j * l.wstride), same);
            if (same) assert_true(hash[i] == hash[j]);
        }
    /* the encoded hash is what sort_keys.c's encoding hashes to */
    cs_sql_keybuf kb = {0};
    cs_sql_keys_encode(&kb, b, keys, KEYS, true);
    for (int i = 0; i < ROWS; i++)
        assert_true(cs_agg_keys_encoded_hash(&l, w + i * l.wstride) == kb.hash[i]);
    /* and that encoding decodes back to the input (a zero byte stuffed, the runs between) */
    const uint8_t *enc[ROWS];
    for (int i = 0; i < ROWS; i++)
        enc[i] = kb.bytes + kb.off[i];
    cs_column *dec[KEYS];
    cs_sql_keys_decode(enc, ROWS, types, KEYS, NULL, dec);
    for (int k = 0; k < KEYS; k++) {
        assert_true(cs_column_equal(dec[k], b->columns[k]));
        cs_column_unref(dec[k]);
    }
    cs_sql_keybuf_free(&kb);
    /* the groups' copies (the strings in the arena) decode back to the input columns */
    cs_sql_arena arena = {0};
    const uint64_t *g[ROWS];
    for (int i = 0; i < ROWS; i++)
        g[i] = cs_agg_keys_store_row(&l, w + i * l.wstride, &arena);
    memset(w, 0xAB, (size_t)ROWS * (size_t)l.wstride * 8); /* the batch's words are gone */
    cs_column *out[KEYS];
    cs_agg_keys_decode(&l, g, ROWS, types, NULL, out);
    for (int k = 0; k < KEYS; k++) {
        assert_true(cs_column_equal(out[k], b->columns[k]));
        cs_column_unref(out[k]);
    }
    cs_sql_arena_reset(&arena);
    free(w);
    cs_col_batch_unref(b);
    cs_col_type_unref(schema);
}

static void test_layouts_refused(void **state)
{
    cs_agg_keys l;
    cs_col_type *d = cs_col_type_primitive(CS_TYPE_DOUBLE),
                *s = cs_col_type_primitive(CS_TYPE_STRING);
    cs_col_type *mixed[2] = {s, d};
    assert_false(cs_agg_keys_init(&l, mixed, 2)); /* a double key: encoded (NaN, -0.0) */
    assert_false(cs_agg_keys_init(&l, mixed, 0));
    cs_col_type *many[CS_AGG_KEYS_MAX + 1];
    for (int k = 0; k <= CS_AGG_KEYS_MAX; k++)
        many[k] = s;
    assert_false(cs_agg_keys_init(&l, many, CS_AGG_KEYS_MAX + 1));
    assert_true(cs_agg_keys_init(&l, many, CS_AGG_KEYS_MAX));
    assert_int_equal(l.wstride, 2 * CS_AGG_KEYS_MAX + 1);
    cs_col_type_unref(d);
    cs_col_type_unref(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rows_compare_hash_and_decode_exactly),
        cmocka_unit_test(test_layouts_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
