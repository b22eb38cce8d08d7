/*
 * work_team.c — parallel loops joined by waiting threads (work_team.h).
 *
 * One mutex and one condition variable. A loop is posted as (fn, arg, n) with an atomic cursor
 * of the next item; whoever takes an item (fetch-add on the cursor) runs it. A helper that starts
 * on a loop counts itself in `active` under the mutex, so the owner, after its own items, waits
 * until every item is done and no helper still holds the loop (a helper between its last item
 * and its count would otherwise see the next loop's cursor with this loop's fn).
 */
#include "common/work_team.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "common/err.h"

struct cs_work_team {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool closed;
    int present;        /* helpers joined and not left */
    _Atomic int joined; /* helpers joined so far */
    cs_work_item_fn fn; /* the posted loop, NULL between loops */
    void *arg;
    int64_t n, done;      /* its items; those ended */
    _Atomic int64_t next; /* the next item to take */
    int active;           /* helpers running items of the posted loop */
};

cs_work_team *cs_work_team_new(void)
{
    cs_work_team *t = cs_xcalloc(1, sizeof *t);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->cv, NULL);
    return t;
}

/* Runs items of the loop (fn, arg, n) until none is left; the number run. */
static int64_t run_items(cs_work_team *t, cs_work_item_fn fn, void *arg, int64_t n, int worker)
{
    int64_t ran = 0;
    for (;;) {
        int64_t i = atomic_fetch_add(&t->next, 1);
        if (i >= n) return ran;
        fn(arg, i, worker);
        ran++;
    }
}

void cs_work_team_for(cs_work_team *t, int64_t n, cs_work_item_fn fn, void *arg)
{
    if (n <= 0) return;
    pthread_mutex_lock(&t->mu);
    t->fn = fn;
    t->arg = arg;
    t->n = n;
    t->done = 0;
    atomic_store(&t->next, 0);
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    int64_t ran = run_items(t, fn, arg, n, 0);
    pthread_mutex_lock(&t->mu);
    t->done += ran;
    while (t->done < t->n || t->active > 0)
        pthread_cond_wait(&t->cv, &t->mu);
    t->fn = NULL;
    pthread_mutex_unlock(&t->mu);
}

bool cs_work_team_join(cs_work_team *t, int *worker)
{
    pthread_mutex_lock(&t->mu);
    bool ok = !t->closed;
    if (ok) {
        t->present++;
        *worker = atomic_fetch_add(&t->joined, 1) + 1;
    }
    pthread_mutex_unlock(&t->mu);
    return ok;
}

void cs_work_team_help(cs_work_team *t, int worker)
{
    pthread_mutex_lock(&t->mu);
    while (!t->closed) {
        if (!t->fn || atomic_load(&t->next) >= t->n) {
            pthread_cond_wait(&t->cv, &t->mu);
            continue;
        }
        cs_work_item_fn fn = t->fn;
        void *arg = t->arg;
        int64_t n = t->n;
        t->active++;
        pthread_mutex_unlock(&t->mu);
        int64_t ran = run_items(t, fn, arg, n, worker);
        pthread_mutex_lock(&t->mu);
        t->done += ran;
        t->active--;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
}

void cs_work_team_leave(cs_work_team *t)
{
    pthread_mutex_lock(&t->mu);
    t->present--;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
}

int cs_work_team_helpers_joined(const cs_work_team *t)
{
    return atomic_load(&((cs_work_team *)t)->joined);
}

void cs_work_team_close(cs_work_team *t)
{
    if (!t) return;
    pthread_mutex_lock(&t->mu);
    t->closed = true;
    pthread_cond_broadcast(&t->cv);
    while (t->present > 0)
        pthread_cond_wait(&t->cv, &t->mu);
    pthread_mutex_unlock(&t->mu);
    pthread_mutex_destroy(&t->mu);
    pthread_cond_destroy(&t->cv);
    free(t);
}
