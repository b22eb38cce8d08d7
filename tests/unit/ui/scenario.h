/* scenario.h — a synthetic application for the UI's unit tests, posted as listener events the
 * way the driver posts them: application start, environment (with a secret), the driver and two
 * executors, job 0 with stages 0 (4 map tasks) -> 1 (2 result tasks, one failing once), job 1
 * reusing stage 0 (skipped) with stage 2 (2 tasks, one killed), executor 2 lost, heartbeat
 * metrics, application end. Every figure the tests check is written down here.
 * Used by test_app_status.c, test_ui_api.c, test_ui_server.c and test_event_replay.c.
 */
#ifndef CSPARK_TESTS_UI_SCENARIO_H
#define CSPARK_TESTS_UI_SCENARIO_H

#include "common/conf.h"
#include "sched/listener.h"

#define SC_T0 1790000000000LL /* application start, ms */
#define SC_APP_ID "app-20260101-0001"

typedef void (*sc_post_fn)(void *arg, const cs_event *ev);

/* A task ending with end_reason (NULL: success, or ExceptionFailure with reason), as
 * cs_dag_task_end_reason gives it. */
static void sc_task_ended(sc_post_fn post, void *arg, int job, int stage, int attempt, int64_t tid,
                          int partition, const char *exec, int64_t start, int64_t run_ms, bool ok,
                          const char *reason, const cs_task_end_reason *end_reason,
                          int64_t shuffle_write, int64_t shuffle_read)
{
    cs_event s = {.kind = CS_EV_TASK_START,
                  .job_id = job,
                  .stage_id = stage,
                  .stage_attempt = attempt,
                  .task_id = tid,
                  .partition = partition,
                  .attempt = 0,
                  .executor_id = exec,
                  .host = "10.0.0.7",
                  .task_type = shuffle_write ? "ShuffleMapTask" : "ResultTask",
                  .time_ms = start};
    post(arg, &s);
    cs_event e = s;
    e.kind = CS_EV_TASK_END;
    e.time_ms = start + run_ms + 5;
    e.succeeded = ok;
    e.reason = reason;
    e.end_reason = end_reason;
    e.metrics.run_time_ms = run_ms;
    e.metrics.cpu_time_ns = run_ms * 900000;
    e.metrics.result_size = 100;
    e.metrics.records_read = 10;
    e.metrics.bytes_read = 1000;
    e.metrics.shuffle_bytes_written = shuffle_write;
    e.metrics.shuffle_records_written = shuffle_write ? 5 : 0;
    e.metrics.shuffle_bytes_read = shuffle_read;
    e.metrics.shuffle_records_read = shuffle_read ? 5 : 0;
    post(arg, &e);
}

static void sc_task(sc_post_fn post, void *arg, int job, int stage, int attempt, int64_t tid,
                    int partition, const char *exec, int64_t start, int64_t run_ms, bool ok,
                    const char *reason, int64_t shuffle_write, int64_t shuffle_read)
{
    sc_task_ended(post, arg, job, stage, attempt, tid, partition, exec, start, run_ms, ok, reason,
                  NULL, shuffle_write, shuffle_read);
}

static void sc_run(sc_post_fn post, void *arg)
{
    int64_t t = SC_T0;
    cs_event ev = {.kind = CS_EV_APPLICATION_START,
                   .app_id = SC_APP_ID,
                   .app_name = "scenario <app>",
                   .user = "alice",
                   .time_ms = t};
    post(arg, &ev);
    cs_conf *conf = cs_conf_new();
    cs_conf_set(conf, "spark.master", "local-cluster[2,2,1024]");
    cs_conf_set(conf, "spark.app.name", "scenario <app>");
    cs_conf_set(conf, "spark.authenticate.secret", "hunter2");
    cs_conf_set(conf, "spark.executor.memory", "1g");
    ev = (cs_event){.kind = CS_EV_ENVIRONMENT_UPDATE, .conf = conf, .time_ms = t};
    post(arg, &ev);
    cs_conf_free(conf);
    const char *execs[] = {"driver", "1", "2"};
    for (int i = 0; i < 3; i++) {
        ev = (cs_event){.kind = CS_EV_EXECUTOR_ADDED,
                        .executor_id = execs[i],
                        .host = i ? "10.0.0.7" : "localhost",
                        .executor_cores = i ? 2 : 0,
                        .time_ms = t + i};
        post(arg, &ev);
    }
    /* job 0: stage 0 (4 tasks) -> stage 1 (2 tasks) */
    int ids0[] = {1, 0}, tasks0[] = {2, 4}, np0[] = {1, 0}, par0[] = {0};
    ev = (cs_event){.kind = CS_EV_JOB_START,
                    .job_id = 0,
                    .stage_ids = ids0,
                    .num_stage_ids = 2,
                    .stage_num_tasks = tasks0,
                    .stage_num_parents = np0,
                    .stage_parents = par0,
                    .stage_name = "count at scenario.so:main",
                    .time_ms = t + 10};
    post(arg, &ev);
    ev = (cs_event){.kind = CS_EV_STAGE_SUBMITTED,
                    .job_id = 0,
                    .stage_id = 0,
                    .num_tasks = 4,
                    .stage_name = "map at scenario.so:main",
                    .time_ms = t + 11};
    post(arg, &ev);
    for (int i = 0; i < 4; i++) /* run times 100, 200, 300, 400 */
        sc_task(post, arg, 0, 0, 0, i, i, i % 2 ? "2" : "1", t + 20, 100 * (i + 1), true, NULL,
                1000, 0);
    ev = (cs_event){.kind = CS_EV_STAGE_COMPLETED,
                    .job_id = 0,
                    .stage_id = 0,
                    .succeeded = true,
                    .time_ms = t + 430};
    post(arg, &ev);
    ev = (cs_event){.kind = CS_EV_STAGE_SUBMITTED,
                    .job_id = 0,
                    .stage_id = 1,
                    .num_tasks = 2,
                    .stage_name = "count at scenario.so:main",
                    .time_ms = t + 431};
    post(arg, &ev);
    sc_task(post, arg, 0, 1, 0, 4, 0, "1", t + 440, 50, true, NULL, 0, 2000);
    sc_task(post, arg, 0, 1, 0, 5, 1, "2", t + 440, 60, false, "boom: bad record", 0, 0);
    sc_task(post, arg, 0, 1, 0, 6, 1, "1", t + 510, 70, true, NULL, 0, 2000);
    ev = (cs_event){.kind = CS_EV_STAGE_COMPLETED,
                    .job_id = 0,
                    .stage_id = 1,
                    .succeeded = true,
                    .time_ms = t + 600};
    post(arg, &ev);
    ev = (cs_event){.kind = CS_EV_JOB_END, .job_id = 0, .succeeded = true, .time_ms = t + 601};
    post(arg, &ev);

    /* heartbeat of executor 1 */
    cs_executor_metrics xm = {.rss_bytes = 50 << 20,
                              .vmem_bytes = 300 << 20,
                              .cpu_time_ns = 2000000000,
                              .tasks_completed = 4,
                              .task_memory_used = 1 << 20};
    ev = (cs_event){.kind = CS_EV_EXECUTOR_METRICS,
                    .executor_id = "1",
                    .exec_metrics = &xm,
                    .time_ms = t + 650};
    post(arg, &ev);

    /* job 1: stage 0 again (its output exists: skipped) -> stage 2; a task killed */
    int ids1[] = {2, 0}, tasks1[] = {2, 4}, np1[] = {1, 0}, par1[] = {0};
    ev = (cs_event){.kind = CS_EV_JOB_START,
                    .job_id = 1,
                    .stage_ids = ids1,
                    .num_stage_ids = 2,
                    .stage_num_tasks = tasks1,
                    .stage_num_parents = np1,
                    .stage_parents = par1,
                    .stage_name = "collect at scenario.so:main",
                    .time_ms = t + 700};
    post(arg, &ev);
    ev = (cs_event){.kind = CS_EV_STAGE_SUBMITTED,
                    .job_id = 1,
                    .stage_id = 2,
                    .num_tasks = 2,
                    .stage_name = "collect at scenario.so:main",
                    .time_ms = t + 701};
    post(arg, &ev);
    sc_task(post, arg, 1, 2, 0, 7, 0, "1", t + 710, 20, true, NULL, 0, 2000);
    static const cs_task_end_reason killed = {.kind = CS_END_TASK_KILLED}; /* TASK_KILLED */
    sc_task_ended(post, arg, 1, 2, 0, 8, 1, "2", t + 710, 30, false,
                  "task cancelled: Job 1 cancelled because Stage 2 was cancelled", &killed, 0, 0);
    ev = (cs_event){.kind = CS_EV_STAGE_COMPLETED,
                    .job_id = 1,
                    .stage_id = 2,
                    .succeeded = false,
                    .reason = "Job 1 cancelled because Stage 2 was cancelled",
                    .time_ms = t + 760};
    post(arg, &ev);
    ev = (cs_event){.kind = CS_EV_JOB_END,
                    .job_id = 1,
                    .succeeded = false,
                    .reason = "Job 1 cancelled because Stage 2 was cancelled",
                    .time_ms = t + 761};
    post(arg, &ev);
    ev = (cs_event){.kind = CS_EV_EXECUTOR_REMOVED,
                    .executor_id = "2",
                    .reason = "Command exited with exit code 139 (SIGSEGV)",
                    .time_ms = t + 800};
    post(arg, &ev);
    ev = (cs_event){.kind = CS_EV_APPLICATION_END, .time_ms = t + 900, .succeeded = true};
    post(arg, &ev);
}

#endif /* CSPARK_TESTS_UI_SCENARIO_H */
