/* test_ui_server.c — the UI server over real HTTP on loopback (ui/ui_server.c, ui_pages, ui_api,
 * ui_metrics) with the synthetic application of scenario.h in its store: every page answers and
 * shows the scenario's figures, unknown jobs/stages are 404, the REST API answers Spark's paths,
 * kill POSTs need the CSRF token and the same origin, binding retries the next port as
 * Spark's startServiceOnPort, and the tables of an application that keeps 20,000 stages are paged
 * (regression of issue 21 item 6: every row was on the page). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <curl/curl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "ui/app_status.h"
#include "ui/ui_api.h"
#include "ui/ui_metrics.h"
#include "ui/ui_server.h"

#include "scenario.h"

typedef struct fixture {
    ui_store *st;
    ui_server *srv;
    int killed_job, killed_stage;
    char base[64];
} fixture;

static void post_direct(void *arg, const cs_event *ev)
{
    cs_ui_store_listener(arg, ev);
}

static size_t one_list(void *arg, ui_app_entry **out)
{
    fixture *f = arg;
    ui_app_entry *e = calloc(1, sizeof *e);
    cs_ui_store_lock(f->st);
    const ui_app *a = cs_ui_store_app(f->st);
    e->id = strdup(a->id);
    e->name = strdup(a->name);
    e->user = strdup(a->user);
    e->start_ms = a->start_ms;
    e->end_ms = a->end_ms;
    e->completed = a->completed;
    e->last_updated_ms = a->end_ms;
    cs_ui_store_unlock(f->st);
    *out = e;
    return 1;
}

static ui_store *one_acquire(void *arg, const char *id, int64_t *updated)
{
    fixture *f = arg;
    *updated = 0;
    return strcmp(id, SC_APP_ID) == 0 ? f->st : NULL;
}

static void one_release(void *arg, ui_store *st)
{
    (void)arg, (void)st;
}

static void kill_job(void *arg, int id)
{
    ((fixture *)arg)->killed_job = id;
}

static void kill_stage(void *arg, int id)
{
    ((fixture *)arg)->killed_stage = id;
}

static int64_t read_log(void *arg, const char *exec, const char *type, int64_t offset, size_t len,
                        cs_sbuf *out, int64_t *start)
{
    (void)arg, (void)offset, (void)len;
    if (strcmp(exec, "2") != 0) return -1;
    cs_sbuf_printf(out, "%s of executor 2: <segfault>\n", type);
    *start = 0;
    return (int64_t)out->len;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    f->st = cs_ui_store_new(NULL);
    sc_run(post_direct, f->st);
    f->killed_job = f->killed_stage = -1;
    ui_server_options o = {.port = 0,
                           .port_key = "spark.ui.port",
                           .kill_enabled = true,
                           .live_app_id = SC_APP_ID,
                           .threads = 2,
                           .bind_host = "127.0.0.1"};
    ui_provider p = {f, one_list, one_acquire, one_release};
    ui_hooks h = {f, kill_job, kill_stage, read_log, NULL};
    cs_error err = {0};
    f->srv = cs_ui_server_start(&o, &p, &h, &err);
    assert_non_null(f->srv);
    snprintf(f->base, sizeof f->base, "http://127.0.0.1:%d", cs_ui_server_port(f->srv));
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    cs_ui_server_stop(f->srv);
    cs_ui_store_free(f->st);
    free(f);
    return 0;
}

typedef struct reply {
    long status;
    cs_sbuf body;
    char location[512];
} reply;

static size_t on_body(char *p, size_t size, size_t n, void *arg)
{
    cs_sbuf_append(arg, p, size * n);
    return size * n;
}

static size_t on_header(char *p, size_t size, size_t n, void *arg)
{
    reply *r = arg;
    if (strncasecmp(p, "Location: ", 10) == 0) {
        snprintf(r->location, sizeof r->location, "%.*s", (int)(size * n - 12), p + 10);
    }
    return size * n;
}

/* GET (form NULL) or POST a form; extra_header may add Origin. */
static reply http(const fixture *f, const char *path, const char *form, const char *extra_header)
{
    reply r = {0};
    char url[600];
    snprintf(url, sizeof url, "%s%s", f->base, path);
    CURL *c = curl_easy_init();
    curl_easy_setopt(c, CURLOPT_URL, url);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, &r);
    struct curl_slist *hdr = NULL;
    if (extra_header) hdr = curl_slist_append(hdr, extra_header);
    if (hdr) curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
    if (form) curl_easy_setopt(c, CURLOPT_POSTFIELDS, form);
    assert_int_equal(curl_easy_perform(c), CURLE_OK);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r.status);
    curl_slist_free_all(hdr);
    curl_easy_cleanup(c);
    return r;
}

static void expect_page(const fixture *f, const char *path, const char *const *needles)
{
    reply r = http(f, path, NULL, NULL);
    if (r.status != 200) fail_msg("GET %s: %ld", path, r.status);
    for (int i = 0; needles[i]; i++)
        if (!strstr(cs_sbuf_str(&r.body), needles[i]))
            fail_msg("GET %s: no '%s' in the page", path, needles[i]);
    assert_null(strstr(cs_sbuf_str(&r.body), "<app>")); /* the app name is escaped */
    cs_sbuf_free(&r.body);
}

static void test_pages_show_the_application(void **state)
{
    fixture *f = *state;
    expect_page(f, "/jobs/",
                (const char *[]){"Spark Jobs", "completed-jobs-count\">1<",
                                 "failed-jobs-count\">1<", "scenario &lt;app&gt;",
                                 "Job 1 cancelled because Stage 2", NULL});
    expect_page(f, "/jobs/job/?id=0",
                (const char *[]){"Details for Job 0", "job-stage-count\">2<", "<svg",
                                 "id=\"dag-stage-0\"", "id=\"dag-stage-1\"", "<line class=\"edge\"",
                                 NULL});
    expect_page(f, "/jobs/job/?id=1",
                (const char *[]){"skipped-stages-count\">1<", "failed-stages-count\">1<", NULL});
    expect_page(f, "/stages/",
                (const char *[]){"completed-stages-count\">2<", "failed-stages-count\">1<", NULL});
    expect_page(f, "/stages/stage/?id=1&attempt=0",
                (const char *[]){"Details for Stage 1 (Attempt 0)", "summary-task-count\">2<",
                                 "task-count\">3<", "boom: bad record", "stage current", "stdout",
                                 NULL});
    expect_page(
        f, "/stages/stage/task/?id=1&attempt=0&taskId=5",
        (const char *[]){"Details for Task 5", "task-status\">FAILED<", "boom: bad record", NULL});
    expect_page(f, "/storage/", (const char *[]){"rdd-count\">0<", NULL});
    expect_page(f, "/environment/",
                (const char *[]){"spark.authenticate.secret", "*********(redacted)",
                                 "property-count\">4<", NULL});
    expect_page(f, "/executors/",
                (const char *[]){"active-executors\">2<", "dead-executors\">1<",
                                 "exit code 139 (SIGSEGV)", "logType=stderr", NULL});
    expect_page(f, "/logPage/?executorId=2&logType=stderr",
                (const char *[]){"stderr of executor 2: &lt;segfault&gt;", NULL});
    reply r = http(f, "/logPage/?executorId=9&logType=stdout", NULL, NULL);
    assert_int_equal(r.status, 404);
    cs_sbuf_free(&r.body);
    reply env = http(f, "/environment/", NULL, NULL);
    assert_null(strstr(cs_sbuf_str(&env.body), "hunter2"));
    cs_sbuf_free(&env.body);
}

static void test_unknown_and_redirects(void **state)
{
    fixture *f = *state;
    const char *missing[] = {"/jobs/job/?id=7", "/stages/stage/?id=9&attempt=0",
                             "/stages/stage/task/?id=0&attempt=0&taskId=99", "/nothing"};
    for (int i = 0; i < 4; i++) {
        reply r = http(f, missing[i], NULL, NULL);
        if (r.status != 404) fail_msg("GET %s: %ld", missing[i], r.status);
        cs_sbuf_free(&r.body);
    }
    reply r = http(f, "/", NULL, NULL);
    assert_int_equal(r.status, 302);
    assert_string_equal(r.location, "/jobs/");
    cs_sbuf_free(&r.body);
    r = http(f, "/stages/stage?id=1&attempt=0", NULL, NULL);
    assert_int_equal(r.status, 302);
    assert_string_equal(r.location, "/stages/stage/?id=1&attempt=0");
    cs_sbuf_free(&r.body);
    r = http(f, "/jobs/job/?id=x", NULL, NULL);
    assert_int_equal(r.status, 400);
    cs_sbuf_free(&r.body);
}

static json_t *get_json(const fixture *f, const char *path)
{
    reply r = http(f, path, NULL, NULL);
    if (r.status != 200) fail_msg("GET %s: %ld %s", path, r.status, cs_sbuf_str(&r.body));
    json_error_t e;
    json_t *j = json_loads(cs_sbuf_str(&r.body), 0, &e);
    cs_sbuf_free(&r.body);
    assert_non_null(j);
    return j;
}

static void test_rest_api(void **state)
{
    fixture *f = *state;
    json_t *apps = get_json(f, "/api/v1/applications");
    assert_int_equal(json_array_size(apps), 1);
    json_t *att = json_array_get(json_object_get(json_array_get(apps, 0), "attempts"), 0);
    assert_string_equal(json_string_value(json_object_get(att, "startTime")),
                        "2026-09-21T14:13:20.000GMT");
    assert_true(json_is_true(json_object_get(att, "completed")));
    assert_int_equal(json_integer_value(json_object_get(att, "duration")), 900);
    assert_null(json_object_get(att, "attemptId")); /* None: left out, as Spark */
    json_decref(apps);

    json_t *jobs = get_json(f, "/api/v1/applications/" SC_APP_ID "/jobs");
    assert_int_equal(json_array_size(jobs), 2);
    json_t *j1 = json_array_get(jobs, 0); /* newest first */
    assert_int_equal(json_integer_value(json_object_get(j1, "jobId")), 1);
    assert_string_equal(json_string_value(json_object_get(j1, "status")), "FAILED");
    assert_int_equal(json_integer_value(json_object_get(j1, "numSkippedStages")), 1);
    assert_int_equal(json_integer_value(json_object_get(j1, "numKilledTasks")), 1);
    json_decref(jobs);
    jobs = get_json(f, "/api/v1/applications/" SC_APP_ID "/jobs?status=succeeded");
    assert_int_equal(json_array_size(jobs), 1);
    json_decref(jobs);

    json_t *st = get_json(f, "/api/v1/applications/" SC_APP_ID "/stages/1/0");
    assert_string_equal(json_string_value(json_object_get(st, "status")), "COMPLETE");
    assert_int_equal(json_integer_value(json_object_get(st, "numFailedTasks")), 1);
    assert_int_equal(json_integer_value(json_object_get(st, "shuffleReadBytes")), 4000);
    json_t *tasks = json_object_get(st, "tasks");
    assert_int_equal(json_object_size(tasks), 3);
    json_t *t5 = json_object_get(tasks, "5");
    assert_string_equal(json_string_value(json_object_get(t5, "errorMessage")), "boom: bad record");
    assert_true(json_is_object(json_object_get(json_object_get(st, "executorSummary"), "2")));
    assert_null(json_object_get(st, "failureReason"));
    json_decref(st);

    json_t *list = get_json(f, "/api/v1/applications/" SC_APP_ID "/stages");
    assert_int_equal(json_array_size(list), 3);
    assert_null(json_object_get(json_array_get(list, 0), "tasks")); /* details=false */
    json_decref(list);

    json_t *sum =
        get_json(f, "/api/v1/applications/" SC_APP_ID "/stages/0/0/taskSummary?quantiles=0,0.5,1");
    json_t *run = json_object_get(sum, "executorRunTime");
    assert_int_equal(json_array_size(run), 3);
    assert_true(json_real_value(json_array_get(run, 0)) == 100.0);
    assert_true(json_real_value(json_array_get(run, 2)) == 400.0);
    json_decref(sum);

    json_t *tl = get_json(f, "/api/v1/applications/" SC_APP_ID
                             "/stages/0/0/taskList?sortBy=-runtime&length=2");
    assert_int_equal(json_array_size(tl), 2);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(tl, 0), "taskId")), 3);
    json_decref(tl);

    json_t *ex = get_json(f, "/api/v1/applications/" SC_APP_ID "/executors");
    assert_int_equal(json_array_size(ex), 2);
    json_decref(ex);
    ex = get_json(f, "/api/v1/applications/" SC_APP_ID "/allexecutors");
    assert_int_equal(json_array_size(ex), 3);
    json_t *dead = json_array_get(ex, 2);
    assert_false(json_is_true(json_object_get(dead, "isActive")));
    assert_string_equal(json_string_value(json_object_get(dead, "removeReason")),
                        "Command exited with exit code 139 (SIGSEGV)");
    const char *log =
        json_string_value(json_object_get(json_object_get(dead, "executorLogs"), "stderr"));
    assert_non_null(log);
    assert_non_null(strstr(log, "/logPage/?executorId=2&logType=stderr"));
    json_t *peak = json_object_get(json_array_get(ex, 1), "peakMemoryMetrics");
    assert_int_equal(json_integer_value(json_object_get(peak, "ProcessTreeJVMRSSMemory")),
                     50 << 20);
    json_decref(ex);

    json_t *env = get_json(f, "/api/v1/applications/" SC_APP_ID "/environment");
    json_t *props = json_object_get(env, "sparkProperties");
    assert_int_equal(json_array_size(props), 4);
    assert_int_equal(json_array_size(json_array_get(props, 0)), 2);
    json_decref(env);
    json_t *rdd = get_json(f, "/api/v1/applications/" SC_APP_ID "/storage/rdd");
    assert_int_equal(json_array_size(rdd), 0);
    json_decref(rdd);

    const char *missing[] = {"/api/v1/applications/nope/jobs",
                             "/api/v1/applications/" SC_APP_ID "/jobs/5",
                             "/api/v1/applications/" SC_APP_ID "/stages/0/3",
                             "/api/v1/applications/" SC_APP_ID "/storage/rdd/0"};
    for (int i = 0; i < 4; i++) {
        reply r = http(f, missing[i], NULL, NULL);
        if (r.status != 404) fail_msg("GET %s: %ld", missing[i], r.status);
        cs_sbuf_free(&r.body);
    }
}

/* Regression (issue 21, item 14): an id or count in a path or query that is not a whole number
 * in range was read as 0, cut to 32 bits, or (a negative attempt) taken as "the latest". */
static void test_bad_numbers_are_refused(void **state)
{
    fixture *f = *state;
#define APP "/api/v1/applications/" SC_APP_ID
    static const struct {
        const char *path;
        long status;
    } cases[] = {
        {APP "/stages/1/-1", 404},
        {APP "/stages/0/-1/taskList", 404},
        {APP "/stages/4294967296", 404},
        {APP "/stages/4294967296/0", 404},
        {APP "/stages/0/4294967296", 404},
        {APP "/stages/+0/0", 404},
        {APP "/stages/0x/0", 404},
        {APP "/jobs/4294967296", 404},
        {APP "/jobs/-0", 404},
        {APP "/storage/rdd/-1", 404},
        {APP "/stages/0/0/taskList?offset=abc", 400},
        {APP "/stages/0/0/taskList?offset=4294967296", 400},
        {APP "/stages/0/0/taskList?length=1x", 400},
        {APP "/stages/0/0/taskList?length=", 400},
        {"/api/v1/applications?limit=abc", 400},
        {APP "/stages?offset=abc", 400},
        {APP "/stages?length=-1", 400},
        {APP "/jobs?offset=1x", 400},
        {"/stages/stage/?id=4294967296&attempt=0", 400},
        {"/stages/stage/?id=0&attempt=-1", 400},
        {"/stages/stage/?id=0&attempt=4294967296", 400},
        {"/stages/stage/task/?id=0&attempt=0&taskId=abc", 400},
        {"/jobs/job/?id=4294967296", 400},
        {"/storage/rdd/?id=4294967296", 400},
    };
#undef APP
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reply r = http(f, cases[i].path, NULL, NULL);
        if (r.status != cases[i].status)
            fail_msg("GET %s: %ld, expected %ld: %s", cases[i].path, r.status, cases[i].status,
                     cs_sbuf_str(&r.body));
        cs_sbuf_free(&r.body);
    }
    reply r =
        http(f, "/api/v1/applications/" SC_APP_ID "/stages/0/0/taskList?offset=abc", NULL, NULL);
    assert_non_null(strstr(cs_sbuf_str(&r.body), "Bad value for parameter \"offset\""));
    cs_sbuf_free(&r.body);
}

static void test_kill_needs_token_and_origin(void **state)
{
    fixture *f = *state;
    char form[128];
    /* no token */
    reply r = http(f, "/stages/stage/kill/", "id=2", NULL);
    assert_int_equal(r.status, 403);
    cs_sbuf_free(&r.body);
    assert_int_equal(f->killed_stage, -1);
    /* wrong token */
    r = http(f, "/stages/stage/kill/", "id=2&csrf=0123456789abcdef0123456789abcdef", NULL);
    assert_int_equal(r.status, 403);
    cs_sbuf_free(&r.body);
    /* right token, another site */
    snprintf(form, sizeof form, "id=2&csrf=%s", cs_ui_server_csrf_token(f->srv));
    r = http(f, "/stages/stage/kill/", form, "Origin: http://evil.example:4040");
    assert_int_equal(r.status, 403);
    cs_sbuf_free(&r.body);
    assert_int_equal(f->killed_stage, -1);
    /* right token, same origin */
    char origin[128];
    snprintf(origin, sizeof origin, "Origin: %s", f->base);
    r = http(f, "/stages/stage/kill/", form, origin);
    assert_int_equal(r.status, 303);
    assert_string_equal(r.location, "/stages/");
    cs_sbuf_free(&r.body);
    assert_int_equal(f->killed_stage, 2);
    snprintf(form, sizeof form, "id=1&csrf=%s", cs_ui_server_csrf_token(f->srv));
    r = http(f, "/jobs/job/kill/", form, origin);
    assert_int_equal(r.status, 303);
    cs_sbuf_free(&r.body);
    assert_int_equal(f->killed_job, 1);
    /* GET never kills */
    r = http(f, "/jobs/job/kill/?id=0", NULL, NULL);
    assert_int_not_equal(r.status, 303);
    cs_sbuf_free(&r.body);
    assert_int_equal(f->killed_job, 1);
}

/* Spark's PrometheusServlet and PrometheusResource lines, byte for byte, and MetricsServlet's
 * JSON with the registry's names. */
static void test_metrics(void **state)
{
    fixture *f = *state;
    reply r = http(f, "/metrics/prometheus", NULL, NULL);
    assert_int_equal(r.status, 200);
    const char *m = cs_sbuf_str(&r.body);
#define NS "metrics_app_20260101_0001_driver_"
    assert_non_null(strstr(m, NS "appStatus_tasks_completedTasks_Count{type=\"counters\"} 7\n"));
    assert_non_null(strstr(m, NS "DAGScheduler_job_allJobs_Number{type=\"gauges\"} 2\n" NS
                                 "DAGScheduler_job_allJobs_Value{type=\"gauges\"} 2\n"));
    assert_non_null(strstr(m, NS "cspark_ui_httpRequests_Count{type=\"counters\"} "));
#undef NS
    assert_null(strstr(m, "# ")); /* no HELP or TYPE lines, as Spark */
    /* gauges first, sorted by name as Dropwizard's registry, then counters */
    assert_true(strstr(m, "DAGScheduler_stage_waitingStages_Value") <
                strstr(m, "ExecutorAllocationManager_executors_numberAllExecutors_Number"));
    assert_true(strstr(m, "JVMCPU_jvmCpuTime_Value") <
                strstr(m, "LiveListenerBus_numEventsPosted"));
    cs_sbuf_free(&r.body);

    json_t *j = get_json(f, "/metrics/json");
    assert_string_equal(json_string_value(json_object_get(j, "version")), "4.0.0");
    json_t *g =
        json_object_get(json_object_get(j, "gauges"), SC_APP_ID ".driver.DAGScheduler.job.allJobs");
    assert_int_equal(json_integer_value(json_object_get(g, "value")), 2);
    json_t *c = json_object_get(json_object_get(j, "counters"),
                                SC_APP_ID ".driver.appStatus.tasks.completedTasks");
    assert_int_equal(json_integer_value(json_object_get(c, "count")), 7);
    const char *empty[] = {"histograms", "meters", "timers"};
    for (int i = 0; i < 3; i++)
        assert_int_equal(json_object_size(json_object_get(j, empty[i])), 0);
    json_decref(j);

    r = http(f, "/metrics/executors/prometheus", NULL, NULL);
    assert_int_equal(r.status, 200);
    m = cs_sbuf_str(&r.body);
    assert_true(strncmp(m, "spark_info{version=\"", 20) == 0);
#define LABELS(id)                                                                                 \
    "{application_id=\"" SC_APP_ID "\", application_name=\"scenario <app>\", executor_id=\"" id    \
    "\"}"
    assert_non_null(strstr(m, "metrics_executor_completedTasks_total" LABELS("1") " 5\n"));
    assert_non_null(strstr(m, "metrics_executor_totalGCTime_seconds_total" LABELS("1") " 0.0\n"));
    assert_non_null(strstr(m, "metrics_executor_ProcessTreeJVMRSSMemory_bytes" LABELS("1") " "));
    assert_non_null(strstr(m, "metrics_executor_MinorGCTime_seconds_total" LABELS("1") " 0.0\n"));
#undef LABELS
    assert_null(strstr(m, "executor_id=\"2\"")); /* only live executors, as Spark */
    cs_sbuf_free(&r.body);
}

/* executors/<id>/threads with Spark's answers for each case, allmiscellaneousprocess. */
static void test_threads_and_processes(void **state)
{
    fixture *f = *state;
    json_t *t = get_json(f, "/api/v1/applications/" SC_APP_ID "/executors/driver/threads");
    assert_true(json_array_size(t) >= 1);
    json_t *first = json_array_get(t, 0);
    assert_int_equal(json_integer_value(json_object_get(first, "threadId")), getpid());
    assert_non_null(json_string_value(json_object_get(first, "threadName")));
    assert_non_null(json_object_get(json_object_get(first, "stackTrace"), "elems"));
    const char *state_name = json_string_value(json_object_get(first, "threadState"));
    assert_true(strcmp(state_name, "RUNNABLE") == 0 || strcmp(state_name, "WAITING") == 0);
    json_decref(t);
    const struct {
        const char *id;
        long status;
        const char *text;
    } cases[] = {{"1", 404, "No thread dump is available.\n"},
                 {"7", 404, "Executor does not exist.\n"},
                 {"2", 400, "Executor is not active.\n"},
                 {"x1", 400, "Invalid executorId: neither 'driver' nor number.\n"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[160];
        snprintf(path, sizeof path, "/api/v1/applications/" SC_APP_ID "/executors/%s/threads",
                 cases[i].id);
        reply r = http(f, path, NULL, NULL);
        assert_int_equal(r.status, cases[i].status);
        assert_string_equal(cs_sbuf_str(&r.body), cases[i].text);
        cs_sbuf_free(&r.body);
    }
    json_t *p = get_json(f, "/api/v1/applications/" SC_APP_ID "/allmiscellaneousprocess");
    assert_true(json_is_array(p) && json_array_size(p) == 0);
    json_decref(p);
}

/* Spark's SimpleDateParam: the full format with a zone, else the day in GMT, else refused. */
static void test_parse_date(void **state)
{
    (void)state;
    const struct {
        const char *text;
        int64_t ms;
    } ok[] = {{"2015-02-03T16:42:40.000GMT", 1422981760000LL},
              {"2015-02-03T16:42:40.123UTC", 1422981760123LL},
              {"2015-02-03T16:42:40.000GMT+01:00", 1422978160000LL},
              {"2015-02-03T16:42:40.000-0800", 1423010560000LL},
              {"2015-02-03", 1422921600000LL},
              {"2015-02-03T16:42", 1422921600000LL}, /* the day, the rest ignored */
              {"2015-13-01", 1451606400000LL}};      /* lenient: month 13 is January */
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int64_t ms = 0;
        assert_true(cs_ui_api_parse_date(ok[i].text, &ms));
        assert_int_equal(ms, ok[i].ms);
    }
    const char *bad[] = {"", "yesterday", "2015/02/03", "2015-02"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t ms;
        assert_false(cs_ui_api_parse_date(bad[i], &ms));
    }
}

/* Spark's startServiceOnPort: a taken port moves to the next one, up to spark.port.maxRetries. */
static size_t count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = text; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* A live store keeping 20,000 finished stages of one job and 300 jobs: every table is paged. */
static void test_tables_are_paged(void **state)
{
    (void)state;
    enum { STAGES = 20000, JOBS = 300 };
    ui_store_limits lim = {100000, 100000, 100000, 100};
    fixture f = {.st = cs_ui_store_new(&lim)};
    int *ids = malloc(STAGES * sizeof *ids), *tasks = malloc(STAGES * sizeof *tasks);
    for (int i = 0; i < STAGES; i++)
        ids[i] = i, tasks[i] = 1;
    cs_event ev = {.kind = CS_EV_APPLICATION_START, .app_id = SC_APP_ID, .app_name = "paged"};
    cs_ui_store_listener(f.st, &ev);
    ev = (cs_event){.kind = CS_EV_JOB_START,
                    .job_id = 0,
                    .stage_ids = ids,
                    .num_stage_ids = STAGES,
                    .stage_num_tasks = tasks,
                    .stage_name = "many",
                    .time_ms = 1};
    cs_ui_store_listener(f.st, &ev);
    for (int i = 0; i < STAGES; i++) {
        ev = (cs_event){.kind = CS_EV_STAGE_SUBMITTED,
                        .job_id = 0,
                        .stage_id = i,
                        .num_tasks = 1,
                        .time_ms = 2};
        cs_ui_store_listener(f.st, &ev);
        ev = (cs_event){.kind = CS_EV_STAGE_COMPLETED,
                        .job_id = 0,
                        .stage_id = i,
                        .succeeded = true,
                        .time_ms = 3};
        cs_ui_store_listener(f.st, &ev);
    }
    ev = (cs_event){.kind = CS_EV_JOB_END, .job_id = 0, .succeeded = true, .time_ms = 4};
    cs_ui_store_listener(f.st, &ev);
    for (int j = 1; j < JOBS; j++) {
        int sid = STAGES + j;
        ev = (cs_event){.kind = CS_EV_JOB_START,
                        .job_id = j,
                        .stage_ids = &sid,
                        .num_stage_ids = 1,
                        .stage_num_tasks = tasks,
                        .stage_name = "one",
                        .time_ms = 5};
        cs_ui_store_listener(f.st, &ev);
        ev = (cs_event){.kind = CS_EV_JOB_END, .job_id = j, .succeeded = true, .time_ms = 6};
        cs_ui_store_listener(f.st, &ev);
    }
    free(ids);
    free(tasks);
    ui_provider p = {&f, one_list, one_acquire, one_release};
    ui_server_options o = {.bind_host = "127.0.0.1",
                           .port_key = "spark.ui.port",
                           .live_app_id = SC_APP_ID,
                           .threads = 2};
    cs_error err = {0};
    f.srv = cs_ui_server_start(&o, &p, NULL, &err);
    assert_non_null(f.srv);
    snprintf(f.base, sizeof f.base, "http://127.0.0.1:%d", cs_ui_server_port(f.srv));
    static const struct {
        const char *path;
        const char *row;
        size_t rows;
        const char *first_row, *text;
    } cases[] = {
        {"/stages/", "<tr id=\"stage-", 100 + 100, "<tr id=\"stage-19999-0\">", "Page 1 of 200"},
        {"/stages/?completedStage.page=200", "<tr id=\"stage-", 100 + 100, "<tr id=\"stage-99-0\">",
         "completedStage.page=199&amp;completedStage.pageSize=100"},
        {"/stages/?completedStage.page=3&completedStage.pageSize=7", "<tr id=\"stage-", 7 + 100,
         "<tr id=\"stage-19985-0\">", "Page 3 of 2858"},
        {"/jobs/job/?id=0", "<tr id=\"stage-", 100, "<tr id=\"stage-19999-0\">",
         "Not drawn: the job has 20000 stages"},
        {"/jobs/", "<tr id=\"job-", 100, "<tr id=\"job-299\">", "completedJob.page=3"},
        {"/jobs/?completedJob.page=3", "<tr id=\"job-", 100, "<tr id=\"job-99\">", "Page 3 of 3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        reply r = http(&f, cases[i].path, NULL, NULL);
        const char *body = cs_sbuf_str(&r.body);
        if (r.status != 200) fail_msg("GET %s: %ld", cases[i].path, r.status);
        if (r.body.len > 256 * 1024) fail_msg("GET %s: %zu bytes", cases[i].path, r.body.len);
        size_t rows = count_of(body, cases[i].row);
        if (rows != cases[i].rows)
            fail_msg("GET %s: %zu rows, expected %zu", cases[i].path, rows, cases[i].rows);
        if (!strstr(body, cases[i].first_row) || !strstr(body, cases[i].text))
            fail_msg("GET %s: no '%s' or '%s'", cases[i].path, cases[i].first_row, cases[i].text);
        cs_sbuf_free(&r.body);
    }
    json_t *a = get_json(&f, "/api/v1/applications/" SC_APP_ID "/stages?offset=100&length=3");
    assert_int_equal(json_array_size(a), 3);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 0), "stageId")), 20199);
    json_decref(a);
    a = get_json(&f, "/api/v1/applications/" SC_APP_ID "/jobs?offset=299");
    assert_int_equal(json_array_size(a), 1);
    assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 0), "jobId")), 0);
    json_decref(a);
    cs_ui_server_stop(f.srv);
    cs_ui_store_free(f.st);
}

static void test_port_retries(void **state)
{
    (void)state;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int taken = -1;
    for (int port = 42000; port < 42100 && taken < 0; port++) {
        a.sin_port = htons((uint16_t)port);
        if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && listen(fd, 1) == 0) taken = port;
    }
    assert_true(taken > 0);
    fixture f = {.st = cs_ui_store_new(NULL)};
    ui_provider p = {&f, one_list, one_acquire, one_release};
    ui_server_options o = {.bind_host = "127.0.0.1",
                           .port = taken,
                           .max_retries = 0,
                           .port_key = "spark.ui.port",
                           .live_app_id = SC_APP_ID};
    cs_error err = {0};
    assert_null(cs_ui_server_start(&o, &p, NULL, &err));
    assert_non_null(strstr(err.msg, "spark.ui.port"));
    assert_non_null(strstr(err.msg, "in use"));
    o.max_retries = 16;
    ui_server *s = cs_ui_server_start(&o, &p, NULL, &err);
    assert_non_null(s);
    assert_true(cs_ui_server_port(s) > taken && cs_ui_server_port(s) <= taken + 16);
    cs_ui_server_stop(s);
    close(fd);
    cs_ui_store_free(f.st);
}

int main(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pages_show_the_application, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_and_redirects, setup, teardown),
        cmocka_unit_test_setup_teardown(test_rest_api, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_numbers_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kill_needs_token_and_origin, setup, teardown),
        cmocka_unit_test_setup_teardown(test_metrics, setup, teardown),
        cmocka_unit_test_setup_teardown(test_threads_and_processes, setup, teardown),
        cmocka_unit_test(test_parse_date),
        cmocka_unit_test(test_port_retries),
        cmocka_unit_test(test_tables_are_paged),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    curl_global_cleanup();
    return rc;
}
