/* test_log.c — unit tests for the logger and error helpers (log.c, err.c, strutil.c): the exact
 * line format, one write per line, level filtering (env and setter), macros that skip argument
 * evaluation, cs_error helpers and the string buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>

#include <cmocka.h>

#include "common/err.h"
#include "common/log.h"
#include "common/strutil.h"

static int fmt_line(char *buf, int cap, cs_log_level lvl, int64_t t, const char *comp,
                    const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = cs_log_format(buf, cap, lvl, t, comp, fmt, ap);
    va_end(ap);
    return n;
}

/* Must run first: the threshold is read from the environment on first use. */
static void test_env_level(void **state)
{
    setenv("CSPARK_LOG_LEVEL", "error", 1);
    assert_int_equal(cs_log_get_level(), CS_LOG_ERROR);
    assert_false(cs_log_enabled(CS_LOG_WARN));
    assert_true(cs_log_enabled(CS_LOG_ERROR));
    cs_log_set_level(CS_LOG_INFO);
    assert_true(cs_log_enabled(CS_LOG_INFO));
    assert_false(cs_log_enabled(CS_LOG_DEBUG));
}

static void test_format_exact(void **state)
{
    char buf[256];
    /* 2026-11-21T07:30:00.123Z */
    int64_t t = 1795246200123LL;
    int n = fmt_line(buf, sizeof buf, CS_LOG_INFO, t, "scheduler", "job=%d stage=%d msg", 1, 2);
    assert_string_equal(buf, "INFO 2026-11-21T07:30:00.123Z scheduler job=1 stage=2 msg\n");
    assert_int_equal(n, (int)strlen(buf));
    fmt_line(buf, sizeof buf, CS_LOG_DEBUG, 0, "x", "a");
    assert_string_equal(buf, "DEBUG 1970-01-01T00:00:00.000Z x a\n");
    fmt_line(buf, sizeof buf, CS_LOG_WARN, 1005, "exec", "k=v");
    assert_string_equal(buf, "WARN 1970-01-01T00:00:01.005Z exec k=v\n");
    fmt_line(buf, sizeof buf, CS_LOG_ERROR, 1000, "c", "two\nlines\r");
    assert_string_equal(buf, "ERROR 1970-01-01T00:00:01.000Z c two lines \n");
    fmt_line(buf, sizeof buf, CS_LOG_INFO, 1000, "c", "%s", "");
    assert_string_equal(buf, "INFO 1970-01-01T00:00:01.000Z c\n");
}

static void test_format_truncates_to_one_line(void **state)
{
    char buf[48];
    char big[200];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    int n = fmt_line(buf, sizeof buf, CS_LOG_INFO, 0, "c", "%s", big);
    assert_int_equal(n, (int)strlen(buf));
    assert_true(n <= 47);
    assert_int_equal(buf[n - 1], '\n');
    assert_ptr_equal(strchr(buf, '\n'), buf + n - 1); /* exactly one newline, at the end */
}

/* Redirects fd 2 into a pipe while fn runs; returns what was written. */
static char *capture_stderr(void (*fn)(void))
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    int saved = dup(2);
    dup2(p[1], 2);
    close(p[1]);
    fn();
    dup2(saved, 2);
    close(saved);
    static char out[8192];
    ssize_t n = read(p[0], out, sizeof out - 1);
    close(p[0]);
    out[n < 0 ? 0 : n] = '\0';
    return out;
}

static int evaluated;
static int side_effect(void)
{
    return ++evaluated;
}

static void log_some(void)
{
    cs_log_set_level(CS_LOG_WARN);
    CS_DEBUG("t", "debug %d", side_effect());
    CS_INFO("t", "info %d", side_effect());
    CS_WARN("t", "warn n=%d", 7);
    CS_ERROR("t", "error n=%d", 8);
    cs_log(CS_LOG_INFO, "t", "direct info");
    cs_log_set_level(CS_LOG_DEBUG);
    CS_DEBUG("t", "debug now %d", 9);
}

/* Regression: an application name with '"', ESC or invalid UTF-8 was written raw into key=value
 * lines (log injection): control bytes and invalid UTF-8 are escaped in every line, and quoted
 * values escape their quotes. */
static void test_values_are_escaped(void **state)
{
    char line[512];
    fmt_line(line, sizeof line, CS_LOG_INFO, 0, "context", "name=%s",
             "evil\x1b[2J\xff\xc3(ok\tend");
    assert_string_equal(line, "INFO 1970-01-01T00:00:00.000Z context "
                              "name=evil\\x1b[2J\\xff\\xc3(ok end\n");
    /* valid multi-byte UTF-8 passes through; overlong and surrogate encodings do not */
    fmt_line(line, sizeof line, CS_LOG_INFO, 0, "c", "w=%s",
             "h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80 \xc0\xaf \xed\xa0\x80");
    assert_string_equal(line, "INFO 1970-01-01T00:00:00.000Z c w=h\xc3\xa9llo \xe2\x82\xac "
                              "\xf0\x9f\x98\x80 \\xc0\\xaf \\xed\\xa0\\x80\n");
    fmt_line(line, sizeof line, CS_LOG_INFO, 0, "context", "name=%s next=1",
             cs_log_quote("a \"quoted\" \\ name\nforged=1"));
    assert_string_equal(line, "INFO 1970-01-01T00:00:00.000Z context "
                              "name=\"a \\\"quoted\\\" \\\\ name forged=1\" next=1\n");
    assert_string_equal(cs_log_quote(NULL), "(null)");
    /* several quoted values in one call stay distinct */
    fmt_line(line, sizeof line, CS_LOG_INFO, 0, "c", "a=%s b=%s", cs_log_quote("x"),
             cs_log_quote("y y"));
    assert_string_equal(line, "INFO 1970-01-01T00:00:00.000Z c a=\"x\" b=\"y y\"\n");
    /* long values are cut, still quoted */
    char big[4000];
    memset(big, 'v', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    const char *q = cs_log_quote(big);
    size_t n = strlen(q);
    assert_true(n < 1100);
    assert_memory_equal(q + n - 4, "...\"", 4);
}

static void test_levels_and_macros(void **state)
{
    evaluated = 0;
    char *out = capture_stderr(log_some);
    assert_int_equal(evaluated, 0); /* disabled macros do not evaluate their arguments */
    regex_t re;
    assert_int_equal(
        regcomp(&re,
                "^WARN [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z "
                "t warn n=7\n"
                "ERROR [^ ]+Z t error n=8\n"
                "DEBUG [^ ]+Z t debug now 9\n$",
                REG_EXTENDED),
        0);
    if (regexec(&re, out, 0, NULL, 0) != 0) fail_msg("unexpected log output:\n%s", out);
    regfree(&re);
    cs_log_set_level(CS_LOG_INFO);
}

#define LOG_THREADS 8
#define LOG_LINES 500

static void *log_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    char pad[300];
    memset(pad, 'a' + id, sizeof pad - 1);
    pad[sizeof pad - 1] = '\0';
    for (int i = 0; i < LOG_LINES; i++)
        cs_log(CS_LOG_INFO, "thread", "t=%d i=%d pad=%s", id, i, pad);
    return NULL;
}

/* Lines written concurrently never interleave: every line in the file is whole. */
static void test_concurrent_lines_do_not_interleave(void **state)
{
    char path[] = "/tmp/cspark-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    fd = open(path, O_WRONLY | O_APPEND);
    int saved = dup(2);
    dup2(fd, 2);
    close(fd);
    cs_log_set_level(CS_LOG_INFO);
    pthread_t th[LOG_THREADS];
    for (int t = 0; t < LOG_THREADS; t++)
        pthread_create(&th[t], NULL, log_worker, (void *)(intptr_t)t);
    for (int t = 0; t < LOG_THREADS; t++)
        pthread_join(th[t], NULL);
    dup2(saved, 2);
    close(saved);

    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    int count[LOG_THREADS] = {0}, n = 0;
    while (fgets(line, sizeof line, f)) {
        int t, i;
        char pad[400];
        assert_int_equal(sscanf(line, "INFO %*s thread t=%d i=%d pad=%399s", &t, &i, pad), 3);
        assert_true(t >= 0 && t < LOG_THREADS);
        assert_int_equal(i, count[t]); /* each thread's lines arrive whole and in order */
        count[t]++;
        assert_int_equal(strlen(pad), 299);
        for (size_t k = 0; k < 299; k++)
            assert_int_equal(pad[k], 'a' + t);
        n++;
    }
    fclose(f);
    unlink(path);
    assert_int_equal(n, LOG_THREADS * LOG_LINES);
}

static void test_parse_level(void **state)
{
    cs_log_level l = CS_LOG_INFO;
    assert_int_equal(cs_log_parse_level("debug", &l), CS_OK);
    assert_int_equal(l, CS_LOG_DEBUG);
    assert_int_equal(cs_log_parse_level("WARN", &l), CS_OK);
    assert_int_equal(l, CS_LOG_WARN);
    assert_int_equal(cs_log_parse_level("warning", &l), CS_OK);
    assert_int_equal(l, CS_LOG_WARN);
    assert_int_equal(cs_log_parse_level("Error", &l), CS_OK);
    assert_int_equal(l, CS_LOG_ERROR);
    assert_int_equal(cs_log_parse_level("info", &l), CS_OK);
    assert_int_equal(l, CS_LOG_INFO);
    assert_int_equal(cs_log_parse_level("verbose", &l), CS_EINVAL);
    assert_int_equal(cs_log_parse_level(NULL, &l), CS_EINVAL);
}

static void test_clock(void **state)
{
    /* the monotonic clock never goes back; the wall clock is epoch milliseconds */
    int64_t a = cs_now_ns(), b = cs_now_ns();
    assert_true(b >= a);
    assert_true(cs_mono_ms() >= 0);
    /* time(NULL) reads the coarse clock, which may lag CLOCK_REALTIME by a tick: compare with
     * the clock cs_now_ms reads (it failed once under load when the second turned in between) */
    struct timespec t0, t1;
    clock_gettime(CLOCK_REALTIME, &t0);
    int64_t ms = cs_now_ms();
    clock_gettime(CLOCK_REALTIME, &t1);
    assert_true(ms >= (int64_t)t0.tv_sec * 1000 + t0.tv_nsec / 1000000 &&
                ms <= (int64_t)t1.tv_sec * 1000 + t1.tv_nsec / 1000000);
}

static void test_errors(void **state)
{
    cs_error err;
    assert_int_equal(cs_error_set(&err, CS_EIO, "read %s failed", "x"), CS_EIO);
    assert_int_equal(err.code, CS_EIO);
    assert_string_equal(err.msg, "read x failed");
    assert_int_equal(cs_error_prefix(&err, "file %d", 3), CS_EIO);
    assert_string_equal(err.msg, "file 3: read x failed");
    cs_error_clear(&err);
    assert_int_equal(err.code, CS_OK);
    assert_string_equal(err.msg, "");
    assert_int_equal(cs_error_set(NULL, CS_EINVAL, "ignored"), CS_EINVAL);
    cs_error_clear(NULL);
    char big[2000];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    cs_error_set(&err, CS_EINVAL, "%s", big);
    assert_int_equal(strlen(err.msg), sizeof err.msg - 1);
    cs_error_prefix(&err, "p");
    assert_int_equal(strlen(err.msg), sizeof err.msg - 1);
    assert_true(strncmp(err.msg, "p: yyy", 6) == 0);
    assert_string_equal(cs_strerror(CS_ENOTFOUND), "ENOTFOUND");
    assert_string_equal(cs_strerror(-99), "EUNKNOWN");
    char *d = cs_xstrdup("abc");
    assert_string_equal(d, "abc");
    free(d);
    assert_null(cs_xstrdup(NULL));
    d = cs_xstrndup("abcdef", 3);
    assert_string_equal(d, "abc");
    free(d);
    free(cs_xmalloc(0));
    free(cs_xcalloc(0, 8));
}

static void test_sbuf_and_strings(void **state)
{
    cs_sbuf b = CS_SBUF_INIT;
    assert_string_equal(cs_sbuf_str(&b), "");
    for (int i = 0; i < 100; i++)
        cs_sbuf_printf(&b, "%d,", i);
    cs_sbuf_puts(&b, "end");
    cs_sbuf_putc(&b, '!');
    assert_true(cs_str_starts_with(cs_sbuf_str(&b), "0,1,2,"));
    assert_true(cs_str_ends_with(cs_sbuf_str(&b), "99,end!"));
    size_t len;
    char *s = cs_sbuf_detach(&b, &len);
    assert_int_equal(len, strlen(s));
    free(s);
    assert_int_equal(b.len, 0);
    s = cs_sbuf_detach(&b, &len);
    assert_string_equal(s, "");
    free(s);
    cs_sbuf_free(&b);
    char *t = cs_str_trim_dup("  a b \t\n", 8);
    assert_string_equal(t, "a b");
    free(t);
    assert_true(cs_str_ieq("AbC", "aBc"));
    assert_true(cs_str_icontains("spark.ssl.KeyPassword", "password"));
    assert_false(cs_str_icontains("spark.master", "password"));
    assert_false(cs_str_ends_with("a", "abc"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_env_level),
        cmocka_unit_test(test_format_exact),
        cmocka_unit_test(test_format_truncates_to_one_line),
        cmocka_unit_test(test_values_are_escaped),
        cmocka_unit_test(test_levels_and_macros),
        cmocka_unit_test(test_concurrent_lines_do_not_interleave),
        cmocka_unit_test(test_parse_level),
        cmocka_unit_test(test_clock),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_sbuf_and_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
