/* app_state.h — the SparkApplication state machine, as the Kubeflow operator's: a pure function
 * from what is known of one application (its status, restart policy and driver pod) and the time
 * to what the controller does next. No clock, no I/O: the controller (operator.c) passes the
 * times, so the rules are unit-tested with explicit ones
 * (tests/unit/operator/test_operator_state.c).
 *
 *   "" / NEW ------------------------------- submit --> SUBMITTED | SUBMISSION_FAILED
 *   SUBMITTED --(driver running)--> RUNNING --(driver succeeded)--> COMPLETED
 *   SUBMITTED | RUNNING --(driver failed or gone)--> PENDING_RERUN (retries left) | FAILED
 *   PENDING_RERUN --(onFailureRetryInterval after terminationTime)--> delete the driver of the
 *       earlier attempt, once it is gone submit the next attempt
 *   any state but "" / NEW / INVALIDATING --(spec edited)--> INVALIDATING --> PENDING_RERUN
 *       (at once: the invalidation clears terminationTime, and the attempt counts as Kubeflow
 *       does, so the edited spec's retries are its own) --> the earlier driver deleted, then
 *       SUBMITTED with the new spec (attempt 1 again)
 *   SUBMISSION_FAILED --(onSubmissionFailureRetryInterval, retries left)--> submit again | FAILED
 *   COMPLETED | FAILED --(timeToLiveSeconds after terminationTime)--> delete the application
 *
 * Retries: restartPolicy Never runs once; OnFailure retries a failed run while executionAttempts
 * <= onFailureRetries (onFailureRetries 2: three runs) and a failed submission while
 * submissionAttempts <= onSubmissionFailureRetries; Always reruns any ended run.
 *
 * An edit is told by metadata.generation (which the API server raises on each change of the
 * spec) against status.observedGeneration (the generation the current run was submitted, or
 * invalidated, with); an application without observedGeneration is taken as unedited.
 */
#ifndef CSPARK_OPERATOR_APP_STATE_H
#define CSPARK_OPERATOR_APP_STATE_H

#include <stdint.h>

typedef enum {
    OP_DRIVER_NONE,      /* no driver pod known yet */
    OP_DRIVER_PENDING,   /* created, not running */
    OP_DRIVER_RUNNING,   /* phase Running */
    OP_DRIVER_SUCCEEDED, /* phase Succeeded */
    OP_DRIVER_FAILED,    /* phase Failed */
    OP_DRIVER_GONE,      /* the pod of the current attempt no longer exists */
} op_driver;

typedef enum { OP_RESTART_NEVER, OP_RESTART_ON_FAILURE, OP_RESTART_ALWAYS } op_restart;

typedef struct op_app_view {
    const char *state; /* status.applicationState.state; "" when unset */
    int submission_attempts, execution_attempts;
    int64_t last_submission_ms, termination_ms; /* 0 = unset */
    op_driver driver;                           /* the pod of status.driverInfo.podName */
    int64_t generation, observed_generation;    /* 0 = unset */
    op_restart restart;
    int on_failure_retries, on_submission_failure_retries;
    int64_t on_failure_interval_ms, on_submission_failure_interval_ms;
    int64_t ttl_ms; /* timeToLiveSeconds; -1 = keep */
} op_app_view;

typedef enum {
    OP_ACT_NONE,          /* nothing now (wake_ms says when to look again, 0 = on a change) */
    OP_ACT_SUBMIT,        /* submit attempt submission_attempts + 1 */
    OP_ACT_STATE,         /* move to next_state */
    OP_ACT_DELETE,        /* delete the application (time to live over) */
    OP_ACT_DELETE_DRIVER, /* delete the driver pod of the earlier attempt (its objects go with it)
                           */
} op_action;

typedef struct op_decision {
    op_action action;
    const char *next_state; /* for OP_ACT_STATE: a static string */
    int64_t wake_ms;        /* for OP_ACT_NONE: when a timer ends, 0 = none */
} op_decision;

op_decision cs_operator_decide(const op_app_view *v, int64_t now_ms);

/* Whether the spec was edited since the current run was submitted. */
int cs_operator_spec_changed(const op_app_view *v);

/* Whether state is one the application does not leave by itself (COMPLETED, FAILED). */
int cs_operator_state_final(const char *state);

#endif
