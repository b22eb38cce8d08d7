/* test_event_replay.c — the history server's side (history/event_replay.c,
 * history/history_provider.c): the synthetic application of tests/unit/ui/scenario.h written by
 * the real event log, replayed into a store, shows what the live store shows; summaries and
 * listings of a directory with a finished and an in-progress log; a half-written last line is
 * skipped; a compressed log is refused with a clear error; cached blocks, unpersisted RDDs and
 * named accumulators come back from the lines Spark writes for them; SQL queries come back from
 * the SQLExecutionStart / End lines cspark writes, with their plans and jobs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/fsutil.h"
#include "fs/codec.h"
#include "fs/fs.h"
#include "history/event_replay.h"
#include "history/history_provider.h"
#include "sched/event_log.h"
#include "sched/json_protocol.h"
#include "ui/app_status.h"
#include "ui/app_status_sql.h"

#include "../ui/scenario.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/cspark-replay-XXXXXX");
    assert_non_null(mkdtemp(dir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cs_remove_tree(dir);
    return 0;
}

static void post_log(void *arg, const cs_event *ev)
{
    cs_event_log_listener(arg, ev);
}

static void post_store(void *arg, const cs_event *ev)
{
    cs_ui_store_listener(arg, ev);
}

/* Writes the scenario's event log into dir (closed: renamed to its final name). */
static void write_log(const char *app_id)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.eventLog.dir", dir);
    cs_conf_set(c, "spark.eventLog.compress", "false"); /* the single plain file read below */
    cs_conf_set(c, "spark.eventLog.rolling.enabled", "false");
    cs_error err = {0};
    event_log *el = cs_event_log_open(c, app_id, &err);
    assert_non_null(el);
    sc_run(post_log, el);
    assert_int_equal(cs_event_log_close(el, &err), 0);
    cs_conf_free(c);
}

static void test_replay_matches_live(void **state)
{
    (void)state;
    write_log(SC_APP_ID);
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, SC_APP_ID);
    ui_store *live = cs_ui_store_new(NULL), *replayed = cs_ui_store_new(NULL);
    sc_run(post_store, live);
    char *version = NULL;
    cs_error err = {0};
    assert_int_equal(cs_replay_file(path, cs_ui_store_listener, replayed, &version, &err), 0);
    assert_non_null(version);
    free(version);
    const ui_store *s[2] = {live, replayed};
    for (int k = 0; k < 2; k++) {
        const ui_app *a = cs_ui_store_app(s[k]);
        assert_string_equal(a->id, SC_APP_ID);
        assert_true(a->completed);
        assert_int_equal(cs_ui_store_num_jobs(s[k]), 2);
        assert_int_equal(cs_ui_store_num_stages(s[k]), 3);
        assert_int_equal(cs_ui_store_num_executors(s[k]), 3);
    }
    for (int j = 0; j < 2; j++) {
        const ui_job *a = cs_ui_store_job(live, j), *b = cs_ui_store_job(replayed, j);
        assert_int_equal(a->status, b->status);
        assert_string_equal(a->name, b->name);
        assert_int_equal(a->num_tasks, b->num_tasks);
        assert_int_equal(a->completed_tasks, b->completed_tasks);
        assert_int_equal(a->failed_tasks, b->failed_tasks);
        assert_int_equal(a->killed_tasks, b->killed_tasks);
        assert_int_equal(a->skipped_stages, b->skipped_stages);
        assert_int_equal(a->submission_ms, b->submission_ms);
        assert_int_equal(a->completion_ms, b->completion_ms);
    }
    for (size_t i = 0; i < 3; i++) {
        const ui_stage *a = cs_ui_store_stage_at(live, i), *b = cs_ui_store_stage_at(replayed, i);
        assert_int_equal(a->stage_id, b->stage_id);
        assert_int_equal(a->status, b->status);
        assert_int_equal(a->num_tasks_kept, b->num_tasks_kept);
        assert_int_equal(a->complete, b->complete);
        assert_int_equal(a->failed, b->failed);
        assert_int_equal(a->killed, b->killed);
        assert_int_equal(a->num_parents, b->num_parents);
        assert_memory_equal(&a->m, &b->m, sizeof a->m);
        for (size_t t = 0; t < a->num_tasks_kept; t++) {
            assert_int_equal(a->tasks[t].task_id, b->tasks[t].task_id);
            assert_int_equal(a->tasks[t].launch_ms, b->tasks[t].launch_ms);
            assert_int_equal(a->tasks[t].finish_ms, b->tasks[t].finish_ms);
            assert_int_equal(a->tasks[t].status, b->tasks[t].status);
        }
    }
    const ui_executor *e = cs_ui_store_executor(replayed, "2");
    assert_false(e->active);
    assert_int_equal(cs_ui_store_num_props(replayed), 4);
    cs_ui_store_free(live);
    cs_ui_store_free(replayed);
}

static void write_file(const char *name, const char *text, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fwrite(text, 1, len, f);
    fclose(f);
}

static void test_listing_and_inprogress(void **state)
{
    (void)state;
    write_log(SC_APP_ID);
    /* a running application: start, a job start, and a half-written line */
    const char running[] =
        "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"0.1.0\"}\n"
        "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"live one\",\"App ID\":"
        "\"local-2\",\"Timestamp\":1790000005000,\"User\":\"bob\"}\n"
        "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Submission Time\":1790000005100,"
        "\"Stage Infos\":[{\"Stage ID\":0,\"Number of Tasks\":3,\"Stage Name\":\"count\","
        "\"Parent IDs\":[]}],\"Stage IDs\":[0],\"Properties\":{\"spark.job.description\":"
        "\"totals\",\"spark.jobGroup.id\":\"nightly\"}}\n"
        "{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":{\"Stage ID\":0,\"Stage A";
    write_file("local-2.inprogress", running, sizeof running - 1);
    write_file(".hidden", "x", 1);
    history_provider *hp = cs_history_provider_new(dir, 1);
    cs_error err = {0};
    assert_int_equal(cs_history_provider_scan(hp, &err), 0);
    ui_provider p = cs_history_provider_ui(hp);
    ui_app_entry *apps = NULL;
    size_t n = p.list(p.arg, &apps);
    assert_int_equal(n, 2);
    assert_string_equal(apps[0].id, "local-2"); /* newest first */
    assert_false(apps[0].completed);
    assert_string_equal(apps[0].user, "bob");
    assert_string_equal(apps[1].id, SC_APP_ID);
    assert_true(apps[1].completed);
    assert_int_equal(apps[1].end_ms, SC_T0 + 900);
    cs_ui_app_entries_free(apps, n);

    int64_t updated;
    ui_store *st = p.acquire(p.arg, "local-2", &updated);
    assert_non_null(st);
    cs_ui_store_lock(st);
    assert_int_equal(cs_ui_store_num_jobs(st), 1);
    assert_int_equal(cs_ui_store_job(st, 0)->status, UI_JOB_RUNNING);
    assert_string_equal(cs_ui_store_job(st, 0)->description, "totals"); /* JobStart Properties */
    assert_string_equal(cs_ui_store_job(st, 0)->group, "nightly");
    assert_false(cs_ui_store_app(st)->completed);
    cs_ui_store_unlock(st);
    /* retainedApplications=1: loading the other evicts this one, still held: stays valid */
    ui_store *st2 = p.acquire(p.arg, SC_APP_ID, &updated);
    assert_non_null(st2);
    cs_ui_store_lock(st);
    assert_int_equal(cs_ui_store_num_jobs(st), 1);
    cs_ui_store_unlock(st);
    p.release(p.arg, st);
    p.release(p.arg, st2);
    assert_null(p.acquire(p.arg, "nope", &updated));
    cs_history_provider_free(hp);
}

static void replay(ui_store *st, const char *line)
{
    assert_true(cs_replay_line(line, strlen(line), cs_ui_store_listener, st, NULL));
}

/* Storage and accumulators from Spark's own JSON: a persisted RDD's Storage Level in RDD Info,
 * a task end's Updated Blocks and Accumulables (values as strings, or numbers as older logs have
 * them), SparkListenerBlockUpdated (a second copy on another executor), StageCompleted's
 * Accumulables, SparkListenerUnpersistRDD; internal accumulators are left out. */
static void test_storage_and_accumulables(void **state)
{
    (void)state;
    ui_store *st = cs_ui_store_new(NULL);
    replay(st, "{\"Event\":\"SparkListenerExecutorAdded\",\"Executor ID\":\"1\",\"Executor Info\":"
               "{\"Host\":\"h1\",\"Total Cores\":1}}");
    replay(st, "{\"Event\":\"SparkListenerExecutorAdded\",\"Executor ID\":\"2\",\"Executor Info\":"
               "{\"Host\":\"h2\",\"Total Cores\":1}}");
    const char *level = "{\"Use Disk\":true,\"Use Memory\":true,\"Deserialized\":true,"
                        "\"Replication\":1}";
    char line[2048];
    snprintf(line, sizeof line,
             "{\"Event\":\"SparkListenerStageSubmitted\",\"Stage Info\":{\"Stage ID\":0,"
             "\"Stage Attempt ID\":0,\"Stage Name\":\"count\",\"Number of Tasks\":2,"
             "\"RDD Info\":[{\"RDD ID\":7,\"Name\":\"cached\",\"Number of Partitions\":2,"
             "\"Storage Level\":%s,\"Parent IDs\":[]}],\"Parent IDs\":[],"
             "\"Submission Time\":1000,\"Accumulables\":[]}}",
             level);
    replay(st, line);
    snprintf(line, sizeof line,
             "{\"Event\":\"SparkListenerTaskEnd\",\"Stage ID\":0,\"Stage Attempt ID\":0,"
             "\"Task Type\":\"ResultTask\",\"Task End Reason\":{\"Reason\":\"Success\"},"
             "\"Task Info\":{\"Task ID\":1,\"Index\":0,\"Attempt\":0,\"Launch Time\":1000,"
             "\"Executor ID\":\"1\",\"Host\":\"h1\",\"Finish Time\":1100,\"Accumulables\":["
             "{\"ID\":4,\"Name\":\"rows\",\"Update\":3,\"Value\":3,\"Internal\":false},"
             "{\"ID\":9,\"Name\":\"internal.metrics.executorRunTime\",\"Update\":5,"
             "\"Value\":5,\"Internal\":true}]},"
             "\"Task Metrics\":{\"Updated Blocks\":[{\"Block ID\":\"rdd_7_0\",\"Status\":"
             "{\"Storage Level\":%s,\"Memory Size\":64,\"Disk Size\":0}},"
             "{\"Block ID\":\"broadcast_0\",\"Status\":{\"Storage Level\":%s,"
             "\"Memory Size\":8,\"Disk Size\":0}}]}}",
             level, level);
    replay(st, line);
    snprintf(
        line, sizeof line,
        "{\"Event\":\"SparkListenerBlockUpdated\",\"Block Updated Info\":{\"Block Manager ID\":"
        "{\"Executor ID\":\"2\",\"Host\":\"h2\",\"Port\":7079},\"Block ID\":\"rdd_7_0\","
        "\"Storage Level\":%s,\"Memory Size\":0,\"Disk Size\":32}}",
        level);
    replay(st, line);
    replay(st, "{\"Event\":\"SparkListenerStageCompleted\",\"Stage Info\":{\"Stage ID\":0,"
               "\"Stage Attempt ID\":0,\"Stage Name\":\"count\",\"Number of Tasks\":2,"
               "\"RDD Info\":[],\"Parent IDs\":[],\"Completion Time\":1200,\"Accumulables\":["
               "{\"ID\":4,\"Name\":\"rows\",\"Value\":\"6\",\"Internal\":false}]}}");
    cs_ui_store_lock(st);
    const ui_rdd *r = cs_ui_store_rdd(st, 7);
    assert_non_null(r);
    assert_string_equal(r->name, "cached");
    assert_string_equal(r->storage_level, "Disk Memory Deserialized 1x Replicated");
    assert_int_equal(r->num_cached_partitions, 1);
    assert_int_equal(r->num_parts, 1);
    assert_int_equal(r->parts[0].num_copies, 2);
    assert_int_equal(r->memory_used, 64);
    assert_int_equal(r->disk_used, 32);
    assert_int_equal(cs_ui_store_executor(st, "1")->memory_used, 64);
    assert_int_equal(cs_ui_store_executor(st, "2")->disk_used, 32);
    const ui_stage *s = cs_ui_store_stage(st, 0, 0);
    assert_int_equal(s->num_accums, 1); /* the internal one left out */
    assert_string_equal(s->accums[0].name, "rows");
    assert_string_equal(s->accums[0].value, "6");
    assert_int_equal(s->tasks[0].num_accums, 1);
    assert_string_equal(s->tasks[0].accums[0].update, "3");
    cs_ui_store_unlock(st);
    replay(st, "{\"Event\":\"SparkListenerUnpersistRDD\",\"RDD ID\":7}");
    cs_ui_store_lock(st);
    assert_null(cs_ui_store_rdd(st, 7));
    assert_int_equal(cs_ui_store_executor(st, "1")->rdd_blocks, 0);
    assert_int_equal(cs_ui_store_executor(st, "2")->disk_used, 0);
    cs_ui_store_unlock(st);
    cs_ui_store_free(st);
}

/* A log compressed with a codec of Spark's that cspark cannot read (.lz4: Spark's LZ4 block
 * stream) is refused with one clear error naming it; the directory scan skips it. */
static void test_unreadable_codec_refused(void **state)
{
    (void)state;
    write_file("app-lz4.lz4", "LZ4Block", 8);
    char path[512];
    snprintf(path, sizeof path, "%s/app-lz4.lz4", dir);
    replay_summary sum;
    cs_error err = {0};
    assert_int_not_equal(cs_replay_summary_read(path, &sum, &err), 0);
    assert_non_null(strstr(err.msg, "app-lz4.lz4"));
    assert_non_null(strstr(err.msg, "zstd"));
    history_provider *hp = cs_history_provider_new(dir, 50);
    assert_int_equal(cs_history_provider_scan(hp, &err), 0);
    ui_provider p = cs_history_provider_ui(hp);
    ui_app_entry *apps = NULL;
    assert_int_equal(p.list(p.arg, &apps), 0);
    cs_ui_app_entries_free(apps, 0);
    cs_history_provider_free(hp);
}

/* Writes name under dir compressed with zstd, as the event log writer does. */
static void write_zstd(const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cs_error err = {0};
    cs_fs_writer *w = cs_fs_create(path, path, cs_codec_for_name("zstd"), &err);
    assert_non_null(w);
    assert_int_equal(cs_fs_write(w, text, strlen(text), &err), 0);
    assert_int_equal(cs_fs_writer_finish(w, NULL, &err), 0);
}

/* Spark's rolled layout, zstd-compressed: eventlog_v2_<app>/ with its events files read in index
 * order (events_2 before events_10) as one log, running while its appstatus is .inprogress and
 * complete once it is not; and a single <app>.zstd file. */
static void test_rolled_zstd_log_replayed(void **state)
{
    (void)state;
    char sub[512];
    snprintf(sub, sizeof sub, "%s/eventlog_v2_local-3", dir);
    assert_int_equal(mkdir(sub, 0770), 0);
    write_zstd("eventlog_v2_local-3/events_2_local-3.zstd",
               "{\"Event\":\"SparkListenerLogStart\",\"Spark Version\":\"0.1.0\"}\n"
               "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"rolled\","
               "\"App ID\":\"local-3\",\"Timestamp\":1790000005000,\"User\":\"ann\"}\n");
    write_zstd("eventlog_v2_local-3/events_10_local-3.zstd",
               "{\"Event\":\"SparkListenerJobStart\",\"Job ID\":0,\"Submission Time\":"
               "1790000005100,\"Stage Infos\":[],\"Stage IDs\":[]}\n");
    write_file("eventlog_v2_local-3/appstatus_local-3.inprogress", "", 0);
    write_zstd("local-4.zstd",
               "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"single\","
               "\"App ID\":\"local-4\",\"Timestamp\":1790000001000,\"User\":\"ann\"}\n"
               "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":1790000002000}\n");
    history_provider *hp = cs_history_provider_new(dir, 50);
    cs_error err = {0};
    assert_int_equal(cs_history_provider_scan(hp, &err), 0);
    ui_provider p = cs_history_provider_ui(hp);
    ui_app_entry *apps = NULL;
    size_t n = p.list(p.arg, &apps);
    assert_int_equal(n, 2);
    assert_string_equal(apps[0].id, "local-3");
    assert_false(apps[0].completed);
    assert_string_equal(apps[1].id, "local-4");
    assert_true(apps[1].completed);
    assert_int_equal(apps[1].end_ms, 1790000002000);
    cs_ui_app_entries_free(apps, n);
    int64_t updated;
    ui_store *st = p.acquire(p.arg, "local-3", &updated);
    assert_non_null(st);
    cs_ui_store_lock(st);
    assert_int_equal(cs_ui_store_num_jobs(st), 1); /* from the second file */
    assert_string_equal(cs_ui_store_app(st)->name, "rolled");
    cs_ui_store_unlock(st);
    p.release(p.arg, st);

    /* the application completed: its status file loses .inprogress */
    char from[600], to[600];
    snprintf(from, sizeof from, "%s/appstatus_local-3.inprogress", sub);
    snprintf(to, sizeof to, "%s/appstatus_local-3", sub);
    assert_int_equal(rename(from, to), 0);
    write_zstd("eventlog_v2_local-3/events_11_local-3.zstd",
               "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":1790000009000}\n");
    assert_int_equal(cs_history_provider_scan(hp, &err), 0);
    n = p.list(p.arg, &apps);
    assert_int_equal(n, 2);
    assert_string_equal(apps[0].id, "local-3");
    assert_true(apps[0].completed);
    cs_ui_app_entries_free(apps, n);
    cs_history_provider_free(hp);
}

/* Writes a completed (or, ended false, running) application's log dir/name, modified at mtime_s. */
static void app_log(const char *name, const char *id, bool ended, int64_t mtime_s)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"Event\":\"SparkListenerApplicationStart\",\"App Name\":\"a\",\"App ID\":"
             "\"%s\",\"Timestamp\":1790000001000,\"User\":\"ann\"}\n%s",
             id,
             ended ? "{\"Event\":\"SparkListenerApplicationEnd\",\"Timestamp\":1790000002000}\n"
                   : "");
    write_file(name, text, strlen(text));
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct timespec t[2] = {{(time_t)mtime_s, 0}, {(time_t)mtime_s, 0}};
    assert_int_equal(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* Spark's cleaner (spark.history.fs.cleaner.maxAge / maxNum): logs older than maxAge go, running
 * or not; then, over maxNum, the oldest completed ones; running ones stay. */
static void test_cleaner_max_age_and_num(void **state)
{
    (void)state;
    const int64_t day = 86400;
    app_log("old-done", "old-done", true, 1000 * day);
    app_log("old-running.inprogress", "old-running", false, 1000 * day);
    app_log("a-done", "a-done", true, 1005 * day);
    app_log("b-running.inprogress", "b-running", false, 1006 * day);
    app_log("c-done", "c-done", true, 1007 * day);
    history_provider *hp = cs_history_provider_new(dir, 50);
    cs_error err = {0};
    assert_int_equal(cs_history_provider_scan(hp, &err), 0);
    /* now: day 1008; maxAge 7 days: the two from day 1000 go */
    assert_int_equal(cs_history_provider_clean(hp, 1008 * day * 1000, 7 * day * 1000, INT32_MAX),
                     2);
    char path[512];
    snprintf(path, sizeof path, "%s/old-done", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/old-running.inprogress", dir);
    assert_int_not_equal(access(path, F_OK), 0);
    /* maxNum 1: the completed ones go, oldest first, the running one stays */
    assert_int_equal(cs_history_provider_clean(hp, 1008 * day * 1000, 7 * day * 1000, 1), 2);
    ui_provider p = cs_history_provider_ui(hp);
    ui_app_entry *apps = NULL;
    size_t n = p.list(p.arg, &apps);
    assert_int_equal(n, 1);
    assert_string_equal(apps[0].id, "b-running");
    cs_ui_app_entries_free(apps, n);
    cs_history_provider_free(hp);
}

typedef struct seen_lines {
    int n;
    size_t longest;
} seen_lines;

static int count_line(void *ctx, const char *line, size_t len)
{
    (void)line;
    seen_lines *s = ctx;
    s->n++;
    if (len > s->longest) s->longest = len;
    return 0;
}

/* Regression (issue 21 item 6): a line was read whole before the 64 MiB check, so a 1 GiB line
 * cost 1 GiB. Lines over the cap are counted and skipped without being held; a final line
 * without its newline still arrives. */
static void test_overlong_line_skipped_unheld(void **state)
{
    (void)state;
    size_t big = 300 * 1024; /* over several read chunks */
    size_t cap = 2 * big + 64;
    char *text = malloc(cap);
    size_t n = 0;
    n += (size_t)snprintf(text + n, cap - n, "{\"a\":1}\r\n\n");
    memset(text + n, 'x', big);
    n += big;
    text[n++] = '\n';
    n += (size_t)snprintf(text + n, cap - n, "{\"b\":2}\n{\"c\":");
    FILE *f = fmemopen(text, n, "r");
    seen_lines seen = {0};
    replay_stats st = {0};
    assert_int_equal(cs_replay_each_line(f, 1024, count_line, &seen, &st), 0);
    fclose(f);
    assert_int_equal(seen.n, 3); /* {"a":1}, {"b":2} and the unterminated {"c": */
    assert_true(seen.longest <= 1024);
    assert_int_equal(st.overlong, 1);
    assert_int_equal(st.first_bad_line, 3);
    assert_int_equal(st.lines, 5);
    assert_true(st.last_unterminated);
    assert_int_equal(st.read_error, 0);
    free(text);
}

/* A SQL query as the event log writes it (json_protocol.c) and back: the statement, the plan
 * text and graph, the job carrying spark.sql.execution.id, the end's errorMessage ("" for
 * success, Spark 4's form); a failed query's message; Spark's own Start fields parse too. */
static void test_sql_queries_replayed(void **state)
{
    (void)state;
    cs_error err = {0};
    cs_json_protocol *jp = cs_json_protocol_new(NULL, &err);
    assert_non_null(jp);
    const char *props[] = {"spark.sql.execution.id", "4"};
    int stage = 0;
    cs_event evs[] = {
        {.kind = CS_EV_SQL_EXECUTION_START,
         .job_id = -1,
         .sql_execution_id = 4,
         .sql_description = "SELECT count(*) FROM range(3)",
         .sql_plan = "== Physical Plan ==\nHashAggregate(keys=[], functions=[count(1)])\n",
         .sql_plan_info = "{\"nodeName\":\"HashAggregate\",\"simpleString\":\"HashAggregate"
                          "(keys=[], functions=[count(1)])\",\"children\":[{\"nodeName\":"
                          "\"Range\",\"simpleString\":\"Range (0, 3, step=1, splits=1)\","
                          "\"children\":[],\"metadata\":{},\"metrics\":[]}],\"metadata\":{},"
                          "\"metrics\":[]}",
         .time_ms = 1790000000100},
        {.kind = CS_EV_JOB_START,
         .job_id = 0,
         .stage_ids = &stage,
         .num_stage_ids = 1,
         .stage_name = "collect at SQL execution 4",
         .job_properties = props,
         .num_job_properties = 1,
         .time_ms = 1790000000110},
        {.kind = CS_EV_JOB_END, .job_id = 0, .succeeded = true, .time_ms = 1790000000150},
        {.kind = CS_EV_SQL_EXECUTION_END,
         .job_id = -1,
         .sql_execution_id = 4,
         .succeeded = true,
         .time_ms = 1790000000160},
        {.kind = CS_EV_SQL_EXECUTION_START,
         .job_id = -1,
         .sql_execution_id = 5,
         .sql_description = "SELECT 1/0",
         .time_ms = 1790000000200},
        {.kind = CS_EV_SQL_EXECUTION_END,
         .job_id = -1,
         .sql_execution_id = 5,
         .reason = "[DIVIDE_BY_ZERO] Division by zero.",
         .time_ms = 1790000000210},
    };
    ui_store *st = cs_ui_store_new(NULL);
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++) {
        json_t *o = cs_json_protocol_event(jp, &evs[i]);
        assert_non_null(o);
        if (evs[i].kind == CS_EV_SQL_EXECUTION_END) /* Spark 4: always there, "" for success */
            assert_string_equal(json_string_value(json_object_get(o, "errorMessage")),
                                evs[i].succeeded ? "" : evs[i].reason);
        char *line = json_dumps(o, JSON_COMPACT);
        replay(st, line);
        free(line);
        json_decref(o);
    }
    /* Spark 4.0's own start line (its extra fields are ignored) */
    replay(st, "{\"Event\":\"org.apache.spark.sql.execution.ui.SparkListenerSQLExecutionStart\","
               "\"executionId\":6,\"rootExecutionId\":6,\"description\":\"show\",\"details\":"
               "\"x\",\"physicalPlanDescription\":\"== Physical Plan ==\\nLocalTableScan\","
               "\"sparkPlanInfo\":{\"nodeName\":\"LocalTableScan\",\"simpleString\":"
               "\"LocalTableScan [a]\",\"children\":[],\"metadata\":{},\"metrics\":[{\"name\":"
               "\"number of output rows\",\"accumulatorId\":3,\"metricType\":\"sum\"}]},"
               "\"time\":1790000000300,\"modifiedConfigs\":{},\"jobTags\":[],\"jobGroupId\":null}");
    cs_ui_store_lock(st);
    assert_int_equal(cs_ui_store_num_sql(st), 3);
    const ui_sql_exec *e = cs_ui_store_sql(st, 4);
    assert_string_equal(e->description, "SELECT count(*) FROM range(3)");
    assert_string_equal(e->plan_description,
                        "== Physical Plan ==\nHashAggregate(keys=[], functions=[count(1)])\n");
    assert_int_equal(e->submission_ms, 1790000000100);
    assert_int_equal(e->completion_ms, 1790000000160);
    assert_int_equal(cs_ui_sql_status(e), UI_SQL_COMPLETED);
    assert_int_equal(e->num_nodes, 2);
    assert_string_equal(e->nodes[1].name, "Range");
    assert_int_equal(e->nodes[1].parent, 0);
    assert_int_equal(e->num_jobs, 1);
    assert_int_equal(e->job_status[0], UI_JOB_SUCCEEDED);
    assert_int_equal(cs_ui_store_job(st, 0)->sql_execution_id, 4);
    e = cs_ui_store_sql(st, 5);
    assert_int_equal(cs_ui_sql_status(e), UI_SQL_FAILED);
    assert_string_equal(e->error, "[DIVIDE_BY_ZERO] Division by zero.");
    e = cs_ui_store_sql(st, 6);
    assert_int_equal(cs_ui_sql_status(e), UI_SQL_RUNNING);
    assert_string_equal(e->nodes[0].desc, "LocalTableScan [a]");
    cs_ui_store_unlock(st);
    cs_ui_store_free(st);
    cs_json_protocol_free(jp);
}

/* Each ended attempt's Task Info says how it ended as Spark's TaskInfo does: a killed attempt
 * (TaskKilled, e.g. the other tasks of a job that failed) "Killed" and not "Failed", else Spark's
 * History Server shows it FAILED; a failed one "Failed"; a successful one neither. */
static void test_task_info_killed_not_failed(void **state)
{
    (void)state;
    cs_error err = {0};
    cs_json_protocol *jp = cs_json_protocol_new(NULL, &err);
    assert_non_null(jp);
    cs_task_end_reason killed = {.kind = CS_END_TASK_KILLED};
    cs_task_end_reason thrown = {.kind = CS_END_EXCEPTION};
    const struct {
        const cs_task_end_reason *reason;
        bool succeeded, want_failed, want_killed;
    } ends[] = {{&killed, false, false, true},
                {&thrown, false, true, false},
                {NULL, false, true, false},
                {NULL, true, false, false}};
    for (int i = 0; i < (int)(sizeof ends / sizeof ends[0]); i++) {
        cs_event start = {.kind = CS_EV_TASK_START,
                          .job_id = -1,
                          .task_id = i,
                          .partition = i,
                          .executor_id = "1",
                          .host = "localhost",
                          .time_ms = 1790000000000};
        json_decref(cs_json_protocol_event(jp, &start));
        cs_event end = start;
        end.kind = CS_EV_TASK_END;
        end.time_ms = 1790000000100;
        end.succeeded = ends[i].succeeded;
        end.end_reason = ends[i].reason;
        end.reason = ends[i].succeeded ? NULL : "stopped";
        json_t *o = cs_json_protocol_event(jp, &end);
        assert_non_null(o);
        json_t *info = json_object_get(o, "Task Info");
        assert_int_equal(json_is_true(json_object_get(info, "Failed")), ends[i].want_failed);
        assert_int_equal(json_is_true(json_object_get(info, "Killed")), ends[i].want_killed);
        json_decref(o);
    }
    cs_json_protocol_free(jp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_replay_matches_live, setup, teardown),
        cmocka_unit_test_setup_teardown(test_listing_and_inprogress, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unreadable_codec_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rolled_zstd_log_replayed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cleaner_max_age_and_num, setup, teardown),
        cmocka_unit_test(test_storage_and_accumulables),
        cmocka_unit_test(test_overlong_line_skipped_unheld),
        cmocka_unit_test(test_sql_queries_replayed),
        cmocka_unit_test(test_task_info_killed_not_failed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
