/*
 * stage_plan.h — what crosses the driver/executor boundary for a stage (proto/cspark.proto
 * StagePlan): the narrow lineage of the stage's final RDD, the shuffle dependencies it reads or
 * writes, the sink, and the map outputs to read.
 *
 * Driver side (the coarse backend, once per stage attempt): cs_stage_plan_encode walks the narrow
 * lineage of a stage's final RDD and numbers its nodes. Executor side: cs_stage_plan_decode
 * rebuilds the nodes into the plan's own lineage graph, resolving functions by name
 * (plan/fn_ref.h); decoding validates everything (indexes, counts, kinds, cycles) and rejects
 * malformed input with CS_EPROTO; it never crashes on bad input.
 *
 * Ownership: cs_stage_plan_encode returns malloc'd protobuf-c structures released by
 * cs_stage_plan_pb_free; a decoded stage_plan owns all it points to (cs_stage_plan_free).
 */
#ifndef CSPARK_PLAN_STAGE_PLAN_H
#define CSPARK_PLAN_STAGE_PLAN_H

#include "cspark.pb-c.h"

#include "common/err.h"
#include "plan/rdd.h"
#include "plan/task.h"
#include "shuffle/shuffle.h"

/* A stage's lineage rebuilt in an executor: nodes and shuffle deps in graph (in message order),
 * the sink, the map outputs to read. */
typedef struct stage_plan {
    lineage_graph graph;
    cspark_rdd *root;
    task_sink sink;        /* sink.dep points into the graph; sink.fn resolved */
    shuffle_input *inputs; /* map outputs to read (statuses owned by the plan) */
    int num_inputs;
    cs_map_status *statuses;
    int num_statuses;
} stage_plan;

/* Driver side: the narrow lineage of root (stopping at shuffled nodes, which are included with
 * their deps but not their deps' parents, except for the dep a SINK_SHUFFLE writes, whose parent
 * IS the root), plus sink and inputs. Nodes are numbered in the message; shared parents (e.g.
 * union(a, a)) are encoded once. NULL + err on failure. */
Cspark__StagePlan *cs_stage_plan_encode(cspark_rdd *root, const task_sink *sink,
                                        const shuffle_input *inputs, int num_inputs, cs_error *err);
void cs_stage_plan_pb_free(Cspark__StagePlan *pb);

/* Executor side: rebuilds the plan, resolving every function by name in the application
 * (app_handle) or libcspark. A name that does not resolve -> CS_ENOTFOUND "function 'x' not found
 * in the application or libcspark". Malformed messages (indexes out of range, cycles, wrong
 * counts, bad kinds) -> CS_EPROTO. */
int cs_stage_plan_decode(const Cspark__StagePlan *pb, void *app_handle, stage_plan **out,
                         cs_error *err);
void cs_stage_plan_free(stage_plan *p);

#endif
