/* test_barrier_coordinator.c — unit tests for Spark's BarrierCoordinator (barrier_coordinator.c)
 * over explicit times: no task is answered until every task of the stage attempt asked, then all
 * are answered with the messages in partition order and the epoch moves on; a sync times out with
 * Spark's text at its deadline (not before) and the attempt's state goes; a stale epoch, a
 * different task count and mixed methods fail with Spark's texts; a cancelled requester gets no
 * reply; the end of a stage attempt fails its waiting requesters; attempts are independent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sched/barrier_coordinator.h"

/* What each requester (an int naming it, 0..7) was answered. */
typedef struct answers {
    int replies[8];
    char messages[8][128]; /* the messages joined by "|" */
    char errors[8][512];
} answers;

static void on_reply(void *arg, void *requester, const char *const *messages, int n,
                     const char *error)
{
    answers *a = arg;
    int who = *(int *)requester;
    a->replies[who]++;
    if (error) {
        snprintf(a->errors[who], sizeof a->errors[who], "%s", error);
        return;
    }
    a->messages[who][0] = '\0';
    for (int i = 0; i < n; i++) {
        if (i) strcat(a->messages[who], "|");
        strcat(a->messages[who], messages[i]);
    }
}

static int ids[8] = {0, 1, 2, 3, 4, 5, 6, 7};

static cs_barrier_request req(int stage, int attempt, int tasks, int partition, int epoch,
                              cs_barrier_method m, const char *msg, int who)
{
    return (cs_barrier_request){.stage_id = stage,
                                .stage_attempt = attempt,
                                .num_tasks = tasks,
                                .partition = partition,
                                .task_attempt_id = 100 + who,
                                .epoch = epoch,
                                .method = m,
                                .message = msg,
                                .requester = &ids[who]};
}

static void test_all_gather_in_partition_order(void **state)
{
    (void)state;
    answers a = {0};
    cs_barrier_coord *c = cs_barrier_coord_new(10000, on_reply, &a);
    cs_barrier_request r2 = req(3, 0, 3, 2, 0, CS_BARRIER_ALL_GATHER, "c", 2);
    cs_barrier_request r0 = req(3, 0, 3, 0, 0, CS_BARRIER_ALL_GATHER, "a", 0);
    cs_barrier_coord_request(c, &r2, 1000);
    cs_barrier_coord_request(c, &r0, 1500);
    assert_int_equal(a.replies[0] + a.replies[2], 0); /* one task still missing */
    assert_int_equal(cs_barrier_coord_next_deadline(c), 11000);
    cs_barrier_request r1 = req(3, 0, 3, 1, 0, CS_BARRIER_ALL_GATHER, "b", 1);
    cs_barrier_coord_request(c, &r1, 2000);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(a.replies[i], 1);
        assert_string_equal(a.messages[i], "a|b|c");
    }
    assert_int_equal(cs_barrier_coord_epoch(c, 3, 0), 1);
    assert_int_equal(cs_barrier_coord_next_deadline(c), -1); /* no sync in progress */
    /* the next sync (barrier()) at epoch 1 */
    for (int p = 0; p < 3; p++) {
        cs_barrier_request r = req(3, 0, 3, p, 1, CS_BARRIER_BARRIER, NULL, p);
        cs_barrier_coord_request(c, &r, 3000);
    }
    for (int i = 0; i < 3; i++)
        assert_int_equal(a.replies[i], 2);
    assert_int_equal(cs_barrier_coord_epoch(c, 3, 0), 2);
    cs_barrier_coord_free(c);
}

static void test_timeout_at_deadline(void **state)
{
    (void)state;
    answers a = {0};
    cs_barrier_coord *c = cs_barrier_coord_new(5000, on_reply, &a);
    cs_barrier_request r0 = req(7, 1, 2, 0, 0, CS_BARRIER_BARRIER, NULL, 0);
    cs_barrier_coord_request(c, &r0, 1000);
    cs_barrier_coord_tick(c, 5999);
    assert_int_equal(a.replies[0], 0);
    cs_barrier_coord_tick(c, 6000);
    assert_int_equal(a.replies[0], 1);
    assert_string_equal(a.errors[0],
                        "The coordinator didn't get all barrier sync requests for barrier epoch 0 "
                        "from Stage 7 (Attempt 1) within 5 second(s).");
    assert_int_equal(cs_barrier_coord_next_deadline(c), -1);
    cs_barrier_coord_free(c);
}

static void test_stale_epoch_and_task_count(void **state)
{
    (void)state;
    answers a = {0};
    cs_barrier_coord *c = cs_barrier_coord_new(5000, on_reply, &a);
    for (int p = 0; p < 2; p++) {
        cs_barrier_request r = req(1, 0, 2, p, 0, CS_BARRIER_BARRIER, NULL, p);
        cs_barrier_coord_request(c, &r, 0);
    }
    cs_barrier_request stale = req(1, 0, 2, 0, 0, CS_BARRIER_BARRIER, NULL, 3);
    cs_barrier_coord_request(c, &stale, 10);
    assert_string_equal(a.errors[3], "The request to sync of Stage 1 (Attempt 0) with barrier "
                                     "epoch 1 has already finished. Maybe the caller has failed, "
                                     "or the Request is out of sync.");
    cs_barrier_request wide = req(1, 0, 3, 1, 1, CS_BARRIER_BARRIER, NULL, 4);
    cs_barrier_coord_request(c, &wide, 20);
    assert_string_equal(a.errors[4], "Number of tasks of Stage 1 (Attempt 0) is 3 from Task 104, "
                                     "previously it was 2.");
    assert_int_equal(cs_barrier_coord_next_deadline(c), -1); /* neither joined a sync */
    cs_barrier_coord_free(c);
}

static void test_mixed_methods_fail_the_sync(void **state)
{
    (void)state;
    answers a = {0};
    cs_barrier_coord *c = cs_barrier_coord_new(5000, on_reply, &a);
    cs_barrier_request r0 = req(2, 0, 3, 0, 0, CS_BARRIER_BARRIER, NULL, 0);
    cs_barrier_request r1 = req(2, 0, 3, 1, 0, CS_BARRIER_ALL_GATHER, "x", 1);
    cs_barrier_coord_request(c, &r0, 0);
    cs_barrier_coord_request(c, &r1, 1);
    const char *want = "Different barrier sync types found for the sync Stage 2 (Attempt 0): "
                       "BARRIER, ALL_GATHER. Please use the same barrier sync type within a "
                       "single sync.";
    assert_string_equal(a.errors[0], want);
    assert_string_equal(a.errors[1], want);
    assert_int_equal(cs_barrier_coord_next_deadline(c), -1);
    cs_barrier_coord_free(c);
}

static void test_cancel_and_stage_done(void **state)
{
    (void)state;
    answers a = {0};
    cs_barrier_coord *c = cs_barrier_coord_new(5000, on_reply, &a);
    cs_barrier_request r0 = req(4, 0, 2, 0, 0, CS_BARRIER_BARRIER, NULL, 0);
    cs_barrier_request r1 = req(5, 0, 2, 0, 0, CS_BARRIER_BARRIER, NULL, 1);
    cs_barrier_coord_request(c, &r0, 0);
    cs_barrier_coord_request(c, &r1, 0);
    assert_true(cs_barrier_coord_cancel(c, &ids[0]));
    assert_false(cs_barrier_coord_cancel(c, &ids[0]));
    cs_barrier_coord_tick(c, 100000); /* stage 4's sync has no requester left: only 5 times out */
    assert_int_equal(a.replies[0], 0);
    assert_int_equal(a.replies[1], 1);
    cs_barrier_request r2 = req(6, 0, 2, 1, 0, CS_BARRIER_ALL_GATHER, "m", 2);
    cs_barrier_coord_request(c, &r2, 0);
    cs_barrier_coord_stage_done(c, 6, 0);
    assert_int_equal(a.replies[2], 1);
    assert_string_equal(a.errors[2], "Stage 6 (Attempt 0) has ended: the barrier sync cannot "
                                     "finish.");
    cs_barrier_coord_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_gather_in_partition_order),
        cmocka_unit_test(test_timeout_at_deadline),
        cmocka_unit_test(test_stale_epoch_and_task_count),
        cmocka_unit_test(test_mixed_methods_fail_the_sync),
        cmocka_unit_test(test_cancel_and_stage_done),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
