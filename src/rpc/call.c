/* call.c — request/reply over a connection: request ids (odd on connections we opened, even on
 * accepted ones, so either side tells a reply from a request by its parity), asynchronous calls
 * whose replies — one or a stream — go to a callback on the loop thread, and the blocking
 * cs_rpc_call built on them. Locks and lifetimes: rpc_internal.h.
 * Called by the driver backend, the executor, the block fetcher and the result fetcher through
 * endpoint.h; connection.c routes replies here.
 *
 * Threads: cs_rpc_call_async from any thread, cs_rpc_call from any thread but the loop's;
 * cs_rpc_route_reply on the loop thread — the only thread that removes a pending call, so a
 * call stays valid while its callback runs.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common/clock.h"
#include "common/log.h"
#include "common/sync.h"
#include "rpc/rpc_internal.h"

static uint64_t next_request_id(rpc_conn *c)
{
    uint64_t n = atomic_fetch_add(&c->e->next_id, 1) + 1;
    return n * 2 + (c->client ? 1 : 0);
}

int cs_rpc_call_async(rpc_conn *c, Cspark__Envelope *req, rpc_reply_fn fn, void *arg)
{
    if (!c || !req || !fn) return CS_EINVAL;
    pending_call *p = cs_xcalloc(1, sizeof *p);
    p->id = next_request_id(c);
    p->fn = fn;
    p->arg = arg;
    req->request_id = p->id;
    int rc = cs_rpc_enqueue(c, req, p);
    if (rc < 0) free(p);
    return rc;
}

void cs_rpc_route_reply(rpc_conn *c, Cspark__Envelope *m)
{
    pthread_mutex_lock(&c->mu);
    pending_call *p = c->calls;
    while (p && p->id != m->request_id)
        p = p->next;
    pthread_mutex_unlock(&c->mu);
    if (!p) {
        CS_DEBUG(cs_rpc_log_component, "endpoint=%s peer=%s event=late_reply request=%llu",
                 cs_log_value(c->e->name), cs_log_value(c->peer),
                 (unsigned long long)m->request_id);
        cspark__envelope__free_unpacked(m, NULL);
        return;
    }
    if (!p->fn(p->arg, c, m, NULL)) {
        pthread_mutex_lock(&c->mu);
        pending_call **pp = &c->calls;
        while (*pp && *pp != p)
            pp = &(*pp)->next;
        if (*pp) *pp = p->next;
        pthread_mutex_unlock(&c->mu);
        free(p);
    }
}

/* ---- synchronous call -------------------------------------------------------------------- */

/* Shared by the caller and the reply callback (two references): a caller that times out
 * abandons it, and the late reply is then freed by the callback. */
typedef struct sync_waiter {
    atomic_int refs;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int done, abandoned;
    Cspark__Envelope *reply;
    char reason[256];
} sync_waiter;

static void waiter_unref(sync_waiter *w)
{
    if (atomic_fetch_sub(&w->refs, 1) != 1) return;
    if (w->reply) cspark__envelope__free_unpacked(w->reply, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}

static int sync_reply(void *arg, rpc_conn *c, Cspark__Envelope *msg, const char *reason)
{
    (void)c;
    sync_waiter *w = arg;
    pthread_mutex_lock(&w->mu);
    if (msg) {
        if (w->abandoned)
            cspark__envelope__free_unpacked(msg, NULL);
        else
            w->reply = msg;
    } else {
        snprintf(w->reason, sizeof w->reason, "%s", reason ? reason : "closed");
    }
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    waiter_unref(w);
    return 0;
}

int cs_rpc_call(rpc_conn *c, Cspark__Envelope *req, Cspark__Envelope **reply, int timeout_ms,
                cs_error *err)
{
    *reply = NULL;
    if (cs_rpc_endpoint_in_loop(c->e))
        return cs_error_set(err, CS_EINVAL, "cs_rpc_call on the loop thread of endpoint %s",
                            c->e->name);
    sync_waiter *w = cs_xcalloc(1, sizeof *w);
    atomic_init(&w->refs, 2);
    pthread_mutex_init(&w->mu, NULL);
    cs_cond_init_monotonic(&w->cv);
    int rc = cs_rpc_call_async(c, req, sync_reply, w);
    if (rc < 0) {
        atomic_store(&w->refs, 1);
        waiter_unref(w);
        if (rc == CS_EINVAL)
            return cs_error_set(err, CS_EINVAL,
                                "rpc call to %s: message of %zu bytes refused "
                                "(over spark.rpc.message.maxSize or empty)",
                                c->peer, cspark__envelope__get_packed_size(req));
        return cs_error_set(err, CS_EIO, "rpc call to %s failed: connection closed", c->peer);
    }
    int64_t deadline = cs_mono_ms() + (timeout_ms < 0 ? 0 : timeout_ms);
    pthread_mutex_lock(&w->mu);
    while (!w->done) {
        int64_t left = deadline - cs_mono_ms();
        if (left <= 0) break;
        cs_cond_wait_ms(&w->cv, &w->mu, left);
    }
    if (w->done && w->reply) {
        *reply = w->reply;
        w->reply = NULL;
        rc = 0;
    } else if (w->done) {
        rc = cs_error_set(err, CS_EIO, "rpc call to %s failed: connection closed (%s)", c->peer,
                          w->reason);
    } else {
        w->abandoned = 1;
        rc = cs_error_set(err, CS_ETIMEOUT, "rpc call to %s timed out after %d ms", c->peer,
                          timeout_ms);
    }
    pthread_mutex_unlock(&w->mu);
    waiter_unref(w);
    return rc;
}
