/*
 * work_team.h — one thread's parallel loops that other threads may join while they would
 * otherwise wait for its result: the owner runs cs_work_team_for(n items) and takes items
 * itself; a thread that joined the team (cs_work_team_join, then cs_work_team_help) takes the
 * items the owner has not taken yet, loop after loop, until the owner closes the team. With no
 * helper the owner runs every item: the result never depends on who helps, only the time.
 *
 * Used by the broadcast store (broadcast/broadcast_store.c): the first task to ask for a value
 * derived from a broadcast builds it as the team's owner, and the tasks asking for the same value
 * meanwhile help instead of waiting idle (a join's hash table over a broadcast relation,
 * sqlexec/hash_join_table.c).
 *
 * Threads: the owner calls new, for and close; helpers call join, help and leave. Lifetime: the
 * owner's cs_work_team_close waits until every helper that joined has left, then frees the team;
 * a helper must join under a lock that also orders it before the owner's close (the store's), so
 * that a team it joins is never freed under it. An item must not wait for another item.
 */
#ifndef CSPARK_COMMON_WORK_TEAM_H
#define CSPARK_COMMON_WORK_TEAM_H

#include <stdbool.h>
#include <stdint.h>

typedef struct cs_work_team cs_work_team;

/* An item of a loop: i in [0, n); worker is 0 for the owner, 1.. for helpers in join order. */
typedef void (*cs_work_item_fn)(void *arg, int64_t i, int worker);

/* The owner: a team with no helper yet. */
cs_work_team *cs_work_team_new(void);
/* The owner: fn(arg, i, worker) for every i in [0, n), by the owner and the helpers present;
 * returns when every item has ended (their writes visible to the owner). */
void cs_work_team_for(cs_work_team *t, int64_t n, cs_work_item_fn fn, void *arg);
/* The owner: no more loops; returns once every helper has left, the team freed. NULL is fine. */
void cs_work_team_close(cs_work_team *t);

/* A helper: joins t (false: t is closing, do not help), its worker number in *worker. */
bool cs_work_team_join(cs_work_team *t, int *worker);
/* A helper that joined: runs items of the owner's loops until the owner closes the team. */
void cs_work_team_help(cs_work_team *t, int worker);
/* A helper after cs_work_team_help: leaves t (the owner's close may then free it). */
void cs_work_team_leave(cs_work_team *t);
/* Threads that have joined t so far (the owner not counted). */
int cs_work_team_helpers_joined(const cs_work_team *t);

#endif /* CSPARK_COMMON_WORK_TEAM_H */
