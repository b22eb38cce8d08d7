/*
 * barrier_sync.c — the scheduler's barrier coordinator behind a lock (see barrier_sync.h). Every
 * requester handed to the coordinator is a `waiter`: a caller of cs_barrier_sync_call waiting on
 * the condition variable, or a posted request whose reply goes to its own callback.
 */
#include "sched/barrier_sync.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/clock.h"

typedef struct waiter {
    bool done;
    char **msgs;
    int n;
    char *error;
    cs_barrier_reply_fn reply; /* a posted request: its callback; NULL: a waiting caller */
    void *reply_arg;
    void *requester;
} waiter;

struct cs_barrier_sync {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    cs_barrier_coord *coord;
};

static void on_reply(void *arg, void *requester, const char *const *messages, int n,
                     const char *error)
{
    cs_barrier_sync *b = arg;
    waiter *w = requester;
    if (w->reply) { /* posted: answered now, then gone */
        w->reply(w->reply_arg, w->requester, messages, n, error);
        free(w);
        return;
    }
    w->done = true;
    if (error) {
        w->error = cs_xstrdup(error);
    } else {
        w->n = n;
        w->msgs = cs_xcalloc((size_t)n + 1, sizeof *w->msgs);
        for (int i = 0; i < n; i++)
            w->msgs[i] = cs_xstrdup(messages[i]);
    }
    pthread_cond_broadcast(&b->cond);
}

cs_barrier_sync *cs_barrier_sync_new(int64_t timeout_ms)
{
    cs_barrier_sync *b = cs_xcalloc(1, sizeof *b);
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->cond, NULL);
    b->coord = cs_barrier_coord_new(timeout_ms, on_reply, b);
    return b;
}

void cs_barrier_sync_free(cs_barrier_sync *b)
{
    if (!b) return;
    cs_barrier_coord_free(b->coord);
    pthread_cond_destroy(&b->cond);
    pthread_mutex_destroy(&b->lock);
    free(b);
}

int cs_barrier_sync_call(cs_barrier_sync *b, const cs_barrier_request *r,
                         const atomic_int *cancelled, char ***msgs, int *n, cs_error *err)
{
    *msgs = NULL;
    *n = 0;
    waiter w = {0};
    cs_barrier_request req = *r;
    req.requester = &w;
    pthread_mutex_lock(&b->lock);
    cs_barrier_coord_request(b->coord, &req, cs_mono_ms());
    while (!w.done) {
        if (cancelled && atomic_load(cancelled)) {
            cs_barrier_coord_cancel(b->coord, &w);
            pthread_mutex_unlock(&b->lock);
            return cs_error_set(err, CS_ECANCELLED, "task cancelled during a barrier sync");
        }
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&b->cond, &b->lock, &ts);
        if (!w.done) cs_barrier_coord_tick(b->coord, cs_mono_ms());
    }
    pthread_mutex_unlock(&b->lock);
    if (w.error) {
        cs_error_set(err, CS_ETASK, "%s", w.error);
        free(w.error);
        return CS_ETASK;
    }
    *msgs = w.msgs;
    *n = w.n;
    return 0;
}

void cs_barrier_sync_post(cs_barrier_sync *b, const cs_barrier_request *r,
                          cs_barrier_reply_fn reply, void *arg)
{
    waiter *w = cs_xcalloc(1, sizeof *w);
    w->reply = reply;
    w->reply_arg = arg;
    w->requester = r->requester;
    cs_barrier_request req = *r;
    req.requester = w;
    pthread_mutex_lock(&b->lock);
    cs_barrier_coord_request(b->coord, &req, cs_mono_ms());
    pthread_mutex_unlock(&b->lock);
}

void cs_barrier_sync_tick(cs_barrier_sync *b)
{
    pthread_mutex_lock(&b->lock);
    cs_barrier_coord_tick(b->coord, cs_mono_ms());
    pthread_mutex_unlock(&b->lock);
}

void cs_barrier_sync_stage_done(cs_barrier_sync *b, int stage_id, int stage_attempt)
{
    pthread_mutex_lock(&b->lock);
    cs_barrier_coord_stage_done(b->coord, stage_id, stage_attempt);
    pthread_mutex_unlock(&b->lock);
}
