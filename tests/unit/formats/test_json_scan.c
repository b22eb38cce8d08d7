/*
 * test_json_scan.c — the JSON reader's fast path (src/formats/json/json_scan.c) against jansson:
 * each record of a list of hard cases (escapes and surrogate pairs, invalid UTF-8 and control
 * bytes, numbers at the edges of int, long and double, leading zeros, values of the wrong type,
 * duplicate and escaped keys, unknown keys holding bad or deep values, nested and decimal
 * columns, dates and timestamps, trailing text) is read as a JSON line, where the scanner
 * decides what it can, and as a multiLine document of that one record, which jansson alone
 * parses: the two rows (values, nulls, _corrupt_record) are identical, in PERMISSIVE and
 * DROPMALFORMED. A few records whose values are known are checked directly.
 */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/json/json.h"

static const char *schema_ddl =
    "a BIGINT, b INT, d DOUBLE, s STRING, t BOOLEAN, dt DATE, ts TIMESTAMP, dec DECIMAL(10,2), "
    "arr ARRAY<BIGINT>, st STRUCT<x: STRING, y: DOUBLE>, _corrupt_record STRING";

/* One row of the chunk in a canonical text (doubles by their bits). */
static void dump_rows(const cs_field_chunk *c, cs_sbuf *out)
{
    for (size_t r = 0; r < c->rows; r++) {
        for (int i = 0; i < c->ncols; i++) {
            const cs_field_column *k = &c->cols[i];
            if (cs_field_is_null(c, i, r)) {
                cs_sbuf_printf(out, "null|");
                continue;
            }
            switch (k->kind) {
            case CS_FT_DOUBLE:
                cs_sbuf_printf(out, "%a|", k->f64[r]);
                break;
            case CS_FT_DECIMAL:
                cs_sbuf_printf(out, "%lld|", (long long)k->dec[r]);
                break;
            case CS_FT_STRING: {
                size_t n;
                const char *s = cs_field_str(c, i, r, &n);
                cs_sbuf_printf(out, "s%zu:", n);
                cs_sbuf_append(out, s, n);
                cs_sbuf_printf(out, "|");
                break;
            }
            case CS_FT_ARRAY:
            case CS_FT_STRUCT: {
                char *t = json_dumps(k->nested[r], JSON_COMPACT | JSON_ENCODE_ANY);
                cs_sbuf_printf(out, "%s|", t);
                free(t);
                break;
            }
            default:
                cs_sbuf_printf(out, "%lld|", (long long)k->i64[r]);
            }
        }
        cs_sbuf_printf(out, "\n");
    }
}

/* The rows of `text` read with the options (keys/values) plus multiLine = multi. */
static void read_rows(const char *text, size_t n, const char *mode, bool multi, cs_sbuf *out)
{
    cs_error err = {0};
    const char *keys[] = {"mode", "multiLine"}, *values[] = {mode, multi ? "true" : "false"};
    cs_json_options *o = cs_json_options_new(keys, values, 2, &err);
    assert_non_null(o);
    cs_ftype *schema = cs_ftype_parse_ddl(schema_ddl, &err);
    assert_non_null(schema);
    cs_json_reader *r = cs_json_reader_new(o, schema, &err);
    assert_non_null(r);
    cs_field_chunk *c = cs_field_chunk_new(schema, 64);
    size_t pos = 0;
    assert_int_equal(cs_json_read(r, text, n, &pos, true, c, &err), CS_OK);
    dump_rows(c, out);
    cs_field_chunk_free(c);
    cs_json_reader_free(r);
    cs_ftype_free(schema);
    cs_json_options_free(o);
}

static const char *const cases[] = {
    "{\"a\":1,\"b\":2,\"d\":3.5,\"s\":\"x\",\"t\":true,\"dt\":\"2020-01-02\","
    "\"ts\":\"2020-01-02T03:04:05.123Z\",\"dec\":12.5,\"arr\":[1,2,null],\"st\":{\"x\":\"q\","
    "\"y\":1}}",
    "{}",
    "  {  \"a\" :\t-7 , \"s\" : \"\" }  ",
    "{\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\"}",
    "{\"s\":\"nul\\u0000in\"}",
    "{\"s\":\"lone \\ud800\"}",
    "{\"s\":\"lone \\udc00 low\"}",
    "{\"s\":\"bad \\x escape\"}",
    "{\"s\":\"h\\u00\"}",
    "{\"s\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}",
    "{\"s\":\"bad \xc3\x28\"}",
    "{\"s\":\"overlong \xc0\xaf\"}",
    "{\"s\":\"surrogate \xed\xa0\x80\"}",
    "{\"s\":\"past \xf4\x90\x80\x80\"}",
    "{\"s\":\"cut \xe2\x82\"}",
    "{\"s\":\"ctl \x01\"}",
    "{\"s\":\"unterminated}",
    "{\"s\":12.50}",
    "{\"s\":[1, {\"k\" : true}]}",
    "{\"s\":{\"z\":1,\"a\":2}}",
    "{\"s\":false}",
    "{\"a\":-0,\"d\":-0.0}",
    "{\"a\":01}",
    "{\"a\":1.0}",
    "{\"a\":1e2}",
    "{\"a\":\"5\"}",
    "{\"a\":9223372036854775807}",
    "{\"a\":-9223372036854775808}",
    "{\"a\":9223372036854775808}",
    "{\"a\":-9223372036854775809}",
    "{\"a\":18446744073709551616}",
    "{\"b\":2147483647}",
    "{\"b\":2147483648}",
    "{\"b\":-2147483648}",
    "{\"b\":-2147483649}",
    "{\"a\":-}",
    "{\"a\":1.}",
    "{\"a\":.5}",
    "{\"d\":1e}",
    "{\"d\":1E+2}",
    "{\"d\":0.1}",
    "{\"d\":-123.456e-7}",
    "{\"d\":1e400}",
    "{\"d\":-1e400}",
    "{\"d\":1e-400}",
    "{\"d\":4.9e-324}",
    "{\"d\":1.7976931348623157e308}",
    "{\"d\":3.14159265358979323846264338327950288}",
    "{\"d\":9007199254740993}",
    "{\"d\":9223372036854775808}",
    "{\"d\":123456789012345678901234567890}",
    "{\"d\":0.000000000000000000000000000001}",
    "{\"d\":12345678901234567890.5}",
    "{\"d\":1e22}",
    "{\"d\":1e23}",
    "{\"d\":\"NaN\"}",
    "{\"d\":\"-Infinity\"}",
    "{\"d\":\"1.5\"}",
    "{\"d\":true}",
    "{\"t\":false}",
    "{\"t\":TRUE}",
    "{\"t\":tru}",
    "{\"t\":1}",
    "{\"dt\":\"2020-13-01\"}",
    "{\"dt\":\"2020-2-3\"}",
    "{\"dt\":17}",
    "{\"ts\":\"2020-01-02 03:04\"}",
    "{\"ts\":\"garbage\"}",
    "{\"dec\":123.456}",
    "{\"dec\":123456789012}",
    "{\"dec\":\"1.5\"}",
    "{\"arr\":[1,\"x\"]}",
    "{\"arr\":[]}",
    "{\"arr\":{}}",
    "{\"st\":{\"x\":1,\"y\":\"Infinity\",\"zz\":[1]}}",
    "{\"st\":{\"x\":1,\"x\":2}}",
    "{\"st\":[1,2}",
    "{\"a\":1,\"a\":2}",
    "{\"a\":\"x\",\"a\":2}",
    "{\"\\u0061\":5,\"\\u0073\":\"esc key\"}",
    "{\"a\\u0000\":1}",
    "{\"zz\":[1,{\"q\":[null,true,false,\"\\n\"]}],\"a\":3}",
    "{\"zz\":[1,},\"a\":3}",
    "{\"zz\":\"\xc3\x28\",\"a\":3}",
    "{\"zz\":{\"k\\u0000\":1},\"a\":3}",
    "{\"zz\":01,\"a\":3}",
    "{\"_corrupt_record\":\"mine\",\"a\":4}",
    "{\"a\":1,}",
    "{\"a\" 1}",
    "{\"a\":1 \"b\":2}",
    "{a:1}",
    "{'a':1}",
    "{\"a\":1",
    "{\"a\":nul}",
    "{\"a\":null,\"s\":null,\"arr\":null,\"st\":null}",
    "[{\"a\":1},{\"a\":2}]",
    "[1,2]",
    "5",
    "\"str\"",
    "null",
    "\xef\xbb\xbf{\"a\":1}",
};

static void test_scanner_matches_jansson(void **state)
{
    (void)state;
    const char *modes[] = {"PERMISSIVE", "DROPMALFORMED"};
    for (size_t m = 0; m < 2; m++)
        for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
            cs_sbuf lines = CS_SBUF_INIT, multi = CS_SBUF_INIT;
            read_rows(cases[i], strlen(cases[i]), modes[m], false, &lines);
            read_rows(cases[i], strlen(cases[i]), modes[m], true, &multi);
            if (strcmp(cs_sbuf_str(&lines), cs_sbuf_str(&multi)))
                fail_msg("%s case %zu %s:\n lines: %s multi: %s", modes[m], i, cases[i],
                         cs_sbuf_str(&lines), cs_sbuf_str(&multi));
            cs_sbuf_free(&lines);
            cs_sbuf_free(&multi);
        }
}

/* Records jansson reads differently as one document (text after the value, which multiLine
 * ignores; several lines) are checked for their values. */
static void test_known_values(void **state)
{
    (void)state;
    static const char text[] =
        "{\"a\":1} x\n{\"a\":5}}\n{\"a\":2,\"s\":\"y\"}\r\n\n  \n{\"d\":0.3,\"a\":3}\n";
    cs_sbuf out = CS_SBUF_INIT;
    read_rows(text, sizeof text - 1, "PERMISSIVE", false, &out);
    assert_string_equal(cs_sbuf_str(&out),
                        "null|null|null|null|null|null|null|null|null|null|s9:{\"a\":1} x|\n"
                        "null|null|null|null|null|null|null|null|null|null|s8:{\"a\":5}}|\n"
                        "2|null|null|s1:y|null|null|null|null|null|null|null|\n"
                        "3|null|0x1.3333333333333p-2|null|null|null|null|null|null|null|null|\n");
    cs_sbuf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scanner_matches_jansson),
        cmocka_unit_test(test_known_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
