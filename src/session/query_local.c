/*
 * query_local.c — a query answered on the driver, without a job: Spark's LocalTableScanExec
 * executeCollect (its optimizer's ConvertToLocalRelation folds projections, filters and limits
 * of a LocalRelation into one, whose rows the driver returns as they are). A physical plan is
 * local when its only leaf is a LOCAL node (a LocalRelation, VALUES, the OneRowRelation of
 * `SELECT 1`, held in the plan as batches: its slices read in order as one partition) and every
 * node above it is a FILTER, PROJECT or LIMIT, or the single-partition EXCHANGE a global limit puts
 * between its local and global halves (a no-op over one partition, dropped here, as Spark's
 * CollectLimitExec collects without a shuffle): no other exchange, no file, no Python worker. Its
 * operators are built and run here as the one task of its stage would run them (partition 0, the
 * session's ANSI mode and time zone), and their batches are the result. `spark.range` is not local
 * (RangeExec runs a job in Spark too).
 *
 * Called by query_run.c for every query's physical plan (after its SQL execution start event:
 * the execution shows in the event log and the UI with no job, as Spark's do). Ownership:
 * cs_session_run_local takes the plan over (freed); the result's batches and schema are one
 * reference each, the caller's (cs_sql_result_free).
 */
#include <stdlib.h>

#include "columnar/col_memory.h"
#include "session/session_internal.h"
#include "sqlexec/exec_ctx.h"
#include "sqlexec/phys_plan.h"

bool cs_session_plan_local(const cs_phys_node *plan)
{
    for (const cs_phys_node *n = plan; n; n = n->n_children == 1 ? n->children[0] : NULL) {
        switch (n->kind) {
        case CS_PH_LOCAL:
            return n->n_children == 0;
        case CS_PH_EXCHANGE:
            if (n->partitioning != CS_PART_SINGLE || n->n_children != 1) return false;
            break;
        case CS_PH_FILTER:
        case CS_PH_PROJECT:
        case CS_PH_LIMIT:
            if (n->n_children != 1) return false;
            break;
        default:
            return false;
        }
    }
    return false;
}

/* The operators see what a task of the stage would: no task memory limit (the rows are the
 * plan's, already in memory), no spill (no operator here spills), never cancelled. */
static cs_sql_exec_ctx local_ctx(const cs_sql_session *s)
{
    const char *tz = cs_sql_conf_get(s->conf, "spark.sql.session.timeZone");
    return (cs_sql_exec_ctx){.alloc = cs_col_default_allocator(),
                             .ansi = cs_sql_conf_bool(s->conf, "spark.sql.ansi.enabled"),
                             .session_tz = tz && *tz ? tz : "UTC",
                             .partition_id = 0};
}

/* The plan at *slot without its single-partition exchanges (each replaced by its child). */
static void drop_exchanges(cs_phys_node **slot)
{
    while (*slot) {
        cs_phys_node *n = *slot;
        if (n->kind == CS_PH_EXCHANGE) {
            *slot = n->children[0];
            n->n_children = 0; /* the child is kept */
            cs_phys_free(n);
            continue;
        }
        slot = n->n_children == 1 ? &n->children[0] : NULL;
        if (!slot) return;
    }
}

int cs_session_run_local(cs_sql_session *s, cs_phys_node *plan, cs_sql_result *out, cs_error *err)
{
    drop_exchanges(&plan);
    cs_phys_node *leaf = plan;
    while (leaf->n_children == 1)
        leaf = leaf->children[0];
    leaf->num_slices = 0; /* every slice, in order: all the rows */
    cs_sql_exec_ctx ctx = local_ctx(s);
    cs_phys_inputs in = {.partition = 0};
    cs_sql_op *op = cs_phys_build(plan, &in, err);
    int rc = op ? cs_sql_op_open(op, &ctx, err) : (err->code ? err->code : CS_EINVAL);
    while (rc == 0) {
        cs_col_batch *b = NULL;
        rc = cs_sql_op_next(op, &b, err);
        if (rc != 0 || !b) break;
        cs_result_take_batch(out, b);
    }
    if (op) cs_sql_op_free(op);
    if (!out->schema) out->schema = cs_col_type_ref(plan->schema);
    cs_phys_free(plan);
    return rc;
}
