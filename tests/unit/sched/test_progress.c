/* test_progress.c — unit tests for the console progress bar (progress.c): the exact line
 * rendered by cs_progress_render for given counts and widths; the view (explicit times, no
 * thread) drawing "\r<bar>\r", not redrawing an unchanged line, erasing it when stages finish or a
 * job ends, and the first-delay rule; the bar on a pipe (outcomes, bounded wait); terminal width;
 * the stage logger. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sched/progress.h"

static char *repeat(char c, int n, char *buf)
{
    memset(buf, c, (size_t)n);
    buf[n] = '\0';
    return buf;
}

static void test_render_spark_example(void **state)
{
    /* [Stage 1:=====>          (12 + 2) / 40] at 80 columns: header 9, tail 14, bar 57,
     * 57 * 12 / 40 = 17 '=' then '>' then 39 spaces. */
    progress_stage s = {.stage_id = 1, .num_tasks = 40, .completed = 12, .active = 2};
    char buf[256], eq[64], sp[64], want[256];
    size_t n = cs_progress_render(&s, 1, 80, buf, sizeof buf);
    snprintf(want, sizeof want, "[Stage 1:%s>%s(12 + 2) / 40]", repeat('=', 17, eq),
             repeat(' ', 39, sp));
    assert_string_equal(buf, want);
    assert_int_equal(n, 80);
    assert_int_equal(strlen(buf), 80);
}

static void test_render_three_stages_share_width(void **state)
{
    progress_stage s[3] = {
        {.stage_id = 0, .num_tasks = 10, .completed = 10, .active = 0},
        {.stage_id = 1, .num_tasks = 4, .completed = 0, .active = 4},
        {.stage_id = 12, .num_tasks = 200, .completed = 100, .active = 8},
    };
    char buf[1024], a[64], b[64], want[1024];
    size_t n = cs_progress_render(s, 3, 120, buf, sizeof buf);
    /* 40 columns each. Stage 0: header 9, tail "(10 + 0) / 10]" 14 -> w 17, all '='. */
    /* Stage 1: tail "(0 + 4) / 4]" 12 -> w 19: '>' then 18 spaces. */
    /* Stage 12: header 10, tail "(100 + 8) / 200]" 16 -> w 14, 7 '=', '>', 6 spaces. */
    char s0[256], s1[256], s2[256];
    snprintf(s0, sizeof s0, "[Stage 0:%s(10 + 0) / 10]", repeat('=', 17, a));
    snprintf(s1, sizeof s1, "[Stage 1:>%s(0 + 4) / 4]", repeat(' ', 18, b));
    snprintf(s2, sizeof s2, "[Stage 12:%s>%s(100 + 8) / 200]", repeat('=', 7, a),
             repeat(' ', 6, b));
    snprintf(want, sizeof want, "%s%s%s", s0, s1, s2);
    assert_string_equal(buf, want);
    assert_int_equal(n, 120);
}

static void test_render_narrow_has_no_bar(void **state)
{
    progress_stage s = {.stage_id = 7, .num_tasks = 40, .completed = 12, .active = 2};
    char buf[64];
    cs_progress_render(&s, 1, 20, buf, sizeof buf);
    assert_string_equal(buf, "[Stage 7:(12 + 2) / 40]");
}

static void test_render_edge_counts(void **state)
{
    char buf[128];
    /* more completions than tasks (speculation) clamp the bar; zero tasks do not divide by 0 */
    progress_stage s = {.stage_id = 1, .num_tasks = 2, .completed = 5, .active = 0};
    cs_progress_render(&s, 1, 30, buf, sizeof buf);
    assert_string_equal(buf, "[Stage 1:=========(5 + 0) / 2]");
    progress_stage z = {.stage_id = 1, .num_tasks = 0, .completed = 0, .active = 0};
    cs_progress_render(&z, 1, 30, buf, sizeof buf);
    assert_string_equal(buf, "[Stage 1:>        (0 + 0) / 0]");
    assert_int_equal(cs_progress_render(NULL, 0, 80, buf, sizeof buf), 0);
    assert_string_equal(buf, "");
}

static void test_render_truncates_like_snprintf(void **state)
{
    progress_stage s = {.stage_id = 1, .num_tasks = 40, .completed = 12, .active = 2};
    char buf[10];
    size_t n = cs_progress_render(&s, 1, 80, buf, sizeof buf);
    assert_int_equal(n, 80);
    assert_string_equal(buf, "[Stage 1:");
}

static void test_terminal_width(void **state)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    setenv("COLUMNS", "132", 1);
    assert_int_equal(cs_progress_terminal_width(p[1]), 132);
    setenv("COLUMNS", "abc", 1);
    assert_int_equal(cs_progress_terminal_width(p[1]), 80);
    unsetenv("COLUMNS");
    assert_int_equal(cs_progress_terminal_width(p[1]), 80);
    close(p[0]);
    close(p[1]);
}

static void event(progress_view *v, cs_event_kind kind, int stage, int tasks, bool ok, int64_t now,
                  cs_sbuf *out)
{
    cs_event ev = {.kind = kind, .stage_id = stage, .num_tasks = tasks, .succeeded = ok};
    cs_progress_view_event(v, &ev, now, out);
}

static const char *erase_40(char *buf)
{
    buf[0] = '\r';
    memset(buf + 1, ' ', 40);
    buf[41] = '\r';
    buf[42] = '\0';
    return buf;
}

/* The view draws "\r<bar>\r", does not redraw an unchanged line, and erases it when the stage
 * completes; all at explicit times. */
static void test_view_draws_and_erases(void **state)
{
    progress_view v;
    cs_progress_view_init(&v, 40, 0);
    cs_sbuf out = CS_SBUF_INIT;
    event(&v, CS_EV_STAGE_SUBMITTED, 3, 4, false, 1000, &out);
    for (int i = 0; i < 3; i++)
        event(&v, CS_EV_TASK_START, 3, 0, false, 1000, &out);
    event(&v, CS_EV_TASK_END, 3, 0, true, 1000, &out);
    event(&v, CS_EV_TASK_END, 3, 0, false, 1000, &out); /* a failed attempt is not completed */
    assert_int_equal(out.len, 0);
    cs_progress_view_redraw(&v, 1001, &out);
    /* 40 cols: header 9, "(1 + 1) / 4]" 12 -> w 19, 19*1/4 = 4 '=' */
    assert_string_equal(cs_sbuf_str(&out), "\r[Stage 3:====>              (1 + 1) / 4]\r");
    out.len = 0;
    cs_progress_view_redraw(&v, 1200, &out); /* unchanged: not redrawn every tick */
    assert_int_equal(out.len, 0);
    cs_progress_view_redraw(&v, 1001 + 60 * 1000 + 1, &out); /* but once a minute */
    assert_true(out.len > 0);
    out.len = 0;
    event(&v, CS_EV_STAGE_COMPLETED, 3, 4, true, 62000, &out);
    char erase[64];
    assert_string_equal(cs_sbuf_str(&out), erase_40(erase));
    out.len = 0;
    cs_progress_view_redraw(&v, 62100, &out); /* nothing shown any more */
    assert_int_equal(out.len, 0);
    cs_sbuf_free(&out);
    cs_progress_view_free(&v);
}

/* A stage is shown once it has run longer than the first delay. */
static void test_view_waits_first_delay(void **state)
{
    progress_view v;
    cs_progress_view_init(&v, 40, 500);
    cs_sbuf out = CS_SBUF_INIT;
    event(&v, CS_EV_STAGE_SUBMITTED, 1, 4, false, 10000, &out);
    event(&v, CS_EV_TASK_START, 1, 0, false, 10000, &out);
    cs_progress_view_redraw(&v, 10500, &out);
    assert_int_equal(out.len, 0);
    cs_progress_view_redraw(&v, 10501, &out);
    assert_non_null(strstr(cs_sbuf_str(&out), "[Stage 1:"));
    cs_sbuf_free(&out);
    cs_progress_view_free(&v);
}

/* A job's end erases the bar even when its stages did not complete (aborted job). */
static void test_view_erased_at_job_end(void **state)
{
    progress_view v;
    cs_progress_view_init(&v, 40, 0);
    cs_sbuf out = CS_SBUF_INIT;
    event(&v, CS_EV_STAGE_SUBMITTED, 1, 4, false, 0, &out);
    cs_progress_view_redraw(&v, 1, &out);
    assert_true(out.len > 0);
    out.len = 0;
    event(&v, CS_EV_JOB_END, 0, 0, false, 2, &out);
    char erase[64];
    assert_string_equal(cs_sbuf_str(&out), erase_40(erase));
    out.len = 0;
    event(&v, CS_EV_APPLICATION_END, 0, 0, true, 3, &out); /* nothing shown: nothing to erase */
    assert_int_equal(out.len, 0);
    cs_sbuf_free(&out);
    cs_progress_view_free(&v);
}

/* End to end, outcomes only: the redraw thread draws the bar on the terminal (bounded wait), and
 * freeing the bar erases it. */
static void test_bar_on_a_pipe(void **state)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    progress_bar *pb = cs_progress_new(p[1], 10, 0, 30);
    assert_non_null(pb);
    cs_event ev = {.kind = CS_EV_STAGE_SUBMITTED, .stage_id = 1, .num_tasks = 4};
    cs_progress_listener(pb, &ev);
    char out[8192] = "";
    size_t n = 0;
    for (int i = 0; i < 1000 && !strstr(out, "[Stage 1:"); i++) { /* up to 10 s */
        ssize_t r = read(p[0], out + n, sizeof out - 1 - n);
        if (r > 0) n += (size_t)r;
        out[n] = '\0';
        if (!strstr(out, "[Stage 1:")) usleep(10 * 1000);
    }
    assert_non_null(strstr(out, "\r[Stage 1:"));
    cs_progress_free(pb);
    ssize_t r = read(p[0], out, sizeof out - 1);
    assert_true(r >= 32);
    out[r] = '\0';
    assert_int_equal(out[r - 32], '\r'); /* the last write is the erase: \r + 30 spaces + \r */
    assert_int_equal(out[r - 1], '\r');
    close(p[0]);
    close(p[1]);
}

/* Runs fn with fd 2 redirected to a file; returns what was written (malloc'd). */
static char *capture_stderr(void (*fn)(void))
{
    char path[] = "/tmp/test_progress_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    int saved = dup(2);
    dup2(fd, 2);
    fn();
    dup2(saved, 2);
    close(saved);
    off_t len = lseek(fd, 0, SEEK_END);
    char *out = calloc(1, (size_t)len + 1);
    assert_int_equal(pread(fd, out, (size_t)len, 0), len);
    close(fd);
    unlink(path);
    return out;
}

static void run_stage_logger(void)
{
    stage_logger *sl = cs_stage_logger_new();
    cs_event sub = {.kind = CS_EV_STAGE_SUBMITTED,
                    .time_ms = 1000,
                    .stage_id = 1,
                    .num_tasks = 40,
                    .stage_name = "reduce_by_key at wordcount.so:cspark_main"};
    cs_stage_logger_listener(sl, &sub);
    cs_event task = {.kind = CS_EV_TASK_END, .stage_id = 1};
    cs_stage_logger_listener(sl, &task);
    cs_event done = {.kind = CS_EV_STAGE_COMPLETED,
                     .time_ms = 1123,
                     .stage_id = 1,
                     .succeeded = true}; /* name and tasks remembered from submission */
    cs_stage_logger_listener(sl, &done);
    cs_event sub2 = {.kind = CS_EV_STAGE_SUBMITTED,
                     .time_ms = 2000,
                     .stage_id = 2,
                     .stage_attempt = 1,
                     .num_tasks = 3,
                     .stage_name = "count at x"};
    cs_stage_logger_listener(sl, &sub2);
    cs_event fail = {.kind = CS_EV_STAGE_COMPLETED,
                     .time_ms = 2500,
                     .stage_id = 2,
                     .stage_attempt = 1,
                     .stage_name = "count at x",
                     .reason = "boom \"x\""};
    cs_stage_logger_listener(sl, &fail);
    cs_stage_logger_free(sl);
}

static void test_stage_logger_lines(void **state)
{
    char *out = capture_stderr(run_stage_logger);
    assert_non_null(strstr(out, "INFO "));
    assert_non_null(strstr(out, " scheduler stage=1 attempt=0 tasks=40 "
                                "name=\"reduce_by_key at wordcount.so:cspark_main\" "
                                "event=submitted\n"));
    assert_non_null(strstr(out, " scheduler stage=1 attempt=0 tasks=40 "
                                "name=\"reduce_by_key at wordcount.so:cspark_main\" "
                                "event=completed duration_ms=123\n"));
    assert_non_null(
        strstr(out, " scheduler stage=2 attempt=1 tasks=3 name=\"count at x\" "
                    "event=completed duration_ms=500 failed=true reason=\"boom \\\"x\\\"\"\n"));
    /* exactly four lines: task events are not logged */
    int lines = 0;
    for (char *p = out; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 4);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_render_spark_example),
        cmocka_unit_test(test_render_three_stages_share_width),
        cmocka_unit_test(test_render_narrow_has_no_bar),
        cmocka_unit_test(test_render_edge_counts),
        cmocka_unit_test(test_render_truncates_like_snprintf),
        cmocka_unit_test(test_terminal_width),
        cmocka_unit_test(test_view_draws_and_erases),
        cmocka_unit_test(test_view_waits_first_delay),
        cmocka_unit_test(test_view_erased_at_job_end),
        cmocka_unit_test(test_bar_on_a_pipe),
        cmocka_unit_test(test_stage_logger_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
