/*
 * task_codec.h — wire encodings of what crosses the driver/executor boundary for a task: the
 * stage's lineage (StagePlan: RDD nodes, shuffle deps, sink, map outputs to read), task results,
 * map statuses and task metrics (proto/cspark.proto).
 *
 * Driver side: cs_stage_plan_encode walks the narrow lineage of a stage's final RDD and numbers its
 * nodes. Executor side: cs_stage_plan_decode rebuilds nodes with no context (rdd->sc == NULL),
 * resolving functions by name with dlsym. Decoding validates everything (indexes, counts, kinds,
 * cycles) and rejects malformed input with CS_EPROTO; it never crashes on bad input.
 *
 * Ownership: encoders return/fill malloc'd protobuf-c structures released by the matching
 * *_pb_free / *_pb_clear; a decoded stage_plan owns all it points to (cs_stage_plan_free).
 * cs_task_result_encode's data field points into a buffer it owns (freed by
 * cs_task_result_pb_clear).
 */
#ifndef CSPARK_EXEC_TASK_CODEC_H
#define CSPARK_EXEC_TASK_CODEC_H

#include "cspark.pb-c.h"

#include "api/rdd.h"
#include "common/err.h"
#include "exec/task.h"
#include "shuffle/shuffle.h"

/* A stage's lineage rebuilt in an executor: RDD nodes (no context: rdd->sc == NULL), shuffle
 * deps, the sink. Owns everything; plan_free releases it. */
typedef struct stage_plan {
    cspark_rdd **rdds;
    int num_rdds;
    cspark_rdd *root;
    shuffle_dep **deps;
    int num_deps;
    task_sink sink;        /* sink.dep points into deps; sink.fn resolved */
    shuffle_input *inputs; /* map outputs to read (statuses owned by the plan) */
    int num_inputs;
    cs_map_status *statuses;
    int num_statuses;
} stage_plan;

/* Driver side: the narrow lineage of root (stopping at shuffled nodes, which are included with
 * their deps but not their deps' parents, except for the dep a SINK_SHUFFLE writes, whose parent
 * IS the root), plus sink and inputs. Nodes are numbered in the message; shared parents (e.g.
 * union(a, a)) are encoded once. The result is malloc'd protobuf-c structures: free with
 * cs_stage_plan_pb_free. NULL + err on failure. */
Cspark__StagePlan *cs_stage_plan_encode(cspark_rdd *root, const task_sink *sink,
                                        const shuffle_input *inputs, int num_inputs, cs_error *err);
void cs_stage_plan_pb_free(Cspark__StagePlan *pb);

/* Executor side: rebuilds the plan, resolving every function by name with dlsym(app_handle,
 * name), falling back to dlsym(RTLD_DEFAULT, name) (libcspark's built-ins). A name that does not
 * resolve -> CS_ENOTFOUND "function 'x' not found in the application or libcspark". Malformed
 * messages (indexes out of range, cycles, wrong counts, bad kinds) -> CS_EPROTO. */
int cs_stage_plan_decode(const Cspark__StagePlan *pb, void *app_handle, stage_plan **out,
                         cs_error *err);
void cs_stage_plan_free(stage_plan *p);

/* Task results: data (collect/take/fold/sample records) recio-encoded; map status; metrics. */
int cs_task_result_encode(const task_result *r, Cspark__TaskResult *out /* caller-zeroed */,
                          cs_error *err);
void cs_task_result_pb_clear(
    Cspark__TaskResult *pb); /* frees what cs_task_result_encode allocated */
int cs_task_result_decode(const Cspark__TaskResult *pb,
                          task_result *out /* initialised with cs_task_result_init */,
                          cs_error *err);
int cs_map_status_encode(const cs_map_status *st, Cspark__MapStatus *out, cs_error *err);
void cs_map_status_pb_clear(Cspark__MapStatus *pb);
int cs_map_status_decode(const Cspark__MapStatus *pb, cs_map_status *out, cs_error *err);
void cs_task_metrics_to_pb(const cs_task_metrics *m, Cspark__TaskMetrics *pb);
void cs_task_metrics_from_pb(const Cspark__TaskMetrics *pb, cs_task_metrics *m);

#endif /* CSPARK_EXEC_TASK_CODEC_H */
