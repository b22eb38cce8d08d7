/* app_state.c — see app_state.h: the rules of the state machine, one function. */
#include "operator/app_state.h"

#include <stdbool.h>
#include <string.h>

static int is(const char *state, const char *name)
{
    return strcmp(state, name) == 0;
}

int cs_operator_state_final(const char *state)
{
    return is(state, "COMPLETED") || is(state, "FAILED");
}

int cs_operator_spec_changed(const op_app_view *v)
{
    return v->observed_generation > 0 && v->generation > v->observed_generation;
}

/* A run ended in failure: rerun when the policy allows it. */
static const char *after_failure(const op_app_view *v)
{
    if (v->restart == OP_RESTART_ALWAYS) return "PENDING_RERUN";
    if (v->restart == OP_RESTART_ON_FAILURE && v->execution_attempts <= v->on_failure_retries)
        return "PENDING_RERUN";
    return "FAILED";
}

op_decision cs_operator_decide(const op_app_view *v, int64_t now_ms)
{
    op_decision d = {OP_ACT_NONE, NULL, 0};
    const char *s = v->state ? v->state : "";
    if (!*s || is(s, "NEW")) {
        d.action = OP_ACT_SUBMIT;
    } else if (is(s, "INVALIDATING")) {
        d = (op_decision){OP_ACT_STATE, "PENDING_RERUN", 0};
    } else if (cs_operator_spec_changed(v)) {
        d = (op_decision){OP_ACT_STATE, "INVALIDATING", 0};
    } else if (is(s, "SUBMITTED") || is(s, "RUNNING")) {
        if (v->driver == OP_DRIVER_RUNNING && is(s, "SUBMITTED")) {
            d = (op_decision){OP_ACT_STATE, "RUNNING", 0};
        } else if (v->driver == OP_DRIVER_SUCCEEDED) {
            d = (op_decision){OP_ACT_STATE, "COMPLETED", 0};
        } else if (v->driver == OP_DRIVER_FAILED || v->driver == OP_DRIVER_GONE) {
            d = (op_decision){OP_ACT_STATE, after_failure(v), 0};
        }
    } else if (is(s, "PENDING_RERUN")) {
        int64_t at = v->termination_ms + v->on_failure_interval_ms;
        bool driver_left = v->driver != OP_DRIVER_NONE && v->driver != OP_DRIVER_GONE;
        if (now_ms < at)
            d.wake_ms = at;
        else
            d.action = driver_left ? OP_ACT_DELETE_DRIVER : OP_ACT_SUBMIT;
    } else if (is(s, "SUBMISSION_FAILED")) {
        int retry = v->restart != OP_RESTART_NEVER &&
                    v->submission_attempts <= v->on_submission_failure_retries;
        int64_t at = v->last_submission_ms + v->on_submission_failure_interval_ms;
        if (!retry)
            d = (op_decision){OP_ACT_STATE, "FAILED", 0};
        else if (now_ms >= at)
            d.action = OP_ACT_SUBMIT;
        else
            d.wake_ms = at;
    } else if (cs_operator_state_final(s) && v->ttl_ms >= 0 && v->termination_ms > 0) {
        int64_t at = v->termination_ms + v->ttl_ms;
        if (now_ms >= at)
            d.action = OP_ACT_DELETE;
        else
            d.wake_ms = at;
    }
    return d;
}
