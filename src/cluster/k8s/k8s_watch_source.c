/*
 * k8s_watch_source.c — Spark's ExecutorPodsWatchSnapshotSource (see k8s_snapshot_sources.h): one
 * label-selected watch of this application's executor pods. Its LIST (at start and after 410
 * Gone) replaces the snapshot; its events merge single pods. Each one wakes the allocator.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/k8s/k8s_backend_internal.h"
#include "cluster/k8s/k8s_snapshot_sources.h"
#include "common/clock.h"

char *cs_k8s_executor_selector(const k8s_backend *b, bool active_only)
{
    char *s = NULL;
    if (asprintf(&s, "spark-app-selector=%s,spark-role=executor%s", b->app.app_id,
                 active_only ? ",!spark-exec-inactive" : "") < 0)
        abort();
    return s;
}

static void on_watch(void *arg, const char *type, const json_t *obj)
{
    k8s_backend *b = arg;
    pthread_mutex_lock(&b->lock);
    if (strcmp(type, "RELIST") == 0)
        cs_k8s_store_replace_snapshot(&b->pods, json_object_get(obj, "items"), cs_mono_ms(),
                                      "watch list");
    else
        cs_k8s_store_update_pod(&b->pods, type, obj, cs_mono_ms(), "watch");
    pthread_cond_broadcast(&b->cond); /* a new snapshot: the allocator may go on */
    pthread_mutex_unlock(&b->lock);
}

int cs_k8s_watch_source_start(k8s_backend *b, cs_error *err)
{
    char *sel = cs_k8s_executor_selector(b, false);
    b->watch = cs_kube_watch_start(b->kc, "pods", b->app.namespace_, sel, on_watch, b, err);
    free(sel);
    return b->watch ? 0 : err->code ? err->code : CS_EIO;
}

void cs_k8s_watch_source_stop(k8s_backend *b)
{
    if (b->watch) cs_kube_watch_stop(b->watch);
    b->watch = NULL;
}
