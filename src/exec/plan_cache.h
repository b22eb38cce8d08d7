/*
 * plan_cache.h — an executor's stage plans (the code and lineage of a stage attempt, sent by the
 * driver once per executor in LaunchStage), kept for the attempt's tasks. At most
 * CS_PLAN_CACHE_MAX plans stay; beyond that the oldest ones no task uses are freed, and the
 * attempts they belonged to are remembered so that a task that comes for one later is told
 * what happened in a user's terms (cs_plan_cache_explain_missing). A plan that could not be
 * decoded is kept as its error, which each of its tasks reports.
 *
 * Threads: none of its own; the executor calls every function with its lock held (the RPC loop
 * thread adds and finds, workers release). Ownership: the cache owns its plans; a found entry is
 * borrowed while its `users` count (the caller's) is above zero or the lock is held.
 */
#ifndef CSPARK_EXEC_PLAN_CACHE_H
#define CSPARK_EXEC_PLAN_CACHE_H

#include <stddef.h>

#include "plan/stage_plan.h"

#define CS_PLAN_CACHE_MAX 32 /* plans kept at most */

typedef struct cs_cached_plan {
    struct cs_cached_plan *next;
    int stage_id, stage_attempt;
    stage_plan *plan; /* NULL when it could not be decoded: */
    char *error;      /* why (malloc'd), told to each of its tasks */
    int users;        /* tasks queued or running with it (the executor counts them) */
} cs_cached_plan;

typedef struct cs_plan_cache cs_plan_cache;

cs_plan_cache *cs_plan_cache_new(void);
void cs_plan_cache_free(cs_plan_cache *c);

/* Adds the plan of a stage attempt (owned by the cache from now on), or, with plan NULL, the
 * error that kept it from being decoded (copied); frees the oldest unused plans beyond the cap. */
void cs_plan_cache_add(cs_plan_cache *c, int stage_id, int stage_attempt, stage_plan *plan,
                       const char *error);
/* The entry of a stage attempt, or NULL. */
cs_cached_plan *cs_plan_cache_find(cs_plan_cache *c, int stage_id, int stage_attempt);

/* Why a task of stage_id.stage_attempt cannot run on this executor (`entry` is what
 * cs_plan_cache_find returned: NULL or an undecodable plan), in a user's terms, into why: it
 * starts with CS_TASK_NO_PLAN (plan/task.h), which makes the driver send the plan again with
 * the task's retry. */
void cs_plan_cache_explain_missing(const cs_plan_cache *c, const cs_cached_plan *entry,
                                   const char *executor_id, int stage_id, int stage_attempt,
                                   char *why, size_t cap);

#endif
