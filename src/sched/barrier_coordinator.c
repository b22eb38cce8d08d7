/*
 * barrier_coordinator.c — Spark's BarrierCoordinator as a pure state machine (see
 * barrier_coordinator.h for the states and the texts of its failures). One state per stage attempt
 * that has sent a request, in a small array (a few barrier stages run at once); each keeps its
 * epoch, the requesters of the sync in progress, the methods seen in it, every task's latest
 * message (by partition) and the time the sync times out.
 */
#include "sched/barrier_coordinator.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

typedef struct barrier_state {
    int stage_id, stage_attempt, num_tasks;
    int epoch;
    void **requesters;
    int n_requesters;
    char **messages; /* [num_tasks], latest of each partition (NULL: none yet) */
    int methods[2];  /* methods seen in the sync in progress, in arrival order */
    int n_methods;
    int64_t deadline_ms; /* -1: no sync in progress */
} barrier_state;

struct cs_barrier_coord {
    int64_t timeout_ms;
    cs_barrier_reply_fn reply;
    void *arg;
    barrier_state **states;
    int n_states;
};

static const char *method_name(int m)
{
    return m == CS_BARRIER_ALL_GATHER ? "ALL_GATHER" : "BARRIER";
}

cs_barrier_coord *cs_barrier_coord_new(int64_t timeout_ms, cs_barrier_reply_fn reply, void *arg)
{
    cs_barrier_coord *c = cs_xcalloc(1, sizeof *c);
    c->timeout_ms = timeout_ms;
    c->reply = reply;
    c->arg = arg;
    return c;
}

static void state_free(barrier_state *st)
{
    for (int i = 0; i < st->num_tasks; i++)
        free(st->messages[i]);
    free(st->messages);
    free(st->requesters);
    free(st);
}

void cs_barrier_coord_free(cs_barrier_coord *c)
{
    if (!c) return;
    for (int i = 0; i < c->n_states; i++)
        state_free(c->states[i]);
    free(c->states);
    free(c);
}

static int find_state(const cs_barrier_coord *c, int stage_id, int stage_attempt)
{
    for (int i = 0; i < c->n_states; i++)
        if (c->states[i]->stage_id == stage_id && c->states[i]->stage_attempt == stage_attempt)
            return i;
    return -1;
}

/* Spark's ContextBarrierState.clear: the sync in progress ends (its requesters already answered
 * or failed). */
static void clear_sync(barrier_state *st)
{
    st->n_requesters = 0;
    st->n_methods = 0;
    st->deadline_ms = -1;
}

static void fail_all(cs_barrier_coord *c, barrier_state *st, const char *error)
{
    /* the reply may not reenter the coordinator: take the list first */
    int n = st->n_requesters;
    void **reqs = st->requesters;
    st->requesters = NULL;
    clear_sync(st);
    for (int i = 0; i < n; i++)
        c->reply(c->arg, reqs[i], NULL, 0, error);
    free(reqs);
}

static void drop_state(cs_barrier_coord *c, int at)
{
    state_free(c->states[at]);
    memmove(c->states + at, c->states + at + 1, (size_t)(c->n_states - at - 1) * sizeof *c->states);
    c->n_states--;
}

void cs_barrier_coord_request(cs_barrier_coord *c, const cs_barrier_request *r, int64_t now_ms)
{
    char error[512];
    int at = find_state(c, r->stage_id, r->stage_attempt);
    if (at < 0) {
        if (r->num_tasks <= 0 || r->partition < 0 || r->partition >= r->num_tasks) {
            snprintf(error, sizeof error,
                     "Partition %d of Stage %d (Attempt %d) is not among its %d tasks.",
                     r->partition, r->stage_id, r->stage_attempt, r->num_tasks);
            c->reply(c->arg, r->requester, NULL, 0, error);
            return;
        }
        barrier_state *st = cs_xcalloc(1, sizeof *st);
        st->stage_id = r->stage_id;
        st->stage_attempt = r->stage_attempt;
        st->num_tasks = r->num_tasks;
        st->messages = cs_xcalloc((size_t)r->num_tasks, sizeof *st->messages);
        st->requesters = NULL;
        st->deadline_ms = -1;
        c->states = cs_xrealloc(c->states, (size_t)(c->n_states + 1) * sizeof *c->states);
        c->states[c->n_states] = st;
        at = c->n_states++;
    }
    barrier_state *st = c->states[at];
    if (st->n_methods == 0 || st->methods[0] != (int)r->method) {
        if (st->n_methods < 2) st->methods[st->n_methods++] = (int)r->method;
    }
    if (st->n_methods > 1) {
        snprintf(error, sizeof error,
                 "Different barrier sync types found for the sync Stage %d (Attempt %d): %s, %s. "
                 "Please use the same barrier sync type within a single sync.",
                 st->stage_id, st->stage_attempt, method_name(st->methods[0]),
                 method_name(st->methods[1]));
        c->reply(c->arg, r->requester, NULL, 0, error);
        fail_all(c, st, error);
        return;
    }
    if (r->num_tasks != st->num_tasks || r->partition < 0 || r->partition >= st->num_tasks) {
        snprintf(error, sizeof error,
                 "Number of tasks of Stage %d (Attempt %d) is %d from Task %lld, previously it "
                 "was %d.",
                 st->stage_id, st->stage_attempt, r->num_tasks, (long long)r->task_attempt_id,
                 st->num_tasks);
        c->reply(c->arg, r->requester, NULL, 0, error);
        return;
    }
    if (r->epoch != st->epoch) {
        snprintf(error, sizeof error,
                 "The request to sync of Stage %d (Attempt %d) with barrier epoch %d has already "
                 "finished. Maybe the caller has failed, or the Request is out of sync.",
                 st->stage_id, st->stage_attempt, st->epoch);
        c->reply(c->arg, r->requester, NULL, 0, error);
        return;
    }
    if (st->n_requesters == 0) st->deadline_ms = now_ms + c->timeout_ms;
    st->requesters =
        cs_xrealloc(st->requesters, (size_t)(st->n_requesters + 1) * sizeof *st->requesters);
    st->requesters[st->n_requesters++] = r->requester;
    free(st->messages[r->partition]);
    st->messages[r->partition] = cs_xstrdup(r->message ? r->message : "");
    if (st->n_requesters < st->num_tasks) return;
    /* every task asked: all of them get every message, in partition order */
    const char **msgs = cs_xcalloc((size_t)st->num_tasks, sizeof *msgs);
    for (int i = 0; i < st->num_tasks; i++)
        msgs[i] = st->messages[i] ? st->messages[i] : "";
    int n = st->n_requesters;
    void **reqs = st->requesters;
    st->requesters = NULL;
    st->epoch++;
    clear_sync(st);
    for (int i = 0; i < n; i++)
        c->reply(c->arg, reqs[i], msgs, st->num_tasks, NULL);
    free(reqs);
    free(msgs);
}

void cs_barrier_coord_tick(cs_barrier_coord *c, int64_t now_ms)
{
    for (int i = 0; i < c->n_states;) {
        barrier_state *st = c->states[i];
        if (st->deadline_ms < 0 || now_ms < st->deadline_ms) {
            i++;
            continue;
        }
        char error[512];
        snprintf(error, sizeof error,
                 "The coordinator didn't get all barrier sync requests for barrier epoch %d from "
                 "Stage %d (Attempt %d) within %lld second(s).",
                 st->epoch, st->stage_id, st->stage_attempt, (long long)(c->timeout_ms / 1000));
        fail_all(c, st, error);
        drop_state(c, i);
    }
}

int64_t cs_barrier_coord_next_deadline(const cs_barrier_coord *c)
{
    int64_t next = -1;
    for (int i = 0; i < c->n_states; i++) {
        int64_t d = c->states[i]->deadline_ms;
        if (d >= 0 && (next < 0 || d < next)) next = d;
    }
    return next;
}

void cs_barrier_coord_stage_done(cs_barrier_coord *c, int stage_id, int stage_attempt)
{
    int at = find_state(c, stage_id, stage_attempt);
    if (at < 0) return;
    char error[256];
    snprintf(error, sizeof error,
             "Stage %d (Attempt %d) has ended: the barrier sync cannot finish.", stage_id,
             stage_attempt);
    fail_all(c, c->states[at], error);
    drop_state(c, at);
}

bool cs_barrier_coord_cancel(cs_barrier_coord *c, void *requester)
{
    for (int i = 0; i < c->n_states; i++) {
        barrier_state *st = c->states[i];
        for (int k = 0; k < st->n_requesters; k++) {
            if (st->requesters[k] != requester) continue;
            memmove(st->requesters + k, st->requesters + k + 1,
                    (size_t)(st->n_requesters - k - 1) * sizeof *st->requesters);
            if (--st->n_requesters == 0) clear_sync(st);
            return true;
        }
    }
    return false;
}

int cs_barrier_coord_epoch(const cs_barrier_coord *c, int stage_id, int stage_attempt)
{
    int at = find_state(c, stage_id, stage_attempt);
    return at < 0 ? 0 : c->states[at]->epoch;
}
