/*
 * barrier_rpc.c — an executor's barrier syncs over RPC (see barrier_rpc.h). The caller waits on a
 * call object shared with the reply callback; whichever of the two lets go last frees it, so a
 * task killed while it waits leaves nothing for a late reply to touch.
 */
#include "exec/barrier_rpc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/sync.h"

typedef struct sync_call {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int holders; /* the caller and the reply callback */
    bool done;
    char **msgs;
    int n;
    char *error; /* the coordinator's failure, or the connection's end */
    bool io;     /* error is the connection's end */
} sync_call;

static void call_release(sync_call *c)
{
    pthread_mutex_lock(&c->lock);
    bool last = --c->holders == 0;
    pthread_mutex_unlock(&c->lock);
    if (!last) return;
    for (int i = 0; i < c->n; i++)
        free(c->msgs[i]);
    free(c->msgs);
    free(c->error);
    pthread_cond_destroy(&c->cond);
    pthread_mutex_destroy(&c->lock);
    free(c);
}

static int on_reply(void *arg, rpc_conn *conn, Cspark__Envelope *msg, const char *reason)
{
    (void)conn;
    sync_call *c = arg;
    pthread_mutex_lock(&c->lock);
    if (!msg || msg->body_case != CSPARK__ENVELOPE__BODY_BARRIER_SYNC_REPLY) {
        c->io = !msg;
        c->error = cs_xstrdup(msg ? (msg->body_case == CSPARK__ENVELOPE__BODY_ERROR && msg->error
                                         ? msg->error->message
                                         : "unexpected reply to a barrier sync")
                              : reason ? reason
                                       : "connection closed");
    } else if (msg->barrier_sync_reply->failed) {
        c->error = cs_xstrdup(msg->barrier_sync_reply->error ? msg->barrier_sync_reply->error : "");
    } else {
        const Cspark__BarrierSyncReply *r = msg->barrier_sync_reply;
        c->n = (int)r->n_messages;
        c->msgs = cs_xcalloc(r->n_messages + 1, sizeof *c->msgs);
        for (size_t i = 0; i < r->n_messages; i++)
            c->msgs[i] = cs_xstrdup(r->messages[i] ? r->messages[i] : "");
    }
    c->done = true;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
    if (msg) cspark__envelope__free_unpacked(msg, NULL);
    call_release(c);
    return 0;
}

int cs_barrier_rpc_sync(rpc_conn *driver, const task_desc *t, int epoch, int method,
                        const char *message, char ***msgs, int *n, cs_error *err)
{
    *msgs = NULL;
    *n = 0;
    if (!driver || !t->barrier)
        return cs_error_set(err, CS_EINVAL, "task %lld: no barrier sync without the driver",
                            (long long)t->task_id);
    Cspark__BarrierSync bs = CSPARK__BARRIER_SYNC__INIT;
    bs.stage_id = t->stage_id;
    bs.stage_attempt = t->stage_attempt;
    bs.num_tasks = t->barrier->num_tasks;
    bs.partition = t->partition;
    bs.task_id = t->task_id;
    bs.epoch = epoch;
    bs.method = method;
    bs.message = (char *)(message ? message : "");
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_BARRIER_SYNC;
    env.barrier_sync = &bs;
    sync_call *c = cs_xcalloc(1, sizeof *c);
    pthread_mutex_init(&c->lock, NULL);
    cs_cond_init_monotonic(&c->cond);
    c->holders = 2;
    if (cs_rpc_call_async(driver, &env, on_reply, c) < 0) {
        c->holders = 1;
        call_release(c);
        return cs_error_set(err, CS_EIO, "barrier sync: the connection to the driver is closed");
    }
    int rc = 0;
    pthread_mutex_lock(&c->lock);
    while (!c->done) {
        if (t->cancelled && atomic_load(t->cancelled)) {
            rc = cs_error_set(err, CS_ECANCELLED, "task cancelled during a barrier sync");
            break;
        }
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        ts.tv_nsec += 100 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&c->cond, &c->lock, &ts);
    }
    if (rc == 0 && c->error) {
        rc = cs_error_set(err, c->io ? CS_EIO : CS_ETASK, "%s", c->error);
    } else if (rc == 0) {
        *msgs = c->msgs;
        *n = c->n;
        c->msgs = NULL;
        c->n = 0;
    }
    pthread_mutex_unlock(&c->lock);
    call_release(c);
    return rc;
}
