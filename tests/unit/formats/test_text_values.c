/* test_text_values.c — src/formats/text_values.c and the CSV tokenizer on their own: Java's
 * number parsing and printing, Decimal(p,s) rounding, Spark's lenient dates and timestamps, the
 * line-split rule of text files, and a streamed CSV read that gets its bytes piece by piece
 * (the multiLine record cut by the end of the buffer waits for the rest), and the samplingRatio
 * sampler's draws against Spark's, base64 as Jackson reads and writes binary values, and the
 * CSV and JSON formats refusing a map column with Spark's error class. The comparison with
 * Apache Spark itself is tests/spark/csv_json_readers.sh. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "columnar/col_type.h"
#include "formats/csv/csv.h"
#include "formats/file_format.h"
#include "formats/text_values.h"

static void expect_double_text(double v, const char *want)
{
    cs_sbuf b = CS_SBUF_INIT;
    cs_tv_format_double(v, &b);
    assert_string_equal(cs_sbuf_str(&b), want);
    cs_sbuf_free(&b);
}

static void test_java_double_text(void **state)
{
    (void)state;
    expect_double_text(1.0, "1.0");
    expect_double_text(1.5e10, "1.5E10");
    expect_double_text(1e7, "1.0E7");
    expect_double_text(9999999.0, "9999999.0");
    expect_double_text(0.001, "0.001");
    expect_double_text(0.0001, "1.0E-4");
    expect_double_text(-0.25, "-0.25");
    expect_double_text(0.1, "0.1");
    expect_double_text(4.9e-324, "4.9E-324"); /* Double.MIN_VALUE: two digits, not 5.0E-324 */
}

static void expect_float_text(double v, const char *want)
{
    cs_sbuf b = CS_SBUF_INIT;
    cs_tv_format_float(v, &b);
    assert_string_equal(cs_sbuf_str(&b), want);
    cs_sbuf_free(&b);
}

/* Float.toString and Float.parseFloat: the float's own shortest digits, one rounding of the
 * decimal text to float (not through a double) */
static void test_java_float_text(void **state)
{
    (void)state;
    expect_float_text(0.1, "0.1"); /* a double 0.1 rounds to the float 0.1 */
    expect_float_text(1.5e10, "1.5E10");
    expect_float_text(3.4028234663852886e38, "3.4028235E38");
    expect_float_text(1.401298464324817e-45, "1.4E-45");
    expect_float_text(16777217.0, "1.6777216E7");
    expect_float_text(-0.0, "-0.0");
    expect_float_text(INFINITY, "Infinity");
    double d;
    assert_true(cs_tv_parse_float("0.1", 3, &d) && d == (double)0.1f);
    assert_true(cs_tv_parse_float("2.5f", 4, &d) && d == 2.5);
    assert_true(cs_tv_parse_float("1e39", 4, &d) && isinf(d));
    assert_true(cs_tv_parse_float("1e-50", 5, &d) && d == 0);
    assert_false(cs_tv_parse_float("x", 1, &d));
    /* 1.00000005960464477550 lies a hair above the midpoint of 1 and the next float: one
     * rounding gives the next float, rounding through the double 1.0000000596046448 gives 1 */
    assert_true(cs_tv_parse_float("1.00000005960464477550", 22, &d) &&
                d == (double)nextafterf(1, 2));
}

static void test_java_number_parsing(void **state)
{
    (void)state;
    int64_t i;
    double d;
    assert_true(cs_tv_parse_int("+12", 3, &i) && i == 12);
    assert_false(cs_tv_parse_int(" 1", 2, &i));
    assert_false(cs_tv_parse_int("2147483648", 10, &i));
    assert_true(cs_tv_parse_long("2147483648", 10, &i));
    assert_true(cs_tv_parse_double(" 1 ", 3, &d) && d == 1.0);
    assert_true(cs_tv_parse_double("2.5d", 4, &d) && d == 2.5);
    assert_false(cs_tv_parse_double("inf", 3, &d));
    assert_true(cs_tv_parse_double("-Infinity", 9, &d) && d < 0);
}

/* The fast path of cs_tv_parse_double (exact significand times an exact power of ten) gives
 * strtod's correctly rounded double, bit for bit, on both sides of its limits. */
static void test_double_fast_path_matches_strtod(void **state)
{
    (void)state;
    static const char *const texts[] = {"0",
                                        "0.0",
                                        "-0.0",
                                        "0.1",
                                        "0.2",
                                        "0.3",
                                        "1.7976931348623157e308",
                                        "4.9e-324",
                                        "123.45",
                                        "999.99",
                                        "1e22",
                                        "1e23",
                                        "1e-22",
                                        "1e-23",
                                        "123456789012345",
                                        "1234567890123456",
                                        "0.000123456789012345",
                                        "9007199254740993",
                                        "3.14159265358979",
                                        "2.718281828459045",
                                        "1.5E10",
                                        "1.0E-5",
                                        "12e-3",
                                        "000001.5000",
                                        "0.30000000000000004",
                                        "100000000000000000000000",
                                        "5e-1",
                                        "7.",
                                        ".5",
                                        "1e+2",
                                        "123456.7e-10"};
    for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
        double d, want = strtod(texts[k], NULL);
        assert_true(cs_tv_parse_double(texts[k], strlen(texts[k]), &d));
        assert_memory_equal(&d, &want, sizeof d);
    }
    /* prices as the benchmark writes them: every cent below 10000 */
    char text[32];
    for (int cents = 0; cents < 1000000; cents += 7) {
        int n = snprintf(text, sizeof text, "%d.%02d", cents / 100, cents % 100);
        double d, want = strtod(text, NULL);
        assert_true(cs_tv_parse_double(text, (size_t)n, &d));
        assert_memory_equal(&d, &want, sizeof d);
    }
}

static void test_decimal_half_up(void **state)
{
    (void)state;
    __int128 u, out;
    int p, s;
    bool too_long;
    assert_true(cs_tv_parse_decimal("12345.675", 9, &u, &p, &s, &too_long));
    assert_int_equal(s, 3);
    assert_true(cs_tv_decimal_fit(u, s, 10, 2, &out));
    assert_true(out == 1234568);
    assert_false(cs_tv_decimal_fit(u, s, 6, 2, &out));
    assert_true(cs_tv_parse_decimal("1e5", 3, &u, &p, &s, &too_long) && s == -5 && p == 1);
}

static void test_lenient_timestamps(void **state)
{
    (void)state;
    int64_t us;
    bool zone;
    int32_t days;
    assert_true(cs_tv_parse_timestamp_lenient("2024-01-31T10:20:30.5Z", 22, &us, &zone) && zone);
    assert_true(us == 1706696430500000LL);
    assert_true(cs_tv_parse_timestamp_lenient("2024-01-31 12:20:30+02:00", 25, &us, &zone));
    assert_true(us == 1706696430000000LL);
    assert_true(cs_tv_parse_timestamp_lenient("1969-12-31 23:59:59", 19, &us, &zone) && !zone);
    assert_true(us == -1000000);
    assert_false(cs_tv_parse_timestamp_lenient("2024-02-30", 10, &us, &zone));
    assert_true(cs_tv_parse_date_iso("1969-12-31", 10, &days) && days == -1);
    assert_false(cs_tv_parse_date_iso("2024-1-31", 9, &days));
    assert_true(cs_tv_parse_date_lenient("2024-1-31", 9, &days));
}

/* every line in exactly one split, whatever the split size */
static void test_line_split_every_line_once(void **state)
{
    (void)state;
    const char *text = "a\nbb\n\nccc\ndddd\ne";
    size_t n = strlen(text);
    for (size_t step = 1; step <= n + 1; step++) {
        size_t covered = 0, last_hi = 0;
        for (size_t start = 0; start < n; start += step) {
            size_t lo, hi;
            cs_line_split_range(text, n, start, step, &lo, &hi);
            if (hi > lo) {
                assert_int_equal(lo, last_hi);
                last_hi = hi;
                covered += hi - lo;
            }
        }
        assert_int_equal(covered, n);
    }
}

/* a multiLine record cut by the end of the buffer is read once the rest has come */
static void test_csv_streamed_multiline(void **state)
{
    (void)state;
    const char *keys[] = {"multiLine"}, *values[] = {"true"};
    cs_error err;
    cs_csv_options *o = cs_csv_options_new(keys, values, 1, &err);
    assert_non_null(o);
    const char *text = "1,\"x\ny\"\n2,z\n";
    size_t n = strlen(text);
    cs_ftype *schema = cs_ftype_parse_ddl("a INT, b STRING", &err);
    assert_non_null(schema);
    cs_csv_reader *r = cs_csv_reader_new(o, schema, &err);
    cs_field_chunk *c = cs_field_chunk_new(schema, 8);
    size_t pos = 0;
    bool skip = false;
    assert_int_equal(cs_csv_read(r, text, 4, &pos, false, &skip, c, &err), CS_OK);
    assert_int_equal(c->rows, 0);
    assert_int_equal(pos, 0);
    assert_int_equal(cs_csv_read(r, text, n, &pos, true, &skip, c, &err), CS_OK);
    assert_int_equal(c->rows, 2);
    size_t len;
    const char *s = cs_field_str(c, 1, 0, &len);
    assert_int_equal(len, 3);
    assert_memory_equal(s, "x\ny", 3);
    cs_field_chunk_free(c);
    cs_csv_reader_free(r);
    cs_ftype_free(schema);
    cs_csv_options_free(o);
}

/* Spark 4 (Dataset.sample(false, 0.3, 1) of a one-partition file, as JsonUtils.sample) keeps
 * exactly these of 46 lines: the draws of its XORShiftRandom, seeded through Long.BYTES. */
static void test_sampler_draws_as_spark(void **state)
{
    (void)state;
    static const int kept[] = {2, 3, 6, 7, 11, 12, 18, 20, 22, 24, 28, 30, 36, 45};
    cs_tv_sampler s;
    cs_tv_sampler_init(&s, 0.3, 1);
    size_t k = 0;
    for (int line = 0; line < 46; line++)
        if (cs_tv_sampler_keep(&s)) {
            assert_true(k < sizeof kept / sizeof *kept);
            assert_int_equal(line, kept[k++]);
        }
    assert_int_equal(k, sizeof kept / sizeof *kept);
    cs_tv_sampler_init(&s, 1.0, 1); /* above 0.99: every line */
    for (int line = 0; line < 100; line++)
        assert_true(cs_tv_sampler_keep(&s));
    double r;
    assert_false(cs_tv_parse_sampling_ratio("0", &r));
    assert_false(cs_tv_parse_sampling_ratio("-0.5", &r));
    assert_false(cs_tv_parse_sampling_ratio("half", &r));
    assert_true(cs_tv_parse_sampling_ratio("0.25", &r) && r == 0.25);
    const char *keys[] = {"samplingRatio"}, *values[] = {"0"};
    cs_error err;
    cs_error_clear(&err);
    assert_null(cs_csv_options_new(keys, values, 1, &err));
    assert_non_null(strstr(err.msg, "samplingRatio=0"));
}

static void test_bad_option_names_key(void **state)
{
    (void)state;
    const char *keys[] = {"header", "mode"}, *values[] = {"true", "LENIENT"};
    cs_error err;
    cs_error_clear(&err);
    assert_null(cs_csv_options_new(keys, values, 2, &err));
    assert_non_null(strstr(err.msg, "mode=LENIENT"));
    assert_non_null(strstr(err.msg, "PERMISSIVE"));
}

static void expect_base64(const char *text, const char *want)
{
    char out[64];
    size_t n = 0;
    bool ok = cs_tv_base64_decode(text, strlen(text), out, &n);
    if (!want) {
        assert_false(ok);
        return;
    }
    assert_true(ok);
    assert_int_equal(n, strlen(want));
    assert_memory_equal(out, want, n);
}

static void test_base64_as_jackson(void **state)
{
    (void)state;
    expect_base64("aGk=", "hi");
    expect_base64("YQ==", "a");
    expect_base64("YWJj", "abc");
    expect_base64("", "");
    expect_base64("  aGk= ", "hi"); /* blanks between groups of four only */
    expect_base64("YWJj YQ==", "abca");
    expect_base64("aGk", NULL); /* padding required */
    expect_base64("YQ=", NULL);
    expect_base64("YQ===", NULL);
    expect_base64("a Gk=", NULL);
    expect_base64("-_-_", NULL); /* not the URL alphabet */
    expect_base64("aGk=aGk=", NULL);
    char in_place[] = "aGVsbG8gd29ybGQ=";
    size_t n;
    assert_true(cs_tv_base64_decode(in_place, strlen(in_place), in_place, &n));
    assert_int_equal(n, 11);
    assert_memory_equal(in_place, "hello world", 11);
    cs_sbuf b = CS_SBUF_INIT;
    cs_tv_base64_encode("\xfb\xff\xbf"
                        "a",
                        4, &b);
    assert_string_equal(cs_sbuf_str(&b), "+/+/YQ==");
    cs_sbuf_free(&b);
}

/* Spark 4.0.1's text for a CSV map column (its UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE) */
static void test_map_column_refused_as_spark(void **state)
{
    (void)state;
    cs_col_field f[] = {{(char *)"a", cs_col_type_primitive(CS_TYPE_INT), true},
                        {(char *)"m",
                         cs_col_type_map(cs_col_type_primitive(CS_TYPE_STRING),
                                         cs_col_type_primitive(CS_TYPE_FLOAT), true),
                         true}};
    cs_col_type *schema = cs_col_type_struct(f, 2);
    cs_format_options o = {NULL, NULL, 0};
    void *w = NULL;
    cs_error err;
    cs_error_clear(&err);
    const cs_file_format *csv = cs_file_format_find("csv");
    assert_int_not_equal(csv->open_writer("file:///nonexistent-dir/x.csv", schema, &o, &w, &err),
                         0);
    assert_null(w);
    assert_string_equal(err.msg, "[UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE] The CSV datasource "
                                 "doesn't support the column `m` of the type \"MAP<STRING, "
                                 "FLOAT>\".");
    cs_col_type_unref(schema);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_java_double_text),
        cmocka_unit_test(test_java_number_parsing),
        cmocka_unit_test(test_java_float_text),
        cmocka_unit_test(test_double_fast_path_matches_strtod),
        cmocka_unit_test(test_decimal_half_up),
        cmocka_unit_test(test_lenient_timestamps),
        cmocka_unit_test(test_line_split_every_line_once),
        cmocka_unit_test(test_csv_streamed_multiline),
        cmocka_unit_test(test_bad_option_names_key),
        cmocka_unit_test(test_sampler_draws_as_spark),
        cmocka_unit_test(test_base64_as_jackson),
        cmocka_unit_test(test_map_column_refused_as_spark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
