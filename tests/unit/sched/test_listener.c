/* test_listener.c — unit tests for the listener bus (listener.c): in-order delivery to every
 * listener, flush, deep copies of posted events, dropping and counting without blocking when the
 * queue is full, conf errors, the built-in listeners chosen from conf, and posting throughput. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "sched/listener.h"

/* A bus with no built-in listener output worth checking: progress off (stage logger only). */
static cs_conf *quiet_conf(const char *capacity)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.ui.showConsoleProgress", "false");
    if (capacity) cs_conf_set(c, "spark.scheduler.listenerbus.eventqueue.capacity", capacity);
    return c;
}

typedef struct recorder {
    int64_t *ids;
    size_t n, cap;
    int sleep_us;
} recorder;

static void record(void *arg, const cs_event *ev)
{
    recorder *r = arg;
    if (r->sleep_us) usleep((useconds_t)r->sleep_us);
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 1024;
        r->ids = realloc(r->ids, r->cap * sizeof *r->ids);
    }
    r->ids[r->n++] = ev->task_id;
}

static void test_delivers_in_order_to_all_listeners(void **state)
{
    cs_conf *c = quiet_conf("1000000");
    cs_error err = {0};
    listener_bus *bus = cs_listener_bus_new(c, "app-1", "t", &err);
    assert_non_null(bus);
    recorder a = {0}, b = {0};
    cs_listener_bus_add(bus, record, &a);
    cs_listener_bus_add(bus, record, &b);
    const int N = 20000;
    for (int i = 0; i < N; i++) {
        cs_event ev = {.kind = i % 2 ? CS_EV_TASK_END : CS_EV_TASK_START, .task_id = i};
        cs_listener_bus_post(bus, &ev);
    }
    cs_listener_bus_flush(bus);
    assert_int_equal(a.n, N);
    assert_int_equal(b.n, N);
    for (int i = 0; i < N; i++) {
        assert_int_equal(a.ids[i], i);
        assert_int_equal(b.ids[i], i);
    }
    assert_int_equal(cs_listener_bus_dropped(bus), 0);
    cs_listener_bus_free(bus);
    free(a.ids);
    free(b.ids);
    cs_conf_free(c);
}

/* flush returns only once a slow listener has had every event: the listener is held at the
 * first event (nothing delivered yet, whatever the timing), then released to go on slowly. */
typedef struct slow {
    recorder r;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool open;
} slow;

static void slow_record(void *arg, const cs_event *ev)
{
    slow *s = arg;
    pthread_mutex_lock(&s->mu);
    while (!s->open)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    usleep(2000);
    record(&s->r, ev);
}

static void test_flush_waits_for_slow_listener(void **state)
{
    cs_conf *c = quiet_conf(NULL);
    listener_bus *bus = cs_listener_bus_new(c, "app-1", "t", NULL);
    slow s = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    cs_listener_bus_add(bus, slow_record, &s);
    for (int i = 0; i < 50; i++) {
        cs_event ev = {.kind = CS_EV_TASK_START, .task_id = i};
        cs_listener_bus_post(bus, &ev);
    }
    assert_int_equal(__atomic_load_n(&s.r.n, __ATOMIC_SEQ_CST), 0); /* held at the first */
    pthread_mutex_lock(&s.mu);
    s.open = true;
    pthread_cond_broadcast(&s.cv);
    pthread_mutex_unlock(&s.mu);
    cs_listener_bus_flush(bus);
    assert_int_equal(s.r.n, 50);
    cs_listener_bus_flush(bus); /* nothing pending: returns at once */
    cs_listener_bus_free(bus);
    free(s.r.ids);
    cs_conf_free(c);
}

typedef struct copy_check {
    int seen;
    char stage_name[64], executor[64], reason[64], app_name[64];
    int stage_ids[3];
    int nstage;
    char conf_value[64];
    int64_t time_ms;
    char stage_names[3][64], props[4][64]; /* job start: names and properties (key, value) */
    int nprops;
} copy_check;

static void check_copy(void *arg, const cs_event *ev)
{
    copy_check *cc = arg;
    cc->seen++;
    if (ev->kind == CS_EV_JOB_START) {
        snprintf(cc->stage_name, sizeof cc->stage_name, "%s", ev->stage_name);
        cc->nstage = ev->num_stage_ids;
        for (int i = 0; i < ev->num_stage_ids && i < 3; i++) {
            cc->stage_ids[i] = ev->stage_ids[i];
            if (ev->stage_names)
                snprintf(cc->stage_names[i], sizeof cc->stage_names[i], "%s", ev->stage_names[i]);
        }
        cc->nprops = ev->num_job_properties;
        for (int i = 0; i < 2 * ev->num_job_properties && i < 4; i++)
            snprintf(cc->props[i], sizeof cc->props[i], "%s", ev->job_properties[i]);
        cc->time_ms = ev->time_ms;
    } else if (ev->kind == CS_EV_TASK_END) {
        snprintf(cc->executor, sizeof cc->executor, "%s", ev->executor_id);
        snprintf(cc->reason, sizeof cc->reason, "%s", ev->reason);
    } else if (ev->kind == CS_EV_ENVIRONMENT_UPDATE) {
        const char *v = cs_conf_get(ev->conf, "spark.app.name");
        snprintf(cc->conf_value, sizeof cc->conf_value, "%s", v ? v : "(null)");
    } else if (ev->kind == CS_EV_APPLICATION_START) {
        snprintf(cc->app_name, sizeof cc->app_name, "%s", ev->app_name);
    }
}

static void test_post_deep_copies(void **state)
{
    cs_conf *c = quiet_conf(NULL);
    listener_bus *bus = cs_listener_bus_new(c, "app-1", "t", NULL);
    copy_check cc = {0};
    cs_listener_bus_add(bus, check_copy, &cc);

    /* Block delivery while we scribble over the caller's memory. */
    char name[32], exec[8], reason[16], app[16];
    int ids[3] = {4, 5, 6};
    strcpy(name, "count at pi.so:main");
    strcpy(exec, "7");
    strcpy(reason, "disk full");
    strcpy(app, "pi");
    cs_conf *env = cs_conf_new();
    cs_conf_set(env, "spark.app.name", "pi");

    char names[3][32] = {"map at pi.so:main", "join at pi.so:main", "count at pi.so:main"};
    const char *name_ptrs[3] = {names[0], names[1], names[2]};
    char group[16] = "nightly";
    const char *props[4] = {"spark.job.description", "totals", "spark.jobGroup.id", group};
    cs_event js = {.kind = CS_EV_JOB_START,
                   .job_id = 1,
                   .stage_name = name,
                   .stage_ids = ids,
                   .num_stage_ids = 3,
                   .stage_names = name_ptrs,
                   .job_properties = props,
                   .num_job_properties = 2};
    cs_event te = {.kind = CS_EV_TASK_END, .executor_id = exec, .reason = reason, .time_ms = 5};
    cs_event eu = {.kind = CS_EV_ENVIRONMENT_UPDATE, .conf = env};
    cs_event as = {.kind = CS_EV_APPLICATION_START, .app_name = app};
    cs_listener_bus_post(bus, &js);
    cs_listener_bus_post(bus, &te);
    cs_listener_bus_post(bus, &eu);
    cs_listener_bus_post(bus, &as);
    memset(name, 'X', sizeof name - 1);
    memset(exec, 'X', sizeof exec - 1);
    memset(reason, 'X', sizeof reason - 1);
    memset(app, 'X', sizeof app - 1);
    ids[0] = ids[1] = ids[2] = -1;
    memset(names, 'X', sizeof names[0] - 1);
    name_ptrs[1] = "";
    memset(group, 'X', sizeof group - 1);
    props[0] = "";
    cs_conf_free(env); /* borrowed only during post */

    cs_listener_bus_flush(bus);
    assert_int_equal(cc.seen, 4);
    assert_string_equal(cc.stage_name, "count at pi.so:main");
    assert_int_equal(cc.nstage, 3);
    assert_int_equal(cc.stage_ids[0], 4);
    assert_int_equal(cc.stage_ids[2], 6);
    assert_string_equal(cc.stage_names[0], "map at pi.so:main");
    assert_string_equal(cc.stage_names[1], "join at pi.so:main");
    assert_string_equal(cc.stage_names[2], "count at pi.so:main");
    assert_int_equal(cc.nprops, 2);
    assert_string_equal(cc.props[0], "spark.job.description");
    assert_string_equal(cc.props[1], "totals");
    assert_string_equal(cc.props[3], "nightly");
    assert_string_equal(cc.executor, "7");
    assert_string_equal(cc.reason, "disk full");
    assert_string_equal(cc.conf_value, "pi");
    assert_string_equal(cc.app_name, "pi");
    assert_true(cc.time_ms != 0); /* time 0 is stamped at post */
    cs_listener_bus_free(bus);
    cs_conf_free(c);
}

typedef struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool open;
    bool entered;
    int delivered;
} gate;

static void gated(void *arg, const cs_event *ev)
{
    gate *g = arg;
    pthread_mutex_lock(&g->mu);
    g->entered = true;
    pthread_cond_broadcast(&g->cv);
    while (!g->open)
        pthread_cond_wait(&g->cv, &g->mu);
    g->delivered++;
    pthread_mutex_unlock(&g->mu);
}

static void test_overflow_drops_and_counts_without_blocking(void **state)
{
    cs_conf *c = quiet_conf("10");
    listener_bus *bus = cs_listener_bus_new(c, "app-1", "t", NULL);
    assert_non_null(bus);
    gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, false, 0};
    cs_listener_bus_add(bus, gated, &g);

    cs_event ev = {.kind = CS_EV_TASK_START};
    cs_listener_bus_post(bus, &ev);
    pthread_mutex_lock(&g.mu);
    while (!g.entered)
        pthread_cond_wait(&g.cv, &g.mu);
    pthread_mutex_unlock(&g.mu);

    /* The listener is stuck on event 1; posting must not block (if it did, this thread would
     * wait for a listener that waits for it: the test would end at its CTest timeout). */
    for (int i = 0; i < 100; i++)
        cs_listener_bus_post(bus, &ev);
    /* 10 fit (the one being delivered counts), 91 dropped */
    assert_int_equal(cs_listener_bus_dropped(bus), 91);

    pthread_mutex_lock(&g.mu);
    g.open = true;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    cs_listener_bus_flush(bus);
    assert_int_equal(g.delivered, 10);

    /* room again after delivery */
    cs_listener_bus_post(bus, &ev);
    cs_listener_bus_flush(bus);
    assert_int_equal(g.delivered, 11);
    assert_int_equal(cs_listener_bus_dropped(bus), 91);
    cs_listener_bus_free(bus);
    cs_conf_free(c);
}

static void test_bad_conf_values_name_the_key(void **state)
{
    cs_error err = {0};
    cs_conf *c = quiet_conf("0");
    assert_null(cs_listener_bus_new(c, "app-1", "t", &err));
    assert_non_null(strstr(err.msg, "spark.scheduler.listenerbus.eventqueue.capacity"));
    cs_conf_free(c);

    c = quiet_conf(NULL);
    cs_conf_set(c, "spark.eventLog.enabled", "yes please");
    memset(&err, 0, sizeof err);
    assert_null(cs_listener_bus_new(c, "app-1", "t", &err));
    assert_non_null(strstr(err.msg, "spark.eventLog.enabled"));
    cs_conf_free(c);

    c = quiet_conf(NULL);
    cs_conf_set(c, "spark.eventLog.enabled", "true");
    cs_conf_set(c, "spark.eventLog.dir", "file:/nonexistent/cspark-test-events");
    memset(&err, 0, sizeof err);
    assert_null(cs_listener_bus_new(c, "app-1", "t", &err));
    assert_int_equal(err.code, CS_ENOTFOUND);
    assert_non_null(strstr(err.msg, "spark.eventLog.dir"));
    assert_non_null(strstr(err.msg, "/nonexistent/cspark-test-events"));
    cs_conf_free(c);
}

static void test_no_event_log_by_default(void **state)
{
    cs_conf *c = quiet_conf(NULL);
    listener_bus *bus = cs_listener_bus_new(c, "app-1", "t", NULL);
    assert_non_null(bus);
    assert_null(cs_listener_bus_event_log_path(bus));
    cs_listener_bus_free(bus);
    cs_listener_bus_free(NULL);
    cs_conf_free(c);
    /* a NULL conf means all defaults */
    bus = cs_listener_bus_new(NULL, "app-1", "t", NULL);
    assert_non_null(bus);
    cs_listener_bus_free(bus);
}

static void count_only(void *arg, const cs_event *ev)
{
    (*(int64_t *)arg)++;
}

/* 200,000 events (a large job's task starts and ends) are all delivered, in order, none
 * dropped. How fast: bench/internal/listener_bench.c. */
static void test_many_events_delivered(void **state)
{
    cs_conf *c = quiet_conf("1000000");
    listener_bus *bus = cs_listener_bus_new(c, "app-1", "t", NULL);
    recorder r = {0};
    cs_listener_bus_add(bus, record, &r);
    const int N = 200000;
    for (int i = 0; i < N; i++) {
        cs_event ev = {.kind = CS_EV_TASK_END,
                       .task_id = i,
                       .stage_id = 1,
                       .executor_id = "12",
                       .host = "10.0.0.12",
                       .task_type = "ShuffleMapTask",
                       .succeeded = true,
                       .time_ms = 1};
        cs_listener_bus_post(bus, &ev);
    }
    cs_listener_bus_flush(bus);
    assert_int_equal(r.n, N);
    for (int i = 0; i < N; i++)
        if (r.ids[i] != i) fail_msg("event %d delivered as %lld", i, (long long)r.ids[i]);
    assert_int_equal(cs_listener_bus_dropped(bus), 0);
    cs_listener_bus_free(bus);
    free(r.ids);
    cs_conf_free(c);
}

static void *poster(void *arg)
{
    listener_bus *bus = arg;
    for (int i = 0; i < 5000; i++) {
        cs_event ev = {.kind = CS_EV_TASK_START, .task_id = i};
        cs_listener_bus_post(bus, &ev);
    }
    return NULL;
}

static void test_concurrent_posters(void **state)
{
    cs_conf *c = quiet_conf("1000000");
    listener_bus *bus = cs_listener_bus_new(c, "app-1", "t", NULL);
    int64_t n = 0;
    cs_listener_bus_add(bus, count_only, &n);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, poster, bus);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    cs_listener_bus_flush(bus);
    assert_int_equal(n, 20000);
    cs_listener_bus_free(bus);
    cs_conf_free(c);
}

static void test_kind_names(void **state)
{
    assert_string_equal(cs_event_kind_name(CS_EV_TASK_END), "SparkListenerTaskEnd");
    assert_string_equal(cs_event_kind_name(CS_EV_LOG_START), "SparkListenerLogStart");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delivers_in_order_to_all_listeners),
        cmocka_unit_test(test_flush_waits_for_slow_listener),
        cmocka_unit_test(test_post_deep_copies),
        cmocka_unit_test(test_overflow_drops_and_counts_without_blocking),
        cmocka_unit_test(test_bad_conf_values_name_the_key),
        cmocka_unit_test(test_no_event_log_by_default),
        cmocka_unit_test(test_many_events_delivered),
        cmocka_unit_test(test_concurrent_posters),
        cmocka_unit_test(test_kind_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
