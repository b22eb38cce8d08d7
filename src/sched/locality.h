/*
 * locality.h — Spark's delay scheduling for one task set (TaskSetManager.getAllowedLocalityLevel),
 * over two levels: PROCESS_LOCAL (the task runs on an executor holding its cached partition) and
 * ANY (no NODE_LOCAL step: spark.locality.wait.node is not waited for). The state machine takes
 * only those two; a task set starts at PROCESS_LOCAL; while tasks that prefer a live
 * executor are pending, it waits up to spark.locality.wait (3s) after its last launch for such
 * an executor to have a free core, then allows ANY. A launch at PROCESS_LOCAL brings it back to
 * PROCESS_LOCAL and restarts the wait. With no task preferring a live executor it moves to ANY
 * at once. Tasks without a preference are launched at any level.
 *
 * Also the locality level a launch is reported at (the Locality of the event log's task info, the
 * UI's Locality Level), as Spark's TaskSetManager names it: PROCESS_LOCAL on an executor holding
 * one of the task's cached partitions, and for a task that prefers no executor (Spark dequeues
 * those as PROCESS_LOCAL); NODE_LOCAL on another executor of a holder's host (local-cluster runs
 * every executor on one host); ANY elsewhere. NO_PREF and RACK_LOCAL are named for the event logs
 * of Spark the history server reads; cspark launches at neither (no rack resolver, as Spark on
 * Kubernetes).
 *
 * A pure state machine over explicit times (no clock read here): the coarse backend calls it when
 * it offers cores, and tests drive it with chosen times. No ownership; not thread-safe.
 */
#ifndef CSPARK_SCHED_LOCALITY_H
#define CSPARK_SCHED_LOCALITY_H

#include <stdbool.h>
#include <stdint.h>

#include "plan/task.h" /* cs_block_location */

/* Spark's TaskLocality, in its order (nearest first). */
typedef enum {
    CS_LOCALITY_PROCESS_LOCAL = 0,
    CS_LOCALITY_NODE_LOCAL = 1,
    CS_LOCALITY_NO_PREF = 2,
    CS_LOCALITY_RACK_LOCAL = 3,
    CS_LOCALITY_ANY = 4
} cs_locality_level;

typedef struct cs_locality_state {
    cs_locality_level level;
    int64_t last_launch_ms; /* when the level was last reset (start, or a launch) */
} cs_locality_state;

/* Spark's name of a level ("PROCESS_LOCAL", ..., "ANY"); "PROCESS_LOCAL" for anything else. */
const char *cs_locality_name(cs_locality_level level);
/* The level of a Spark name; PROCESS_LOCAL for NULL or an unknown name. */
cs_locality_level cs_locality_parse(const char *name);
/* The level of a task launched on executor `executor` at `host`, whose cached partitions are held
 * by prefs[0..n) (executor ids, and hosts: "" when unknown). */
cs_locality_level cs_locality_of_launch(const cs_block_location *prefs, int n, const char *executor,
                                        const char *host);
/* A task set submitted at now_ms. */
void cs_locality_init(cs_locality_state *s, int64_t now_ms);
/* The most distant level the task set may launch at, at now_ms. local_pending: some pending
 * task prefers an executor that is alive. Advances the state as the wait expires. */
cs_locality_level cs_locality_allowed(cs_locality_state *s, int64_t now_ms, int64_t wait_ms,
                                      bool local_pending);
/* A task of the set was launched at `level` at now_ms. */
void cs_locality_launched(cs_locality_state *s, cs_locality_level level, int64_t now_ms);
/* How long until the set may launch at ANY (0: now), for a scheduler that wants to re-offer
 * then. */
int64_t cs_locality_wait_left(const cs_locality_state *s, int64_t now_ms, int64_t wait_ms);

#endif /* CSPARK_SCHED_LOCALITY_H */
