/*
 * coarse_result_fetcher.c — Spark's TaskResultGetter for IndirectTaskResult (see
 * coarse_backend_internal.h): a status update whose result passed spark.task.maxDirectResultSize
 * names a block the executor keeps (the whole serialized TaskResult: data, accumulator updates,
 * metrics). A thread takes queued fetches one at a time: a result over spark.driver.maxResultSize
 * is not fetched (a result task's size then fails its job in the DAG scheduler with Spark's
 * message; a map task's fails its stage); any other is fetched in parts from the executor's
 * block server (so no size is bound by spark.rpc.message.maxSize), decoded and reported to the
 * scheduler. A fetch or decode that fails fails the task with the reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blocktransfer/block_fetcher.h"
#include "cluster/coarse_backend_internal.h"
#include "common/log.h"
#include "plan/task_codec.h"

void cs_coarse_fetch_later(coarse_backend *b, const task_desc *t, int64_t size, const char *host,
                           int port, const char *exec_id)
{
    fetch_job *f = cs_xcalloc(1, sizeof *f);
    f->t = t;
    f->size = size;
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

/* The result of f's task, fetched and decoded into *r (initialised), or a failure saying why. */
static void fetch_result(coarse_backend *b, const fetch_job *f, task_result *r)
{
    cs_error err;
    cs_error_clear(&err);
    uint8_t *bytes = NULL;
    size_t len = 0;
    rpc_conn *c = cs_rpc_connect(b->ep, f->host, f->port, 30000, &err);
    if (c) {
        int rc =
            cs_block_fetch_task_result(c, f->t->task_id, b->network_timeout_ms, &bytes, &len, &err);
        cs_rpc_conn_close(c);
        cs_rpc_conn_unref(c);
        if (rc == 0) {
            Cspark__TaskResult *pb = cspark__task_result__unpack(NULL, len, bytes);
            if (!pb)
                cs_error_set(&err, CS_EPROTO, "the fetched result (%zu bytes) does not decode",
                             len);
            else if (cs_task_result_decode(pb, r, &err) == 0)
                r->metrics.result_size = f->size; /* Spark's: the serialized result's size */
            if (pb) cspark__task_result__free_unpacked(pb, NULL);
        }
        free(bytes);
    }
    if (err.code) {
        cs_task_result_free(r);
        cs_task_result_init(r);
        r->status = TASK_FAILED;
        char msg[1600];
        snprintf(
            msg, sizeof msg,
            "could not fetch the result of task %lld (%lld bytes) from executor %s (%s:%d): %s",
            (long long)f->t->task_id, (long long)f->size, f->exec_id, f->host, f->port, err.msg);
        r->error = cs_xstrdup(msg);
        CS_ERROR("driver", "event=indirect_result_lost task=%lld executor=%s error=%s",
                 (long long)f->t->task_id, cs_log_value(f->exec_id), cs_log_quote(msg));
        return;
    }
    CS_INFO("driver", "event=indirect_result task=%lld executor=%s bytes=%zu",
            (long long)f->t->task_id, cs_log_value(f->exec_id), len);
}

/* Spark's TaskResultGetter.enqueueSuccessfulTask for an IndirectTaskResult. */
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

        task_result r;
        cs_task_result_init(&r);
        if (b->max_result_size > 0 && f->size > b->max_result_size) {
            /* not fetched (the executor dropped it): a result task's size fails its job in the
             * DAG scheduler, which counts every result; a map task has no such count, so its
             * stage is aborted here with the same words (TaskSetManager.canFetchMoreResults) */
            r.metrics.result_size = f->size;
            if (f->t->sink && f->t->sink->kind == SINK_SHUFFLE) {
                char msg[300];
                snprintf(msg, sizeof msg,
                         "Total size of serialized results of 1 tasks (%.1f MiB) is bigger than "
                         "spark.driver.maxResultSize (%.1f MiB)",
                         (double)f->size / 1048576.0, (double)b->max_result_size / 1048576.0);
                r.status = TASK_UNLAUNCHABLE;
                r.error = cs_xstrdup(msg);
            }
        } else {
            fetch_result(b, f, &r);
        }
        r.block_port = f->port;
        cs_scheduler_task_done(b->base.sched, f->t, &r); /* takes r's contents */
        free(f);
        pthread_mutex_lock(&b->lock);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}
