/*
 * plan_cache.c — an executor's stage plans (see plan_cache.h): a list, newest first, and a ring
 * of the stage attempts whose plans were freed.
 */
#define _GNU_SOURCE
#include "exec/plan_cache.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/err.h"
#include "plan/task.h"

/* Freed plans remembered, to explain a task that comes for one later. */
#define DROPPED_KEPT 64

struct cs_plan_cache {
    cs_cached_plan *plans; /* newest first */
    struct {
        int stage_id, stage_attempt;
    } dropped[DROPPED_KEPT]; /* a ring */
    int dropped_next;
};

cs_plan_cache *cs_plan_cache_new(void)
{
    return cs_xcalloc(1, sizeof(cs_plan_cache));
}

static void entry_free(cs_cached_plan *e)
{
    cs_stage_plan_free(e->plan);
    free(e->error);
    free(e);
}

void cs_plan_cache_free(cs_plan_cache *c)
{
    if (!c) return;
    while (c->plans) {
        cs_cached_plan *e = c->plans;
        c->plans = e->next;
        entry_free(e);
    }
    free(c);
}

cs_cached_plan *cs_plan_cache_find(cs_plan_cache *c, int stage_id, int stage_attempt)
{
    for (cs_cached_plan *e = c->plans; e; e = e->next)
        if (e->stage_id == stage_id && e->stage_attempt == stage_attempt) return e;
    return NULL;
}

/* Frees the oldest plans no task uses while more than the cap are kept. */
static void evict(cs_plan_cache *c)
{
    int n = 0;
    for (cs_cached_plan *e = c->plans; e; e = e->next)
        n++;
    while (n > CS_PLAN_CACHE_MAX) {
        cs_cached_plan **victim = NULL;
        for (cs_cached_plan **q = &c->plans; *q; q = &(*q)->next)
            if ((*q)->users == 0) victim = q; /* the last unused one is the oldest */
        if (!victim) return;
        cs_cached_plan *e = *victim;
        *victim = e->next;
        int slot = c->dropped_next++ % DROPPED_KEPT;
        c->dropped[slot].stage_id = e->stage_id;
        c->dropped[slot].stage_attempt = e->stage_attempt;
        entry_free(e);
        n--;
    }
}

void cs_plan_cache_add(cs_plan_cache *c, int stage_id, int stage_attempt, stage_plan *plan,
                       const char *error)
{
    cs_cached_plan *e = cs_xcalloc(1, sizeof *e);
    e->stage_id = stage_id;
    e->stage_attempt = stage_attempt;
    e->plan = plan;
    if (!plan) e->error = cs_xstrdup(error && *error ? error : "no plan");
    e->next = c->plans;
    c->plans = e;
    evict(c);
}

void cs_plan_cache_explain_missing(const cs_plan_cache *c, const cs_cached_plan *entry,
                                   const char *executor_id, int stage_id, int stage_attempt,
                                   char *why, size_t cap)
{
    if (entry) {
        snprintf(why, cap,
                 CS_TASK_NO_PLAN "executor %s could not load the plan of stage %d.%d (%s); the "
                                 "task is retried",
                 executor_id, stage_id, stage_attempt, entry->error ? entry->error : "no plan");
        return;
    }
    bool dropped = false;
    for (int i = 0; i < DROPPED_KEPT && i < c->dropped_next; i++)
        dropped |=
            c->dropped[i].stage_id == stage_id && c->dropped[i].stage_attempt == stage_attempt;
    if (dropped)
        snprintf(why, cap,
                 CS_TASK_NO_PLAN "executor %s had already freed the plan of stage %d.%d: it keeps "
                                 "those of its %d most recent stages, and this task came after "
                                 "%d newer ones (as when a stage is resubmitted after an executor "
                                 "was lost); the task is retried and the driver sends the plan "
                                 "again",
                 executor_id, stage_id, stage_attempt, CS_PLAN_CACHE_MAX, CS_PLAN_CACHE_MAX);
    else
        snprintf(why, cap,
                 CS_TASK_NO_PLAN "executor %s never received the plan of stage %d.%d; the task "
                                 "is retried and the driver sends the plan again",
                 executor_id, stage_id, stage_attempt);
}
