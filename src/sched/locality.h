/*
 * locality.h — Spark's TaskLocality levels and their names, for the task scheduler (which places
 * tasks by them: sched/task_set_manager.h has the delay scheduling), the event log's Task Info
 * "Locality", the UI's Locality Level and the history server's replay. NO_PREF and RACK_LOCAL are
 * Spark's too: the task set manager offers at NO_PREF, and reports no launch at either (a task
 * without preference is reported PROCESS_LOCAL, as Spark does; there is no rack resolver, as
 * Spark on Kubernetes). No state, no ownership; thread-safe.
 */
#ifndef CSPARK_SCHED_LOCALITY_H
#define CSPARK_SCHED_LOCALITY_H

/* Spark's TaskLocality, in its order (nearest first). */
typedef enum {
    CS_LOCALITY_PROCESS_LOCAL = 0,
    CS_LOCALITY_NODE_LOCAL = 1,
    CS_LOCALITY_NO_PREF = 2,
    CS_LOCALITY_RACK_LOCAL = 3,
    CS_LOCALITY_ANY = 4
} cs_locality_level;

/* Spark's name of a level ("PROCESS_LOCAL", ..., "ANY"); "PROCESS_LOCAL" for anything else. */
const char *cs_locality_name(cs_locality_level level);
/* The level of a Spark name; PROCESS_LOCAL for NULL or an unknown name. */
cs_locality_level cs_locality_parse(const char *name);

#endif /* CSPARK_SCHED_LOCALITY_H */
