/* test_k8s_snapshots_store.c — unit tests for the merge of snapshots into the executor pod table
 * (src/cluster/k8s/k8s_snapshots_store.c) and the pod states it records
 * (src/cluster/k8s/k8s_pod_states.c, Spark's ExecutorPodStates): each phase and deletion mapped
 * to one state, a pod's first-seen time taken from the snapshot, subscribers handed every update
 * and the end of each full snapshot, claims released by a deletion, a finished phase or absence
 * from a full list, removed executors and other applications' pods not delivered. Every time is
 * explicit: nothing here reads a clock, and no backend is needed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cluster/k8s/k8s_pod_states.h"
#include "cluster/k8s/k8s_snapshots_store.h"

/* An executor pod of id in phase (NULL: none), deletion timestamp when deleting, the executor
 * container terminated with exit_code unless exit_code < 0. */
static json_t *exec_pod(int id, const char *phase, bool deleting, int exit_code)
{
    char sid[16];
    snprintf(sid, sizeof sid, "%d", id);
    json_t *pod = json_pack("{s:{s:s,s:{s:s,s:s}},s:{}}", "metadata", "name", "app-exec", "labels",
                            "spark-exec-id", sid, "spark-role", "executor", "status");
    json_t *md = json_object_get(pod, "metadata"), *st = json_object_get(pod, "status");
    if (deleting) json_object_set_new(md, "deletionTimestamp", json_string("2026-01-01T00:00:00Z"));
    if (phase) json_object_set_new(st, "phase", json_string(phase));
    json_t *state = exit_code >= 0 ? json_pack("{s:{s:i}}", "terminated", "exitCode", exit_code)
                                   : json_pack("{s:{}}", "running");
    json_object_set_new(
        st, "containerStatuses",
        json_pack("[{s:s,s:o}]", "name", "spark-kubernetes-executor", "state", state));
    return pod;
}

static k8s_pod_state state_of(const char *phase, bool deleting, int exit_code, bool deleted_event)
{
    json_t *pod = exec_pod(1, phase, deleting, exit_code);
    k8s_pod_status s = cs_k8s_pod_status_of(pod, deleted_event, "spark-kubernetes-executor", false);
    json_decref(pod);
    return s.state;
}

static void test_pod_states_as_spark(void **state)
{
    (void)state;
    assert_int_equal(state_of("Pending", false, -1, false), K8S_POD_PENDING);
    assert_int_equal(state_of("Running", false, -1, false), K8S_POD_RUNNING);
    assert_int_equal(state_of("Succeeded", false, 0, false), K8S_POD_SUCCEEDED);
    assert_int_equal(state_of("Succeeded", false, -1, false), K8S_POD_FAILED); /* no exit code */
    assert_int_equal(state_of("Failed", false, 1, false), K8S_POD_FAILED);
    assert_int_equal(state_of("Running", false, 137, false), K8S_POD_FAILED);
    assert_int_equal(state_of("Terminating", false, -1, false), K8S_POD_TERMINATING);
    assert_int_equal(state_of(NULL, false, -1, false), K8S_POD_UNKNOWN);
    assert_int_equal(state_of("Weird", false, -1, false), K8S_POD_UNKNOWN);
    /* being deleted: Deleted unless it still runs */
    assert_int_equal(state_of("Pending", true, -1, false), K8S_POD_DELETED);
    assert_int_equal(state_of("Failed", true, 1, false), K8S_POD_DELETED);
    assert_int_equal(state_of("Running", true, -1, false), K8S_POD_TERMINATING);
    assert_int_equal(state_of("Running", false, -1, true), K8S_POD_DELETED);
    assert_true(cs_k8s_pod_state_final(K8S_POD_DELETED));
    assert_false(cs_k8s_pod_state_final(K8S_POD_TERMINATING));
    assert_string_equal(cs_k8s_pod_state_name(K8S_POD_TERMINATING), "PodTerminating");
}

/* What the subscriber was handed. */
typedef struct heard {
    int n;
    int ids[16];
    k8s_pod_state states[16];
    int64_t at[16];
    unsigned snapshot[16];
} heard;

static void listen(void *arg, const k8s_snapshot_update *u)
{
    heard *h = arg;
    assert_true(h->n < 16);
    h->ids[h->n] = u->entry ? u->entry->id : -1;
    h->states[h->n] = u->entry ? u->status.state : K8S_POD_UNSEEN;
    h->at[h->n] = u->at_ms;
    h->snapshot[h->n++] = u->snapshot;
}

static void test_merge_delivers_states_with_given_times(void **state)
{
    (void)state;
    k8s_pod_table t = {0};
    heard h = {0};
    cs_k8s_store_add_subscriber(&t, listen, &h);
    cs_k8s_pods_add(&t, 1, "app-exec-1", 100);
    cs_k8s_pods_add(&t, 2, "app-exec-2", 100);
    assert_int_equal(cs_k8s_pods_find(&t, 1)->state, K8S_POD_UNSEEN);

    json_t *p1 = exec_pod(1, "Pending", false, -1);
    cs_k8s_store_update_pod(&t, "ADDED", p1, 5000, "watch");
    assert_int_equal(cs_k8s_pods_find(&t, 1)->state, K8S_POD_PENDING);
    assert_int_equal(cs_k8s_pods_find(&t, 1)->seen_ms, 5000);
    json_decref(p1);
    p1 = exec_pod(1, "Running", false, -1);
    cs_k8s_store_update_pod(&t, "MODIFIED", p1, 6000, "watch");
    assert_int_equal(cs_k8s_pods_find(&t, 1)->seen_ms, 5000); /* first seen stays */
    assert_int_equal(cs_k8s_pods_find(&t, 1)->state, K8S_POD_RUNNING);
    assert_false(cs_k8s_pods_find(&t, 1)->released);

    /* a pod of no kept executor, and an inactive one, are ignored */
    json_t *other = exec_pod(9, "Running", false, -1);
    cs_k8s_store_update_pod(&t, "ADDED", other, 6500, "watch");
    json_t *inactive = exec_pod(2, "Failed", false, 1);
    json_object_set_new(json_object_get(json_object_get(inactive, "metadata"), "labels"),
                        "spark-exec-inactive", json_string("true"));
    cs_k8s_store_update_pod(&t, "MODIFIED", inactive, 6500, "watch");
    assert_int_equal(cs_k8s_pods_find(&t, 2)->state, K8S_POD_UNSEEN);

    assert_int_equal(h.n, 2);
    assert_int_equal(h.ids[0], 1);
    assert_int_equal(h.states[0], K8S_POD_PENDING);
    assert_int_equal(h.at[0], 5000);
    assert_int_equal(h.states[1], K8S_POD_RUNNING);
    assert_int_equal(h.at[1], 6000);

    /* a full snapshot at 9000 that lists executor 1 as Failed and not executor 2 */
    json_decref(p1);
    p1 = exec_pod(1, "Failed", false, 137);
    json_t *items = json_pack("[O]", p1);
    cs_k8s_store_replace_snapshot(&t, items, 9000, "full poll");
    assert_int_equal(h.n, 4);
    assert_int_equal(h.ids[2], 1);
    assert_int_equal(h.states[2], K8S_POD_FAILED);
    assert_int_equal(h.ids[3], -1); /* the end of the snapshot, with its number and time */
    assert_int_equal(h.snapshot[3], 1);
    assert_int_equal(h.at[3], 9000);
    assert_true(cs_k8s_pods_find(&t, 1)->released);  /* finished: its claims are free */
    assert_false(cs_k8s_pods_find(&t, 2)->released); /* never seen: nothing to release */

    /* a removed executor is not delivered again, but its pod still frees its claims */
    k8s_exec_pod *p = cs_k8s_pods_find(&t, 2);
    json_t *p2 = exec_pod(2, "Running", false, -1);
    cs_k8s_store_update_pod(&t, "ADDED", p2, 9500, "watch");
    assert_int_equal(h.n, 5);
    cs_k8s_pod_mark_done(cs_k8s_pods_find(&t, 2), 9600);
    cs_k8s_store_update_pod(&t, "DELETED", p2, 9700, "watch");
    assert_int_equal(h.n, 5);
    p = cs_k8s_pods_find(&t, 2);
    assert_true(p->released);
    assert_int_equal(p->state, K8S_POD_RUNNING); /* as last delivered */

    /* a pod seen before a full snapshot and absent from it holds its claims no more */
    cs_k8s_pods_add(&t, 3, "app-exec-3", 9800);
    json_t *p3 = exec_pod(3, "Running", false, -1);
    cs_k8s_store_update_pod(&t, "ADDED", p3, 9900, "watch");
    json_t *empty = json_array();
    cs_k8s_store_replace_snapshot(&t, empty, 9950, "watch list");
    assert_true(cs_k8s_pods_find(&t, 3)->released);
    assert_int_equal(h.snapshot[h.n - 1], 2);

    json_decref(empty);
    json_decref(p3);
    json_decref(p2);
    json_decref(items);
    json_decref(p1);
    json_decref(inactive);
    json_decref(other);
    cs_k8s_pods_free(&t);
}

/* A subscriber may release the lock and let the table move: the next one gets the entry
 * re-found, and none once the executor is forgotten. */
static void forget(void *arg, const k8s_snapshot_update *u)
{
    k8s_pod_table *t = arg;
    if (!u->entry) return;
    cs_k8s_pod_mark_done(u->entry, 0);
    cs_k8s_pods_expire(t, 1000000, 10);
}

static void test_subscriber_after_forgotten_entry_skipped(void **state)
{
    (void)state;
    k8s_pod_table t = {0};
    heard h = {0};
    cs_k8s_store_add_subscriber(&t, forget, &t);
    cs_k8s_store_add_subscriber(&t, listen, &h);
    cs_k8s_pods_add(&t, 1, "app-exec-1", 0);
    json_t *p1 = exec_pod(1, "Failed", false, 1);
    cs_k8s_store_update_pod(&t, "MODIFIED", p1, 10, "watch");
    assert_null(cs_k8s_pods_find(&t, 1));
    assert_int_equal(h.n, 0);
    json_decref(p1);
    cs_k8s_pods_free(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pod_states_as_spark),
        cmocka_unit_test(test_merge_delivers_states_with_given_times),
        cmocka_unit_test(test_subscriber_after_forgotten_entry_skipped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
