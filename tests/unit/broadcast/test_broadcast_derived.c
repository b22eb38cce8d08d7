/*
 * test_broadcast_derived.c — values derived from a broadcast entry under keys
 * (cs_broadcast_entry_derived, broadcast/broadcast_store.h): many threads asking for one key get
 * one build and the same pointer; another key builds its own; a derive that fails fails that
 * call with its error and the next call builds again; the values are freed when the entry goes
 * (removed, then its last pin released), not before.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <pthread.h>

#include "broadcast/broadcast_store.h"

static _Atomic int builds, frees;
static _Atomic int fail_next;

/* The value's length, as a malloc'd size_t (the first call after fail_next is set fails). */
static void *derive_len(void *arg, const void *data, size_t len, struct cs_work_team *team,
                        cs_error *err)
{
    (void)data;
    (void)team;
    builds++;
    if (fail_next) {
        fail_next = 0;
        cs_error_set(err, CS_EIO, "derive failed on purpose");
        return NULL;
    }
    size_t *v = malloc(sizeof *v);
    *v = len + (size_t)(uintptr_t)arg;
    return v;
}

static void free_len(void *v)
{
    frees++;
    free(v);
}

typedef struct asker {
    broadcast_store *s;
    broadcast_entry *e;
    void *got;
    int rc;
} asker;

static void *ask(void *arg)
{
    asker *a = arg;
    cs_error err = {0};
    a->rc =
        cs_broadcast_entry_derived(a->s, a->e, "len", derive_len, NULL, free_len, &a->got, &err);
    return NULL;
}

static void test_one_build_per_key_shared_and_freed_with_the_entry(void **state)
{
    (void)state;
    cs_error err = {0};
    broadcast_store *s = cs_broadcast_store_new();
    assert_int_equal(cs_broadcast_store_put(s, 3, "0123456789", 10, 4, &err), 0);
    broadcast_entry *e = NULL;
    assert_int_equal(cs_broadcast_store_acquire(s, 3, &e, &err), 0);
    builds = frees = 0;

    /* a failed derive: its error, nothing kept, the next call builds again */
    fail_next = 1;
    void *v = NULL;
    assert_int_equal(cs_broadcast_entry_derived(s, e, "len", derive_len, NULL, free_len, &v, &err),
                     CS_EIO);
    assert_non_null(strstr(err.msg, "on purpose"));
    assert_int_equal(builds, 1);

    enum { N = 16 };
    pthread_t th[N];
    asker a[N];
    for (int i = 0; i < N; i++) {
        a[i] = (asker){s, e, NULL, -1};
        assert_int_equal(pthread_create(&th[i], NULL, ask, &a[i]), 0);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        assert_int_equal(a[i].rc, 0);
        assert_ptr_equal(a[i].got, a[0].got);
    }
    assert_int_equal(builds, 2);
    assert_int_equal(*(size_t *)a[0].got, 10);

    /* another key: a value of its own */
    void *w = NULL;
    assert_int_equal(
        cs_broadcast_entry_derived(s, e, "len+5", derive_len, (void *)5, free_len, &w, &err), 0);
    assert_int_equal(*(size_t *)w, 15);
    assert_int_equal(builds, 3);

    /* removed while pinned: freed at the last release */
    assert_true(cs_broadcast_store_remove(s, 3));
    assert_int_equal(frees, 0);
    cs_broadcast_store_release(s, e);
    assert_int_equal(frees, 2);
    cs_broadcast_store_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_build_per_key_shared_and_freed_with_the_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
