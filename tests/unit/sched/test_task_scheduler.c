/* test_task_scheduler.c — the task scheduler and task set manager (src/sched/task_scheduler.c,
 * task_set_manager.c) driven as a backend drives them, with offers and explicit times: placement
 * by locality level (PROCESS_LOCAL on the holder, NODE_LOCAL on its host, tasks without a
 * preference at once, ANY elsewhere) with the wait escalating through spark.locality.wait.process
 * and .node, a launch restarting the wait, a preferred executor that is gone or lost not waited
 * for, the per-level waits read from the configuration with their defaults; the valid levels
 * recomputed when executors are added or lost or tasks queued, and only then; task sets in FIFO
 * order; retries up to spark.task.maxFailures then abort; failures of an executor removed not
 * counted; zombie sets launching nothing and ignoring late failures; failures and attempt numbers
 * shared by a stage's attempts; FIFO and FAIR (pools) orders of two jobs' sets, and
 * spark.scheduler.mode read from the configuration; a barrier set launching all its tasks in one
 * round or none, with their addresses in partition order. The DAG scheduler's side of retries,
 * zombie attempts and executor loss is in test_dag_scheduler.c. No thread, no clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/conf.h"
#include "sched/scheduler.h"
#include "sched/task_scheduler.h"

#define NTASKS 8

/* Tasks of one set: task i prefers the executors in prefs[i] (NULL: none). */
typedef struct tasks {
    task_desc t[NTASKS];
    cs_block_location locs[NTASKS];
} tasks;

static void make_task(tasks *ts, int i, const char *pref_exec)
{
    memset(&ts->t[i], 0, sizeof ts->t[i]);
    ts->t[i].task_id = i;
    ts->t[i].partition = i;
    if (pref_exec) {
        memset(&ts->locs[i], 0, sizeof ts->locs[i]);
        snprintf(ts->locs[i].executor_id, sizeof ts->locs[i].executor_id, "%s", pref_exec);
        ts->t[i].block_locs = &ts->locs[i];
        ts->t[i].num_block_locs = 1;
    }
}

/* Queues one attempt. */
static void add1(cs_task_scheduler *ts, cs_task_set *m, const task_desc *t, int index)
{
    cs_task_scheduler_add(ts, m, &t, &index, 1);
}

static const cs_locality_waits waits = {.process_ms = 1000, .node_ms = 2000, .rack_ms = 5000};

/* Offers these executors (id, host, free cores) once; returns how many tasks were given. */
static int offer(cs_task_scheduler *ts, cs_offer *offers, int n, int64_t now,
                 cs_task_assignment *out)
{
    return cs_task_scheduler_resource_offers(ts, offers, n, now, out, 16);
}

/* Executor "1" on host A holds task 0's block and is busy; "2" is on host B, "3" on host A. The
 * set waits .process for "1", then allows NODE_LOCAL ("3" on host A), then after .node ANY. */
static void test_wait_escalates_through_levels(void **state)
{
    (void)state;
    cs_task_scheduler *ts = cs_task_scheduler_new(&waits, 4);
    cs_task_set *m = cs_task_scheduler_submit(ts, 0, 0, 0, 1, NULL, NULL, 0);
    tasks tk;
    make_task(&tk, 0, "1");
    add1(ts, m, &tk.t[0], 0);
    cs_offer on_b[] = {{"1", "A", 0}, {"2", "B", 1}};
    cs_task_assignment a[16];
    assert_int_equal(offer(ts, on_b, 2, 0, a), 0);
    assert_int_equal(offer(ts, on_b, 2, 999, a), 0);  /* .process not over */
    assert_int_equal(offer(ts, on_b, 2, 1000, a), 0); /* NODE_LOCAL now: B is not A's host */
    assert_int_equal(offer(ts, on_b, 2, 2999, a), 0); /* .node counts from 1000 */
    cs_offer on_a[] = {{"1", "A", 0}, {"2", "B", 0}, {"3", "A", 1}};
    /* NODE_LOCAL allowed since 1000: "3" shares A with the holder */
    assert_int_equal(offer(ts, on_a, 3, 2999, a), 1);
    assert_ptr_equal(a[0].t, &tk.t[0]);
    assert_int_equal(a[0].offer, 2);
    assert_int_equal(a[0].level, CS_LOCALITY_NODE_LOCAL);
    assert_false(cs_task_scheduler_has_pending(ts));
    const task_desc **w;
    assert_int_equal(cs_task_scheduler_remove(ts, m, &w), 0);
    cs_task_set_free(m);

    /* the same from the start on B only: ANY once .process + .node have passed */
    m = cs_task_scheduler_submit(ts, 1, 1, 0, 1, NULL, NULL, 10000);
    add1(ts, m, &tk.t[0], 0);
    assert_int_equal(offer(ts, on_b, 2, 12999, a), 0);
    assert_int_equal(offer(ts, on_b, 2, 13000, a), 1);
    assert_int_equal(a[0].offer, 1);
    assert_int_equal(a[0].level, CS_LOCALITY_ANY);
    assert_int_equal(cs_task_scheduler_remove(ts, m, &w), 0);
    cs_task_set_free(m);
    cs_task_scheduler_free(ts);
}

/* The holder with a free core gets its task PROCESS_LOCAL at once; a task without preference
 * runs at once anywhere (reported PROCESS_LOCAL, as Spark); a launch at PROCESS_LOCAL restarts
 * the wait for the next preferring task. */
static void test_process_local_and_no_pref(void **state)
{
    (void)state;
    cs_task_scheduler *ts = cs_task_scheduler_new(&waits, 4);
    cs_task_set *m = cs_task_scheduler_submit(ts, 0, 0, 0, 3, NULL, NULL, 0);
    tasks tk;
    make_task(&tk, 0, "1");
    make_task(&tk, 1, NULL);
    make_task(&tk, 2, "1");
    for (int i = 0; i < 3; i++)
        add1(ts, m, &tk.t[i], i);
    cs_offer offers[] = {{"1", "A", 1}, {"2", "B", 1}};
    cs_task_assignment a[16];
    assert_int_equal(offer(ts, offers, 2, 500, a), 2);
    for (int i = 0; i < 2; i++) {
        if (a[i].t == &tk.t[0]) assert_int_equal(a[i].offer, 0);
        if (a[i].t == &tk.t[1]) assert_int_equal(a[i].offer, 1);
        assert_int_equal(a[i].level, CS_LOCALITY_PROCESS_LOCAL);
    }
    /* task 2 waits for "1" (busy now): the wait restarted at 500 */
    cs_offer busy[] = {{"1", "A", 0}, {"2", "B", 1}};
    assert_int_equal(offer(ts, busy, 2, 1499, a), 0);
    /* NODE_LOCAL is valid (A, the holder's host, is offered) but "2" is on B: ANY only after
     * .process and .node (counted from the launch at 500) */
    assert_int_equal(offer(ts, busy, 2, 3499, a), 0);
    assert_int_equal(offer(ts, busy, 2, 3500, a), 1);
    assert_int_equal(a[0].level, CS_LOCALITY_ANY);
    const task_desc **w;
    cs_task_scheduler_remove(ts, m, &w);
    cs_task_set_free(m);
    cs_task_scheduler_free(ts);
}

/* A preferred executor that is not offered (lost) is not waited for. */
static void test_gone_executor_not_waited_for(void **state)
{
    (void)state;
    cs_task_scheduler *ts = cs_task_scheduler_new(&waits, 4);
    cs_task_set *m = cs_task_scheduler_submit(ts, 0, 0, 0, 1, NULL, NULL, 0);
    tasks tk;
    make_task(&tk, 0, "gone");
    add1(ts, m, &tk.t[0], 0);
    cs_offer offers[] = {{"2", "B", 1}};
    cs_task_assignment a[16];
    assert_int_equal(offer(ts, offers, 1, 0, a), 1);
    assert_int_equal(a[0].level, CS_LOCALITY_ANY);
    const task_desc **w;
    cs_task_scheduler_remove(ts, m, &w);
    cs_task_set_free(m);
    cs_task_scheduler_free(ts);
}

/* An executor lost while the set waits for it (it no longer comes in the offers): the set's
 * levels are recomputed and the task runs elsewhere at once, without waiting .process. */
static void test_lost_executor_no_longer_waited_for(void **state)
{
    (void)state;
    cs_task_scheduler *ts = cs_task_scheduler_new(&waits, 4);
    cs_task_set *m = cs_task_scheduler_submit(ts, 0, 0, 0, 1, NULL, NULL, 0);
    tasks tk;
    make_task(&tk, 0, "1");
    add1(ts, m, &tk.t[0], 0);
    cs_task_assignment a[16];
    cs_offer holder_busy[] = {{"1", "A", 0}, {"2", "B", 1}};
    assert_int_equal(offer(ts, holder_busy, 2, 0, a), 0); /* waits .process for "1" */
    cs_offer holder_lost[] = {{"2", "B", 1}};
    assert_int_equal(offer(ts, holder_lost, 1, 10, a), 1);
    assert_int_equal(a[0].level, CS_LOCALITY_ANY);
    const task_desc **w;
    cs_task_scheduler_remove(ts, m, &w);
    cs_task_set_free(m);
    cs_task_scheduler_free(ts);
}

/* The executors alive a test gives a set, counting how often the set asks for them. */
typedef struct given_alive {
    cs_alive_executors alive;
    int asked;
} given_alive;

static const cs_alive_executors *alive_of(void *arg)
{
    given_alive *g = arg;
    g->asked++;
    return &g->alive;
}

static void assert_levels(cs_task_set *m, given_alive *g, const cs_locality_level *want, int n)
{
    int got_n;
    const cs_locality_level *got = cs_task_set_locality_levels(m, alive_of, g, &got_n);
    assert_int_equal(got_n, n);
    for (int i = 0; i < n; i++)
        assert_int_equal(got[i], want[i]);
}

/* Spark's recomputeLocality: a set's valid levels follow the executors alive (PROCESS_LOCAL and
 * NODE_LOCAL come when the holder of its tasks' blocks is added, go when it is lost, NODE_LOCAL
 * staying while another executor runs on the holder's host) and the tasks queued (NO_PREF with a
 * task without preference); while neither changes they are kept, not recomputed at each offer;
 * a set without preferences never asks for the executors. */
static void test_levels_recomputed_when_executors_change(void **state)
{
    (void)state;
    cs_task_set *m = cs_task_set_new(0, 0, 0, 2, 4, &waits, NULL, NULL, 0);
    tasks tk;
    make_task(&tk, 0, "1");
    make_task(&tk, 1, NULL);
    const task_desc *t0 = &tk.t[0], *t1 = &tk.t[1];
    int index0 = 0, index1 = 1;
    cs_task_set_add(m, &t0, &index0, 1);
    const cs_locality_level any[] = {CS_LOCALITY_ANY};
    const cs_locality_level all[] = {CS_LOCALITY_PROCESS_LOCAL, CS_LOCALITY_NODE_LOCAL,
                                     CS_LOCALITY_ANY};
    const cs_locality_level node[] = {CS_LOCALITY_NODE_LOCAL, CS_LOCALITY_ANY};
    const cs_locality_level no_pref[] = {CS_LOCALITY_NO_PREF, CS_LOCALITY_ANY};

    cs_offer b_only[] = {{"2", "B", 0}};
    given_alive g = {{b_only, 1, 1}, 0};
    assert_levels(m, &g, any, 1); /* the holder "1" is not alive */
    cs_offer with_holder[] = {{"1", "A", 0}, {"2", "B", 0}};
    g.alive = (cs_alive_executors){with_holder, 2, 2}; /* "1" added */
    assert_levels(m, &g, all, 3);
    g.alive = (cs_alive_executors){b_only, 1, 2}; /* nothing changed (same epoch): kept */
    assert_levels(m, &g, all, 3);
    cs_offer other_on_a[] = {{"2", "B", 0}, {"3", "A", 0}};
    g.alive = (cs_alive_executors){other_on_a, 2, 3}; /* "1" lost, "3" on its host */
    assert_levels(m, &g, node, 2);
    g.alive = (cs_alive_executors){b_only, 1, 4}; /* "3" lost too */
    assert_levels(m, &g, any, 1);
    cs_task_set_add(m, &t1, &index1, 1); /* same executors, a task without preference */
    assert_levels(m, &g, no_pref, 2);
    cs_task_set_free(m);

    /* without preferences: levels from the tasks alone, the executors never asked for */
    m = cs_task_set_new(0, 1, 0, 1, 4, &waits, NULL, NULL, 0);
    cs_task_set_add(m, &t1, &index0, 1);
    g.asked = 0;
    assert_levels(m, &g, no_pref, 2);
    g.alive.epoch++;
    assert_levels(m, &g, no_pref, 2);
    assert_int_equal(g.asked, 0);
    cs_task_set_free(m);
}

/* Sets are offered in FIFO order (lower job, then lower stage), whatever their submission order. */
static void test_fifo_order(void **state)
{
    (void)state;
    cs_task_scheduler *ts = cs_task_scheduler_new(&waits, 4);
    cs_task_set *later = cs_task_scheduler_submit(ts, 1, 5, 0, 1, NULL, NULL, 0);
    cs_task_set *first = cs_task_scheduler_submit(ts, 0, 3, 0, 1, NULL, NULL, 0);
    cs_task_set *second = cs_task_scheduler_submit(ts, 0, 4, 0, 1, NULL, NULL, 0);
    tasks tk;
    for (int i = 0; i < 3; i++)
        make_task(&tk, i, NULL);
    add1(ts, later, &tk.t[0], 0);
    add1(ts, second, &tk.t[1], 0);
    add1(ts, first, &tk.t[2], 0);
    cs_offer one[] = {{"1", "A", 1}};
    cs_task_assignment a[16];
    const task_desc *order[3];
    for (int i = 0; i < 3; i++) {
        one[0].free_cores = 1;
        assert_int_equal(offer(ts, one, 1, 0, a), 1);
        order[i] = a[0].t;
    }
    assert_ptr_equal(order[0], &tk.t[2]);
    assert_ptr_equal(order[1], &tk.t[1]);
    assert_ptr_equal(order[2], &tk.t[0]);
    const task_desc **w;
    cs_task_set *sets[] = {later, first, second};
    for (int i = 0; i < 3; i++) {
        cs_task_scheduler_remove(ts, sets[i], &w);
        cs_task_set_free(sets[i]);
    }
    cs_task_scheduler_free(ts);
}

/* Two jobs' sets, each with four pending tasks: job 0's in pool "etl", job 1's in pool "adhoc".
 * FIFO offers job 0 every core while it has tasks. FAIR (Spark's FairSchedulingAlgorithm with the
 * default minShare 0 and weight 1) gives a core to the pool running fewer tasks, the name breaking
 * ties ("adhoc" before "etl"), each round sorted once at its start; a task that ends frees its
 * pool's count. */
static int offer_one_core(cs_task_scheduler *ts, const tasks *a_tasks, const tasks *b_tasks)
{
    cs_offer one[] = {{"1", "A", 1}};
    cs_task_assignment a[16];
    assert_int_equal(offer(ts, one, 1, 0, a), 1);
    for (int i = 0; i < NTASKS; i++)
        if (a[0].t == &a_tasks->t[i]) return 0;
    for (int i = 0; i < NTASKS; i++)
        if (a[0].t == &b_tasks->t[i]) return 1;
    fail();
    return -1;
}

static void pools_case(bool fair, const int *want, int n)
{
    cs_task_scheduler *ts = cs_task_scheduler_new(&waits, 4);
    if (fair) cs_task_scheduler_use_fair(ts);
    cs_task_set *etl = cs_task_scheduler_submit(ts, 0, 0, 0, 4, NULL, NULL, 0);
    cs_task_scheduler_set_pool(ts, etl, "etl");
    cs_task_set *adhoc = cs_task_scheduler_submit(ts, 1, 1, 0, 4, NULL, NULL, 0);
    cs_task_scheduler_set_pool(ts, adhoc, "adhoc");
    tasks ta, tb;
    for (int i = 0; i < 4; i++) {
        make_task(&ta, i, NULL);
        make_task(&tb, i, NULL);
        add1(ts, etl, &ta.t[i], i);
        add1(ts, adhoc, &tb.t[i], i);
    }
    for (int i = 0; i < n; i++) { /* one core at a time: the rounds see the counts so far */
        int got = offer_one_core(ts, &ta, &tb);
        assert_int_equal(got, want[i]);
        if (i == 2) cs_task_scheduler_task_ended(ts, got == 0 ? etl : adhoc);
    }
    /* a round with two cores is sorted once: the pool first in order takes both */
    cs_offer two[] = {{"1", "A", 2}};
    cs_task_assignment a[16];
    assert_int_equal(offer(ts, two, 1, 0, a), 2);
    const task_desc **w;
    cs_task_scheduler_remove(ts, etl, &w);
    free(w);
    cs_task_scheduler_remove(ts, adhoc, &w);
    free(w);
    cs_task_set_free(etl);
    cs_task_set_free(adhoc);
    cs_task_scheduler_free(ts);
}

static void test_fifo_and_fair_pools(void **state)
{
    (void)state;
    /* FIFO: job 0 first whatever the pools */
    const int fifo[] = {0, 0, 0, 0, 1};
    pools_case(false, fifo, 5);
    /* FAIR: adhoc (0 running, name first), etl (0 < 1), adhoc (1 = 1, name), then the third
     * task (adhoc's) ends: adhoc 1 < etl 1? equal: adhoc by name; then etl (1 < 2) */
    const int fair[] = {1, 0, 1, 1, 0};
    pools_case(true, fair, 5);
}

/* The scheduler's options: spark.scheduler.mode FIFO (default) or FAIR in any case; another mode
 * and spark.scheduler.allocation.file are refused naming the key. */
static void test_scheduler_mode_from_conf(void **state)
{
    (void)state;
    cs_conf *c = cs_conf_new();
    scheduler_options o;
    cs_error err;
    memset(&o, 0, sizeof o);
    assert_int_equal(cs_scheduler_options_read(c, &o, &err), 0);
    assert_false(o.fair);
    cs_conf_set(c, "spark.scheduler.mode", "fair");
    assert_int_equal(cs_scheduler_options_read(c, &o, &err), 0);
    assert_true(o.fair);
    cs_conf_set(c, "spark.scheduler.mode", "ROUND_ROBIN");
    assert_int_equal(cs_scheduler_options_read(c, &o, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.scheduler.mode"));
    cs_conf_set(c, "spark.scheduler.mode", "FAIR");
    cs_conf_set(c, "spark.scheduler.allocation.file", "pools.xml");
    assert_int_equal(cs_scheduler_options_read(c, &o, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.scheduler.allocation.file"));
    cs_conf_free(c);
}

/* spark.task.maxFailures = 3: two failures are retried (attempts 1 and 2), the third aborts; a
 * failure of an executor removed by no fault of the task is retried without counting; a task that
 * can never launch aborts at once. */
static void test_retries_then_abort(void **state)
{
    (void)state;
    cs_task_scheduler *ts = cs_task_scheduler_new(&waits, 3);
    cs_task_set *m = cs_task_scheduler_submit(ts, 0, 0, 0, 2, NULL, NULL, 0);
    int failures;
    assert_int_equal(cs_task_set_next_attempt(m, 0), 0);
    tasks tk;
    make_task(&tk, 0, NULL);
    add1(ts, m, &tk.t[0], 0);
    assert_int_equal(cs_task_set_failed(m, 0, CS_FAILURE_COUNTED, &failures), CS_TASK_RETRY);
    assert_int_equal(failures, 1);
    assert_int_equal(cs_task_set_next_attempt(m, 0), 1);
    assert_int_equal(cs_task_set_failed(m, 0, CS_FAILURE_NOT_COUNTED, &failures), CS_TASK_RETRY);
    assert_int_equal(failures, 1);
    assert_int_equal(cs_task_set_next_attempt(m, 0), 2); /* every attempt gets its own number */
    assert_int_equal(cs_task_set_failed(m, 0, CS_FAILURE_COUNTED, &failures), CS_TASK_RETRY);
    assert_int_equal(cs_task_set_failed(m, 0, CS_FAILURE_COUNTED, &failures), CS_TASK_ABORT);
    assert_int_equal(failures, 3);
    assert_int_equal(cs_task_set_failed(m, 1, CS_FAILURE_UNLAUNCHABLE, &failures), CS_TASK_ABORT);
    assert_int_equal(failures, 3);
    const task_desc **w;
    assert_int_equal(cs_task_scheduler_remove(ts, m, &w), 1); /* attempt 0 was never offered */
    assert_ptr_equal(w[0], &tk.t[0]);
    free(w);
    cs_task_set_free(m);
    cs_task_scheduler_free(ts);
}

/* The counts are the stage's, shared by its attempts: a task that failed in stage attempt 0 runs
 * as attempt 1 in stage attempt 1, and its failures there add to the earlier ones (the job of
 * tests/integration/shared_variables.sh's "crash" accumulators kills its executor on attempt 0
 * only). */
static void test_counts_shared_across_stage_attempts(void **state)
{
    (void)state;
    int failures[2] = {0}, attempts[2] = {0}, n;
    cs_task_scheduler *ts = cs_task_scheduler_new(&waits, 2);
    cs_task_set *first = cs_task_scheduler_submit(ts, 0, 0, 0, 2, failures, attempts, 0);
    assert_int_equal(cs_task_set_failed(first, 1, CS_FAILURE_COUNTED, &n), CS_TASK_RETRY);
    const task_desc **w;
    cs_task_scheduler_remove(ts, first, &w); /* the stage attempt failed */
    cs_task_set *second = cs_task_scheduler_submit(ts, 0, 0, 1, 2, failures, attempts, 0);
    assert_int_equal(cs_task_set_next_attempt(second, 1), 1);
    assert_int_equal(cs_task_set_failed(second, 1, CS_FAILURE_COUNTED, &n), CS_TASK_ABORT);
    assert_int_equal(n, 2);
    cs_task_scheduler_remove(ts, second, &w);
    cs_task_set_free(first);
    cs_task_set_free(second);
    cs_task_scheduler_free(ts);
}

/* A zombie set (its stage attempt ended) gives its pending attempts back and launches nothing;
 * its late failures are ignored, neither counted nor retried. */
static void test_zombie_set(void **state)
{
    (void)state;
    cs_task_scheduler *ts = cs_task_scheduler_new(&waits, 1);
    cs_task_set *m = cs_task_scheduler_submit(ts, 0, 0, 0, 3, NULL, NULL, 0);
    tasks tk;
    for (int i = 0; i < 3; i++) {
        make_task(&tk, i, NULL);
        add1(ts, m, &tk.t[i], i);
    }
    cs_offer one[] = {{"1", "A", 1}};
    cs_task_assignment a[16];
    assert_int_equal(offer(ts, one, 1, 0, a), 1); /* task 0 runs */
    const task_desc **w;
    assert_int_equal(cs_task_scheduler_remove(ts, m, &w), 2);
    assert_ptr_equal(w[0], &tk.t[1]);
    assert_ptr_equal(w[1], &tk.t[2]);
    free(w);
    assert_true(cs_task_set_is_zombie(m));
    assert_false(cs_task_scheduler_has_pending(ts));
    one[0].free_cores = 1;
    assert_int_equal(offer(ts, one, 1, 0, a), 0);
    int failures;
    assert_int_equal(cs_task_set_failed(m, 0, CS_FAILURE_COUNTED, &failures), CS_TASK_IGNORE);
    assert_int_equal(failures, 0);
    assert_int_equal(cs_task_scheduler_remove(ts, m, &w), 0); /* again: nothing */
    cs_task_set_free(m);
    cs_task_scheduler_free(ts);
}

/* The per-level waits default to spark.locality.wait (3s), each read from its own key. */
static void test_waits_from_conf(void **state)
{
    (void)state;
    cs_conf *c = cs_conf_new();
    cs_locality_waits w;
    cs_error err;
    cs_error_clear(&err);
    assert_int_equal(cs_locality_waits_read(c, &w, &err), 0);
    assert_int_equal(w.process_ms, 3000);
    assert_int_equal(w.node_ms, 3000);
    assert_int_equal(w.rack_ms, 3000);
    cs_conf_set(c, "spark.locality.wait", "500ms");
    cs_conf_set(c, "spark.locality.wait.node", "0");
    cs_conf_set(c, "spark.locality.wait.rack", "2s");
    assert_int_equal(cs_locality_waits_read(c, &w, &err), 0);
    assert_int_equal(w.process_ms, 500);
    assert_int_equal(w.node_ms, 0);
    assert_int_equal(w.rack_ms, 2000);
    cs_conf_set(c, "spark.locality.wait.process", "soon");
    assert_int_equal(cs_locality_waits_read(c, &w, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.locality.wait.process"));
    cs_conf_free(c);
}

/* A barrier set of 3 tasks (one preferring "1"): offers of 2 free cores in all launch nothing, a
 * round of 3 launches all three at once (no locality wait), and every task sees the executors'
 * "host:port" in partition order; an ordinary set behind it gets the cores left. */
static void test_barrier_set_all_or_nothing(void **state)
{
    (void)state;
    cs_task_scheduler *ts = cs_task_scheduler_new(&waits, 4);
    cs_task_set *m = cs_task_scheduler_submit(ts, 0, 0, 0, 3, NULL, NULL, 0);
    char room[256];
    cs_barrier_launch b = {.num_tasks = 3, .addresses = room, .addresses_cap = sizeof room};
    tasks tk;
    const task_desc *ptrs[3];
    int idx[3];
    for (int i = 0; i < 3; i++) {
        make_task(&tk, i, i == 0 ? "1" : NULL);
        tk.t[i].barrier = &b;
        ptrs[i] = &tk.t[i];
        idx[i] = i;
    }
    cs_task_set_set_barrier(m, 3);
    cs_task_scheduler_add(ts, m, ptrs, idx, 3);
    cs_task_set *plain = cs_task_scheduler_submit(ts, 0, 1, 0, 1, NULL, NULL, 0);
    tasks other;
    make_task(&other, 0, NULL);
    add1(ts, plain, &other.t[0], 0);
    cs_task_assignment a[16];
    cs_offer two[] = {{"1", "A", 1, 7001}, {"2", "B", 1, 7002}};
    int n = offer(ts, two, 2, 0, a); /* the barrier set waits; the plain set takes a core */
    assert_int_equal(n, 1);
    assert_ptr_equal(a[0].t, &other.t[0]);
    assert_int_equal(cs_task_set_pending(m), 3);
    cs_offer three[] = {{"1", "A", 1, 7001}, {"2", "B", 2, 7002}};
    n = offer(ts, three, 2, 0, a);
    assert_int_equal(n, 3);
    assert_int_equal(cs_task_set_pending(m), 0);
    const char *host_of[3] = {NULL, NULL, NULL};
    for (int i = 0; i < n; i++)
        host_of[a[i].t->partition] = three[a[i].offer].executor_id;
    char want[256];
    snprintf(want, sizeof want, "%s:%d,%s:%d,%s:%d", strcmp(host_of[0], "1") ? "B" : "A",
             strcmp(host_of[0], "1") ? 7002 : 7001, strcmp(host_of[1], "1") ? "B" : "A",
             strcmp(host_of[1], "1") ? 7002 : 7001, strcmp(host_of[2], "1") ? "B" : "A",
             strcmp(host_of[2], "1") ? 7002 : 7001);
    assert_string_equal(b.addresses, want);
    cs_task_scheduler_free(ts);
    cs_task_set_free(m);
    cs_task_set_free(plain);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wait_escalates_through_levels),
        cmocka_unit_test(test_process_local_and_no_pref),
        cmocka_unit_test(test_gone_executor_not_waited_for),
        cmocka_unit_test(test_lost_executor_no_longer_waited_for),
        cmocka_unit_test(test_levels_recomputed_when_executors_change),
        cmocka_unit_test(test_fifo_order),
        cmocka_unit_test(test_fifo_and_fair_pools),
        cmocka_unit_test(test_scheduler_mode_from_conf),
        cmocka_unit_test(test_retries_then_abort),
        cmocka_unit_test(test_counts_shared_across_stage_attempts),
        cmocka_unit_test(test_zombie_set),
        cmocka_unit_test(test_waits_from_conf),
        cmocka_unit_test(test_barrier_set_all_or_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
