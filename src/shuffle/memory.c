/*
 * memory.c — per-task execution memory accounting (see memory.h). Called by every spilling
 * consumer in src/shuffle and by the task runner, which creates one cs_task_memory per task.
 */
#include "shuffle/memory.h"

void cs_task_memory_init(cs_task_memory *m, int64_t budget)
{
    m->budget = budget;
    m->used = 0;
    m->peak = 0;
    m->spilled_bytes = 0;
    m->spill_count = 0;
}

void cs_task_memory_acquire(cs_task_memory *m, int64_t n)
{
    m->used += n;
    if (m->used > m->peak) m->peak = m->used;
}

void cs_task_memory_release(cs_task_memory *m, int64_t n)
{
    m->used -= n;
    if (m->used < 0) m->used = 0;
}

bool cs_task_memory_over(const cs_task_memory *m)
{
    return m->budget > 0 && m->used > m->budget;
}

int64_t cs_task_memory_spill_floor(const cs_task_memory *m)
{
    int64_t f = m->budget / 8;
    return f < 65536 ? 65536 : f;
}

void cs_task_memory_note_spill(cs_task_memory *m, int64_t memory_bytes, int64_t disk_bytes)
{
    m->spill_count++;
    m->memory_spilled_bytes += memory_bytes;
    m->spilled_bytes += disk_bytes;
}
