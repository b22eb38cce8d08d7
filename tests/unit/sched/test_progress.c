/* test_progress.c — unit tests for the console progress bar (progress.c): the exact line
 * rendered by cs_progress_render for given counts and widths, the redraw thread writing "\r<bar>\r"
 * and erasing it when stages finish, the first-delay rule, terminal width, and the stage logger. */
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

static size_t drain(int fd, char *buf, size_t cap, size_t have)
{
    for (;;) {
        ssize_t r = read(fd, buf + have, cap - 1 - have);
        if (r <= 0) break;
        have += (size_t)r;
    }
    buf[have] = '\0';
    return have;
}

static void post(progress_bar *pb, cs_event_kind kind, int stage, int tasks, bool ok)
{
    cs_event ev = {.kind = kind, .stage_id = stage, .num_tasks = tasks, .succeeded = ok};
    cs_progress_listener(pb, &ev);
}

static void test_bar_draws_and_erases(void **state)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    progress_bar *pb = cs_progress_new(p[1], 20, 0, 40);
    assert_non_null(pb);
    post(pb, CS_EV_STAGE_SUBMITTED, 3, 4, false);
    for (int i = 0; i < 3; i++)
        post(pb, CS_EV_TASK_START, 3, 0, false);
    post(pb, CS_EV_TASK_END, 3, 0, true);
    post(pb, CS_EV_TASK_END, 3, 0, false); /* a failed attempt is not completed */
    usleep(150 * 1000);
    char out[8192];
    size_t n = drain(p[0], out, sizeof out, 0);
    /* 40 cols: header 9, "(1 + 1) / 4]" 12 -> w 19, 19*1/4 = 4 '=' */
    const char *want = "\r[Stage 3:====>              (1 + 1) / 4]\r";
    assert_non_null(strstr(out, want));
    /* unchanged line is not redrawn every tick */
    assert_null(strstr(strstr(out, want) + strlen(want), "[Stage"));

    post(pb, CS_EV_STAGE_COMPLETED, 3, 4, true);
    n = drain(p[0], out, sizeof out, 0);
    char erase[64];
    erase[0] = '\r';
    memset(erase + 1, ' ', 40);
    erase[41] = '\r';
    erase[42] = '\0';
    assert_int_equal(n, 42);
    assert_string_equal(out, erase);
    cs_progress_free(pb);
    n = drain(p[0], out, sizeof out, 0);
    assert_int_equal(n, 0); /* nothing shown any more: free writes nothing */
    close(p[0]);
    close(p[1]);
}

static void test_bar_waits_first_delay(void **state)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    progress_bar *pb = cs_progress_new(p[1], 10, 10 * 1000, 40);
    post(pb, CS_EV_STAGE_SUBMITTED, 1, 4, false);
    post(pb, CS_EV_TASK_START, 1, 0, false);
    usleep(100 * 1000);
    char out[1024];
    assert_int_equal(drain(p[0], out, sizeof out, 0), 0);
    cs_progress_free(pb);
    close(p[0]);
    close(p[1]);
}

static void test_bar_erased_on_free(void **state)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    progress_bar *pb = cs_progress_new(p[1], 10, 0, 30);
    post(pb, CS_EV_STAGE_SUBMITTED, 1, 4, false);
    usleep(100 * 1000);
    char out[4096];
    size_t n = drain(p[0], out, sizeof out, 0);
    assert_true(n > 0);
    cs_progress_free(pb);
    n = drain(p[0], out, sizeof out, 0);
    assert_int_equal(n, 32);
    assert_int_equal(out[0], '\r');
    assert_int_equal(out[31], '\r');
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
    assert_non_null(strstr(out,
                           " scheduler stage=2 attempt=1 tasks=3 name=\"count at x\" "
                           "event=completed duration_ms=500 failed=true reason=\"boom 'x'\"\n"));
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
        cmocka_unit_test(test_bar_draws_and_erases),
        cmocka_unit_test(test_bar_waits_first_delay),
        cmocka_unit_test(test_bar_erased_on_free),
        cmocka_unit_test(test_stage_logger_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
