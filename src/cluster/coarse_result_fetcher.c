/*
 * coarse_result_fetcher.c — Spark's TaskResultGetter for results too large for a StatusUpdate
 * (see coarse_backend_internal.h): a thread takes queued fetches one at a time, asks the
 * executor's block server for the result (FetchResult), decodes it and reports the task to the
 * scheduler; a fetch that fails fails the task with the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/coarse_backend_internal.h"
#include "common/log.h"
#include "records/recio.h"

void cs_coarse_fetch_later(coarse_backend *b, const task_desc *t, task_result *r, const char *host,
                           int port, const char *exec_id)
{
    fetch_job *f = cs_xcalloc(1, sizeof *f);
    f->t = t;
    f->r = *r;
    snprintf(f->host, sizeof f->host, "%s", host);
    f->port = port;
    snprintf(f->exec_id, sizeof f->exec_id, "%s", exec_id);
    pthread_mutex_lock(&b->lock);
    if (b->fetch_tail)
        b->fetch_tail->next = f;
    else
        b->fetch_head = f;
    b->fetch_tail = f;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
}

/* Spark's TaskResultGetter: large results are fetched from the executor's block server. */
void *cs_coarse_fetcher_main(void *arg)
{
    coarse_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    for (;;) {
        while (!b->fetch_head && !b->stopping)
            pthread_cond_wait(&b->cond, &b->lock);
        if (!b->fetch_head) break;
        fetch_job *f = b->fetch_head;
        b->fetch_head = f->next;
        if (!b->fetch_head) b->fetch_tail = NULL;
        pthread_mutex_unlock(&b->lock);

        cs_error err;
        cs_error_clear(&err);
        rpc_conn *c = cs_rpc_connect(b->ep, f->host, f->port, 30000, &err);
        Cspark__Envelope *reply = NULL;
        if (c) {
            Cspark__FetchResult fr = CSPARK__FETCH_RESULT__INIT;
            fr.task_id = f->t->task_id;
            Cspark__Envelope req = CSPARK__ENVELOPE__INIT;
            req.body_case = CSPARK__ENVELOPE__BODY_FETCH_RESULT;
            req.fetch_result = &fr;
            cs_rpc_call(c, &req, &reply, 120000, &err);
            cs_rpc_conn_close(c);
            cs_rpc_conn_unref(c);
        }
        if (reply && reply->body_case == CSPARK__ENVELOPE__BODY_FETCH_RESULT_DATA &&
            !(reply->fetch_result_data->error && reply->fetch_result_data->error[0])) {
            cs_batch_reset(&f->r.data);
            CS_INFO("driver", "event=indirect_result task=%lld executor=%s bytes=%zu",
                    (long long)f->t->task_id, cs_log_value(f->exec_id),
                    reply->fetch_result_data->data.len);
            if (cs_recio_decode_all(reply->fetch_result_data->data.data,
                                    reply->fetch_result_data->data.len, &f->r.data, &err) < 0) {
                f->r.status = TASK_FAILED;
                f->r.error = cs_xstrdup(err.msg);
            }
        } else {
            f->r.status = TASK_FAILED;
            char msg[1600];
            snprintf(msg, sizeof msg,
                     "could not fetch the result of task %lld from executor %s (%s:%d): %s",
                     (long long)f->t->task_id, f->exec_id, f->host, f->port,
                     reply && reply->body_case == CSPARK__ENVELOPE__BODY_FETCH_RESULT_DATA
                         ? reply->fetch_result_data->error
                         : err.msg);
            f->r.error = cs_xstrdup(msg);
        }
        if (reply) cspark__envelope__free_unpacked(reply, NULL);
        cs_scheduler_task_done(b->base.sched, f->t, &f->r);
        free(f);
        pthread_mutex_lock(&b->lock);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}
