/* test_props.c — unit tests for Java .properties reading/writing (props.c): separators,
 * comments, continuations, escapes, trimming, overwrite, errors naming the file, round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"

static cs_conf *parse(const char *text)
{
    cs_conf *c = cs_conf_new();
    cs_error err = {0};
    int rc = cs_conf_parse_properties(c, "t.conf", text, strlen(text), true, &err);
    if (rc != CS_OK) fail_msg("parse failed: %s", err.msg);
    return c;
}

static void test_separators(void **state)
{
    cs_conf *c = parse("a=1\n"
                       "b: 2\n"
                       "c 3\n"
                       "d\t=\t4\n"
                       "  e   =   5   \n"
                       "f=\n"
                       "g\n"
                       "h = x = y\n"
                       "i :=j\n"
                       "spark.executor.memory   4g\n");
    assert_string_equal(cs_conf_get(c, "a"), "1");
    assert_string_equal(cs_conf_get(c, "b"), "2");
    assert_string_equal(cs_conf_get(c, "c"), "3");
    assert_string_equal(cs_conf_get(c, "d"), "4");
    assert_string_equal(cs_conf_get(c, "e"), "5"); /* trailing blanks trimmed as Spark does */
    assert_string_equal(cs_conf_get(c, "f"), "");
    assert_string_equal(cs_conf_get(c, "g"), "");
    assert_string_equal(cs_conf_get(c, "h"), "x = y");
    assert_string_equal(cs_conf_get(c, "i"), "=j"); /* only one separator is skipped */
    assert_string_equal(cs_conf_get(c, "spark.executor.memory"), "4g");
    assert_int_equal(cs_conf_size(c), 10);
    cs_conf_free(c);
}

static void test_comments_and_blank_lines(void **state)
{
    cs_conf *c = parse("# comment\n"
                       "! also a comment\n"
                       "   # indented comment\n"
                       "\n"
                       "   \t \n"
                       "# comment ending in backslash \\\n"
                       "a=1 # not a comment\n"
                       "b=#x\n");
    assert_int_equal(cs_conf_size(c), 2);
    assert_string_equal(cs_conf_get(c, "a"), "1 # not a comment");
    assert_string_equal(cs_conf_get(c, "b"), "#x");
    cs_conf_free(c);
}

static void test_continuation(void **state)
{
    cs_conf *c = parse("a=one \\\n"
                       "      two \\\n"
                       "\tthree\n"
                       "b=ends with escaped backslash \\\\\n"
                       "c=x\n"
                       "key\\\n"
                       "  cont=v\n");
    assert_string_equal(cs_conf_get(c, "a"), "one two three");
    assert_string_equal(cs_conf_get(c, "b"), "ends with escaped backslash \\");
    assert_string_equal(cs_conf_get(c, "c"), "x");
    assert_string_equal(cs_conf_get(c, "keycont"), "v");
    cs_conf_free(c);
}

static void test_line_endings(void **state)
{
    cs_conf *c = parse("a=1\r\nb=2\rc=3\nd=4\\\r\n  5\r\ne=6");
    assert_string_equal(cs_conf_get(c, "a"), "1");
    assert_string_equal(cs_conf_get(c, "b"), "2");
    assert_string_equal(cs_conf_get(c, "c"), "3");
    assert_string_equal(cs_conf_get(c, "d"), "45");
    assert_string_equal(cs_conf_get(c, "e"), "6"); /* no final newline */
    cs_conf_free(c);
}

static void test_escapes(void **state)
{
    cs_conf *c = parse("tab=a\\tb\n"
                       "nl=a\\nb\n"
                       "cr=a\\rb\n"
                       "ff=a\\fb\n"
                       "u=caf\\u00e9\n"
                       "euro=\\u20AC\n"
                       "emoji=\\uD83D\\uDE00\n"
                       "other=\\q\\\\\\#\n"
                       "key\\ with\\ spaces=v\n"
                       "k\\=eq=v2\n"
                       "k\\:col=v3\n"
                       "utf8=héllo\n");
    assert_string_equal(cs_conf_get(c, "tab"), "a\tb");
    assert_string_equal(cs_conf_get(c, "nl"), "a\nb");
    assert_string_equal(cs_conf_get(c, "cr"), "a\rb");
    assert_string_equal(cs_conf_get(c, "ff"), "a\fb");
    assert_string_equal(cs_conf_get(c, "u"), "caf\xc3\xa9");
    assert_string_equal(cs_conf_get(c, "euro"), "\xe2\x82\xac");
    assert_string_equal(cs_conf_get(c, "emoji"), "\xf0\x9f\x98\x80");
    assert_string_equal(cs_conf_get(c, "other"), "q\\#");
    assert_string_equal(cs_conf_get(c, "key with spaces"), "v");
    assert_string_equal(cs_conf_get(c, "k=eq"), "v2");
    assert_string_equal(cs_conf_get(c, "k:col"), "v3");
    assert_string_equal(cs_conf_get(c, "utf8"), "h\xc3\xa9llo");
    cs_conf_free(c);
}

static void test_errors_name_file_and_line(void **state)
{
    cs_conf *c = cs_conf_new();
    cs_error err = {0};
    const char *t = "a=1\nb=\\u12G4\n";
    assert_int_equal(cs_conf_parse_properties(c, "/etc/x.conf", t, strlen(t), true, &err),
                     CS_EINVAL);
    assert_string_equal(err.msg, "properties file /etc/x.conf: line 2: malformed \\uXXXX escape "
                                 "(expected 4 hex digits)");
    assert_null(cs_conf_get(c, "a")); /* nothing applied from a broken file */
    t = "a=1\n\nb=\\u00";
    assert_int_equal(cs_conf_parse_properties(c, "f", t, strlen(t), true, &err), CS_EINVAL);
    assert_string_equal(
        err.msg, "properties file f: line 3: malformed \\uXXXX escape (expected 4 hex digits)");
    t = "a=x\\u0000y\n";
    assert_int_equal(cs_conf_parse_properties(c, "f", t, strlen(t), true, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "NUL"));
    cs_conf_free(c);
}

static void test_overwrite(void **state)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "a", "old");
    const char *t = "a=new\nb=2\n";
    assert_int_equal(cs_conf_parse_properties(c, "f", t, strlen(t), false, NULL), CS_OK);
    assert_string_equal(cs_conf_get(c, "a"), "old");
    assert_string_equal(cs_conf_get(c, "b"), "2");
    assert_int_equal(cs_conf_parse_properties(c, "f", t, strlen(t), true, NULL), CS_OK);
    assert_string_equal(cs_conf_get(c, "a"), "new");
    /* within one file the last occurrence wins */
    t = "d=1\nd=2\n";
    assert_int_equal(cs_conf_parse_properties(c, "f", t, strlen(t), false, NULL), CS_OK);
    assert_string_equal(cs_conf_get(c, "d"), "2");
    cs_conf_free(c);
}

static void test_load_file(void **state)
{
    char path[] = "/tmp/cspark-props-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *t = "spark.master  local[2]\nspark.app.name=my app\n";
    assert_int_equal(write(fd, t, strlen(t)), (ssize_t)strlen(t));
    close(fd);
    cs_conf *c = cs_conf_new();
    cs_error err = {0};
    assert_int_equal(cs_conf_load_properties(c, path, true, &err), CS_OK);
    assert_string_equal(cs_conf_get(c, "spark.master"), "local[2]");
    assert_string_equal(cs_conf_get(c, "spark.app.name"), "my app");
    unlink(path);
    assert_int_equal(cs_conf_load_properties(c, path, true, &err), CS_ENOTFOUND);
    char want[256];
    snprintf(want, sizeof want, "properties file %s not found", path);
    assert_string_equal(err.msg, want);
    assert_int_equal(cs_conf_load_properties(c, "/tmp", true, &err), CS_EINVAL);
    assert_string_equal(err.msg,
                        "properties file /tmp is a directory (expected a file of key=value "
                        "lines)");
    /* a device or FIFO is refused, not read (a FIFO without a writer blocked) */
    assert_int_equal(cs_conf_load_properties(c, "/dev/zero", true, &err), CS_EINVAL);
    assert_string_equal(err.msg, "properties file /dev/zero is not a regular file (expected a file "
                                 "of key=value lines)");
    cs_conf_free(c);
}

static void test_round_trip(void **state)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.b", "plain");
    cs_conf_set(c, "spark.a", "x=y:z #!\\ tab\there\nnew line");
    cs_conf_set(c, "key with space", "v");
    cs_conf_set(c, "k=eq:col", "\xc3\xa9\x01x");
    cs_conf_set(c, "empty", "");
    size_t len = 0;
    char *text = cs_conf_to_properties(c, &len);
    assert_int_equal(strlen(text), len);
    /* sorted, one line per key */
    assert_true(strncmp(text, "empty=\n", 7) == 0);
    cs_conf *d = cs_conf_new();
    cs_error err = {0};
    assert_int_equal(cs_conf_parse_properties(d, "rt", text, len, true, &err), CS_OK);
    assert_int_equal(cs_conf_size(d), cs_conf_size(c));
    assert_string_equal(cs_conf_get(d, "spark.a"), cs_conf_get(c, "spark.a"));
    assert_string_equal(cs_conf_get(d, "key with space"), "v");
    assert_string_equal(cs_conf_get(d, "k=eq:col"), "\xc3\xa9\x01x");
    assert_string_equal(cs_conf_get(d, "spark.b"), "plain");
    free(text);
    cs_conf_free(c);
    cs_conf_free(d);
    /* empty conf serialises to an empty string */
    cs_conf *e = cs_conf_new();
    text = cs_conf_to_properties(e, &len);
    assert_int_equal(len, 0);
    assert_string_equal(text, "");
    free(text);
    cs_conf_free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_separators),   cmocka_unit_test(test_comments_and_blank_lines),
        cmocka_unit_test(test_continuation), cmocka_unit_test(test_line_endings),
        cmocka_unit_test(test_escapes),      cmocka_unit_test(test_errors_name_file_and_line),
        cmocka_unit_test(test_overwrite),    cmocka_unit_test(test_load_file),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
