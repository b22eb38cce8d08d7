/*
 * current_task.c — see current_task.h.
 */
#include "common/current_task.h"

static __thread cspark_task_context *current;

cspark_task_context *cs_task_current(void)
{
    return current;
}

void cs_task_set_current(cspark_task_context *tc)
{
    current = tc;
}
