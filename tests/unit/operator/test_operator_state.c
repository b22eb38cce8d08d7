/* test_operator_state.c — unit tests for the SparkApplication state machine
 * (src/operator/app_state.c) with explicit times: submission, the driver's phases, OnFailure
 * retries counted as the Kubeflow operator counts them, retry intervals, failed submissions, the
 * time to live, an edited spec (INVALIDATING -> PENDING_RERUN -> submit) and the deletion of the
 * earlier attempt's driver before a rerun. The source is compiled into this test (libcspark hides
 * it). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "operator/app_state.c"

static op_app_view view(const char *state, op_driver driver)
{
    op_app_view v = {.state = state, .driver = driver, .ttl_ms = -1};
    return v;
}

static void test_new_is_submitted(void **state)
{
    op_app_view v = view("", OP_DRIVER_NONE);
    assert_int_equal(cs_operator_decide(&v, 0).action, OP_ACT_SUBMIT);
    v.state = "NEW";
    assert_int_equal(cs_operator_decide(&v, 0).action, OP_ACT_SUBMIT);
}

static void test_driver_phases(void **state)
{
    op_app_view v = view("SUBMITTED", OP_DRIVER_PENDING);
    assert_int_equal(cs_operator_decide(&v, 0).action, OP_ACT_NONE);
    v.driver = OP_DRIVER_RUNNING;
    op_decision d = cs_operator_decide(&v, 0);
    assert_int_equal(d.action, OP_ACT_STATE);
    assert_string_equal(d.next_state, "RUNNING");
    v.state = "RUNNING";
    assert_int_equal(cs_operator_decide(&v, 0).action, OP_ACT_NONE);
    v.driver = OP_DRIVER_SUCCEEDED;
    assert_string_equal(cs_operator_decide(&v, 0).next_state, "COMPLETED");
    v.driver = OP_DRIVER_FAILED;
    assert_string_equal(cs_operator_decide(&v, 0).next_state, "FAILED");
    v.driver = OP_DRIVER_GONE;
    assert_string_equal(cs_operator_decide(&v, 0).next_state, "FAILED");
}

/* onFailureRetries 2: runs 1 and 2 are rerun, run 3 fails the application */
static void test_on_failure_retries_twice(void **state)
{
    op_app_view v = view("RUNNING", OP_DRIVER_FAILED);
    v.restart = OP_RESTART_ON_FAILURE;
    v.on_failure_retries = 2;
    for (int run = 1; run <= 3; run++) {
        v.execution_attempts = run;
        assert_string_equal(cs_operator_decide(&v, 0).next_state,
                            run < 3 ? "PENDING_RERUN" : "FAILED");
    }
    v.restart = OP_RESTART_ALWAYS;
    v.execution_attempts = 50;
    assert_string_equal(cs_operator_decide(&v, 0).next_state, "PENDING_RERUN");
}

static void test_rerun_waits_for_interval(void **state)
{
    op_app_view v = view("PENDING_RERUN", OP_DRIVER_NONE);
    v.termination_ms = 10000;
    v.on_failure_interval_ms = 5000;
    op_decision d = cs_operator_decide(&v, 12000);
    assert_int_equal(d.action, OP_ACT_NONE);
    assert_int_equal(d.wake_ms, 15000);
    assert_int_equal(cs_operator_decide(&v, 15000).action, OP_ACT_SUBMIT);
}

static void test_submission_failure(void **state)
{
    op_app_view v = view("SUBMISSION_FAILED", OP_DRIVER_NONE);
    v.submission_attempts = 1;
    assert_string_equal(cs_operator_decide(&v, 0).next_state, "FAILED"); /* Never */
    v.restart = OP_RESTART_ON_FAILURE;
    v.on_submission_failure_retries = 1;
    v.last_submission_ms = 1000;
    v.on_submission_failure_interval_ms = 2000;
    assert_int_equal(cs_operator_decide(&v, 2000).wake_ms, 3000);
    assert_int_equal(cs_operator_decide(&v, 3000).action, OP_ACT_SUBMIT);
    v.submission_attempts = 2;
    assert_string_equal(cs_operator_decide(&v, 9000).next_state, "FAILED");
}

static void test_time_to_live(void **state)
{
    op_app_view v = view("COMPLETED", OP_DRIVER_NONE);
    v.termination_ms = 1000;
    assert_int_equal(cs_operator_decide(&v, 1000000).action, OP_ACT_NONE); /* no TTL: kept */
    v.ttl_ms = 30000;
    assert_int_equal(cs_operator_decide(&v, 2000).wake_ms, 31000);
    assert_int_equal(cs_operator_decide(&v, 31000).action, OP_ACT_DELETE);
    v.state = "FAILED";
    assert_int_equal(cs_operator_decide(&v, 31000).action, OP_ACT_DELETE);
}

/* metadata.generation above status.observedGeneration: the run is invalidated, whatever its
 * state; without observedGeneration (an application of an older operator) nothing is known */
static void test_edited_spec_invalidates(void **state)
{
    static const char *const states[] = {"SUBMITTED", "RUNNING",           "COMPLETED",
                                         "FAILED",    "SUBMISSION_FAILED", "PENDING_RERUN"};
    for (size_t i = 0; i < sizeof states / sizeof states[0]; i++) {
        op_app_view v = view(states[i], OP_DRIVER_RUNNING);
        v.generation = 2;
        v.observed_generation = 1;
        op_decision d = cs_operator_decide(&v, 0);
        assert_int_equal(d.action, OP_ACT_STATE);
        assert_string_equal(d.next_state, "INVALIDATING");
        v.observed_generation = 2; /* unedited: the usual rules */
        d = cs_operator_decide(&v, 0);
        assert_true(d.action != OP_ACT_STATE || strcmp(d.next_state, "INVALIDATING") != 0);
        v.observed_generation = 0;
        d = cs_operator_decide(&v, 0);
        assert_true(d.action != OP_ACT_STATE || strcmp(d.next_state, "INVALIDATING") != 0);
    }
    op_app_view v = view("", OP_DRIVER_NONE); /* never submitted: submitted with the new spec */
    v.generation = 3;
    v.observed_generation = 1;
    assert_int_equal(cs_operator_decide(&v, 0).action, OP_ACT_SUBMIT);
}

/* INVALIDATING moves to PENDING_RERUN at once, even before the status has caught up */
static void test_invalidating_goes_to_pending_rerun(void **state)
{
    op_app_view v = view("INVALIDATING", OP_DRIVER_RUNNING);
    v.generation = 2;
    v.observed_generation = 1;
    op_decision d = cs_operator_decide(&v, 0);
    assert_int_equal(d.action, OP_ACT_STATE);
    assert_string_equal(d.next_state, "PENDING_RERUN");
}

/* the invalidation cleared terminationTime: the rerun needs no interval, but the earlier driver
 * is deleted first and the submission waits until it is gone */
static void test_edited_rerun_deletes_driver_first(void **state)
{
    op_app_view v = view("PENDING_RERUN", OP_DRIVER_RUNNING);
    v.generation = v.observed_generation = 2;
    v.on_failure_interval_ms = 5000;
    int64_t now = 1700000000000;
    assert_int_equal(cs_operator_decide(&v, now).action, OP_ACT_DELETE_DRIVER);
    v.driver = OP_DRIVER_GONE;
    assert_int_equal(cs_operator_decide(&v, now).action, OP_ACT_SUBMIT);
}

/* a failed run: its driver stays for the retry interval (its logs can be read), then it is
 * deleted, then the next attempt is submitted */
static void test_rerun_deletes_earlier_driver(void **state)
{
    op_app_view v = view("PENDING_RERUN", OP_DRIVER_FAILED);
    v.termination_ms = 10000;
    v.on_failure_interval_ms = 5000;
    op_decision d = cs_operator_decide(&v, 12000);
    assert_int_equal(d.action, OP_ACT_NONE);
    assert_int_equal(d.wake_ms, 15000);
    assert_int_equal(cs_operator_decide(&v, 15000).action, OP_ACT_DELETE_DRIVER);
    v.driver = OP_DRIVER_PENDING; /* being deleted, or not known to be gone */
    assert_int_equal(cs_operator_decide(&v, 16000).action, OP_ACT_DELETE_DRIVER);
    v.driver = OP_DRIVER_GONE;
    assert_int_equal(cs_operator_decide(&v, 16000).action, OP_ACT_SUBMIT);
    v.driver = OP_DRIVER_NONE; /* an earlier submission that made no driver */
    assert_int_equal(cs_operator_decide(&v, 16000).action, OP_ACT_SUBMIT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_new_is_submitted),
        cmocka_unit_test(test_driver_phases),
        cmocka_unit_test(test_on_failure_retries_twice),
        cmocka_unit_test(test_rerun_waits_for_interval),
        cmocka_unit_test(test_submission_failure),
        cmocka_unit_test(test_time_to_live),
        cmocka_unit_test(test_edited_spec_invalidates),
        cmocka_unit_test(test_invalidating_goes_to_pending_rerun),
        cmocka_unit_test(test_edited_rerun_deletes_driver_first),
        cmocka_unit_test(test_rerun_deletes_earlier_driver),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
