/* test_serial_worker.c — unit tests for the serial worker (src/common/serial_worker.c) under the
 * decommissioning migrators: items run one at a time in submit order and each is freed once;
 * freeing the worker lets the item in progress finish (seeing the stopping flag) and frees the
 * queued ones without running them. No timing: a gate item holds the thread while more are
 * queued, and returns once it sees the stopping flag. */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "common/serial_worker.h"

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int ran[16], n_ran;
    int freed;
    int gate_entered, gate_saw_stopping;
} log_state;

typedef struct {
    log_state *log;
    int id; /* -1: the gate, which waits until the test opens it */
} item;

static void run_item(void *arg, void *p, const atomic_int *stopping)
{
    log_state *s = arg;
    item *it = p;
    pthread_mutex_lock(&s->lock);
    if (it->id < 0) {
        s->gate_entered = 1;
        pthread_cond_broadcast(&s->cond);
        pthread_mutex_unlock(&s->lock);
        while (!atomic_load(stopping)) /* until cs_serial_worker_free is called */
            sched_yield();
        pthread_mutex_lock(&s->lock);
        s->gate_saw_stopping = 1;
    } else {
        s->ran[s->n_ran++] = it->id;
        pthread_cond_broadcast(&s->cond);
    }
    pthread_mutex_unlock(&s->lock);
}

static void free_item(void *p)
{
    item *it = p;
    pthread_mutex_lock(&it->log->lock);
    it->log->freed++;
    pthread_mutex_unlock(&it->log->lock);
    free(it);
}

static item *new_item(log_state *s, int id)
{
    item *it = malloc(sizeof *it);
    it->log = s;
    it->id = id;
    return it;
}

static void init_state(log_state *s)
{
    *s = (log_state){0};
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
}

static void test_items_run_in_submit_order(void **state)
{
    (void)state;
    log_state s;
    init_state(&s);
    cs_error err;
    cs_serial_worker *w = cs_serial_worker_new("test", run_item, free_item, &s, &err);
    assert_non_null(w);
    for (int i = 0; i < 10; i++)
        cs_serial_worker_submit(w, new_item(&s, i));
    pthread_mutex_lock(&s.lock);
    while (s.n_ran < 10)
        pthread_cond_wait(&s.cond, &s.lock);
    pthread_mutex_unlock(&s.lock);
    cs_serial_worker_free(w);
    for (int i = 0; i < 10; i++)
        assert_int_equal(s.ran[i], i);
    assert_int_equal(s.freed, 10);
}

static void test_free_finishes_the_running_item_and_drops_the_queue(void **state)
{
    (void)state;
    log_state s;
    init_state(&s);
    cs_error err;
    cs_serial_worker *w = cs_serial_worker_new("test", run_item, free_item, &s, &err);
    assert_non_null(w);
    cs_serial_worker_submit(w, new_item(&s, -1));
    pthread_mutex_lock(&s.lock);
    while (!s.gate_entered)
        pthread_cond_wait(&s.cond, &s.lock);
    pthread_mutex_unlock(&s.lock);
    for (int i = 0; i < 3; i++)
        cs_serial_worker_submit(w, new_item(&s, i)); /* queued behind the gate */
    cs_serial_worker_free(w); /* the gate returns once it sees the flag free sets */
    assert_int_equal(s.gate_saw_stopping, 1);
    assert_int_equal(s.n_ran, 0); /* none of the queued ones ran */
    assert_int_equal(s.freed, 4); /* the gate and the three behind it, each once */
}

static void test_free_of_null_is_a_no_op(void **state)
{
    (void)state;
    cs_serial_worker_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_items_run_in_submit_order),
        cmocka_unit_test(test_free_finishes_the_running_item_and_drops_the_queue),
        cmocka_unit_test(test_free_of_null_is_a_no_op),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
