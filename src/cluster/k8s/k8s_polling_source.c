/*
 * k8s_polling_source.c — Spark's ExecutorPodsPollingSnapshotSource (see k8s_snapshot_sources.h):
 * a thread that LISTs the executor pods not labelled spark-exec-inactive=true every
 * spark.kubernetes.executor.apiPollingInterval and replaces the snapshot with the answer. With
 * the watch on, the watch's first LIST is the first snapshot, so the first poll waits an interval.
 */
#include <stdlib.h>

#include "cluster/k8s/k8s_backend_internal.h"
#include "cluster/k8s/k8s_snapshot_sources.h"
#include "common/clock.h"
#include "common/log.h"
#include "common/sync.h"

static void *poller_main(void *arg)
{
    k8s_backend *b = arg;
    char *sel = cs_k8s_executor_selector(b, true);
    pthread_mutex_lock(&b->lock);
    int64_t next = b->set.enable_watcher ? cs_mono_ms() + b->set.poll_interval_ms : cs_mono_ms();
    while (!b->stopping) {
        int64_t now = cs_mono_ms();
        if (now < next) {
            cs_cond_wait_ms(&b->cond, &b->lock, next - now);
            continue;
        }
        pthread_mutex_unlock(&b->lock);
        json_t *list = NULL;
        cs_error err;
        cs_error_clear(&err);
        int64_t at = cs_mono_ms();
        int rc = cs_kube_list(b->kc, "pods", b->app.namespace_, sel, NULL, &list, &err);
        pthread_mutex_lock(&b->lock);
        if (rc < 0) {
            if (!b->stopping)
                CS_WARN("k8s", "event=executor_poll_failed error=%s", cs_log_quote(err.msg));
        } else if (!b->stopping) {
            CS_DEBUG("k8s", "event=executor_poll pods=%zu",
                     json_array_size(json_object_get(list, "items")));
            cs_k8s_store_replace_snapshot(&b->pods, json_object_get(list, "items"), at,
                                          "full poll");
            pthread_cond_broadcast(&b->cond);
        }
        json_decref(list);
        next = cs_mono_ms() + b->set.poll_interval_ms;
    }
    pthread_mutex_unlock(&b->lock);
    free(sel);
    return NULL;
}

void cs_k8s_polling_source_start(k8s_backend *b)
{
    b->poller_started = pthread_create(&b->poller, NULL, poller_main, b) == 0;
}

void cs_k8s_polling_source_stop(k8s_backend *b)
{
    if (b->poller_started) pthread_join(b->poller, NULL);
    b->poller_started = false;
}
