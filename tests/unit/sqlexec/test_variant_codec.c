/*
 * test_variant_codec.c — src/sqlexec/variant_codec.c and variant_reader.c: parse_json's bytes
 * are Spark 4.0.1's (the values below are what Spark's own parse_json gave, collected through
 * its Connect server), numbers keep Spark's types, keys sort as Java's strings (a character past
 * U+FFFF before U+FFFF), duplicate keys and text that is not JSON are refused, the JSON text and
 * schema read back as Spark prints them, a path is parsed by Spark's grammar, and truncated or
 * corrupt bytes read as malformed without reading out of bounds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlexec/variant_codec.h"

static char *hex(const uint8_t *p, size_t n)
{
    char *s = malloc(n * 2 + 1);
    for (size_t i = 0; i < n; i++)
        sprintf(s + 2 * i, "%02x", p[i]);
    s[n * 2] = '\0';
    return s;
}

/* parse_json(text): its value and metadata as hex, and its JSON text read back */
static void parse(const char *text, char **value, char **meta, char **json)
{
    cs_vb *b = cs_vb_new();
    assert_int_equal(cs_variant_parse_json(b, text, strlen(text)), 0);
    const uint8_t *v, *m;
    size_t vl, ml;
    cs_vb_result(b, &v, &vl, &m, &ml);
    *value = hex(v, vl);
    *meta = hex(m, ml);
    cs_variant x;
    assert_true(cs_variant_init(&x, v, vl, m, ml));
    cs_sbuf s = CS_SBUF_INIT;
    assert_true(cs_variant_to_json(&x, NULL, NULL, &s));
    *json = cs_sbuf_detach(&s, NULL);
    cs_vb_free(b);
}

static void test_parse_json_bytes_are_sparks(void **state)
{
    (void)state;
    char *v, *m, *j;
    parse("{\"b\":1,\"a\":[1.50,true,null,\"x\"],\"c\":{\"d\":-0.0}}", &v, &m, &j);
    assert_string_equal(v, "02030100020200131e0c010304000607080a200296000000040005780201030006"
                           "200100000000");
    assert_string_equal(m, "0104000102030462616364");
    assert_string_equal(j, "{\"a\":[1.5,true,null,\"x\"],\"b\":1,\"c\":{\"d\":0}}");
    free(v), free(m), free(j);
    /* {"a":0}: an object of one field, the key in the dictionary */
    parse("{\"a\":0}", &v, &m, &j);
    assert_string_equal(v, "02010000020c00");
    assert_string_equal(m, "0101000161");
    free(v), free(m), free(j);
}

static void test_numbers_keep_sparks_types(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"[1e3, 12345678901234567890, 1.0E-2, 0.1]", "[1000.0,12345678901234567890,0.01,0.1]"},
        {"-9223372036854775808", "-9223372036854775808"},
        {"123456789012345678901234567890123456789", "1.2345678901234568E38"},
        {"3.14159265358979323846", "3.14159265358979323846"},
        {"100.0", "100"},
        {"1 2", "1"}, /* Jackson stops after the first value */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *v, *m, *j;
        parse(cases[i][0], &v, &m, &j);
        assert_string_equal(j, cases[i][1]);
        free(v), free(m), free(j);
    }
}

static void test_keys_sort_as_java_strings(void **state)
{
    (void)state;
    char *v, *m, *j;
    /* U+1F600 (a surrogate pair in UTF-16) sorts before U+FFFF, as Java's compareTo */
    parse("{\"\\uffff\":2,\"\\ud83d\\ude00\":1}", &v, &m, &j);
    assert_string_equal(j, "{\"\xf0\x9f\x98\x80\":1,\"\xef\xbf\xbf\":2}");
    free(v), free(m), free(j);
}

static void test_bad_json_is_refused(void **state)
{
    (void)state;
    static const char *const bad[] = {"{bad", "", "[1,]", "{\"a\":1,\"a\":2}"};
    cs_vb *b = cs_vb_new();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cs_vb_reset(b);
        assert_int_equal(cs_variant_parse_json(b, bad[i], strlen(bad[i])), -1);
    }
    cs_vb_free(b);
}

static void test_schema_and_paths(void **state)
{
    (void)state;
    const char *text = "{\"b\":1,\"a\":[1.50,true,null,\"x\"],\"c\":{\"d\":-0.0,\"e\":1e10},"
                       "\"a b\":[1, 2.5]}";
    cs_vb *b = cs_vb_new();
    assert_int_equal(cs_variant_parse_json(b, text, strlen(text)), 0);
    const uint8_t *v, *m;
    size_t vl, ml;
    cs_vb_result(b, &v, &vl, &m, &ml);
    cs_variant x;
    assert_true(cs_variant_init(&x, v, vl, m, ml));
    cs_sbuf s = CS_SBUF_INIT;
    cs_variant_schema(&x, &s);
    assert_string_equal(cs_sbuf_str(&s), "OBJECT<a: ARRAY<VARIANT>, `a b`: ARRAY<DECIMAL(21,1)>, "
                                         "b: BIGINT, c: OBJECT<d: DECIMAL(1,0), e: DOUBLE>>");
    cs_sbuf_free(&s);
    cs_variant_step steps[16];
    assert_int_equal(cs_variant_path_parse("$.a[3]", 6, steps), 2);
    cs_variant y;
    assert_true(cs_variant_field(&x, steps[0].key, steps[0].key_len, &y));
    assert_true(cs_variant_element(&y, (size_t)steps[1].index, &y));
    assert_int_equal(cs_variant_type(&y), CS_VT_STRING);
    assert_int_equal(cs_variant_path_parse("$['a b'][1]", 11, steps), 2);
    assert_int_equal(cs_variant_path_parse("a", 1, NULL), -1);
    assert_int_equal(cs_variant_path_parse("$.a[-1]", 7, NULL), -1);
    cs_vb_free(b);
}

static void test_corrupt_bytes_read_as_malformed(void **state)
{
    (void)state;
    const char *text = "{\"k\":[1,\"a long enough string to be more than a few bytes\"]}";
    cs_vb *b = cs_vb_new();
    assert_int_equal(cs_variant_parse_json(b, text, strlen(text)), 0);
    const uint8_t *v, *m;
    size_t vl, ml;
    cs_vb_result(b, &v, &vl, &m, &ml);
    /* every truncation of the value and the metadata: no read past the end, JSON text or not */
    for (size_t cut = 1; cut < vl; cut++) {
        uint8_t *copy = malloc(cut);
        memcpy(copy, v, cut);
        cs_variant x;
        assert_true(cs_variant_init(&x, copy, cut, m, ml));
        cs_sbuf s = CS_SBUF_INIT;
        assert_false(cs_variant_to_json(&x, NULL, NULL, &s));
        cs_sbuf_free(&s);
        free(copy);
    }
    for (size_t cut = 1; cut < ml; cut++) {
        uint8_t *copy = malloc(cut);
        memcpy(copy, m, cut);
        cs_variant x;
        cs_sbuf s = CS_SBUF_INIT;
        if (cs_variant_init(&x, v, vl, copy, cut))
            assert_false(cs_variant_to_json(&x, NULL, NULL, &s));
        cs_sbuf_free(&s);
        free(copy);
    }
    cs_vb_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_json_bytes_are_sparks),
        cmocka_unit_test(test_numbers_keep_sparks_types),
        cmocka_unit_test(test_keys_sort_as_java_strings),
        cmocka_unit_test(test_bad_json_is_refused),
        cmocka_unit_test(test_schema_and_paths),
        cmocka_unit_test(test_corrupt_bytes_read_as_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
