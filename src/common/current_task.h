/*
 * current_task.h — the task context running on this thread (NULL outside tasks). The task runner
 * sets it for the duration of a task, the driver's final merge of fold/reduce results around its
 * user function; helpers that have no context parameter (cspark_value_set/resize in
 * src/shuffle/value.c) fail the current task through it. Thread-local: each thread sees its own.
 */
#ifndef CSPARK_COMMON_CURRENT_TASK_H
#define CSPARK_COMMON_CURRENT_TASK_H

#include "cspark.h"

cspark_task_context *cs_task_current(void);
void cs_task_set_current(cspark_task_context *tc);

#endif
