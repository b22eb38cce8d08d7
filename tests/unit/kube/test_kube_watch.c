/* test_kube_watch.c — kube_watch against a real kubesim: ADDED/MODIFIED/DELETED for pods created
 * after start; with every watch dropped after 200 ms and a forced expiry of all resource versions,
 * every created pod is still seen, RELIST is delivered after the expiry, and the watcher's view
 * ends equal to the server's list; cs_kube_watch_stop returns promptly. Bounded waits only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>

#include "kube/kube_watch.h"
#include "kubesim_proc.h"

static kubesim_proc ks;
static kube_client *kc;
static cs_conf *conf;

#define MAXN 256

/* What a consumer would keep: the current view (name -> present) and what it ever saw. */
typedef struct recorder {
    pthread_mutex_t mu;
    char names[MAXN][64];
    bool present[MAXN], ever[MAXN];
    int n;
    int added, modified, deleted, relists;
    char last_label[64];
} recorder;

static int slot(recorder *r, const char *name)
{
    for (int i = 0; i < r->n; i++)
        if (!strcmp(r->names[i], name)) return i;
    if (r->n == MAXN) return -1;
    snprintf(r->names[r->n], sizeof r->names[0], "%s", name);
    return r->n++;
}

static const char *obj_name(const json_t *o)
{
    return json_string_value(json_object_get(json_object_get(o, "metadata"), "name"));
}

static void on_event(void *arg, const char *type, const json_t *obj)
{
    recorder *r = arg;
    pthread_mutex_lock(&r->mu);
    if (!strcmp(type, "RELIST")) {
        r->relists++;
        for (int i = 0; i < r->n; i++)
            r->present[i] = false;
        size_t i;
        json_t *it;
        json_array_foreach(json_object_get(obj, "items"), i, it)
        {
            int s = slot(r, obj_name(it));
            if (s >= 0) r->present[s] = r->ever[s] = true;
        }
    } else {
        int s = slot(r, obj_name(obj));
        if (s >= 0) {
            if (!strcmp(type, "DELETED")) {
                r->deleted++;
                r->present[s] = false;
                r->ever[s] = true;
            } else {
                if (!strcmp(type, "ADDED")) r->added++;
                if (!strcmp(type, "MODIFIED")) {
                    r->modified++;
                    const char *l = json_string_value(json_object_get(
                        json_object_get(json_object_get(obj, "metadata"), "labels"), "step"));
                    snprintf(r->last_label, sizeof r->last_label, "%s", l ? l : "");
                }
                r->present[s] = r->ever[s] = true;
            }
        }
    }
    pthread_mutex_unlock(&r->mu);
}

typedef bool (*cond_fn)(recorder *r, void *arg);

/* Waits up to 20 s for cond; returns its final value. */
static bool wait_until(recorder *r, cond_fn cond, void *arg)
{
    for (int i = 0; i < 1000; i++) {
        pthread_mutex_lock(&r->mu);
        bool ok = cond(r, arg);
        pthread_mutex_unlock(&r->mu);
        if (ok) return true;
        ks_sleep_ms(20);
    }
    return false;
}

static int group_setup(void **state)
{
    if (kubesim_start(&ks, "--no-kubelet", "--bookmark-ms", "200", (const char *)NULL)) return -1;
    conf = cs_conf_new();
    cs_error err = {0};
    kc = kubesim_client(&ks, conf, NULL, &err);
    return kc ? 0 : -1;
}

static int group_teardown(void **state)
{
    cs_kube_client_free(kc);
    cs_conf_free(conf);
    kubesim_stop(&ks);
    return 0;
}

static void faults(const char *json)
{
    cs_error err = {0};
    json_t *body = json_loads(json, 0, NULL);
    assert_non_null(body);
    assert_int_equal(
        cs_kube_request(kc, "other", "POST", "/kubesim/faults", body, NULL, NULL, &err), 0);
    json_decref(body);
}

static void create_pod(const char *name, const char *app)
{
    cs_error err = {0};
    json_t *p = ks_pod(name, app);
    int rc = cs_kube_create(kc, "pods", NULL, p, NULL, &err);
    json_decref(p);
    if (rc) fprintf(stderr, "create %s: %s\n", name, err.msg);
    assert_int_equal(rc, 0);
}

static bool basic_done(recorder *r, void *arg)
{
    int a = slot(r, "w1-a"), b = slot(r, "w1-b");
    return r->added >= 2 && r->modified >= 1 && r->deleted >= 1 && r->present[a] &&
           !r->present[b] && !strcmp(r->last_label, "two");
}

static void test_watch_events(void **state)
{
    recorder r = {.mu = PTHREAD_MUTEX_INITIALIZER};
    cs_error err = {0};
    create_pod("w1-old", "w1");
    kube_watch *w = cs_kube_watch_start(kc, "pods", NULL, "app=w1", on_event, &r, &err);
    assert_non_null(w);
    pthread_mutex_lock(&r.mu);
    assert_int_equal(r.relists, 1); /* delivered before start returned */
    assert_true(r.present[slot(&r, "w1-old")]);
    pthread_mutex_unlock(&r.mu);

    create_pod("w1-a", "w1");
    create_pod("w1-b", "w1");
    create_pod("other-x", "other"); /* not selected */
    json_t *patch = json_pack("{s:{s:{s:s}}}", "metadata", "labels", "step", "two");
    assert_int_equal(cs_kube_patch_merge(kc, "pods", NULL, "w1-a", patch, NULL, &err), 0);
    json_decref(patch);
    assert_int_equal(cs_kube_delete(kc, "pods", NULL, "w1-b", 0, &err), 0);
    assert_true(wait_until(&r, basic_done, NULL));

    cs_kube_watch_stop(w); /* a hang would end the test at its CTest timeout */
    pthread_mutex_lock(&r.mu);
    bool saw_other = false;
    for (int i = 0; i < r.n; i++)
        if (!strcmp(r.names[i], "other-x")) saw_other = true;
    pthread_mutex_unlock(&r.mu);
    assert_false(saw_other);
    assert_true(cs_kube_client_requests(kc, "watch") >= 1);
    assert_int_equal(cs_kube_delete_collection(kc, "pods", NULL, NULL, 0, &err), 0);
}

typedef struct expect {
    int from, to; /* pod indexes w2-<i> */
} expect;

static bool all_seen(recorder *r, void *arg)
{
    expect *e = arg;
    char name[32];
    for (int i = e->from; i < e->to; i++) {
        snprintf(name, sizeof name, "w2-%d", i);
        int s = slot(r, name);
        if (s < 0 || !r->ever[s]) return false;
    }
    return true;
}

static bool relisted_twice(recorder *r, void *arg)
{
    return r->relists >= 2;
}

/* The view must equal the server: present exactly for pods that exist. */
static bool view_matches(recorder *r, void *arg)
{
    json_t *list = arg;
    int present = 0;
    for (int i = 0; i < r->n; i++)
        if (r->present[i]) present++;
    if ((size_t)present != json_array_size(json_object_get(list, "items"))) return false;
    size_t i;
    json_t *it;
    json_array_foreach(json_object_get(list, "items"), i, it)
    {
        int s = slot(r, obj_name(it));
        if (s < 0 || !r->present[s]) return false;
    }
    return true;
}

static void test_watch_survives_drops_and_expiry(void **state)
{
    recorder r = {.mu = PTHREAD_MUTEX_INITIALIZER};
    cs_error err = {0};
    kube_watch *w = cs_kube_watch_start(kc, "pods", NULL, "app=w2", on_event, &r, &err);
    assert_non_null(w);
    faults("{\"dropWatchAfterMs\":200}");
    char name[32];
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "w2-%d", i);
        create_pod(name, "w2");
        if (i % 4 == 3) ks_sleep_ms(30);
        if (i % 10 == 9) { /* deletions while connections drop */
            snprintf(name, sizeof name, "w2-%d", i - 5);
            assert_int_equal(cs_kube_delete(kc, "pods", NULL, name, 0, &err), 0);
        }
    }
    expect e1 = {0, 40};
    assert_true(wait_until(&r, all_seen, &e1));

    /* every version up to now becomes too old. kubesim still serves a watch from the newest
     * version, so first move the global version past the watcher's (a ConfigMap write, which the
     * pod watch does not see), then expire: the next reconnect gets 410 and must re-list. A
     * bookmark landing between the two requests would bring the watcher up to date; try again. */
    bool relisted = false;
    for (int k = 0; k < 10 && !relisted; k++) {
        snprintf(name, sizeof name, "w2-cm-%d", k);
        json_t *cm = json_pack("{s:s, s:s, s:{s:s}}", "apiVersion", "v1", "kind", "ConfigMap",
                               "metadata", "name", name);
        assert_int_equal(cs_kube_create(kc, "configmaps", NULL, cm, NULL, &err), 0);
        json_decref(cm);
        faults("{\"expireVersions\":true}");
        for (int i = 0; i < 100 && !relisted; i++) { /* 2 s */
            pthread_mutex_lock(&r.mu);
            relisted = relisted_twice(&r, NULL);
            pthread_mutex_unlock(&r.mu);
            if (!relisted) ks_sleep_ms(20);
        }
    }
    assert_true(relisted);
    for (int i = 40; i < 60; i++) {
        snprintf(name, sizeof name, "w2-%d", i);
        create_pod(name, "w2");
        if (i % 4 == 3) ks_sleep_ms(30);
    }
    expect e2 = {0, 60};
    assert_true(wait_until(&r, all_seen, &e2));

    faults("{\"dropWatchAfterMs\":0}");
    json_t *list = NULL;
    assert_int_equal(cs_kube_list(kc, "pods", NULL, "app=w2", NULL, &list, &err), 0);
    assert_int_equal(json_array_size(json_object_get(list, "items")), 56);
    bool match = wait_until(&r, view_matches, list);
    json_decref(list);
    assert_true(match);
    assert_true(cs_kube_watch_connects(w) >= 3);
    assert_true(cs_kube_watch_relists(w) >= 2);
    cs_kube_watch_stop(w);
    assert_int_equal(cs_kube_delete_collection(kc, "pods", NULL, "app=w2", 0, &err), 0);
}

static void test_watch_start_errors(void **state)
{
    recorder r = {.mu = PTHREAD_MUTEX_INITIALIZER};
    cs_error err = {0};
    assert_null(cs_kube_watch_start(kc, "widgets", NULL, NULL, on_event, &r, &err));
    assert_non_null(strstr(err.msg, "unsupported Kubernetes resource 'widgets'"));
    assert_null(cs_kube_watch_start(kc, "pods", NULL, "a in (", on_event, &r, &err));
    assert_int_equal(err.code, CS_EINVAL); /* 400 from the server: bad selector */
}

static bool one_pod_done(recorder *r, void *arg)
{
    int s = slot(r, "w3-b");
    return s >= 0 && r->deleted >= 1 && !r->present[s];
}

/* a field selector follows one pod, as the submit client follows its driver */
static void test_watch_field_selector(void **state)
{
    recorder r = {.mu = PTHREAD_MUTEX_INITIALIZER};
    cs_error err = {0};
    kube_watch *w =
        cs_kube_watch_start_sel(kc, "pods", NULL, NULL, "metadata.name=w3-b", on_event, &r, &err);
    assert_non_null(w);
    create_pod("w3-a", "w3");
    create_pod("w3-b", "w3");
    assert_int_equal(cs_kube_delete(kc, "pods", NULL, "w3-a", 0, &err), 0);
    assert_int_equal(cs_kube_delete(kc, "pods", NULL, "w3-b", 0, &err), 0);
    assert_true(wait_until(&r, one_pod_done, NULL));
    cs_kube_watch_stop(w);
    assert_int_equal(r.n, 1); /* w3-a never appeared */
    assert_int_equal(r.added, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watch_events),
        cmocka_unit_test(test_watch_survives_drops_and_expiry),
        cmocka_unit_test(test_watch_field_selector),
        cmocka_unit_test(test_watch_start_errors),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
