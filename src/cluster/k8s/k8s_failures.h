/*
 * k8s_failures.h — the executor failures that count toward spark.executor.maxNumFailures (Spark's
 * ExecutorFailureTracker). The lifecycle manager records the time of each failed executor; with
 * spark.executor.failuresValidityInterval set (positive), a failure older than that interval no
 * longer counts, so that an application losing an executor now and then over days is not failed
 * by the sum. Without it every failure counts for the application's life.
 *
 * Pure: every time is given by the caller (the snapshot's time), nothing reads a clock. Called
 * by k8s_lifecycle_manager.c with the backend's lock held; unit tests:
 * tests/unit/k8s/test_k8s_failures.c.
 *
 * Ownership: a k8s_failures is a caller-owned value; its time array is owned by it and released
 * with cs_k8s_failures_free.
 */
#ifndef CSPARK_CLUSTER_K8S_FAILURES_H
#define CSPARK_CLUSTER_K8S_FAILURES_H

#include <stdint.h>

typedef struct k8s_failures {
    int64_t validity_ms; /* <= 0: every failure counts */
    int64_t *at_ms;      /* times of the failures still counted, oldest first */
    int n, cap;
} k8s_failures;

/* Records a failure at now_ms and returns how many failures count at now_ms (it included). */
int cs_k8s_failures_add(k8s_failures *f, int64_t now_ms);
/* How many failures count at now_ms: those not older than validity_ms (all without it). Forgets
 * the others. */
int cs_k8s_failures_count(k8s_failures *f, int64_t now_ms);
void cs_k8s_failures_free(k8s_failures *f);

#endif
