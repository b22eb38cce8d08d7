/*
 * task_vars.h — what one task attempt holds of the application's shared variables: the broadcast
 * values it read (pinned in the process's broadcast_store until the attempt ends, so a destroy
 * meanwhile cannot pull them away) and its own values of the accumulators it added to. Implements
 * the task side of cspark.h's broadcast and accumulator functions (cspark_broadcast_value,
 * cspark_broadcast_decoded, cspark_*_accumulator_add).
 *
 * An attempt's accumulator values leave with its result only when it succeeds
 * (task_result.accum_updates); a failed attempt's are dropped, as Spark's (their
 * countFailedValues is false). Custom accumulators find their merge function and zero through an
 * internal broadcast (the definition written by src/api/accumulators.c, cs_task_vars_acc_def_*),
 * decoded once per process.
 *
 * Called by the task runner (cs_task_vars_finish at the end of every attempt) and by user
 * functions on the task's thread. Ownership: the vars belong to the task context and are freed by
 * cs_task_vars_finish.
 */
#ifndef CSPARK_EXEC_TASK_VARS_H
#define CSPARK_EXEC_TASK_VARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "broadcast/broadcast_store.h"
#include "cspark.h"
#include "plan/task.h"

/* Ends the attempt's use of shared variables: with ok and out, its accumulator values go into
 * out->accum_updates; pins are released; the vars are freed. Safe when the task used none. */
void cs_task_vars_finish(cspark_task_context *tc, task_result *out, bool ok);

/* The value derived from broadcast id under key, built once per process (the broadcast store's
 * cs_broadcast_entry_derived), the broadcast pinned for the attempt; borrowed until the attempt
 * ends. An unreachable broadcast fails the task (does not return). */
int cs_task_vars_broadcast_derived(cspark_task_context *tc, int64_t id, const char *key,
                                   broadcast_derive_fn derive, void *arg,
                                   broadcast_decoded_free_fn free_fn, void **out, cs_error *err);

/* A custom accumulator's definition as its internal broadcast carries it: the merge function's
 * exported name and the zero value. Returns the malloc'd encoding. */
uint8_t *cs_task_vars_acc_def_encode(const char *merge_name, const void *zero, size_t zero_len,
                                     size_t *len);

/* Accumulator kinds as the public handle carries them (cspark_accumulator.kind). */
#define CS_TASK_ACC_LONG 1
#define CS_TASK_ACC_DOUBLE 2
#define CS_TASK_ACC_CUSTOM 3

#endif
