/* test_event_log.c — unit tests for the event log (event_log.c) through the listener bus: the
 * file is <dir>/<app>.inprogress while running and <dir>/<app> after cs_listener_bus_free, each
 * line is a JSON object with Spark's event name and the fields the history server reads, Spark
 * Properties are redacted, directory forms (file:/, file:///, plain) are accepted, and a bad
 * directory or an existing log fails with a message naming spark.eventLog.dir. */
#include <jansson.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "sched/event_log.h"
#include "sched/event_log_reader.h"
#include "sched/listener.h"

static char *make_dir(void)
{
    char tmpl[] = "/tmp/test_event_log_XXXXXX";
    char *d = mkdtemp(tmpl);
    assert_non_null(d);
    return strdup(d);
}

static void remove_dir(const char *dir)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static bool exists(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

/* The single-file, uncompressed format most tests here read line by line: compression and
 * rolling, on by default as in Spark 4, are set off (test_default_layout checks the defaults). */
static cs_conf *log_conf(const char *dir_value)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.ui.showConsoleProgress", "false");
    cs_conf_set(c, "spark.eventLog.enabled", "true");
    cs_conf_set(c, "spark.eventLog.compress", "false");
    cs_conf_set(c, "spark.eventLog.rolling.enabled", "false");
    if (dir_value) cs_conf_set(c, "spark.eventLog.dir", dir_value);
    return c;
}

/* Reads every line of dir/name as JSON; returns an array (caller json_decref). */
static json_t *read_lines(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    json_t *arr = json_array();
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, f)) > 0) {
        assert_int_equal(line[n - 1], '\n');
        json_error_t je;
        json_t *o = json_loads(line, 0, &je);
        if (!o) fail_msg("line is not JSON: %s (%s)", line, je.text);
        assert_true(json_is_object(o));
        json_array_append_new(arr, o);
    }
    free(line);
    fclose(f);
    return arr;
}

static const char *sget(json_t *o, const char *path)
{
    /* path like "Task Info/Executor ID" */
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = o;
    for (char *tok = strtok(buf, "/"); tok; tok = strtok(NULL, "/"))
        cur = json_object_get(cur, tok);
    if (!json_is_string(cur)) fail_msg("%s is not a string", path);
    return json_string_value(cur);
}

static json_int_t iget(json_t *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = o;
    for (char *tok = strtok(buf, "/"); tok; tok = strtok(NULL, "/"))
        cur = json_object_get(cur, tok);
    if (!json_is_integer(cur)) fail_msg("%s is not an integer", path);
    return json_integer_value(cur);
}

static json_t *jget(json_t *o, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *cur = o;
    for (char *tok = strtok(buf, "/"); tok; tok = strtok(NULL, "/"))
        cur = json_object_get(cur, tok);
    return cur;
}

static void post_application(listener_bus *bus)
{
    cs_conf *env = cs_conf_new();
    cs_conf_set(env, "spark.app.name", "wordcount");
    cs_conf_set(env, "spark.kubernetes.authenticate.oauthToken", "abc123");
    cs_conf_set(env, "spark.ssl.keyPassword", "hunter2");
    cs_conf_set(env, "spark.executor.instances", "2");

    cs_event ev;
    ev = (cs_event){.kind = CS_EV_APPLICATION_START,
                    .time_ms = 1000,
                    .app_id = "spark-abc",
                    .app_name = "wordcount",
                    .user = "alice"};
    cs_listener_bus_post(bus, &ev);
    ev = (cs_event){.kind = CS_EV_ENVIRONMENT_UPDATE, .time_ms = 1001, .conf = env};
    cs_listener_bus_post(bus, &ev);
    cs_conf_free(env);
    ev = (cs_event){.kind = CS_EV_EXECUTOR_ADDED,
                    .time_ms = 1002,
                    .executor_id = "1",
                    .host = "10.0.0.7",
                    .executor_cores = 4};
    cs_listener_bus_post(bus, &ev);
    int ids[2] = {0, 1}, tasks[2] = {2, 1};
    const char *stage_names[] = {"reduce_by_key at wordcount.so:cspark_main",
                                 "save_as_text_file at wordcount.so:cspark_main"};
    const char *job_props[] = {"spark.job.description", "word counts", "spark.jobGroup.id",
                               "nightly"};
    ev = (cs_event){.kind = CS_EV_JOB_START,
                    .time_ms = 1010,
                    .job_id = 0,
                    .stage_ids = ids,
                    .num_stage_ids = 2,
                    .stage_num_tasks = tasks,
                    .stage_names = stage_names,
                    .job_properties = job_props,
                    .num_job_properties = 2,
                    .stage_name = "save_as_text_file at wordcount.so:cspark_main"};
    cs_listener_bus_post(bus, &ev);
    ev = (cs_event){.kind = CS_EV_STAGE_SUBMITTED,
                    .time_ms = 1020,
                    .stage_id = 0,
                    .num_tasks = 2,
                    .stage_name = "reduce_by_key at wordcount.so:cspark_main"};
    cs_listener_bus_post(bus, &ev);
    ev = (cs_event){.kind = CS_EV_TASK_START,
                    .time_ms = 1030,
                    .stage_id = 0,
                    .task_id = 0,
                    .partition = 0,
                    .executor_id = "1",
                    .host = "10.0.0.7"};
    cs_listener_bus_post(bus, &ev);
    ev = (cs_event){.kind = CS_EV_TASK_START,
                    .time_ms = 1031,
                    .stage_id = 0,
                    .task_id = 1,
                    .partition = 1,
                    .executor_id = "1",
                    .host = "10.0.0.7"};
    cs_listener_bus_post(bus, &ev);
    ev = (cs_event){.kind = CS_EV_TASK_END,
                    .time_ms = 1100,
                    .stage_id = 0,
                    .task_id = 0,
                    .partition = 0,
                    .executor_id = "1",
                    .host = "10.0.0.7",
                    .task_type = "ShuffleMapTask",
                    .succeeded = true,
                    .metrics = {.run_time_ms = 60,
                                .cpu_time_ns = 55000000,
                                .bytes_read = 4096,
                                .records_read = 100,
                                .shuffle_bytes_written = 777,
                                .shuffle_records_written = 33,
                                .peak_execution_memory = 1 << 20}};
    cs_listener_bus_post(bus, &ev);
    ev = (cs_event){.kind = CS_EV_TASK_END,
                    .time_ms = 1101,
                    .stage_id = 0,
                    .task_id = 1,
                    .partition = 1,
                    .executor_id = "1",
                    .host = "10.0.0.7",
                    .task_type = "ShuffleMapTask",
                    .succeeded = false,
                    .reason = "cspark_task_fail: bad record at line 7"};
    cs_listener_bus_post(bus, &ev);
    ev = (cs_event){.kind = CS_EV_STAGE_COMPLETED,
                    .time_ms = 1200,
                    .stage_id = 0,
                    .succeeded = false,
                    .reason = "Task 1 in stage 0 failed 4 times"};
    cs_listener_bus_post(bus, &ev);
    ev = (cs_event){.kind = CS_EV_JOB_END,
                    .time_ms = 1201,
                    .job_id = 0,
                    .succeeded = false,
                    .reason = "Job aborted due to stage failure"};
    cs_listener_bus_post(bus, &ev);
    ev = (cs_event){.kind = CS_EV_JOB_END, .time_ms = 1300, .job_id = 1, .succeeded = true};
    cs_listener_bus_post(bus, &ev);
    ev = (cs_event){.kind = CS_EV_EXECUTOR_REMOVED,
                    .time_ms = 1400,
                    .executor_id = "1",
                    .reason = "pod deleted"};
    cs_listener_bus_post(bus, &ev);
    ev = (cs_event){.kind = CS_EV_APPLICATION_END, .time_ms = 1500};
    cs_listener_bus_post(bus, &ev);
}

static void test_full_application_log(void **state)
{
    char *dir = make_dir();
    char uri[600];
    snprintf(uri, sizeof uri, "file:%s", dir);
    cs_conf *c = log_conf(uri);
    cs_error err = {0};
    listener_bus *bus = cs_listener_bus_new(c, "spark-abc", "wordcount", &err);
    if (!bus) fail_msg("%s", err.msg);
    const char *path = cs_listener_bus_event_log_path(bus);
    assert_non_null(path);
    assert_non_null(strstr(path, "/spark-abc.inprogress"));
    assert_true(exists(dir, "spark-abc.inprogress"));
    assert_false(exists(dir, "spark-abc"));

    post_application(bus);
    cs_listener_bus_flush(bus);
    /* flushed at job end: complete lines are already on disk while running */
    json_t *mid = read_lines(dir, "spark-abc.inprogress");
    assert_true(json_array_size(mid) >= 13);
    json_decref(mid);

    cs_listener_bus_free(bus);
    assert_false(exists(dir, "spark-abc.inprogress"));
    assert_true(exists(dir, "spark-abc"));

    json_t *l = read_lines(dir, "spark-abc");
    const char *names[] = {
        "SparkListenerLogStart",
        "SparkListenerApplicationStart",
        "SparkListenerEnvironmentUpdate",
        "SparkListenerExecutorAdded",
        "SparkListenerJobStart",
        "SparkListenerStageSubmitted",
        "SparkListenerTaskStart",
        "SparkListenerTaskStart",
        "SparkListenerTaskEnd",
        "SparkListenerTaskEnd",
        "SparkListenerStageCompleted",
        "SparkListenerJobEnd",
        "SparkListenerJobEnd",
        "SparkListenerExecutorRemoved",
        "SparkListenerApplicationEnd",
    };
    size_t n = sizeof names / sizeof names[0];
    assert_int_equal(json_array_size(l), n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(sget(json_array_get(l, i), "Event"), names[i]);

    json_t *e = json_array_get(l, 0);
    assert_true(strlen(sget(e, "Spark Version")) > 0);

    e = json_array_get(l, 1);
    assert_string_equal(sget(e, "App Name"), "wordcount");
    assert_string_equal(sget(e, "App ID"), "spark-abc");
    assert_int_equal(iget(e, "Timestamp"), 1000);
    assert_string_equal(sget(e, "User"), "alice");

    e = json_array_get(l, 2);
    assert_string_equal(sget(e, "Spark Properties/spark.app.name"), "wordcount");
    assert_string_equal(sget(e, "Spark Properties/spark.executor.instances"), "2");
    assert_string_equal(sget(e, "Spark Properties/spark.kubernetes.authenticate.oauthToken"),
                        "*********(redacted)");
    assert_string_equal(sget(e, "Spark Properties/spark.ssl.keyPassword"), "*********(redacted)");
    assert_true(json_is_object(jget(e, "JVM Information")));
    assert_true(json_is_object(jget(e, "System Properties")));
    assert_true(json_is_object(jget(e, "Classpath Entries")));

    e = json_array_get(l, 3);
    assert_string_equal(sget(e, "Executor ID"), "1");
    assert_int_equal(iget(e, "Timestamp"), 1002);
    assert_string_equal(sget(e, "Executor Info/Host"), "10.0.0.7");
    assert_int_equal(iget(e, "Executor Info/Total Cores"), 4);

    e = json_array_get(l, 4);
    assert_int_equal(iget(e, "Job ID"), 0);
    assert_int_equal(iget(e, "Submission Time"), 1010);
    assert_int_equal(json_array_size(jget(e, "Stage IDs")), 2);
    assert_int_equal(json_integer_value(json_array_get(jget(e, "Stage IDs"), 1)), 1);
    json_t *infos = jget(e, "Stage Infos");
    assert_int_equal(json_array_size(infos), 2);
    assert_int_equal(iget(json_array_get(infos, 0), "Number of Tasks"), 2);
    assert_string_equal(sget(json_array_get(infos, 1), "Stage Name"),
                        "save_as_text_file at wordcount.so:cspark_main");
    assert_string_equal(sget(json_array_get(infos, 0), "Stage Name"), /* every stage's name */
                        "reduce_by_key at wordcount.so:cspark_main");
    assert_true(json_is_array(jget(json_array_get(infos, 0), "RDD Info")));
    assert_string_equal(sget(e, "Properties/spark.job.description"), "word counts");
    assert_string_equal(sget(e, "Properties/spark.jobGroup.id"), "nightly");

    e = json_array_get(l, 5);
    assert_int_equal(iget(e, "Stage Info/Stage ID"), 0);
    assert_int_equal(iget(e, "Stage Info/Stage Attempt ID"), 0);
    assert_string_equal(sget(e, "Stage Info/Stage Name"),
                        "reduce_by_key at wordcount.so:cspark_main");
    assert_int_equal(iget(e, "Stage Info/Number of Tasks"), 2);
    assert_int_equal(iget(e, "Stage Info/Submission Time"), 1020);
    assert_null(jget(e, "Stage Info/Completion Time"));

    e = json_array_get(l, 6);
    assert_int_equal(iget(e, "Stage ID"), 0);
    assert_int_equal(iget(e, "Stage Attempt ID"), 0);
    assert_int_equal(iget(e, "Task Info/Task ID"), 0);
    assert_int_equal(iget(e, "Task Info/Launch Time"), 1030);
    assert_string_equal(sget(e, "Task Info/Executor ID"), "1");
    assert_string_equal(sget(e, "Task Info/Host"), "10.0.0.7");
    assert_true(json_is_false(jget(e, "Task Info/Failed")));

    e = json_array_get(l, 8); /* success */
    assert_string_equal(sget(e, "Task Type"), "ShuffleMapTask");
    assert_string_equal(sget(e, "Task End Reason/Reason"), "Success");
    assert_int_equal(iget(e, "Task Info/Task ID"), 0);
    assert_int_equal(iget(e, "Task Info/Index"), 0);
    assert_int_equal(iget(e, "Task Info/Attempt"), 0);
    assert_int_equal(iget(e, "Task Info/Launch Time"), 1030); /* remembered from TaskStart */
    assert_int_equal(iget(e, "Task Info/Finish Time"), 1100);
    assert_true(json_is_false(jget(e, "Task Info/Failed")));
    assert_int_equal(iget(e, "Task Metrics/Executor Run Time"), 60);
    assert_int_equal(iget(e, "Task Metrics/Executor CPU Time"), 55000000);
    assert_int_equal(iget(e, "Task Metrics/Peak Execution Memory"), 1 << 20);
    assert_int_equal(iget(e, "Task Metrics/Input Metrics/Bytes Read"), 4096);
    assert_int_equal(iget(e, "Task Metrics/Input Metrics/Records Read"), 100);
    assert_int_equal(iget(e, "Task Metrics/Shuffle Write Metrics/Shuffle Bytes Written"), 777);
    assert_int_equal(iget(e, "Task Metrics/Shuffle Write Metrics/Shuffle Records Written"), 33);
    assert_non_null(jget(e, "Task Metrics/Shuffle Read Metrics/Total Records Read"));
    assert_non_null(jget(e, "Task Metrics/Output Metrics/Records Written"));
    assert_non_null(jget(e, "Task Metrics/Memory Bytes Spilled"));
    assert_non_null(jget(e, "Task Metrics/Disk Bytes Spilled"));
    assert_non_null(jget(e, "Task Metrics/Result Size"));

    e = json_array_get(l, 9); /* failure */
    assert_string_equal(sget(e, "Task End Reason/Reason"), "ExceptionFailure");
    assert_string_equal(sget(e, "Task End Reason/Description"),
                        "cspark_task_fail: bad record at line 7");
    assert_true(json_is_array(jget(e, "Task End Reason/Stack Trace")));
    assert_true(json_is_true(jget(e, "Task Info/Failed")));
    assert_int_equal(iget(e, "Task Info/Launch Time"), 1031);

    e = json_array_get(l, 10);
    assert_int_equal(iget(e, "Stage Info/Stage ID"), 0);
    assert_string_equal(sget(e, "Stage Info/Stage Name"),
                        "reduce_by_key at wordcount.so:cspark_main"); /* remembered */
    assert_int_equal(iget(e, "Stage Info/Number of Tasks"), 2);
    assert_int_equal(iget(e, "Stage Info/Submission Time"), 1020);
    assert_int_equal(iget(e, "Stage Info/Completion Time"), 1200);
    assert_string_equal(sget(e, "Stage Info/Failure Reason"), "Task 1 in stage 0 failed 4 times");

    e = json_array_get(l, 11);
    assert_int_equal(iget(e, "Job ID"), 0);
    assert_int_equal(iget(e, "Completion Time"), 1201);
    assert_string_equal(sget(e, "Job Result/Result"), "JobFailed");
    assert_string_equal(sget(e, "Job Result/Exception/Message"),
                        "Job aborted due to stage failure");
    e = json_array_get(l, 12);
    assert_string_equal(sget(e, "Job Result/Result"), "JobSucceeded");
    assert_null(jget(e, "Job Result/Exception"));

    e = json_array_get(l, 13);
    assert_string_equal(sget(e, "Executor ID"), "1");
    assert_string_equal(sget(e, "Removed Reason"), "pod deleted");
    assert_int_equal(iget(e, "Timestamp"), 1400);

    e = json_array_get(l, 14);
    assert_int_equal(iget(e, "Timestamp"), 1500);

    json_decref(l);
    cs_conf_free(c);
    remove_dir(dir);
    free(dir);
}

static void one_app(const char *dir_value, const char *dir, const char *app_id, const char *file)
{
    cs_conf *c = log_conf(dir_value);
    cs_error err = {0};
    listener_bus *bus = cs_listener_bus_new(c, app_id, "x", &err);
    if (!bus) fail_msg("%s: %s", dir_value, err.msg);
    char inprog[256];
    snprintf(inprog, sizeof inprog, "%s.inprogress", file);
    assert_true(exists(dir, inprog));
    cs_event ev = {.kind = CS_EV_APPLICATION_END};
    cs_listener_bus_post(bus, &ev);
    cs_listener_bus_free(bus);
    assert_true(exists(dir, file));
    assert_false(exists(dir, inprog));
    cs_conf_free(c);
}

static void test_dir_forms(void **state)
{
    char *dir = make_dir();
    char v[600];
    snprintf(v, sizeof v, "file://%s", dir); /* file:///tmp/... */
    one_app(v, dir, "app-1", "app-1");
    snprintf(v, sizeof v, "%s/", dir);
    one_app(v, dir, "app-2", "app-2");
    snprintf(v, sizeof v, "file:%s", dir);
    /* names sanitised as Spark: ':' '/' ' ' -> '-', '.' -> '_', lower case */
    one_app(v, dir, "My App:1.0", "my-app-1_0");
    remove_dir(dir);
    free(dir);
}

static void test_bad_dirs_name_the_key(void **state)
{
    cs_error err = {0};
    cs_conf *c = log_conf("hdfs://namenode:8020/spark-logs");
    assert_null(cs_listener_bus_new(c, "app-1", "x", &err));
    assert_int_equal(err.code, CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "spark.eventLog.dir"));
    cs_conf_free(c);

    char *dir = make_dir();
    char file[600];
    snprintf(file, sizeof file, "%s/plainfile", dir);
    FILE *f = fopen(file, "w");
    fclose(f);
    c = log_conf(file);
    memset(&err, 0, sizeof err);
    assert_null(cs_listener_bus_new(c, "app-1", "x", &err));
    assert_non_null(strstr(err.msg, "spark.eventLog.dir"));
    assert_non_null(strstr(err.msg, "not a directory"));
    cs_conf_free(c);

    if (geteuid() != 0) {
        char ro[600];
        snprintf(ro, sizeof ro, "%s/ro", dir);
        mkdir(ro, 0500);
        c = log_conf(ro);
        memset(&err, 0, sizeof err);
        assert_null(cs_listener_bus_new(c, "app-1", "x", &err));
        assert_non_null(strstr(err.msg, "spark.eventLog.dir"));
        assert_non_null(strstr(err.msg, "not writable"));
        cs_conf_free(c);
    }
    remove_dir(dir);
    free(dir);
}

static void test_existing_log_refused_unless_overwrite(void **state)
{
    char *dir = make_dir();
    one_app(dir, dir, "app-9", "app-9");
    cs_conf *c = log_conf(dir);
    cs_error err = {0};
    assert_null(cs_listener_bus_new(c, "app-9", "x", &err));
    assert_int_equal(err.code, CS_EEXIST);
    assert_non_null(strstr(err.msg, "spark.eventLog.overwrite"));
    assert_false(exists(dir, "app-9.inprogress")); /* nothing half-created */
    assert_true(exists(dir, "app-9"));
    cs_conf_set(c, "spark.eventLog.overwrite", "true");
    listener_bus *bus = cs_listener_bus_new(c, "app-9", "x", &err);
    assert_non_null(bus);
    cs_listener_bus_free(bus);
    assert_true(exists(dir, "app-9"));
    json_t *l = read_lines(dir, "app-9");
    assert_int_equal(json_array_size(l), 1); /* the new log: LogStart only */
    json_decref(l);
    cs_conf_free(c);
    remove_dir(dir);
    free(dir);
}

static void test_custom_redaction_regex(void **state)
{
    char *dir = make_dir();
    cs_conf *c = log_conf(dir);
    cs_conf_set(c, "spark.redaction.regex", "(?i)internal");
    cs_error err = {0};
    listener_bus *bus = cs_listener_bus_new(c, "app-r", "x", &err);
    assert_non_null(bus);
    cs_conf *env = cs_conf_new();
    cs_conf_set(env, "spark.INTERNAL.thing", "v1");
    cs_conf_set(env, "spark.my.password", "v2"); /* not matched by the custom regex */
    cs_conf_set(env, "spark.connect.authenticate.token", "t0k3n"); /* a credential: always */
    cs_event ev = {.kind = CS_EV_ENVIRONMENT_UPDATE, .conf = env};
    cs_listener_bus_post(bus, &ev);
    cs_conf_free(env);
    cs_listener_bus_free(bus);
    json_t *l = read_lines(dir, "app-r");
    json_t *e = json_array_get(l, 1);
    assert_string_equal(sget(e, "Spark Properties/spark.INTERNAL.thing"), "*********(redacted)");
    assert_string_equal(sget(e, "Spark Properties/spark.my.password"), "v2");
    assert_string_equal(sget(e, "Spark Properties/spark.connect.authenticate.token"),
                        "*********(redacted)");
    json_decref(l);
    cs_conf_free(c);
    remove_dir(dir);
    free(dir);
}

static void test_many_tasks_launch_times(void **state)
{
    /* the launch-time table grows, shrinks and wraps: every TaskEnd finds its TaskStart */
    char *dir = make_dir();
    cs_error err = {0};
    cs_conf *c = log_conf(dir);
    event_log *el = cs_event_log_open(c, "app-t", &err);
    assert_non_null(el);
    const int N = 5000;
    for (int i = 0; i < N; i++) {
        cs_event s = {.kind = CS_EV_TASK_START, .time_ms = 100000 + i, .task_id = i * 7};
        cs_event_log_listener(el, &s);
        if (i >= 100) { /* keep ~100 running */
            int j = i - 100;
            cs_event e = {
                .kind = CS_EV_TASK_END, .time_ms = 900000, .task_id = j * 7, .succeeded = true};
            cs_event_log_listener(el, &e);
        }
    }
    for (int j = N - 100; j < N; j++) {
        cs_event e = {
            .kind = CS_EV_TASK_END, .time_ms = 900000, .task_id = j * 7, .succeeded = true};
        cs_event_log_listener(el, &e);
    }
    assert_int_equal(cs_event_log_close(el, &err), 0);
    json_t *l = read_lines(dir, "app-t");
    assert_int_equal(json_array_size(l), 1 + 2 * N);
    size_t i;
    json_t *e;
    json_array_foreach(l, i, e)
    {
        if (strcmp(sget(e, "Event"), "SparkListenerTaskEnd") == 0) {
            json_int_t id = iget(e, "Task Info/Task ID");
            assert_int_equal(iget(e, "Task Info/Launch Time"), 100000 + id / 7);
        }
    }
    json_decref(l);
    cs_conf_free(c);
    remove_dir(dir);
    free(dir);
}

/* spark.eventLog.rolling.enabled: Spark's layout, eventlog_v2_<app>/ with events_<n>_<app> files
 * of whole lines, each at most maxFileSize, and appstatus_<app>.inprogress while it runs, renamed
 * at the end; a directory already there refused unless overwrite; maxFileSize under Spark's 10m
 * refused naming the key. */
static void test_rolling_layout(void **state)
{
    (void)state;
    char *dir = make_dir();
    cs_error err = {0};
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.eventLog.dir", dir);
    cs_conf_set(c, "spark.eventLog.rolling.enabled", "true");
    cs_conf_set(c, "spark.eventLog.compress", "false");
    cs_conf_set(c, "spark.eventLog.rolling.maxFileSize", "1m");
    assert_null(cs_event_log_open(c, "app-r", &err));
    assert_non_null(strstr(err.msg, "spark.eventLog.rolling.maxFileSize"));
    cs_conf_set(c, "spark.eventLog.rolling.maxFileSize", "10m");
    event_log *el = cs_event_log_open(c, "app-r", &err);
    assert_non_null(el);
    assert_true(exists(dir, "eventlog_v2_app-r/appstatus_app-r.inprogress"));
    const int N = 9000; /* ~20 MB of task events */
    for (int i = 0; i < N; i++) {
        cs_event s = {.kind = CS_EV_TASK_START, .time_ms = 100000 + i, .task_id = i};
        cs_event_log_listener(el, &s);
        cs_event e = {.kind = CS_EV_TASK_END, .time_ms = 900000, .task_id = i, .succeeded = true};
        cs_event_log_listener(el, &e);
    }
    assert_int_equal(cs_event_log_close(el, &err), 0);
    assert_false(exists(dir, "eventlog_v2_app-r/appstatus_app-r.inprogress"));
    assert_true(exists(dir, "eventlog_v2_app-r/appstatus_app-r"));
    size_t lines = 0;
    int files = 0;
    for (int k = 1; k < 100; k++) {
        char name[128], path[600];
        snprintf(name, sizeof name, "eventlog_v2_app-r/events_%d_app-r", k);
        if (!exists(dir, name)) break;
        files++;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_true(st.st_size <= 10 * 1024 * 1024);
        json_t *l = read_lines(dir, name); /* whole JSON lines in every file */
        lines += json_array_size(l);
        json_decref(l);
    }
    assert_true(files >= 2);
    assert_int_equal(lines, 1 + 2 * (size_t)N);
    assert_null(cs_event_log_open(c, "app-r", &err)); /* the directory is there */
    assert_int_equal(err.code, CS_EEXIST);
    cs_conf_set(c, "spark.eventLog.overwrite", "true");
    el = cs_event_log_open(c, "app-r", &err);
    assert_non_null(el);
    assert_int_equal(cs_event_log_close(el, &err), 0);
    assert_false(exists(dir, "eventlog_v2_app-r/events_2_app-r"));
    cs_conf_free(c);
    remove_dir(dir);
    free(dir);
}

/* Spark 4's defaults with no key set: a rolled directory of zstd files (eventlog_v2_<app>/
 * events_1_<app>.zstd), which the history server's reader reads back line for line. */
static void test_default_layout(void **state)
{
    (void)state;
    char *dir = make_dir();
    cs_error err = {0};
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.eventLog.dir", dir);
    event_log *el = cs_event_log_open(c, "app-d", &err);
    assert_non_null(el);
    for (int i = 0; i < 100; i++) {
        cs_event s = {.kind = CS_EV_TASK_START, .time_ms = 100000 + i, .task_id = i};
        cs_event_log_listener(el, &s);
    }
    assert_int_equal(cs_event_log_close(el, &err), 0);
    assert_true(exists(dir, "eventlog_v2_app-d/events_1_app-d.zstd"));
    assert_true(exists(dir, "eventlog_v2_app-d/appstatus_app-d"));
    assert_false(exists(dir, "app-d"));
    char path[600];
    snprintf(path, sizeof path, "%s/eventlog_v2_app-d", dir);
    FILE *in = cs_event_log_open_read(path, &err);
    assert_non_null(in);
    char line[4096];
    int lines = 0;
    while (fgets(line, sizeof line, in)) {
        json_error_t jerr;
        json_t *o = json_loads(line, 0, &jerr);
        assert_non_null(o);
        json_decref(o);
        lines++;
    }
    fclose(in);
    assert_int_equal(lines, 1 + 100);
    cs_conf_free(c);
    remove_dir(dir);
    free(dir);
}

/* Regression: spark.eventLog.compression.codec=lz4 wrote an LZ4 frame stream named .lz4, which
 * Spark's History Server (lz4-java's LZ4BlockInputStream framing) cannot read. Now refused with
 * one line naming the key and the codec cspark writes, and nothing created. */
static void test_lz4_codec_refused(void **state)
{
    (void)state;
    char *dir = make_dir();
    cs_error err = {0};
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.eventLog.dir", dir);
    cs_conf_set(c, "spark.eventLog.compression.codec", "lz4");
    assert_null(cs_event_log_open(c, "app-l", &err));
    assert_int_equal(err.code, CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.eventLog.compression.codec: 'lz4' (expected zstd"));
    assert_null(strchr(err.msg, '\n'));
    assert_false(exists(dir, "eventlog_v2_app-l"));
    assert_false(exists(dir, "app-l.lz4.inprogress"));
    cs_conf_set(c, "spark.eventLog.rolling.enabled", "false");
    assert_null(cs_event_log_open(c, "app-l", &err));
    assert_false(exists(dir, "app-l.lz4.inprogress"));
    cs_conf_free(c);
    remove_dir(dir);
    free(dir);
}

static void write_task_events(event_log *el)
{
    const char *odd[] = {"plain",
                         "quote\" back\\slash /",
                         "ctl \x01\x1f\x7f \b\f\n\r\t",
                         "utf8 h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80",
                         "bad \xff\xc3 \xe2\x82 \xed\xa0\x80 end",
                         ""};
    for (int i = 0; i < 6; i++) {
        cs_event s = {.kind = CS_EV_TASK_START,
                      .time_ms = 5000 + i,
                      .stage_id = 3,
                      .stage_attempt = 1,
                      .task_id = 100 + i,
                      .partition = i,
                      .attempt = i % 2,
                      .executor_id = odd[i],
                      .host = odd[5 - i],
                      .speculative = i == 2};
        cs_event_log_listener(el, &s);
        cs_event e = s;
        e.kind = CS_EV_TASK_END;
        e.time_ms = 9000 + i;
        e.succeeded = i % 2 == 0;
        e.reason = i % 2 ? odd[i] : NULL;
        e.task_type = i == 4 ? NULL : "ShuffleMapTask";
        e.metrics = (cs_task_metrics){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, -14};
        cs_event_log_listener(el, &e);
    }
    cs_event orphan = {.kind = CS_EV_TASK_END,
                       .time_ms = 7000,
                       .task_id = 999,
                       .succeeded = true,
                       .metrics = {.run_time_ms = 250}};
    cs_event_log_listener(el, &orphan); /* no TaskStart: launch = finish - run time */
}

/* Control characters, quotes and invalid UTF-8 in task fields still give one valid JSON object
 * per line; bytes that do not start valid UTF-8 become '?'. */
static void test_task_events_with_odd_strings(void **state)
{
    char *dir = make_dir();
    cs_error err = {0};
    cs_conf *c = log_conf(dir);
    event_log *el = cs_event_log_open(c, "app-odd", &err);
    assert_non_null(el);
    write_task_events(el);
    assert_int_equal(cs_event_log_close(el, &err), 0);
    json_t *l = read_lines(dir, "app-odd");
    assert_non_null(l);
    size_t lines = json_array_size(l);
    assert_true(lines >= 13); /* LogStart + 12 task events + the orphan end */
    bool saw_quote = false, saw_bad = false, saw_orphan = false;
    for (size_t i = 0; i < lines; i++) {
        json_t *o = json_array_get(l, i);
        const char *ev = sget(o, "Event");
        if (!ev || strncmp(ev, "SparkListenerTask", 17) != 0) continue;
        const char *exec = sget(o, "Task Info/Executor ID");
        assert_non_null(exec);
        if (strcmp(exec, "quote\" back\\slash /") == 0) saw_quote = true;
        if (strncmp(exec, "bad ?? ", 7) == 0) saw_bad = true;
        if (iget(o, "Task Info/Task ID") == 999) {
            saw_orphan = true;
            assert_int_equal(iget(o, "Task Info/Launch Time"), 7000 - 250);
        }
    }
    assert_true(saw_quote);
    assert_true(saw_bad);
    assert_true(saw_orphan);
    json_decref(l);
    cs_conf_free(c);
    remove_dir(dir);
    free(dir);
}

/* Regression (issue 10 item 5, 14 item 6): Disk Bytes Spilled was always 0 while Memory Bytes
 * Spilled held the spill file bytes, and every shuffle read was logged as local. Each metric now
 * reaches its own field: spills in memory and on disk, shuffle reads split into local and remote
 * bytes and blocks (Local Bytes Read = total - remote), output bytes. Posted through the bus, so
 * the queue's copy of the metrics is covered too. */
static void test_spill_and_shuffle_read_fields(void **state)
{
    char *dir = make_dir();
    cs_conf *c = log_conf(dir);
    cs_error err = {0};
    listener_bus *bus = cs_listener_bus_new(c, "app-m", "m", &err);
    assert_non_null(bus);
    cs_event s = {
        .kind = CS_EV_TASK_START, .time_ms = 1000, .task_id = 7, .executor_id = "2", .host = "h2"};
    cs_listener_bus_post(bus, &s);
    cs_event e = s;
    e.kind = CS_EV_TASK_END;
    e.time_ms = 2000;
    e.succeeded = true;
    e.metrics = (cs_task_metrics){.memory_bytes_spilled = 4000000,
                                  .disk_bytes_spilled = 1500000,
                                  .shuffle_bytes_read = 9000,
                                  .shuffle_remote_bytes_read = 6000,
                                  .shuffle_local_blocks_fetched = 1,
                                  .shuffle_remote_blocks_fetched = 2,
                                  .shuffle_records_read = 300,
                                  .bytes_written = 4321,
                                  .records_written = 12};
    cs_listener_bus_post(bus, &e);
    cs_listener_bus_free(bus);
    json_t *l = read_lines(dir, "app-m");
    json_t *end = json_array_get(l, json_array_size(l) - 1);
    assert_string_equal(sget(end, "Event"), "SparkListenerTaskEnd");
    assert_int_equal(iget(end, "Task Metrics/Memory Bytes Spilled"), 4000000);
    assert_int_equal(iget(end, "Task Metrics/Disk Bytes Spilled"), 1500000);
    assert_int_equal(iget(end, "Task Metrics/Shuffle Read Metrics/Remote Bytes Read"), 6000);
    assert_int_equal(iget(end, "Task Metrics/Shuffle Read Metrics/Local Bytes Read"), 3000);
    assert_int_equal(iget(end, "Task Metrics/Shuffle Read Metrics/Remote Blocks Fetched"), 2);
    assert_int_equal(iget(end, "Task Metrics/Shuffle Read Metrics/Local Blocks Fetched"), 1);
    assert_int_equal(iget(end, "Task Metrics/Shuffle Read Metrics/Total Records Read"), 300);
    assert_int_equal(iget(end, "Task Metrics/Output Metrics/Bytes Written"), 4321);
    assert_int_equal(iget(end, "Task Metrics/Output Metrics/Records Written"), 12);
    json_decref(l);
    cs_conf_free(c);
    remove_dir(dir);
    free(dir);
}

/* Regression (issue 14 item 6): "RDD Info" and "Parent IDs" of every stage were empty arrays.
 * The stage's RDDs (with Spark's RDDInfo fields: storage level, partitions, parents, callsite) and
 * its parent stages are written in StageSubmitted and StageCompleted, copied by the bus. */
static void test_stage_rdd_info_and_parents(void **state)
{
    char *dir = make_dir();
    cs_conf *c = log_conf(dir);
    cs_error err = {0};
    listener_bus *bus = cs_listener_bus_new(c, "app-r", "r", &err);
    assert_non_null(bus);
    char name[32], callsite[64];
    snprintf(name, sizeof name, "ShuffledRDD");
    snprintf(callsite, sizeof callsite, "reduce_by_key at wc.so:cspark_main");
    cs_rdd_info rdds[2] = {{.id = 5,
                            .name = "MapPartitionsRDD",
                            .callsite = "map at wc.so:main",
                            .num_partitions = 3,
                            .parent_ids = {4},
                            .num_parents = 1},
                           {.id = 4,
                            .name = name,
                            .callsite = callsite,
                            .num_partitions = 3,
                            .parent_ids = {2},
                            .num_parents = 1}};
    int parents[] = {0, 1};
    cs_event ev = {.kind = CS_EV_STAGE_SUBMITTED,
                   .time_ms = 10,
                   .stage_id = 2,
                   .num_tasks = 3,
                   .stage_name = "map at wc.so:main",
                   .rdd_infos = rdds,
                   .num_rdd_infos = 2,
                   .parent_stage_ids = parents,
                   .num_parent_stage_ids = 2};
    cs_listener_bus_post(bus, &ev);
    memset(name, 'x', sizeof name - 1); /* the bus copied the strings */
    memset(callsite, 'y', sizeof callsite - 1);
    ev.kind = CS_EV_STAGE_COMPLETED;
    ev.time_ms = 20;
    ev.succeeded = true;
    ev.num_rdd_infos = 1;
    ev.num_parent_stage_ids = 0;
    cs_listener_bus_post(bus, &ev);
    cs_listener_bus_free(bus);
    json_t *l = read_lines(dir, "app-r");
    json_t *sub = json_array_get(l, json_array_size(l) - 2);
    assert_string_equal(sget(sub, "Event"), "SparkListenerStageSubmitted");
    json_t *infos = jget(sub, "Stage Info/RDD Info");
    assert_int_equal(json_array_size(infos), 2);
    json_t *r = json_array_get(infos, 1);
    assert_int_equal(iget(r, "RDD ID"), 4);
    assert_string_equal(sget(r, "Name"), "ShuffledRDD");
    assert_string_equal(sget(r, "Callsite"), "reduce_by_key at wc.so:cspark_main");
    assert_int_equal(iget(r, "Number of Partitions"), 3);
    assert_int_equal(iget(r, "Number of Cached Partitions"), 0);
    assert_int_equal(json_integer_value(json_array_get(jget(r, "Parent IDs"), 0)), 2);
    assert_true(json_is_false(jget(r, "Storage Level/Use Memory")));
    assert_int_equal(iget(r, "Storage Level/Replication"), 1);
    json_t *pids = jget(sub, "Stage Info/Parent IDs");
    assert_int_equal(json_array_size(pids), 2);
    assert_int_equal(json_integer_value(json_array_get(pids, 1)), 1);
    json_t *done = json_array_get(l, json_array_size(l) - 1);
    assert_string_equal(sget(done, "Event"), "SparkListenerStageCompleted");
    assert_int_equal(json_array_size(jget(done, "Stage Info/RDD Info")), 1);
    assert_int_equal(json_array_size(jget(done, "Stage Info/Parent IDs")), 0);
    json_decref(l);
    cs_conf_free(c);
    remove_dir(dir);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_application_log),
        cmocka_unit_test(test_dir_forms),
        cmocka_unit_test(test_bad_dirs_name_the_key),
        cmocka_unit_test(test_existing_log_refused_unless_overwrite),
        cmocka_unit_test(test_custom_redaction_regex),
        cmocka_unit_test(test_many_tasks_launch_times),
        cmocka_unit_test(test_rolling_layout),
        cmocka_unit_test(test_default_layout),
        cmocka_unit_test(test_lz4_codec_refused),
        cmocka_unit_test(test_task_events_with_odd_strings),
        cmocka_unit_test(test_spill_and_shuffle_read_fields),
        cmocka_unit_test(test_stage_rdd_info_and_parents),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
