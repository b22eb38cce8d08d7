/*
 * serial_worker.c — a thread over a FIFO of items, run one at a time (see serial_worker.h). The
 * queue is a singly linked list under one mutex; the thread sleeps on a condition variable while
 * the queue is empty. Owned by whoever calls cs_serial_worker_new; it owns the queued items.
 */
#include "common/serial_worker.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct queued {
    struct queued *next;
    void *item;
} queued;

struct cs_serial_worker {
    cs_serial_run_fn run;
    cs_serial_free_fn free_item;
    void *arg;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    queued *head, *tail;
    atomic_int stopping;
};

static void *worker_main(void *arg)
{
    cs_serial_worker *w = arg;
    for (;;) {
        pthread_mutex_lock(&w->lock);
        while (!w->head && !w->stopping)
            pthread_cond_wait(&w->cond, &w->lock);
        if (w->stopping) {
            pthread_mutex_unlock(&w->lock);
            break;
        }
        queued *q = w->head;
        w->head = q->next;
        if (!w->head) w->tail = NULL;
        pthread_mutex_unlock(&w->lock);

        w->run(w->arg, q->item, &w->stopping);
        w->free_item(q->item);
        free(q);
    }
    return NULL;
}

cs_serial_worker *cs_serial_worker_new(const char *what, cs_serial_run_fn run,
                                       cs_serial_free_fn free_item, void *arg, cs_error *err)
{
    cs_serial_worker *w = cs_xcalloc(1, sizeof *w);
    w->run = run;
    w->free_item = free_item;
    w->arg = arg;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    int e = pthread_create(&w->thread, NULL, worker_main, w);
    if (e != 0) {
        cs_error_set(err, CS_EIO, "cannot start the %s thread: %s", what, strerror(e));
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->cond);
        free(w);
        return NULL;
    }
    return w;
}

void cs_serial_worker_submit(cs_serial_worker *w, void *item)
{
    queued *q = cs_xcalloc(1, sizeof *q);
    q->item = item;
    pthread_mutex_lock(&w->lock);
    if (w->tail)
        w->tail->next = q;
    else
        w->head = q;
    w->tail = q;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

void cs_serial_worker_free(cs_serial_worker *w)
{
    if (!w) return;
    pthread_mutex_lock(&w->lock);
    w->stopping = 1;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    while (w->head) {
        queued *q = w->head;
        w->head = q->next;
        w->free_item(q->item);
        free(q);
    }
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->cond);
    free(w);
}
