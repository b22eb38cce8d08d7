/*
 * task.c — task results (see task.h): an empty result, and its release.
 */
#include "plan/task.h"

#include <stdlib.h>
#include <string.h>

void cs_task_result_init(task_result *r)
{
    memset(r, 0, sizeof *r);
    cs_batch_init(&r->data);
    cs_batch_init(&r->accum_updates);
    r->fetch_shuffle_id = -1;
    r->fetch_map_id = -1;
}

void cs_task_result_free(task_result *r)
{
    free(r->error);
    free(r->lost_executor);
    free(r->loss_reason);
    cs_batch_free(&r->data);
    cs_batch_free(&r->accum_updates);
    if (r->has_map_status) cs_map_status_free(&r->map_status);
    free(r->updated_blocks);
    memset(r, 0, sizeof *r);
}
