/*
 * broadcast_jobs.c — a query's broadcast jobs, each on a thread of its own (broadcast_jobs.h).
 *
 * A future is started, running (a thread in cs_scheduler_run_job, or waiting for one of the
 * max_threads slots: Spark's broadcast thread pool), then done with its broadcast variable or its
 * error. One mutex guards the futures' states and the running count; a condition variable wakes
 * the waiters (the query's thread waiting for a future, a thread waiting for a slot). A job is
 * run with the query's job properties, so cancelling the query's group (the web UI, Connect's
 * interrupt) cancels the broadcast jobs too; a thread that gets its slot after the application
 * was interrupted runs nothing.
 */
#include "session/broadcast_jobs.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/context.h"
#include "common/log.h"
#include "common/strutil.h"
#include "plan/rdd.h"
#include "session/session_internal.h"
#include "sqlexec/sql_error.h"

typedef struct bc_future {
    struct cs_bcast_jobs *js;
    const void *key;
    cspark_rdd *rdd;
    char call_site[160];
    pthread_t thread;
    bool done;
    int rc;
    int64_t id; /* the broadcast variable (done, rc == 0) */
    cs_error err;
} bc_future;

struct cs_bcast_jobs {
    cspark_context *sc;
    job_properties props; /* strings borrowed from the query */
    int max_threads;
    int64_t timeout_ms;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int running;   /* threads inside a job */
    bool stopping; /* the query ended: a thread not in its job yet runs nothing */
    bc_future **f;
    int n, cap;
};

cs_bcast_jobs *cs_bcast_jobs_new(cspark_context *sc, const job_properties *props, int max_threads,
                                 int64_t timeout_ms)
{
    cs_bcast_jobs *js = cs_xcalloc(1, sizeof *js);
    js->sc = sc;
    js->props = *props;
    js->props.call_site = NULL;
    js->max_threads = max_threads > 0 ? max_threads : 1;
    js->timeout_ms = timeout_ms;
    pthread_mutex_init(&js->mu, NULL);
    pthread_cond_init(&js->cv, NULL);
    return js;
}

static bc_future *find(const cs_bcast_jobs *js, const void *key)
{
    for (int i = 0; i < js->n; i++)
        if (js->f[i]->key == key) return js->f[i];
    return NULL;
}

bool cs_bcast_jobs_started(const cs_bcast_jobs *js, const void *key)
{
    return js && find(js, key) != NULL;
}

bool cs_bcast_jobs_done(cs_bcast_jobs *js, const void *key)
{
    bc_future *f = js ? find(js, key) : NULL;
    if (!f) return false;
    pthread_mutex_lock(&js->mu);
    bool done = f->done;
    pthread_mutex_unlock(&js->mu);
    return done;
}

/* The job of f: every row of its stage, as one value, made a broadcast variable. */
static int run_job(bc_future *f)
{
    cs_bcast_jobs *js = f->js;
    cspark_context *sc = js->sc;
    job_properties props = js->props;
    props.call_site = f->call_site;
    cs_session_collected c;
    int rc = cs_session_collect(sc, f->rdd, &props, &c, &f->err);
    /* the value is its batches, each after its u32 little-endian length: sized first, then
     * written once into the buffer the broadcast store keeps (no growth, no second copy) */
    size_t len = 0;
    for (int p = 0; rc == 0 && p < c.n; p++)
        for (size_t i = 0; i < c.parts[p].n; i++)
            len += 4 + batch_get(&c.parts[p], i).value.len;
    uint8_t *value = rc == 0 && len ? cs_xmalloc(len) : NULL, *w = value;
    for (int p = 0; rc == 0 && p < c.n; p++)
        for (size_t i = 0; i < c.parts[p].n; i++) {
            cspark_record rec = batch_get(&c.parts[p], i);
            uint32_t n = (uint32_t)rec.value.len;
            w[0] = (uint8_t)n;
            w[1] = (uint8_t)(n >> 8);
            w[2] = (uint8_t)(n >> 16);
            w[3] = (uint8_t)(n >> 24);
            if (n) memcpy(w + 4, rec.value.ptr, n);
            w += 4 + n;
        }
    cs_session_collected_free(&c);
    if (rc == 0) {
        cspark_broadcast_var b = cs_context_broadcast_take(sc, value, len);
        f->id = b.id;
        if (b.id < 0)
            rc = cs_error_set(&f->err, CS_EIO, "the broadcast of a join's build side failed");
    } else {
        free(value);
    }
    return rc;
}

static void *future_main(void *arg)
{
    bc_future *f = arg;
    cs_bcast_jobs *js = f->js;
    pthread_mutex_lock(&js->mu);
    while (js->running >= js->max_threads)
        pthread_cond_wait(&js->cv, &js->mu);
    js->running++;
    bool stopping = js->stopping;
    pthread_mutex_unlock(&js->mu);
    int rc = stopping ? cs_error_set(&f->err, CS_ECANCELLED, "the query ended") : run_job(f);
    pthread_mutex_lock(&js->mu);
    js->running--;
    f->rc = rc;
    f->done = true;
    pthread_cond_broadcast(&js->cv);
    pthread_mutex_unlock(&js->mu);
    return NULL;
}

void cs_bcast_jobs_start(cs_bcast_jobs *js, const void *key, cspark_rdd *rdd)
{
    bc_future *f = cs_xcalloc(1, sizeof *f);
    f->js = js;
    f->key = key;
    f->rdd = rdd;
    f->id = -1;
    snprintf(f->call_site, sizeof f->call_site, "broadcast exchange at SQL execution %s",
             js->props.sql_execution_id ? js->props.sql_execution_id : "?");
    if (js->n == js->cap) {
        js->cap = js->cap ? 2 * js->cap : 8;
        js->f = cs_xrealloc(js->f, (size_t)js->cap * sizeof *js->f);
    }
    js->f[js->n++] = f;
    if (pthread_create(&f->thread, NULL, future_main, f) != 0) {
        f->thread = pthread_self(); /* no thread: run it here */
        future_main(f);
    }
}

int cs_bcast_jobs_wait(cs_bcast_jobs *js, const void *key, int64_t *id, cs_error *err)
{
    bc_future *f = js ? find(js, key) : NULL;
    if (!f) return cs_error_set(err, CS_EINVAL, "a broadcast exchange that was never started");
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    int64_t t = js->timeout_ms;
    deadline.tv_sec += (time_t)(t / 1000);
    deadline.tv_nsec += (long)(t % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    bool timed_out = false;
    pthread_mutex_lock(&js->mu);
    while (!f->done && !timed_out)
        if (t < 0)
            pthread_cond_wait(&js->cv, &js->mu);
        else
            timed_out =
                pthread_cond_timedwait(&js->cv, &js->mu, &deadline) == ETIMEDOUT && !f->done;
    pthread_mutex_unlock(&js->mu);
    if (timed_out) {
        CS_INFO("sql", "execution=%s event=broadcast_timeout timeout_ms=%lld",
                js->props.sql_execution_id ? js->props.sql_execution_id : "?", (long long)t);
        return cs_sql_error_set(
            err, CS_ETIMEOUT, "_LEGACY_ERROR_TEMP_2097", "", /* Spark's */
            "Could not execute broadcast in %lld secs. You can increase the "
            "timeout for broadcasts via \"spark.sql.broadcastTimeout\" or disable "
            "broadcast join by setting \"spark.sql.autoBroadcastJoinThreshold\" "
            "to -1 or remove the broadcast hint if it exists in your code.",
            (long long)(t / 1000));
    }
    if (f->rc < 0) {
        *err = f->err;
        return f->rc;
    }
    *id = f->id;
    return 0;
}

void cs_bcast_jobs_free(cs_bcast_jobs *js)
{
    if (!js) return;
    /* a job still running is cancelled, again until it ends: a thread may submit its job just
     * after a cancellation (one not in its job yet sees stopping and runs nothing) */
    pthread_mutex_lock(&js->mu);
    js->stopping = true;
    for (;;) {
        bool running = false;
        for (int i = 0; i < js->n; i++)
            running |= !js->f[i]->done;
        if (!running || !js->props.group_id) break;
        pthread_mutex_unlock(&js->mu);
        cs_scheduler_cancel_group(js->sc->sched, js->props.group_id);
        pthread_mutex_lock(&js->mu);
        struct timespec t;
        clock_gettime(CLOCK_REALTIME, &t);
        t.tv_nsec += 100000000L;
        if (t.tv_nsec >= 1000000000L) {
            t.tv_sec++;
            t.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&js->cv, &js->mu, &t);
    }
    pthread_mutex_unlock(&js->mu);
    for (int i = 0; i < js->n; i++) {
        bc_future *f = js->f[i];
        if (!pthread_equal(f->thread, pthread_self())) pthread_join(f->thread, NULL);
        if (f->rc == 0 && f->id >= 0)
            cspark_broadcast_destroy(js->sc, (cspark_broadcast_var){f->id});
        free(f);
    }
    free(js->f);
    pthread_mutex_destroy(&js->mu);
    pthread_cond_destroy(&js->cv);
    free(js);
}
