/*
 * accumulators.h — the driver's accumulators (Spark's AccumulatorContext and the accumulator part
 * of the DAGScheduler): each registered accumulator's kind, name, zero and current value; the
 * merge of a successful task's updates; and the Accumulables the event log writes for a task
 * (update and value) and for a stage attempt (value).
 *
 * When updates merge is the scheduler's decision (dag_scheduler.c), as Spark's: a successful
 * result task's updates once per partition of its job (a retried or speculative duplicate adds
 * nothing), a successful shuffle-map task's updates every time it succeeds (a recomputed map
 * output adds them again), a failed task's never.
 *
 * Kinds: LONG (a sum of i64), DOUBLE (a sum of f64), CUSTOM (user bytes merged by the merge
 * callback given at registration: the API layer calls the user's function there). Values travel
 * as bytes: LONG/DOUBLE as cspark_i64_encode / cspark_f64_encode.
 *
 * Threads: thread-safe (one mutex; a custom merge runs under it). Ownership: strings and bytes are
 * copied; cs_accumulable arrays returned are the caller's (cs_accumulables_free).
 */
#ifndef CSPARK_SCHED_ACCUMULATORS_H
#define CSPARK_SCHED_ACCUMULATORS_H

#include <stddef.h>
#include <stdint.h>

#include "records/batch.h"
#include "common/err.h"
#include "cspark.h"
#include "sched/listener.h"

typedef enum { CS_ACC_LONG = 1, CS_ACC_DOUBLE = 2, CS_ACC_CUSTOM = 3 } cs_acc_kind;

/* CUSTOM: folds update into acc (acc = merge(acc, update)); 0, or <0 with *error malloc'd. */
typedef int (*cs_acc_merge_fn)(void *arg, cspark_value *acc, const uint8_t *update, size_t len,
                               char **error);

typedef struct acc_registry acc_registry;

acc_registry *cs_acc_registry_new(void);
void cs_acc_registry_free(acc_registry *r);

/* A new accumulator starting at zero (LONG/DOUBLE: zero ignored); name may be NULL (unnamed
 * accumulators stay out of the event log, as Spark's). Returns its id (> 0). */
int64_t cs_acc_register(acc_registry *r, cs_acc_kind kind, const char *name, const void *zero,
                        size_t zero_len, cs_acc_merge_fn merge, void *merge_arg);
/* The current value (a malloc'd copy in *out). CS_ENOTFOUND for an unknown id. */
int cs_acc_value(acc_registry *r, int64_t id, uint8_t **out, size_t *len, cs_acc_kind *kind);

/* Merges a task's updates (records: key = id as cspark_i64_encode, value = the task's value) and
 * records them for stage (stage_id, attempt). *infos (may be NULL) receives the named ones as the
 * task's Accumulables (update and new value). Unknown ids are skipped. A custom merge that fails
 * (a value past CSPARK_MAX_RECORD_BYTES, the merge function's own failure) leaves the
 * accumulator short of that update: 0, or CS_ETASK with *error (malloc'd, the caller frees it)
 * naming the accumulator and why, so that the job fails instead of reporting a short value as
 * success. The updates after a failed one are still merged. */
int cs_acc_merge_updates(acc_registry *r, const cs_batch *updates, int stage_id, int attempt,
                         cs_accumulable **infos, int *num_infos, char **error);
/* The named accumulators stage attempt updated, with their values (Stage Info Accumulables); the
 * attempt's record is dropped. */
void cs_acc_stage_done(acc_registry *r, int stage_id, int attempt, cs_accumulable **infos,
                       int *num_infos);
void cs_accumulables_free(cs_accumulable *infos, int n);

/* A value as Spark's event log writes an external accumulator's (its toString): "42", "2.5". */
void cs_acc_format(cs_acc_kind kind, const uint8_t *v, size_t len, char *out, size_t cap);

#endif
