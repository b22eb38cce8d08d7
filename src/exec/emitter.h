/*
 * emitter.h — private to src/exec: the emitter behind cspark_emit and its kin (emitter.c),
 * as the narrow iterators (narrow_iter.c) set it up for the user functions they call.
 *
 * Ownership: an emitter is a stack value of the iterator that calls a user function; it borrows
 * the output batch, the task context and the input record for the length of that call. One task
 * thread.
 */
#ifndef CSPARK_EXEC_EMITTER_H
#define CSPARK_EXEC_EMITTER_H

#include "records/batch.h"
#include "cspark.h"

/* What a per-record function may emit: any record, only values (map_values: the key is the
 * input's), or only keys (key_by: the value is the input record as a pair). */
typedef enum { EMIT_ANY = 0, EMIT_VALUES, EMIT_KEYS } emit_mode;

struct cspark_emitter {
    cs_batch *out;
    void (*on_full)(cspark_emitter *e);
    void *arg;
    cspark_task_context *tc; /* failed when a record is over the record limit */
    const cspark_record *in; /* the input record of a per-record function, else NULL */
    emit_mode mode;
    const char *fn_name; /* for the refusals of a mode */
};

#endif
