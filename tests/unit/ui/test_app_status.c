/* test_app_status.c — unit tests for the UI's status store (ui/app_status.c) fed by a real
 * listener bus with the synthetic application of scenario.h: jobs, stage attempts (pending,
 * skipped, failed), task counts, per-executor figures, redaction, quantiles, retention limits,
 * that a reader holding the store never makes posting wait, and cached RDDs with the executors'
 * share of them and named accumulators (issue 20: they were never shown). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/conf.h"
#include "sched/listener.h"
#include "ui/app_status.h"

#include "scenario.h"

static listener_bus *quiet_bus(void)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.ui.showConsoleProgress", "false");
    cs_conf_set(c, "spark.scheduler.listenerbus.eventqueue.capacity", "1000000");
    cs_error err = {0};
    listener_bus *bus = cs_listener_bus_new(c, SC_APP_ID, "t", &err);
    cs_conf_free(c);
    assert_non_null(bus);
    return bus;
}

static void post_to_bus(void *arg, const cs_event *ev)
{
    cs_listener_bus_post(arg, ev);
}

/* The scenario through a bus into a new store. */
static ui_store *scenario_store(const ui_store_limits *lim)
{
    ui_store *st = cs_ui_store_new(lim);
    listener_bus *bus = quiet_bus();
    cs_listener_bus_add(bus, cs_ui_store_listener, st);
    sc_run(post_to_bus, bus);
    cs_listener_bus_free(bus); /* flushes */
    return st;
}

static void test_application_and_jobs(void **state)
{
    (void)state;
    ui_store *st = scenario_store(NULL);
    cs_ui_store_lock(st);
    const ui_app *app = cs_ui_store_app(st);
    assert_string_equal(app->id, SC_APP_ID);
    assert_string_equal(app->name, "scenario <app>");
    assert_string_equal(app->user, "alice");
    assert_int_equal(app->start_ms, SC_T0);
    assert_int_equal(app->end_ms, SC_T0 + 900);
    assert_true(app->completed);

    assert_int_equal(cs_ui_store_num_jobs(st), 2);
    const ui_job *j0 = cs_ui_store_job(st, 0), *j1 = cs_ui_store_job(st, 1);
    assert_int_equal(j0->status, UI_JOB_SUCCEEDED);
    assert_string_equal(j0->name, "count at scenario.so:main");
    assert_int_equal(j0->num_tasks, 6);
    assert_int_equal(j0->completed_tasks, 6);
    assert_int_equal(j0->failed_tasks, 1);
    assert_int_equal(j0->completed_indices, 6);
    assert_int_equal(j0->completed_stages, 2);
    assert_int_equal(j0->skipped_stages, 0);
    assert_int_equal(j0->active_tasks, 0);
    assert_int_equal(j0->submission_ms, SC_T0 + 10);
    assert_int_equal(j0->completion_ms, SC_T0 + 601);

    assert_int_equal(j1->status, UI_JOB_FAILED);
    assert_string_equal(j1->error, "Job 1 cancelled because Stage 2 was cancelled");
    assert_int_equal(j1->num_tasks, 6);
    assert_int_equal(j1->completed_tasks, 1);
    assert_int_equal(j1->killed_tasks, 1);
    assert_int_equal(j1->failed_tasks, 0);
    assert_int_equal(j1->skipped_stages, 1); /* stage 0's output was reused */
    assert_int_equal(j1->skipped_tasks, 4);
    assert_int_equal(j1->failed_stages, 1);
    assert_int_equal(j1->active_stages, 0);
    cs_ui_store_unlock(st);
    cs_ui_store_free(st);
}

static void test_stages_and_tasks(void **state)
{
    (void)state;
    ui_store *st = scenario_store(NULL);
    cs_ui_store_lock(st);
    assert_int_equal(cs_ui_store_num_stages(st), 3);
    const ui_stage *s0 = cs_ui_store_stage(st, 0, 0), *s1 = cs_ui_store_stage(st, 1, -1);
    const ui_stage *s2 = cs_ui_store_stage(st, 2, 0);
    assert_int_equal(s0->status, UI_STAGE_COMPLETE);
    assert_string_equal(s0->name, "map at scenario.so:main");
    assert_int_equal(s0->num_tasks_kept, 4);
    assert_int_equal(s0->m.shuffle_bytes_written, 4000);
    assert_int_equal(s0->m.run_time_ms, 1000);
    assert_int_equal(s0->num_jobs, 2); /* both jobs need it */
    assert_int_equal(s0->submitted_job, 0);
    assert_int_equal(s0->num_parents, 0);
    assert_int_equal(s0->submission_ms, SC_T0 + 11);
    assert_int_equal(s0->first_launch_ms, SC_T0 + 20);
    assert_int_equal(s0->completion_ms, SC_T0 + 430);

    assert_int_equal(s1->status, UI_STAGE_COMPLETE);
    assert_int_equal(s1->complete, 2);
    assert_int_equal(s1->failed, 1);
    assert_int_equal(s1->completed_indices, 2);
    assert_int_equal(s1->num_parents, 1);
    assert_int_equal(s1->parent_ids[0], 0);
    assert_int_equal(s1->num_tasks_kept, 3);
    const ui_task *failed = &s1->tasks[1];
    assert_int_equal(failed->task_id, 5);
    assert_int_equal(failed->status, UI_TASK_FAILED);
    assert_string_equal(failed->error, "boom: bad record");
    assert_string_equal(failed->executor_id, "2");
    assert_int_equal(cs_ui_task_duration_ms(failed, 0), 65);
    assert_int_equal(s1->num_execs, 2);

    assert_int_equal(s2->status, UI_STAGE_FAILED);
    assert_string_equal(s2->failure_reason, "Job 1 cancelled because Stage 2 was cancelled");
    assert_int_equal(s2->killed, 1);
    assert_int_equal(s2->tasks[1].status, UI_TASK_KILLED);

    double q[UI_QM_COUNT][UI_MAX_QUANTILES];
    const double qs[] = {0.0, 0.25, 0.5, 0.75, 1.0};
    assert_int_equal(cs_ui_stage_quantiles(s0, qs, 5, q), 4);
    const double run[] = {100, 200, 300, 400, 400};
    for (int i = 0; i < 5; i++)
        assert_true(q[UI_QM_RUN_TIME][i] == run[i]);
    assert_true(q[UI_QM_SCHEDULER_DELAY][2] == 5);
    assert_int_equal(cs_ui_stage_quantiles(s2, qs, 5, q), 1);

    ui_store_counters c;
    cs_ui_store_counters(st, &c);
    assert_int_equal(c.jobs_succeeded, 1);
    assert_int_equal(c.jobs_failed, 1);
    assert_int_equal(c.tasks_completed, 7);
    assert_int_equal(c.tasks_failed, 1);
    assert_int_equal(c.tasks_killed, 1);
    assert_int_equal(c.stages_skipped, 1);
    assert_int_equal(c.tasks_skipped, 4);
    assert_int_equal(c.active_tasks, 0);
    assert_int_equal(c.active_stages, 0);
    assert_int_equal(c.active_jobs, 0);
    cs_ui_store_unlock(st);
    cs_ui_store_free(st);
}

static void test_executors_and_environment(void **state)
{
    (void)state;
    ui_store *st = scenario_store(NULL);
    cs_ui_store_lock(st);
    assert_int_equal(cs_ui_store_num_executors(st), 3);
    const ui_executor *e1 = cs_ui_store_executor(st, "1"), *e2 = cs_ui_store_executor(st, "2");
    assert_true(e1->active);
    assert_int_equal(e1->cores, 2);
    assert_int_equal(e1->completed_tasks, 5);
    assert_int_equal(e1->failed_tasks, 0);
    assert_int_equal(e1->total_shuffle_write, 2000);
    assert_int_equal(e1->total_shuffle_read, 6000);
    assert_true(e1->have_metrics);
    assert_int_equal(e1->metrics.rss_bytes, 50 << 20);
    assert_int_equal(e1->peak.task_memory_used, 1 << 20);
    assert_false(e2->active);
    assert_string_equal(e2->remove_reason, "Command exited with exit code 139 (SIGSEGV)");
    assert_int_equal(e2->completed_tasks, 2);
    assert_int_equal(e2->failed_tasks, 1); /* the killed task counts as neither */
    assert_false(e2->have_metrics);

    assert_int_equal(cs_ui_store_num_props(st), 4);
    const ui_prop *p0 = cs_ui_store_prop_at(st, 0);
    assert_string_equal(p0->key, "spark.app.name"); /* sorted */
    bool redacted = false;
    for (size_t i = 0; i < cs_ui_store_num_props(st); i++) {
        const ui_prop *p = cs_ui_store_prop_at(st, i);
        assert_null(strstr(p->value, "hunter2"));
        if (strcmp(p->key, "spark.authenticate.secret") == 0)
            redacted = strcmp(p->value, CS_REDACTED) == 0;
    }
    assert_true(redacted);
    assert_int_equal(cs_ui_store_num_rdds(st), 0);
    cs_ui_store_unlock(st);
    cs_ui_store_free(st);
}

static void post_direct(void *arg, const cs_event *ev)
{
    cs_ui_store_listener(arg, ev);
}

static void block_event(ui_store *st, cs_event_kind kind, const char *exec, int rdd, int part,
                        int level, int64_t mem, int64_t disk)
{
    cs_block_status b = {rdd, part, level, mem, disk};
    cs_event ev = {.kind = kind,
                   .executor_id = exec,
                   .host = "h",
                   .updated_blocks = &b,
                   .num_updated_blocks = 1,
                   .job_id = -1,
                   .rdd_id = rdd};
    cs_ui_store_listener(st, &ev);
}

static const ui_accum *stage_accum(const ui_stage *s, int64_t id)
{
    for (int i = 0; s && i < s->num_accums; i++)
        if (s->accums[i].id == id) return &s->accums[i];
    return NULL;
}

/* Blocks reported by task ends and block updates (the same report twice counts once), dropped
 * blocks, unpersist and a removed executor; accumulators of tasks and stages. */
static void test_storage_and_accumulators(void **state)
{
    (void)state;
    ui_store *st = cs_ui_store_new(NULL);
    const char *execs[] = {"driver", "1", "2"};
    for (int i = 0; i < 3; i++) {
        cs_event ev = {.kind = CS_EV_EXECUTOR_ADDED, .executor_id = execs[i], .host = "h"};
        cs_ui_store_listener(st, &ev);
    }
    cs_rdd_info rdds[] = {{.id = 3,
                           .name = "MapPartitionsRDD",
                           .num_partitions = 4,
                           .storage_level = 1 /* CSPARK_MEMORY_ONLY */},
                          {.id = 2, .name = "ParallelCollectionRDD", .num_partitions = 4},
                          {.id = 5,
                           .name = "MapPartitionsRDD",
                           .num_partitions = 2,
                           .storage_level = 3 /* CSPARK_DISK_ONLY */}};
    cs_event sub = {.kind = CS_EV_STAGE_SUBMITTED,
                    .stage_id = 0,
                    .num_tasks = 4,
                    .stage_name = "count",
                    .job_id = -1,
                    .rdd_infos = rdds,
                    .num_rdd_infos = 3};
    cs_ui_store_listener(st, &sub);
    cs_block_status b1 = {3, 0, 1, 100, 0};
    cs_accumulable a1 = {1, "records", "5", "5"};
    cs_event end = {.kind = CS_EV_TASK_END,
                    .stage_id = 0,
                    .task_id = 1,
                    .partition = 0,
                    .executor_id = "1",
                    .host = "h",
                    .succeeded = true,
                    .job_id = -1,
                    .updated_blocks = &b1,
                    .num_updated_blocks = 1,
                    .accumulables = &a1,
                    .num_accumulables = 1};
    cs_ui_store_listener(st, &end);
    block_event(st, CS_EV_BLOCK_UPDATED, "1", 3, 0, 1, 100, 0); /* the same report again */
    cs_block_status b2[] = {{3, 1, 1, 200, 0}, {5, 0, 3, 0, 50}};
    cs_accumulable a2 = {1, "records", "7", "12"};
    end.task_id = 2, end.partition = 1, end.executor_id = "2";
    end.updated_blocks = b2, end.num_updated_blocks = 2, end.accumulables = &a2;
    cs_ui_store_listener(st, &end);
    cs_accumulable a_final = {1, "records", NULL, "12"};
    cs_event done = {.kind = CS_EV_STAGE_COMPLETED,
                     .stage_id = 0,
                     .succeeded = true,
                     .job_id = -1,
                     .accumulables = &a_final,
                     .num_accumulables = 1};
    cs_ui_store_listener(st, &done);

    cs_ui_store_lock(st);
    assert_int_equal(cs_ui_store_num_rdds(st), 2); /* the persisted ones only */
    const ui_rdd *r3 = cs_ui_store_rdd(st, 3), *r5 = cs_ui_store_rdd(st, 5);
    assert_non_null(r3);
    assert_null(cs_ui_store_rdd(st, 2));
    assert_string_equal(r3->storage_level, "Memory Deserialized 1x Replicated");
    assert_string_equal(r5->storage_level, "Disk Serialized 1x Replicated");
    assert_int_equal(r3->num_partitions, 4);
    assert_int_equal(r3->num_cached_partitions, 2);
    assert_int_equal(r3->memory_used, 300);
    assert_int_equal(r5->disk_used, 50);
    const ui_executor *e1 = cs_ui_store_executor(st, "1"), *e2 = cs_ui_store_executor(st, "2");
    assert_int_equal(e1->rdd_blocks, 1);
    assert_int_equal(e1->memory_used, 100);
    assert_int_equal(e2->rdd_blocks, 2);
    assert_int_equal(e2->memory_used, 200);
    assert_int_equal(e2->disk_used, 50);
    const ui_stage *s0 = cs_ui_store_stage(st, 0, 0);
    assert_int_equal(s0->num_accums, 1);
    assert_string_equal(stage_accum(s0, 1)->name, "records");
    assert_string_equal(stage_accum(s0, 1)->value, "12");
    assert_null(stage_accum(s0, 1)->update);
    assert_int_equal(s0->tasks[1].num_accums, 1);
    assert_string_equal(s0->tasks[1].accums[0].update, "7");
    cs_ui_store_unlock(st);

    block_event(st, CS_EV_BLOCK_UPDATED, "1", 3, 0, 0, 0, 0); /* dropped */
    block_event(st, CS_EV_UNPERSIST_RDD, "2", 5, 0, 0, 0, 0);
    cs_ui_store_lock(st);
    assert_int_equal(r3->num_cached_partitions, 1);
    assert_int_equal(r3->memory_used, 200);
    assert_int_equal(e1->rdd_blocks, 0);
    assert_int_equal(e1->memory_used, 0);
    assert_null(cs_ui_store_rdd(st, 5));
    assert_int_equal(e2->rdd_blocks, 1);
    assert_int_equal(e2->disk_used, 0);
    cs_ui_store_unlock(st);

    cs_event gone = {.kind = CS_EV_EXECUTOR_REMOVED, .executor_id = "2", .reason = "lost"};
    cs_ui_store_listener(st, &gone);
    cs_ui_store_lock(st);
    assert_int_equal(r3->num_cached_partitions, 0);
    assert_int_equal(r3->memory_used, 0);
    assert_int_equal(e2->rdd_blocks, 1); /* a dead executor shows what it held, as Spark's */
    cs_ui_store_unlock(st);
    cs_ui_store_free(st);
}

/* spark.ui.retained*: old jobs, stages, finished tasks and dead executors go; counts stay. */
static void test_retention_limits(void **state)
{
    (void)state;
    ui_store_limits lim = {2, 3, 10, 1};
    ui_store *st = cs_ui_store_new(&lim);
    for (int j = 0; j < 5; j++) {
        int ids[] = {j}, tasks[] = {30};
        cs_event ev = {.kind = CS_EV_JOB_START,
                       .job_id = j,
                       .stage_ids = ids,
                       .num_stage_ids = 1,
                       .stage_num_tasks = tasks,
                       .stage_name = "job",
                       .time_ms = 1};
        post_direct(st, &ev);
        ev = (cs_event){.kind = CS_EV_STAGE_SUBMITTED, .job_id = j, .stage_id = j, .num_tasks = 30};
        post_direct(st, &ev);
        for (int t = 0; t < 30; t++)
            sc_task(post_direct, st, j, j, 0, j * 100 + t, t, "1", 10, 1, true, NULL, 0, 0);
        ev = (cs_event){.kind = CS_EV_STAGE_COMPLETED, .stage_id = j, .succeeded = true};
        post_direct(st, &ev);
        ev = (cs_event){.kind = CS_EV_JOB_END, .job_id = j, .succeeded = true};
        post_direct(st, &ev);
    }
    for (int e = 0; e < 4; e++) {
        char id[8];
        snprintf(id, sizeof id, "%d", e + 10);
        cs_event ev = {.kind = CS_EV_EXECUTOR_ADDED, .executor_id = id, .host = "h"};
        post_direct(st, &ev);
        ev.kind = CS_EV_EXECUTOR_REMOVED;
        ev.reason = "gone";
        post_direct(st, &ev);
    }
    cs_ui_store_lock(st);
    assert_int_equal(cs_ui_store_num_jobs(st), 2);
    assert_int_equal(cs_ui_store_job_at(st, 0)->job_id, 3); /* the newest kept */
    assert_true(cs_ui_store_num_stages(st) <= 3);
    const ui_stage *s4 = cs_ui_store_stage(st, 4, 0);
    assert_non_null(s4);
    assert_true(s4->num_tasks_kept <= 10);
    assert_int_equal(s4->complete, 30); /* counts keep what was dropped */
    assert_int_equal((int64_t)s4->num_tasks_kept + s4->tasks_dropped, 30);
    assert_int_equal(cs_ui_store_num_executors(st), 1);
    ui_store_counters c;
    cs_ui_store_counters(st, &c);
    assert_int_equal(c.tasks_completed, 150);
    cs_ui_store_unlock(st);
    cs_ui_store_free(st);
}

static void test_limits_from_conf(void **state)
{
    (void)state;
    ui_store_limits lim;
    cs_error err = {0};
    assert_int_equal(cs_ui_store_limits_read(NULL, &lim, &err), 0);
    assert_int_equal(lim.retained_jobs, 1000);
    assert_int_equal(lim.retained_tasks, 100000);
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.ui.retainedTasks", "0");
    assert_int_not_equal(cs_ui_store_limits_read(c, &lim, &err), 0);
    assert_non_null(strstr(err.msg, "spark.ui.retainedTasks"));
    cs_conf_free(c);
}

/* The UI reading (holding the store's lock) never makes the scheduler's posts wait: they queue in
 * the bus and reach the store once the reader is done. */
static void test_reader_never_blocks_posting(void **state)
{
    (void)state;
    ui_store *st = cs_ui_store_new(NULL);
    listener_bus *bus = quiet_bus();
    cs_listener_bus_add(bus, cs_ui_store_listener, st);
    cs_ui_store_lock(st); /* a page being rendered */
    int ids[] = {0}, tasks[] = {5000};
    cs_event ev = {.kind = CS_EV_JOB_START,
                   .job_id = 0,
                   .stage_ids = ids,
                   .num_stage_ids = 1,
                   .stage_num_tasks = tasks,
                   .stage_name = "j"};
    cs_listener_bus_post(bus, &ev);
    ev = (cs_event){.kind = CS_EV_STAGE_SUBMITTED, .stage_id = 0, .num_tasks = 5000};
    cs_listener_bus_post(bus, &ev);
    for (int t = 0; t < 5000; t++)
        sc_task(post_to_bus, bus, 0, 0, 0, t, t, "driver", 1, 1, true, NULL, 0, 0);
    assert_int_equal(cs_listener_bus_dropped(bus), 0);
    cs_ui_store_unlock(st);
    cs_listener_bus_flush(bus);
    cs_ui_store_lock(st);
    assert_int_equal(cs_ui_store_stage(st, 0, 0)->complete, 5000);
    cs_ui_store_unlock(st);
    cs_listener_bus_free(bus);
    cs_ui_store_free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_application_and_jobs),
        cmocka_unit_test(test_stages_and_tasks),
        cmocka_unit_test(test_executors_and_environment),
        cmocka_unit_test(test_retention_limits),
        cmocka_unit_test(test_limits_from_conf),
        cmocka_unit_test(test_reader_never_blocks_posting),
        cmocka_unit_test(test_storage_and_accumulators),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
