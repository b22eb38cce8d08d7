/*
 * rdd_internal.h — what the files of src/api share to build lineage nodes in the context's graph
 * (plan/rdd.h): the context a node belongs to, nodes named after their call site, refusals.
 * Ownership: nodes belong to the context's lineage graph and are freed when the context stops.
 */
#ifndef CSPARK_API_RDD_INTERNAL_H
#define CSPARK_API_RDD_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "api/context.h"
#include "common/err.h"
#include "plan/builtins.h"
#include "plan/rdd.h"
#include "sched/scheduler.h"
#include "shuffle/builtin_aggs.h"

/* What actions return (cspark.h's cspark_records): one batch owned by the caller. */
struct cspark_records {
    cs_batch b;
};

/* The context whose graph holds r (every node the API sees was made on the driver). */
static inline cspark_context *cs_rdd_context(const cspark_rdd *r)
{
    return (cspark_context *)(void *)((char *)r->graph - offsetof(cspark_context, graph));
}

/* A new node of sc's graph named "<op> at <object>:<function>" after the caller's address, as
 * Spark names RDDs after their call site (stage names in logs, the progress bar and the event
 * log come from here). */
cspark_rdd *cs_api_rdd_new(cspark_context *sc, rdd_kind kind, int num_partitions, const char *op,
                           const void *caller);

/* Call sites (rdd.c). "<op> at <object>:<function>" of the caller's address into buf; while this
 * thread is inside a scope, the scope's op and caller instead: what a public call builds from
 * other public calls or internal helpers (first's take, a join's tagging maps, count_by_key's
 * reduce_by_key and collect) carries the name of the call the user made, as Spark's RDDs and jobs
 * carry the user's call site. */
void cs_api_call_site(const char *op, const void *caller, char *buf, size_t cap);
/* Opens the calling thread's scope (op: a static string) unless one is open; returns whether it
 * did. Pass the answer to cs_api_scope_leave when the public call returns. */
bool cs_api_scope_enter(const char *op, const void *caller);
void cs_api_scope_leave(bool entered);

/* Runs a job for the action `op` the user called at `caller` (cs_scheduler_run_job with the
 * action's call site and the context's job description and group: jobs.c). Returns 0, or a
 * negative code with err set. */
int cs_api_run_job(cspark_context *sc, cspark_rdd *rdd, const int *partitions, int num_partitions,
                   const task_sink *sink, job_result_fn on_result, void *arg, const char *op,
                   const void *caller, cs_error *err);

/* An action's job failed with err: a job cancelled on request fails only this action
 * (cs_context_job_cancelled), anything else fails the context (cs_context_fail). Returns the
 * code. */
int cs_api_action_failed(cspark_context *sc, const cs_error *err);

/* Records a refused operation on the context and returns NULL (for transformations). */
cspark_rdd *cs_rdd_refuse(cspark_context *sc, const cs_error *err);

/* The most partitions an RDD may have: the bound of spark.default.parallelism (conf_entries.c).
 * Each partition is a task with its own descriptor, result slot and output file; far more
 * exhausts the driver's memory before the first task runs. */
#define CS_MAX_PARTITIONS 1000000

/* Builders of transformations.c the other files of src/api compose operations from (named "op",
 * after the caller's address): a narrow node calling fn (user function, closure copied) or one of
 * libcspark's built-ins; a cogroup of two RDDs; a sort_by_key (runs its sampling job). */
cspark_rdd *cs_api_narrow(cspark_rdd *parent, rdd_kind kind, const char *op, void *fn,
                          const void *closure, size_t len, const void *caller);
cspark_rdd *cs_api_narrow_builtin(cspark_rdd *parent, rdd_kind kind, const char *op,
                                  const char *name, void *fn, const void *caller);
/* r keeps parent's partitioner (Spark's preservesPartitioning: the keys are the parent's);
 * returns r, NULL when r is NULL. */
cspark_rdd *cs_api_keep_partitioner(cspark_rdd *r, const cspark_rdd *parent);
cspark_rdd *cs_api_cogroup(cspark_rdd *left, cspark_rdd *right, int num_partitions, const char *op,
                           const void *caller);
cspark_rdd *cs_api_sort_by_key(cspark_rdd *rdd, bool ascending, int num_partitions, const char *op,
                               const void *caller);

/* The files of a text_file / whole_text_files path (comma-separated files, directories, globs;
 * sources.c), appended to *files, and the bytes per partition min_partitions asks for (0 = the
 * default, as Hadoop's minPartitions). 0, or a negative code with err naming the path. */
struct cs_fs_listing;
int cs_api_list_inputs(cspark_context *sc, const char *path, int min_partitions,
                       struct cs_fs_listing *files, uint64_t *goal, cs_error *err);

#define CALLER() __builtin_extract_return_addr(__builtin_return_address(0))

#endif
