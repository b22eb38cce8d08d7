/* test_k8s_allocator.c — unit tests for the Kubernetes pod allocator's round
 * (src/cluster/k8s/k8s_allocator.c), a pure function of the settings, the target, the executor
 * pod table and the time given: batches of batch.size until the target is alive, the next batch
 * only once the previous one was seen, the maxPendingPods cap, requests given up after
 * executor.timeout only while neither seen nor registered (Spark's newlyCreatedExecutors: a pod
 * Pending for a node or a claim is never recreated), pods of removed executors deleted after the
 * grace period, excess requests and Pending pods deleted only after the idle timeout, Running
 * pods and registered executors never, no creation after a failure or while claims must wait;
 * the removed-executors cache. Every time is explicit: nothing here reads a clock, except the
 * allocator thread's stop (issue 21 item 13), which returns once the thread has ended. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_allocator.h"
#include "cluster/k8s/k8s_backend_internal.h"
#include "cluster/k8s/k8s_snapshots_store.h"

static k8s_settings settings(void)
{
    k8s_settings s;
    memset(&s, 0, sizeof s);
    s.batch_size = 5;
    s.batch_delay_ms = 1000;
    s.executor_timeout_ms = 600000;
    s.max_pending = INT32_MAX;
    s.allocation_maximum = INT32_MAX;
    s.idle_timeout_ms = 60000;
    s.delete_grace_ms = 5000;
    s.deleted_cache_ms = 180000;
    return s;
}

/* Requests executors first..first+n-1 at time at. */
static void request(k8s_pod_table *t, int first, int n, int64_t at)
{
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "app-exec-%d", first + i);
        cs_k8s_pods_add(t, first + i, name, at);
    }
}

static void seen(k8s_pod_table *t, int id, int64_t at, bool pending)
{
    k8s_exec_pod *p = cs_k8s_pods_find(t, id);
    assert_non_null(p);
    p->seen_ms = at;
    p->state = pending ? K8S_POD_PENDING : K8S_POD_RUNNING;
}

static k8s_alloc_round round_at(const k8s_settings *s, int target, const k8s_pod_table *t,
                                int64_t now)
{
    k8s_alloc_round r;
    cs_k8s_allocator_round(s, target, false, false, t, now, &r);
    return r;
}

static void test_batches_until_target(void **state)
{
    (void)state;
    k8s_settings s = settings();
    k8s_pod_table t = {0};
    k8s_alloc_round r = round_at(&s, 12, &t, 0);
    assert_int_equal(r.kind, K8S_ALLOC_CREATE);
    assert_int_equal(r.create, 5); /* batch.size */
    request(&t, 1, 5, 0);
    /* the batch is not seen yet: the next one waits, however long */
    r = round_at(&s, 12, &t, 500000);
    assert_int_equal(r.kind, K8S_ALLOC_WAIT);
    for (int id = 1; id <= 5; id++)
        seen(&t, id, 1000, false);
    r = round_at(&s, 12, &t, 1000);
    assert_int_equal(r.kind, K8S_ALLOC_CREATE);
    assert_int_equal(r.create, 5);
    request(&t, 6, 5, 1000);
    for (int id = 6; id <= 10; id++)
        seen(&t, id, 2000, false);
    r = round_at(&s, 12, &t, 2000);
    assert_int_equal(r.kind, K8S_ALLOC_CREATE);
    assert_int_equal(r.create, 2); /* only what the target still needs */
    request(&t, 11, 2, 2000);
    seen(&t, 11, 3000, false);
    seen(&t, 12, 3000, false);
    r = round_at(&s, 12, &t, 3000);
    assert_int_equal(r.kind, K8S_ALLOC_WAIT); /* all alive */
    cs_k8s_pods_free(&t);
}

static void test_max_pending_caps_a_batch(void **state)
{
    (void)state;
    k8s_settings s = settings();
    s.max_pending = 3;
    k8s_pod_table t = {0};
    request(&t, 1, 2, 0);
    seen(&t, 1, 100, true); /* Pending */
    seen(&t, 2, 100, false);
    k8s_alloc_round r = round_at(&s, 10, &t, 100);
    assert_int_equal(r.kind, K8S_ALLOC_CREATE);
    assert_int_equal(r.create, 2); /* 3 - 1 pending */
    seen(&t, 2, 100, true);
    r = round_at(&s, 10, &t, 200);
    assert_int_equal(r.create, 1);
    cs_k8s_pods_free(&t);
}

static void test_unseen_request_given_up_after_timeout(void **state)
{
    (void)state;
    k8s_settings s = settings();
    k8s_pod_table t = {0};
    request(&t, 1, 2, 1000);
    seen(&t, 2, 2000, false);
    k8s_alloc_round r = round_at(&s, 2, &t, 1000 + 600000); /* not more than the timeout yet */
    assert_int_equal(r.kind, K8S_ALLOC_WAIT);
    r = round_at(&s, 2, &t, 1000 + 600001);
    assert_int_equal(r.kind, K8S_ALLOC_GIVE_UP);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.ids[0], 1);
    cs_k8s_alloc_round_free(&r);
    /* once given up (done), the next round asks for a replacement */
    cs_k8s_pod_mark_done(cs_k8s_pods_find(&t, 1), 601001);
    r = round_at(&s, 2, &t, 601002);
    assert_int_equal(r.kind, K8S_ALLOC_CREATE);
    assert_int_equal(r.create, 1);
    cs_k8s_pods_free(&t);
}

/* issue #10 item 11: a pod seen Pending and unschedulable (no node fits it, or its claim is
 * missing) was deleted and recreated after executor.timeout, forever; Spark keeps every pod it
 * has seen and times out only requests never seen. */
static void test_unschedulable_pending_pod_never_recreated(void **state)
{
    (void)state;
    k8s_settings s = settings();
    s.executor_timeout_ms = 3000;
    k8s_pod_table t = {0};
    request(&t, 1, 2, 0);
    seen(&t, 1, 10, false);                               /* Running */
    seen(&t, 2, 10, true);                                /* Pending ... */
    cs_k8s_pods_find(&t, 2)->unschedulable_warned = true; /* ... because no node fits it */
    for (int64_t now = 3001; now < 24LL * 3600 * 1000; now *= 7) {
        k8s_alloc_round r = round_at(&s, 2, &t, now);
        assert_int_equal(r.kind, K8S_ALLOC_WAIT); /* no give-up, no second pod for it */
        assert_int_equal(r.n, 0);
    }
    /* a request never seen still times out after the same time */
    request(&t, 3, 1, 100000);
    k8s_alloc_round r = round_at(&s, 3, &t, 103001);
    assert_int_equal(r.kind, K8S_ALLOC_GIVE_UP);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.ids[0], 3);
    cs_k8s_alloc_round_free(&r);
    cs_k8s_pods_free(&t);
}

/* Spark's schedulerKnownNewlyCreatedExecs: an executor that registered before its pod was seen
 * neither times out nor holds back the next batch. */
static void test_registered_request_neither_times_out_nor_blocks(void **state)
{
    (void)state;
    k8s_settings s = settings();
    s.batch_size = 2;
    k8s_pod_table t = {0};
    request(&t, 1, 2, 0);
    seen(&t, 1, 10, false);
    k8s_alloc_round r = round_at(&s, 4, &t, 20);
    assert_int_equal(r.kind, K8S_ALLOC_WAIT); /* 2 is unseen: the next batch waits */
    cs_k8s_pods_find(&t, 2)->registered = true;
    r = round_at(&s, 4, &t, 700000);
    assert_int_equal(r.kind, K8S_ALLOC_CREATE);
    assert_int_equal(r.create, 2);
    cs_k8s_pods_free(&t);
}

static void test_removed_pod_deleted_after_grace(void **state)
{
    (void)state;
    k8s_settings s = settings();
    k8s_pod_table t = {0};
    request(&t, 1, 2, 0);
    seen(&t, 1, 10, false);
    seen(&t, 2, 10, false);
    cs_k8s_pods_find(&t, 2)->delete_at_ms = 20000;
    k8s_alloc_round r = round_at(&s, 1, &t, 19999);
    assert_int_equal(r.kind, K8S_ALLOC_WAIT); /* Running pods are never excess */
    r = round_at(&s, 1, &t, 20000);
    assert_int_equal(r.kind, K8S_ALLOC_DELETE_REMOVED);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.ids[0], 2);
    cs_k8s_alloc_round_free(&r);
    cs_k8s_pods_free(&t);
}

static void test_excess_unseen_then_pending_after_idle_timeout(void **state)
{
    (void)state;
    k8s_settings s = settings();
    k8s_pod_table t = {0};
    request(&t, 1, 4, 0);
    seen(&t, 1, 10, false); /* Running */
    seen(&t, 2, 10, true);  /* Pending */
    /* 3 and 4 unseen; the target falls to 1: three too many */
    k8s_alloc_round r = round_at(&s, 1, &t, 60000);
    assert_int_equal(r.kind, K8S_ALLOC_WAIT); /* not older than executorIdleTimeout */
    r = round_at(&s, 1, &t, 60001);
    assert_int_equal(r.kind, K8S_ALLOC_DELETE_EXCESS);
    assert_int_equal(r.n, 3);
    assert_int_equal(r.ids[0], 3); /* unseen requests first */
    assert_int_equal(r.ids[1], 4);
    assert_int_equal(r.ids[2], 2); /* then Pending pods; never the Running one */
    cs_k8s_alloc_round_free(&r);
    /* a Pending pod whose executor registered is not excess (the snapshot lags) */
    cs_k8s_pods_find(&t, 2)->registered = true;
    r = round_at(&s, 1, &t, 60001);
    assert_int_equal(r.kind, K8S_ALLOC_DELETE_EXCESS);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.ids[0], 3);
    assert_int_equal(r.ids[1], 4);
    cs_k8s_alloc_round_free(&r);
    /* only as many as the excess */
    r = round_at(&s, 3, &t, 60001);
    assert_int_equal(r.kind, K8S_ALLOC_DELETE_EXCESS);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.ids[0], 3);
    cs_k8s_alloc_round_free(&r);
    cs_k8s_pods_free(&t);
}

static void test_no_creation_after_failure(void **state)
{
    (void)state;
    k8s_settings s = settings();
    k8s_pod_table t = {0};
    k8s_alloc_round r;
    cs_k8s_allocator_round(&s, 4, true, false, &t, 0, &r);
    assert_int_equal(r.kind, K8S_ALLOC_WAIT);
    cs_k8s_pods_free(&t);
}

/* waitToReusePersistentVolumeClaim: no creation until a snapshot says a claim may be free */
static void test_no_creation_while_claims_wait(void **state)
{
    (void)state;
    k8s_settings s = settings();
    k8s_pod_table t = {0};
    k8s_alloc_round r;
    cs_k8s_allocator_round(&s, 4, false, true, &t, 0, &r);
    assert_int_equal(r.kind, K8S_ALLOC_WAIT);
    cs_k8s_allocator_round(&s, 4, false, false, &t, 0, &r);
    assert_int_equal(r.kind, K8S_ALLOC_CREATE);
    assert_int_equal(r.create, 4);
    cs_k8s_pods_free(&t);
}

static void test_removed_executors_cache(void **state)
{
    (void)state;
    k8s_pod_table t = {0};
    request(&t, 1, 3, 0);
    cs_k8s_pod_mark_done(cs_k8s_pods_find(&t, 2), 1000);
    cs_k8s_pods_expire(&t, 181000, 180000); /* exactly the timeout: kept */
    assert_non_null(cs_k8s_pods_find(&t, 2));
    cs_k8s_pods_expire(&t, 181001, 180000);
    assert_null(cs_k8s_pods_find(&t, 2));
    assert_int_equal(t.npods, 2);
    assert_int_equal(cs_k8s_pods_find(&t, 3)->id, 3); /* the index follows the move */
    assert_int_equal(cs_k8s_pods_find(&t, 1)->id, 1);
    cs_k8s_pods_free(&t);
}

/* The application stops (cluster_manager.stopping): the allocator, waiting batch.delay (an hour
 * here) for its next round, is woken and joined at once; no round runs after; stopping again, as
 * the backend's own stop does, is a no-op. */
static void test_stop_ends_the_allocator_at_once(void **state)
{
    (void)state;
    k8s_backend *b = calloc(1, sizeof *b);
    assert_non_null(b);
    b->set = settings();
    b->set.batch_delay_ms = 3600000;
    pthread_mutex_init(&b->lock, NULL);
    pthread_cond_init(&b->cond, NULL);
    assert_int_equal(cs_k8s_allocator_start(b), 0); /* target 0, no pod: it waits */
    assert_true(b->allocator_started);
    cs_k8s_allocator_stop(b);
    assert_false(b->allocator_started);
    assert_true(b->allocator_stopping);
    cs_k8s_allocator_stop(b);
    assert_false(b->allocator_started);
    cs_k8s_pods_free(&b->pods);
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->cond);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batches_until_target),
        cmocka_unit_test(test_max_pending_caps_a_batch),
        cmocka_unit_test(test_unseen_request_given_up_after_timeout),
        cmocka_unit_test(test_unschedulable_pending_pod_never_recreated),
        cmocka_unit_test(test_registered_request_neither_times_out_nor_blocks),
        cmocka_unit_test(test_removed_pod_deleted_after_grace),
        cmocka_unit_test(test_excess_unseen_then_pending_after_idle_timeout),
        cmocka_unit_test(test_no_creation_after_failure),
        cmocka_unit_test(test_no_creation_while_claims_wait),
        cmocka_unit_test(test_removed_executors_cache),
        cmocka_unit_test(test_stop_ends_the_allocator_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
