/*
 * memory.c — per-task execution memory accounting (see memory.h). Called by every spilling
 * consumer in src/shuffle and by the task runner, which creates one cs_task_memory per task.
 */
#include "shuffle/memory.h"

#include <stddef.h>

/* The least a task may use before it spills, as the task budget's floor (executor.c, context.c). */
#define TASK_SHARE_FLOOR ((int64_t)4 << 20)

int64_t cs_memory_pool_storage_shortfall(const cs_memory_pool *p, int64_t n)
{
    int64_t used = atomic_load(&p->execution_used) + atomic_load(&p->storage_used);
    int64_t over = used + n - p->max;
    return over > 0 ? over : 0;
}

int64_t cs_memory_pool_execution_excess(const cs_memory_pool *p)
{
    int64_t storage = atomic_load(&p->storage_used);
    int64_t over = atomic_load(&p->execution_used) + storage - p->max;
    int64_t evictable = storage - p->storage_region;
    if (over <= 0 || evictable <= 0) return 0;
    return over < evictable ? over : evictable;
}

void cs_task_memory_init(cs_task_memory *m, int64_t budget)
{
    m->budget = budget;
    m->used = 0;
    m->peak = 0;
    m->spilled_bytes = 0;
    m->spill_count = 0;
    m->pool = NULL;
}

void cs_task_memory_attach(cs_task_memory *m, cs_memory_pool *pool)
{
    m->pool = pool;
    if (pool && m->used) atomic_fetch_add(&pool->execution_used, m->used);
}

void cs_task_memory_detach(cs_task_memory *m)
{
    if (m->pool && m->used) atomic_fetch_sub(&m->pool->execution_used, m->used);
    m->pool = NULL;
}

void cs_task_memory_acquire(cs_task_memory *m, int64_t n)
{
    m->used += n;
    if (m->used > m->peak) m->peak = m->used;
    cs_memory_pool *p = m->pool;
    if (!p || n <= 0) return;
    atomic_fetch_add(&p->execution_used, n);
    int64_t excess = cs_memory_pool_execution_excess(p);
    if (excess > 0 && p->reclaim) p->reclaim(p->reclaim_arg, excess);
}

void cs_task_memory_release(cs_task_memory *m, int64_t n)
{
    int64_t was = m->used;
    m->used -= n;
    if (m->used < 0) m->used = 0;
    if (m->pool) atomic_fetch_sub(&m->pool->execution_used, was - m->used);
}

bool cs_task_memory_over(const cs_task_memory *m)
{
    if (m->budget > 0 && m->used > m->budget) return true;
    const cs_memory_pool *p = m->pool;
    if (!p || p->slots <= 0) return false;
    /* storage inside its region cannot be evicted: the tasks share what is left */
    int64_t storage = atomic_load(&p->storage_used);
    int64_t protected_storage = storage < p->storage_region ? storage : p->storage_region;
    int64_t share = (p->max - protected_storage) / p->slots;
    if (share < TASK_SHARE_FLOOR) share = TASK_SHARE_FLOOR;
    return m->used > share;
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
