/*
 * serial_worker.h — one thread that runs submitted items one at a time, in submit order: the
 * shape of the executor's decommissioning migrators (shuffle_migration.c, rdd_migration.c), which
 * each copy blocks in the background while the executor goes on answering the driver.
 *
 * Ownership: an item given to cs_serial_worker_submit becomes the worker's: it is passed to run
 * (unless the worker is stopping by then) and then to free_item, on the worker's thread; items
 * still queued when cs_serial_worker_free is called are given to free_item without running. arg
 * is borrowed until cs_serial_worker_free returns.
 */
#ifndef CSPARK_COMMON_SERIAL_WORKER_H
#define CSPARK_COMMON_SERIAL_WORKER_H

#include <stdatomic.h>

#include "common/err.h"

typedef struct cs_serial_worker cs_serial_worker;

/* Runs one item; stopping (the worker's flag) turns nonzero once cs_serial_worker_free is
 * called: a long run checks it and gives up early. */
typedef void (*cs_serial_run_fn)(void *arg, void *item, const atomic_int *stopping);
typedef void (*cs_serial_free_fn)(void *item);

/* Starts the thread; what names it in the error when the thread cannot start (NULL + err). */
cs_serial_worker *cs_serial_worker_new(const char *what, cs_serial_run_fn run,
                                       cs_serial_free_fn free_item, void *arg, cs_error *err);
/* Queues item (ownership moves to the worker). */
void cs_serial_worker_submit(cs_serial_worker *w, void *item);
/* Sets the stopping flag, waits for the item in progress, frees the queued ones and the worker.
 * NULL is a no-op. */
void cs_serial_worker_free(cs_serial_worker *w);

#endif
