/*
 * k8s_snapshot_sources.h — where the snapshots store's data comes from (Spark's
 * ExecutorPodsWatchSnapshotSource and ExecutorPodsPollingSnapshotSource):
 *  - the watch source (k8s_watch_source.c): one label-selected watch
 *    (spark-app-selector=<app>,spark-role=executor) that lists first and re-lists after 410 Gone
 *    (src/kube/kube_watch.c); its events merge single pods, its lists are full snapshots;
 *  - the polling source (k8s_polling_source.c): a thread that LISTs the executor pods without
 *    spark-exec-inactive ones every spark.kubernetes.executor.apiPollingInterval.
 * spark.kubernetes.executor.enableApiWatcher / enableApiPolling switch either off. Each snapshot
 * wakes the allocator.
 *
 * Threads: start and stop are called by the backend glue on the context's thread; the sources
 * call the store on their own threads with the backend's lock held.
 */
#ifndef CSPARK_CLUSTER_K8S_SNAPSHOT_SOURCES_H
#define CSPARK_CLUSTER_K8S_SNAPSHOT_SOURCES_H

#include <stdbool.h>

#include "common/err.h"

struct k8s_backend;

/* The label selector of this application's executor pods (malloc'd); active_only leaves out pods
 * labelled spark-exec-inactive. */
char *cs_k8s_executor_selector(const struct k8s_backend *b, bool active_only);

int cs_k8s_watch_source_start(struct k8s_backend *b, cs_error *err);
void cs_k8s_watch_source_stop(struct k8s_backend *b);

/* The poller thread; stop after setting the backend's stopping flag (joins it). */
void cs_k8s_polling_source_start(struct k8s_backend *b);
void cs_k8s_polling_source_stop(struct k8s_backend *b);

#endif
