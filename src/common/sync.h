/*
 * sync.h — condition variables on the monotonic clock with waits in milliseconds, for the
 * threads that wake up periodically or wait with a deadline (backends, executor heartbeats,
 * the submit client), and a bounded wait for in-flight work at exit. Wall-clock jumps never
 * shorten or stretch these waits.
 */
#ifndef CSPARK_COMMON_SYNC_H
#define CSPARK_COMMON_SYNC_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

/* pthread_cond_init with CLOCK_MONOTONIC. */
void cs_cond_init_monotonic(pthread_cond_t *c);
/* Waits on c (m held) for at most ms; returns 0 when signalled, ETIMEDOUT otherwise. */
int cs_cond_wait_ms(pthread_cond_t *c, pthread_mutex_t *m, int64_t ms);
/* Sleeps ms milliseconds (the rest of it after a signal interrupts the sleep). */
void cs_sleep_ms(int64_t ms);
/* Polls every millisecond while *count is above zero, for max_ms at most: for the exit paths
 * that let threads finish what they began (a log line, a task's output). Async-signal-safe (an
 * atomic load and nanosleep). */
void cs_wait_while_positive(atomic_int *count, int max_ms);

#endif
