/*
 * query_run.c — a query from its analyzed plan to its rows, as Spark's QueryExecution and the
 * DAG it makes of a physical plan (session_internal.h):
 *
 *   analyzed --cs_sql_optimize--> optimized --cs_sql_plan--> physical tree (with exchanges)
 *     --cut at exchanges--> stages: one SQL_EXEC lineage node each (plan/kinds/sql_exec.c)
 *     --jobs--> the final stage's batches, decoded (cs_sql_batch_decode).
 *
 * Cutting: walking a stage's tree from its root, an EXCHANGE child becomes a stage of its own
 * (its root is the EXCHANGE: the map side) read back through a shuffle dependency with the
 * pass-through partitioner (Spark's PartitionIdPassthrough: the record's key is its reduce
 * partition) and replaced by a SHUFFLE_READ leaf numbered by the dependency; a
 * BROADCAST_EXCHANGE child becomes a BROADCAST_READ leaf of the broadcast variable its job made
 * (broadcast_jobs.h: every broadcast whose stage can be built starts its job at once, before the
 * stages are cut and after each wave, as Spark's prepare starts each relation future; a reader
 * waits for its own); a UNION whose children give different numbers of
 * partitions (or would bring the stage over a node's inputs) has each child made a node of its
 * own, their union (Spark's UnionRDD: partitions one after the other) read through a
 * PARENT_READ leaf; so is a COALESCE's child (a read of the shuffle right below it), through a
 * CoalescedRDD merging neighbouring partitions (Spark's CoalesceExec, no shuffle). Map stages
 * run when the final stage's job needs them (the DAG scheduler).
 *
 * A RANGE exchange (a global ORDER BY's) gets its bounds before its map stage is made, as Spark's
 * RangePartitioner: a sampling job over the exchange's input (the same cut tree as a node whose
 * tasks keep a reservoir sample of the sort keys), bounds weighted on the driver
 * (sqlexec/range_partitioner.h); the exchange then has bounds + 1 partitions, read in order.
 *
 * Exchange reuse (spark.sql.exchange.reuse): without adaptive execution the plan goes through
 * ReuseExchangeAndSubquery (sql/exchange_reuse.h) and a REUSED_EXCHANGE leaf reads the shuffle
 * of the exchange it names (one map stage, made when the first of them is cut) or its broadcast;
 * adaptive execution reuses a materialized shuffle instead (query_adaptive.c).
 *
 * Adaptive execution (spark.sql.adaptive.enabled, Spark's AdaptiveSparkPlanExec;
 * query_adaptive.c runs its waves): before the
 * final stage is built, the exchanges with no exchange below them are cut into map stages and run
 * together as one map-stage job, wave after wave; each becomes a SHUFFLE_READ leaf of a
 * materialized shuffle (numbered -1 - k until the reading stage is cut) whose partition sizes
 * the map-output tracker gives. A stage whose leaves are all such reads (or broadcasts) reads
 * neighbouring small partitions in one task (CoalesceShufflePartitions:
 * sqlexec/shuffle_partitions_util.h; the node's read ranges), unless a REPARTITION(n) wrote them.
 * EXPLAIN and the SQL execution's plan show the initial plan under "AdaptiveSparkPlan
 * isFinalPlan=false".
 *
 * Uncorrelated scalar subqueries run through the planner's run_scalar callback: planned,
 * copied and run as a query of their own before the outer plan is finished.
 *
 * When the query ends, its broadcasts are destroyed and its shuffles and lineage nodes given back
 * (query_lineage.h: the executors delete the shuffle files), so a long-lived driver keeps none.
 *
 * Jobs carry the statement as their description and the group "cspark-sql-<execution id>".
 * A job that fails does not fail the context (the session goes on); a task's Spark error
 * ("[DIVIDE_BY_ZERO] ... SQLSTATE: 22012") becomes the statement's error, and a job cancelled on
 * request (the web UI's kill, a cancelled job group) Spark's SPARK_JOB_CANCELLED.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/context.h"
#include "common/log.h"
#include "api/rdd_internal.h"
#include "plan/rdd.h"
#include "sched/listener.h"
#include "sched/scheduler.h"
#include "session/adaptive_plan.h"
#include "session/broadcast_jobs.h"
#include "session/query_lineage.h"
#include "session/stage_cut.h"
#include "session/query_run_internal.h"
#include "session/session_internal.h"
#include "sql/analyzer.h"
#include "sql/optimizer.h"
#include "sql/planner.h"
#include "sql/exchange_reuse.h"
#include "sqlexec/phys_plan.h"
#include "sqlexec/range_partitioner.h"
#include "sqlexec/shuffle_partitions_util.h"
#include "sqlexec/sql_error.h"

#define MAX_BROADCASTS 64
/* The inputs of the stage being built: its leaves' numbers index these. */
typedef struct stage_inputs {
    shuffle_dep *deps[8];
    int dep_parts[8];
    int dep_mat[8]; /* the materialized shuffle each dep is (q->mat), -1: none */
    int n_deps;
    int *read_start, *read_end; /* coalesced reads (parts entries each), NULL: none */
    cspark_rdd *parents[8];
    int parent_mat[8]; /* a parent that only reads materialized shuffle q->mat[k]: k, else -1 */
    int n_parents;
    int64_t bc[MAX_BROADCASTS];
    int n_bc;
} stage_inputs;

#define NODE_MAX_DEPS ((int)(sizeof((cspark_rdd *)0)->deps / sizeof(shuffle_dep *)))
#define NODE_MAX_PARENTS ((int)(sizeof((cspark_rdd *)0)->parents / sizeof(cspark_rdd *)))

void cs_qrun_keep_cut(qrun *q, cs_phys_node *n)
{
    if (q->n_cut == q->cap_cut) {
        q->cap_cut = q->cap_cut ? 2 * q->cap_cut : 16;
        q->cut = cs_xrealloc(q->cut, (size_t)q->cap_cut * sizeof *q->cut);
    }
    q->cut[q->n_cut++] = n;
}

/* ---- running a node ------------------------------------------------------------------------- */

/* The properties of the query's jobs (call_site: room for 160 bytes). */
job_properties cs_qrun_job_props(const qrun *q, const char *op, char *call_site)
{
    snprintf(call_site, 160, "%s at SQL execution %lld", op, (long long)q->execution_id);
    return (job_properties){.call_site = call_site,
                            .description = q->text,
                            .group_id = q->group,
                            .interrupt_on_cancel = true,
                            .sql_execution_id = q->execution_id_text};
}

/* Runs a job collecting every record of r's partitions (in *c, by partition). */
static int run_collect(qrun *q, cspark_rdd *r, const char *op, cs_session_collected *c,
                       cs_error *err)
{
    char call_site[160];
    job_properties props = cs_qrun_job_props(q, op, call_site);
    return cs_session_collect(q->sc, r, &props, c, err);
}

/* ---- cutting a stage ------------------------------------------------------------------------ */

/* The partitions a subtree gives (before cutting): -1 for none (broadcast sides). */
static int subtree_parts(const qrun *q, const cs_phys_node *n)
{
    switch (n->kind) {
    case CS_PH_SHUFFLE_READ: /* a materialized shuffle (adaptive execution) */
        return n->input < 0 && -1 - n->input < q->n_mat ? q->mat[-1 - n->input].parts : -1;
    case CS_PH_FILE_SCAN:
        return n->n_groups;
    case CS_PH_LOCAL:
        return n->num_slices > 0 ? n->num_slices : 1;
    case CS_PH_RANGE:
        return n->num_slices;
    case CS_PH_COALESCE:
        return cs_stage_coalesced_parts(subtree_parts(q, n->children[0]), n->num_partitions);
    case CS_PH_EXCHANGE:
        return n->num_partitions;
    case CS_PH_REUSED_EXCHANGE:
        return n->reused && n->reused->kind == CS_PH_EXCHANGE ? n->reused->num_partitions : -1;
    case CS_PH_BROADCAST_EXCHANGE:
    case CS_PH_BROADCAST_READ:
        return -1;
    case CS_PH_UNION: {
        int sum = 0, first = -2;
        bool same = true;
        for (int i = 0; i < n->n_children; i++) {
            int p = subtree_parts(q, n->children[i]);
            if (p < 0) continue;
            sum += p;
            if (first == -2) first = p;
            same &= p == first;
        }
        return first == -2 ? -1 : (same ? first : sum);
    }
    default:
        for (int i = 0; i < n->n_children; i++) {
            int p = subtree_parts(q, n->children[i]);
            if (p >= 0) return p;
        }
        return -1;
    }
}

/* A union runs inside the task when its children give the same partitions (known before its
 * inputs are cut: not through a range exchange). */
static bool union_in_task(const qrun *q, const cs_phys_node *u, bool stage_crowded)
{
    if (stage_crowded || cs_stage_reads_range(u)) return false;
    int first = -2;
    for (int i = 0; i < u->n_children; i++) {
        int p = subtree_parts(q, u->children[i]);
        if (p < 0) continue;
        if (first != -2 && p != first) return false;
        first = p;
    }
    return true;
}

static cspark_rdd *build_stage(qrun *q, cs_phys_node *root, cs_error *err);
static void coalesce_reads(qrun *q, const cs_phys_node *root, stage_inputs *in, int *parts);

/* ---- broadcast exchanges: their jobs run together, each reader waits for its own ---------- */

static int start_broadcast(qrun *q, cs_phys_node *bex, cs_error *err)
{
    if (!q->bjobs) { /* spark.sql.broadcastTimeout (s; negative: none), the broadcast pool */
        const char *t = cs_sql_conf_get(q->s->conf, "spark.sql.broadcastTimeout");
        int64_t ms = -1;
        int threads = 128;
        if ((t && t[0] != '-' &&
             cs_conf_parse_duration_ms("spark.sql.broadcastTimeout", t, 1000, &ms, err) < 0) ||
            cs_sql_conf_int(q->s->conf, "spark.sql.broadcastExchange.maxThreadThreshold", &threads,
                            err) < 0)
            return err->code;
        char call_site[160];
        job_properties props = cs_qrun_job_props(q, "broadcast exchange", call_site);
        q->bjobs = cs_bcast_jobs_new(q->sc, &props, threads, ms);
    }
    cspark_rdd *r = build_stage(q, bex, err);
    if (!r) return err->code ? err->code : CS_EINVAL;
    cs_bcast_jobs_start(q->bjobs, bex, r);
    return 0;
}

static void *grow(void *p, int *cap, int n, size_t size)
{
    if (n < *cap) return p;
    *cap = *cap ? 2 * *cap : 8;
    return cs_xrealloc(p, size * (size_t)*cap);
}

/* The broadcast exchange whose job gives bex's rows: bex, or (adaptive execution's stage cache)
 * an equal one whose job runs. */
static cs_phys_node *bcast_source(const qrun *q, cs_phys_node *bex)
{
    for (int i = 0; i < q->n_bcast_alias; i++)
        if (q->bcast_from[i] == bex) return q->bcast_to[i];
    return bex;
}

/* Starts bex's job, child i of parent, unless (adaptive, spark.sql.exchange.reuse) an equal
 * broadcast's job runs: bex then reads that one's variable. */
static int start_or_reuse(qrun *q, cs_phys_node *bex, const cs_phys_node *parent, int i,
                          cs_error *err)
{
    if (!q->reuse || !q->aqe.enabled || !parent) return start_broadcast(q, bex, err);
    cs_sbuf key = CS_SBUF_INIT;
    if (cs_sql_exchange_key(bex, parent, i, &key, err) < 0) {
        cs_sbuf_free(&key);
        return err->code;
    }
    int k = cs_phys_canonical_map_get(&q->bcast_cache, &key);
    if (k >= 0) {
        CS_INFO("sql", "execution=%lld event=exchange_reused reused_by=%d broadcast=%d",
                (long long)q->execution_id, bex->id, q->bcast_run[k]->id);
        q->bcast_from =
            grow(q->bcast_from, &q->cap_bcast_alias, q->n_bcast_alias, sizeof *q->bcast_from);
        q->bcast_to = cs_xrealloc(q->bcast_to, sizeof *q->bcast_to * (size_t)q->cap_bcast_alias);
        q->bcast_from[q->n_bcast_alias] = bex;
        q->bcast_to[q->n_bcast_alias++] = q->bcast_run[k];
        cs_sbuf_free(&key);
        return 0;
    }
    q->bcast_run = grow(q->bcast_run, &q->cap_bcast_run, q->n_bcast_run, sizeof *q->bcast_run);
    q->bcast_run[q->n_bcast_run] = bex;
    cs_phys_canonical_map_put(&q->bcast_cache, &key, q->n_bcast_run++);
    return start_broadcast(q, bex, err);
}

/* Starts the job of every broadcast exchange under n (not started yet) whose stage can be built
 * now: no broadcast below it still runs and, with adaptive execution, no exchange below it waits
 * for its map stage (a wave materializes it first), as Spark's prepare starts every
 * BroadcastExchangeExec's relation future. Returns whether n's subtree waits for something.
 * n is child i of parent (NULL: the root). */
static bool start_ready(qrun *q, cs_phys_node *n, const cs_phys_node *parent, int i, cs_error *err)
{
    bool waits = false;
    for (int c = 0; c < n->n_children && err->code == 0; c++)
        if (n->children[c]) waits |= start_ready(q, n->children[c], n, c, err);
    if (err->code) return true;
    if (n->kind == CS_PH_EXCHANGE) return waits || q->aqe.enabled;
    if (n->kind == CS_PH_REUSED_EXCHANGE && n->reused->kind == CS_PH_BROADCAST_EXCHANGE)
        return !cs_bcast_jobs_done(q->bjobs, n->reused);
    if (n->kind != CS_PH_BROADCAST_EXCHANGE) return waits;
    if (!waits && !cs_bcast_jobs_started(q->bjobs, bcast_source(q, n)))
        start_or_reuse(q, n, parent, i, err);
    return !cs_bcast_jobs_done(q->bjobs, bcast_source(q, n));
}

int cs_qrun_start_all(qrun *q, cs_phys_node *root, cs_error *err)
{
    cs_error e = {0};
    if (root) start_ready(q, root, NULL, 0, &e);
    if (e.code) *err = e;
    return e.code;
}

/* The broadcast variable of exchange bex, once its job ran (started now if it was not). */
static int broadcast_of(qrun *q, cs_phys_node *bex, int64_t *id, cs_error *err)
{
    if (!cs_bcast_jobs_started(q->bjobs, bex) && start_broadcast(q, bex, err) < 0) return err->code;
    if (cs_bcast_jobs_wait(q->bjobs, bex, id, err) < 0) return err->code;
    return cs_qrun_start_all(q, q->root, err); /* those that waited for this one */
}

/* A stage node of the query: its tasks evaluate with the session's settings (SET values). */
static cspark_rdd *sql_exec_node(qrun *q, const cs_sbuf *plan, int parts, const char *name)
{
    cspark_rdd *r = cs_query_lineage_add_rdd(
        &q->nodes,
        cs_rdd_sql_exec_new(&q->sc->graph, (const uint8_t *)plan->data, plan->len, parts, name));
    cs_rdd_sql_exec_set_session(r, cs_sql_conf_bool(q->s->conf, "spark.sql.ansi.enabled"),
                                cs_sql_conf_get(q->s->conf, "spark.sql.session.timeZone"));
    return r;
}

cs_phys_node *cs_qrun_leaf(cs_phys_kind kind, const cs_phys_node *replaced, int input)
{
    cs_phys_node *l = cs_phys_new(kind, cs_col_type_ref(replaced->schema), 0);
    l->id = replaced->id;
    l->input = input;
    return l;
}

static int cut_inputs(qrun *q, cs_phys_node *n, stage_inputs *in, bool crowded, cs_error *err);

/* A node that only reads shuffle d (exchange ex's output): its records, read as a parent. */
static cspark_rdd *shuffle_read_node(qrun *q, const cs_phys_node *ex, shuffle_dep *d, int parts,
                                     cs_error *err)
{
    cs_phys_node *read = cs_qrun_leaf(CS_PH_SHUFFLE_READ, ex, 0);
    cs_sbuf plan = CS_SBUF_INIT;
    cspark_rdd *r = NULL;
    if (cs_phys_encode(read, &plan, err) == 0) {
        char name[160];
        snprintf(name, sizeof name, "ShuffleRead (SQL execution %lld)", (long long)q->execution_id);
        r = sql_exec_node(q, &plan, parts, name);
        r->deps[r->num_deps++] = d;
    }
    cs_sbuf_free(&plan);
    cs_phys_free(read);
    return r;
}

static cspark_rdd *coalesce_node(qrun *q, cs_phys_node *co, cs_error *err);

/* Child i of n (a union or a coalesce, kept) replaced by a PARENT_READ of r, the stage's next
 * narrow parent. */
static int read_parent(qrun *q, cs_phys_node *n, int i, cspark_rdd *r, stage_inputs *in)
{
    cs_qrun_keep_cut(q, n->children[i]);
    n->children[i] = cs_qrun_leaf(CS_PH_PARENT_READ, n->children[i], in->n_parents);
    in->parent_mat[in->n_parents] = -1;
    in->parents[in->n_parents++] = r;
    return 0;
}

/* A union's children as nodes of their own, read as one parent: their union. */
static int cut_union(qrun *q, cs_phys_node *n, int i, stage_inputs *in, cs_error *err)
{
    cs_phys_node *u = n->children[i];
    if (in->n_parents >= NODE_MAX_PARENTS)
        return cs_error_set(err, CS_EUNSUPPORTED, "a SQL stage reads more than %d unions",
                            NODE_MAX_PARENTS);
    cspark_rdd *all = NULL;
    for (int k = 0; k < u->n_children; k++) {
        cspark_rdd *r = build_stage(q, u->children[k], err);
        if (!r) return err->code ? err->code : CS_EINVAL;
        cs_qrun_keep_cut(q, u->children[k]);
        u->children[k] = NULL;
        all = all ? cs_query_lineage_add_rdd(&q->nodes,
                                             cs_rdd_union_new(&q->sc->graph, all, r, "Union"))
                  : r;
    }
    return read_parent(q, n, i, all, in);
}

/* CoalesceExec co's rows: its child's stage as a node of its own (an exchange right below it: a
 * read of its shuffle), its partitions merged without a shuffle by a CoalescedRDD whose output
 * partition i reads the child's [i * np / n, (i + 1) * np / n), as Spark's
 * DefaultPartitionCoalescer groups partitions without preferred locations. */
static cspark_rdd *coalesce_node(qrun *q, cs_phys_node *co, cs_error *err)
{
    cs_phys_node *ch = co->children[0];
    cs_phys_node *ex = ch->kind == CS_PH_REUSED_EXCHANGE ? (cs_phys_node *)ch->reused : ch;
    cspark_rdd *r;
    if (ex->kind == CS_PH_EXCHANGE) {
        shuffle_dep *d = cs_qrun_map_stage(q, ex, err);
        r = d ? shuffle_read_node(q, ch, d, ex->num_partitions, err) : NULL;
    } else if (ch->kind == CS_PH_SHUFFLE_READ && ch->input < 0 && -1 - ch->input < q->n_mat) {
        const materialized *m = &q->mat[-1 - ch->input];
        r = shuffle_read_node(q, ch, m->dep, m->parts, err);
    } else {
        r = build_stage(q, ch, err);
    }
    if (!r) return NULL;
    cs_qrun_keep_cut(q, ch);
    co->children[0] = NULL;
    int n = cs_stage_coalesced_parts(r->num_partitions, co->num_partitions);
    if (n == r->num_partitions) return r;
    CS_INFO("sql", "execution=%lld event=coalesce partitions=%d to=%d", (long long)q->execution_id,
            r->num_partitions, n);
    return cs_query_lineage_add_rdd(&q->nodes,
                                    cs_rdd_coalesce_new(&q->sc->graph, r, NULL, n, "Coalesce"));
}

/* The map side of exchange ex (its tree cut below it) and the shuffle it writes; without
 * adaptive execution made once per exchange, which a ReusedExchange may read first. */
shuffle_dep *cs_qrun_map_stage(qrun *q, cs_phys_node *ex, cs_error *err)
{
    for (int i = 0; i < q->n_staged; i++)
        if (q->staged[i] == ex) return q->staged_dep[i];
    cspark_rdd *map = build_stage(q, ex, err);
    if (!map) return NULL;
    shuffle_dep *d = cs_query_lineage_add_dep(&q->nodes, cs_shuffle_dep_new(&q->sc->graph, map));
    d->partitioner.kind = PART_PASSTHROUGH;
    d->partitioner.num_partitions = ex->num_partitions; /* a range exchange's: after sampling */
    if (q->aqe.enabled) return d;
    if (q->n_staged == q->cap_staged) {
        q->cap_staged = q->cap_staged ? 2 * q->cap_staged : 16;
        q->staged = cs_xrealloc(q->staged, sizeof *q->staged * (size_t)q->cap_staged);
        q->staged_dep = cs_xrealloc(q->staged_dep, sizeof *q->staged_dep * (size_t)q->cap_staged);
    }
    q->staged[q->n_staged] = ex;
    q->staged_dep[q->n_staged++] = d;
    return d;
}

/* Child i of n (ex, or a materialized shuffle's leaf) becomes a read of shuffle d (parts
 * partitions; mat: its materialized index or -1): a SHUFFLE_READ of the stage's next dependency,
 * or, past the node's dependencies, a PARENT_READ of a node of its own. ex is kept (freed with
 * the query) or renumbered in place. */
static int add_shuffle_read(qrun *q, cs_phys_node *n, int i, shuffle_dep *d, int parts, int mat,
                            stage_inputs *in, cs_error *err)
{
    cs_phys_node *ex = n->children[i];
    bool is_leaf = ex->kind == CS_PH_SHUFFLE_READ;
    if (in->n_deps < NODE_MAX_DEPS) {
        if (is_leaf)
            ex->input = in->n_deps;
        else
            n->children[i] = cs_qrun_leaf(CS_PH_SHUFFLE_READ, ex, in->n_deps);
        in->dep_parts[in->n_deps] = parts;
        in->dep_mat[in->n_deps] = mat;
        in->deps[in->n_deps++] = d;
    } else if (in->n_parents < NODE_MAX_PARENTS) {
        /* more shuffles than a node reads: this one through a node of its own */
        cspark_rdd *read = shuffle_read_node(q, ex, d, parts, err);
        if (!read) return err->code ? err->code : CS_EINVAL;
        n->children[i] = cs_qrun_leaf(CS_PH_PARENT_READ, ex, in->n_parents);
        in->parent_mat[in->n_parents] = mat;
        in->parents[in->n_parents++] = read;
    } else {
        return cs_error_set(err, CS_EUNSUPPORTED,
                            "a SQL stage reads more than %d shuffles and unions",
                            NODE_MAX_DEPS + NODE_MAX_PARENTS);
    }
    if (!is_leaf || n->children[i] != ex) cs_qrun_keep_cut(q, ex);
    return 0;
}

static int cut_inputs(qrun *q, cs_phys_node *n, stage_inputs *in, bool crowded, cs_error *err)
{
    for (int i = 0; i < n->n_children; i++) {
        cs_phys_node *ch = n->children[i];
        if (!ch) continue;
        cs_phys_node *ex = ch->kind == CS_PH_REUSED_EXCHANGE ? (cs_phys_node *)ch->reused : ch;
        if (ch != ex)
            CS_INFO("sql", "execution=%lld event=exchange_reused plan_id=%d reused_by=%d",
                    (long long)q->execution_id, ex->id, ch->id);
        if (ex->kind == CS_PH_EXCHANGE) {
            shuffle_dep *d = cs_qrun_map_stage(q, ex, err);
            if (!d || add_shuffle_read(q, n, i, d, ex->num_partitions, -1, in, err) < 0)
                return err->code ? err->code : CS_EINVAL;
        } else if (ch->kind == CS_PH_SHUFFLE_READ && ch->input < 0) {
            int k = -1 - ch->input;
            if (k >= q->n_mat) return cs_error_set(err, CS_EINVAL, "a shuffle read of nothing");
            if (add_shuffle_read(q, n, i, q->mat[k].dep, q->mat[k].parts, k, in, err) < 0)
                return err->code ? err->code : CS_EINVAL;
        } else if (ex->kind == CS_PH_BROADCAST_EXCHANGE) {
            if (in->n_bc >= MAX_BROADCASTS)
                return cs_error_set(err, CS_EUNSUPPORTED,
                                    "a SQL stage reads more than %d "
                                    "broadcasts",
                                    MAX_BROADCASTS);
            int64_t id = -1;
            if (broadcast_of(q, bcast_source(q, ex), &id, err) < 0) return err->code;
            cs_qrun_keep_cut(q, ch);
            n->children[i] = cs_qrun_leaf(CS_PH_BROADCAST_READ, ch, in->n_bc);
            in->bc[in->n_bc++] = id;
        } else if (ch->kind == CS_PH_UNION && !union_in_task(q, ch, crowded)) {
            if (cut_union(q, n, i, in, err) < 0) return err->code;
        } else if (ch->kind == CS_PH_COALESCE) {
            if (in->n_parents >= NODE_MAX_PARENTS)
                return cs_error_set(err, CS_EUNSUPPORTED,
                                    "a SQL stage reads more than %d "
                                    "unions and coalesces",
                                    NODE_MAX_PARENTS);
            cspark_rdd *r = coalesce_node(q, ch, err);
            if (!r) return err->code ? err->code : CS_EINVAL;
            read_parent(q, n, i, r, in);
        } else if (cut_inputs(q, ch, in, crowded, err) < 0) {
            return err->code;
        }
    }
    return 0;
}

/* The partitions of a cut stage tree (every partition-giving leaf agrees). */
static int stage_parts(const qrun *q, const cs_phys_node *n, const stage_inputs *in)
{
    switch (n->kind) {
    case CS_PH_SHUFFLE_READ:
        return in->dep_parts[n->input];
    case CS_PH_PARENT_READ:
        return in->parents[n->input]->num_partitions;
    case CS_PH_BROADCAST_READ:
        return -1;
    default:
        if (n->n_children == 0) return subtree_parts(q, n);
        for (int i = 0; i < n->n_children; i++) {
            int p = n->children[i] ? stage_parts(q, n->children[i], in) : -1;
            if (p >= 0) return p;
        }
        return -1;
    }
}

/* The lineage node of a cut stage tree (root encoded now) with the stage's inputs. */
static cspark_rdd *stage_node(qrun *q, const cs_phys_node *root, const stage_inputs *in, int parts,
                              const char *what, cs_error *err)
{
    cs_sbuf plan = CS_SBUF_INIT;
    if (cs_phys_encode(root, &plan, err) < 0) {
        cs_sbuf_free(&plan);
        return NULL;
    }
    char name[160];
    snprintf(name, sizeof name, "%s (SQL execution %lld)", what, (long long)q->execution_id);
    cspark_rdd *r = sql_exec_node(q, &plan, parts, name);
    cs_sbuf_free(&plan);
    r->barrier = cs_phys_has_barrier(root); /* Spark's RDDBarrier: a barrier stage */
    for (int i = 0; i < in->n_deps; i++)
        r->deps[r->num_deps++] = in->deps[i];
    for (int i = 0; i < in->n_parents; i++)
        r->parents[r->num_parents++] = in->parents[i];
    if (in->n_bc) cs_rdd_sql_exec_set_broadcasts(r, in->bc, in->n_bc);
    if (in->read_start) cs_rdd_sql_exec_set_read_ranges(r, in->read_start, in->read_end);
    return r;
}

/* A RANGE exchange's bounds, as Spark's RangePartitioner: a job samples the sort keys of the
 * exchange's input (every partition of the cut stage tree at ex, parts of them), the driver
 * weighs the samples (sqlexec/range_partitioner.h); ex->num_partitions becomes the bounds + 1.
 * *bounds: the encoded bounds batch (empty when there is none). */
static int range_bounds(qrun *q, cs_phys_node *ex, const stage_inputs *in, int parts,
                        cs_sbuf *bounds, cs_error *err)
{
    if (ex->num_partitions <= 1 || parts <= 0) return 0;
    int hint = 100;
    if (cs_sql_conf_int(q->s->conf, "spark.sql.execution.rangeExchange.sampleSizePerPartition",
                        &hint, err) < 0)
        return err->code;
    cspark_rdd *sample = stage_node(q, ex, in, parts, "RangePartitioner sample", err);
    if (!sample) return err->code ? err->code : CS_EINVAL;
    sample->sql_sample_size = cs_range_sample_per_partition(ex->num_partitions, parts, hint);
    cs_session_collected c;
    int rc = run_collect(q, sample, "sample for range exchange", &c, err);
    int64_t *counts = cs_xcalloc((size_t)c.n + 1, sizeof *counts);
    const uint8_t **values = cs_xcalloc((size_t)c.n + 1, sizeof *values);
    size_t *lens = cs_xcalloc((size_t)c.n + 1, sizeof *lens);
    for (int p = 0; rc == 0 && p < c.n; p++) { /* one record: key = rows (8 bytes), the sample */
        cspark_record rec = c.parts[p].n == 1 ? batch_get(&c.parts[p], 0) : (cspark_record){0};
        if (c.parts[p].n != 1 || rec.key.len != 8)
            rc = cs_error_set(err, CS_EPROTO, "the range sample of partition %d is malformed", p);
        for (int i = 0; rc == 0 && i < 8; i++)
            counts[p] = (int64_t)((uint64_t)counts[p] << 8 | rec.key.ptr[i]);
        values[p] = rec.value.ptr;
        lens[p] = rec.value.len;
    }
    int n = ex->num_partitions;
    if (rc == 0)
        rc = cs_range_bounds_of_samples(ex, counts, values, lens, c.n, hint, bounds, &n, err);
    if (rc == 0) ex->num_partitions = n;
    free(counts);
    free(values);
    free(lens);
    cs_session_collected_free(&c);
    return rc;
}

/* The lineage node of the stage whose tree is root (root may be an exchange: the map side; the
 * root stays, only what is below it is cut). */
static cspark_rdd *build_stage(qrun *q, cs_phys_node *root, cs_error *err)
{
    if (root->kind == CS_PH_COALESCE) return coalesce_node(q, root, err);
    stage_inputs in;
    memset(&in, 0, sizeof in);
    bool crowded = cs_stage_subtree_reads(root->kind == CS_PH_EXCHANGE ? root->children[0] : root) >
                   NODE_MAX_DEPS;
    for (int i = 0; i < 8; i++)
        in.dep_mat[i] = in.parent_mat[i] = -1;
    if (cut_inputs(q, root, &in, crowded, err) < 0) return NULL;
    int parts = stage_parts(q, root, &in);
    if (parts < 0) parts = 1; /* a tree of broadcasts only */
    coalesce_reads(q, root, &in, &parts);
    cs_sbuf bounds = CS_SBUF_INIT;
    cspark_rdd *r = NULL;
    if (root->kind != CS_PH_EXCHANGE || root->partitioning != CS_PART_RANGE ||
        range_bounds(q, root, &in, parts, &bounds, err) == 0)
        r = stage_node(q, root, &in, parts, cs_phys_node_name(root), err);
    if (r && bounds.len)
        cs_rdd_sql_exec_set_range_bounds(r, (const uint8_t *)bounds.data, bounds.len);
    cs_sbuf_free(&bounds);
    free(in.read_start);
    free(in.read_end);
    return r;
}

/* ---- adaptive execution --------------------------------------------------------------------- */

/* Whether every leaf of a cut stage tree that gives partitions reads a shuffle, directly or
 * through a node of its own (Spark coalesces only then: another leaf's partitions could not
 * follow). */
static bool only_shuffle_leaves(const cs_phys_node *n, const stage_inputs *in)
{
    if (n->n_children == 0)
        return n->kind == CS_PH_SHUFFLE_READ || n->kind == CS_PH_BROADCAST_READ ||
               (n->kind == CS_PH_PARENT_READ && in->parent_mat[n->input] >= 0);
    for (int i = 0; i < n->n_children; i++)
        if (n->children[i] && !only_shuffle_leaves(n->children[i], in)) return false;
    return true;
}

/* Spark's CoalesceShufflePartitions over the stage being built: when every shuffle it reads
 * (itself or through a node of its own) ran already (materialized), none is a REPARTITION(n)'s,
 * they have the same partitions and the stage reads nothing else, small neighbouring partitions
 * are read by one task
 * (sqlexec/shuffle_partitions_util.h); *parts becomes the coalesced count. */
static void coalesce_reads(qrun *q, const cs_phys_node *root, stage_inputs *in, int *parts)
{
    if (!q->aqe.enabled || !q->aqe.coalesce || in->n_deps == 0) return;
    const uint64_t *bytes[16];
    int np = in->dep_parts[0], nb = 0;
    for (int d = 0; d < in->n_deps + in->n_parents; d++) {
        int k = d < in->n_deps ? in->dep_mat[d] : in->parent_mat[d - in->n_deps];
        if (k < 0 || q->mat[k].fixed || !q->mat[k].bytes || q->mat[k].parts != np) return;
        bytes[nb++] = q->mat[k].bytes;
    }
    if (np <= 1 || *parts != np || !only_shuffle_leaves(root, in)) return;
    int64_t target = cs_coalesce_target_size(bytes, nb, np, q->aqe.advisory_size,
                                             q->aqe.min_partitions, q->aqe.min_partition_size);
    int *start = cs_xcalloc((size_t)np, sizeof *start), *end = cs_xcalloc((size_t)np, sizeof *end);
    int n = cs_coalesce_partitions(bytes, nb, np, target, start, end);
    if (n == 0) {
        free(start);
        free(end);
        return;
    }
    CS_INFO("sql", "execution=%lld event=coalesced partitions=%d to=%d target_bytes=%lld",
            (long long)q->execution_id, np, n, (long long)target);
    in->read_start = start;
    in->read_end = end;
    *parts = n;
    for (int p = 0; p < in->n_parents; p++) { /* the shuffles read through nodes of their own */
        in->parents[p]->num_partitions = n;
        cs_rdd_sql_exec_set_read_ranges(in->parents[p], start, end);
    }
}

/* ---- a physical plan to its batches --------------------------------------------------------- */

static void qrun_end(qrun *q)
{
    for (int i = 0; i < q->n_mat; i++)
        free(q->mat[i].bytes);
    free(q->mat);
    cs_phys_canonical_map_free(&q->stage_cache);
    free(q->staged);
    free(q->staged_dep);
    cs_phys_canonical_map_free(&q->bcast_cache);
    free(q->bcast_run);
    free(q->bcast_from);
    free(q->bcast_to);
    for (int i = 0; i < q->n_cut; i++)
        cs_phys_free(q->cut[i]);
    free(q->cut);
    cs_bcast_jobs_free(q->bjobs);
    cs_query_lineage_release(&q->nodes, q->sc);
}

/* Runs plan (taken over, freed) and appends its batches to out (local plans: query_local.c). */
static int run_plan(qrun *q, cs_phys_node *plan, cs_sql_result *out, cs_error *err)
{
    if (cs_session_plan_local(plan)) return cs_session_run_local(q->s, plan, out, err);
    cs_phys_node *outer = q->root;
    q->root = plan;
    int rc =
        q->aqe.enabled ? cs_qrun_materialize_stages(q, plan, err) : cs_qrun_start_all(q, plan, err);
    cspark_rdd *r = rc == 0 ? build_stage(q, plan, err) : NULL;
    q->root = outer;
    q->n_staged = 0; /* the plan's own exchanges (a scalar subquery's plan runs first) */
    q->n_bcast_run = q->n_bcast_alias = 0;
    cs_phys_canonical_map_free(&q->bcast_cache);
    if (rc == 0 && !r) rc = err->code ? err->code : CS_EINVAL;
    cs_session_collected c = {0};
    if (rc == 0) rc = run_collect(q, r, "collect", &c, err);
    for (int p = 0; rc == 0 && p < c.n; p++)
        for (size_t i = 0; rc == 0 && i < c.parts[p].n; i++) {
            cspark_record rec = batch_get(&c.parts[p], i);
            cs_col_batch *b = NULL;
            rc = cs_sql_batch_decode(plan->schema, rec.value.ptr, rec.value.len,
                                     cs_col_default_allocator(), &b, err);
            if (rc < 0) break;
            cs_result_take_batch(out, b);
        }
    if (c.parts) cs_session_collected_free(&c);
    if (!out->schema) out->schema = cs_col_type_ref(plan->schema);
    cs_phys_free(plan);
    return rc;
}

/* ---- scalar subqueries ---------------------------------------------------------------------- */

/* EXPLAIN plans scalar subqueries without running them: a null stands for the value (and for
 * a subquery's empty result). */
static int null_scalar(void *arg, const cs_phys_node *plan, cs_column **value, cs_error *err)
{
    (void)arg, (void)err;
    cs_col_builder *b = cs_col_builder_new(NULL, plan->schema->fields[0].type);
    cs_col_builder_append_nulls(b, 1);
    *value = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return 0;
}

static int run_scalar(void *arg, const cs_phys_node *plan, cs_column **value, cs_error *err)
{
    qrun *q = arg;
    cs_sbuf enc = CS_SBUF_INIT; /* a copy of the borrowed tree: cutting changes it */
    if (cs_phys_encode(plan, &enc, err) < 0) {
        cs_sbuf_free(&enc);
        return err->code;
    }
    cs_phys_node *copy = cs_phys_decode((const uint8_t *)enc.data, enc.len, err);
    cs_sbuf_free(&enc);
    if (!copy) return err->code;
    cs_sql_result r = {0};
    int rc = run_plan(q, copy, &r, err);
    if (rc == 0 && r.num_rows > 1)
        rc = cs_sql_error_set(err, CS_ETASK, "SCALAR_SUBQUERY_TOO_MANY_ROWS", "21000",
                              "More than one row returned by a subquery used as an expression.");
    if (rc == 0 && r.num_rows == 1)
        *value = cs_column_ref(r.batches[0]->columns[0]);
    else if (rc == 0)
        null_scalar(q, plan, value, err);
    cs_sql_result_free(&r);
    return rc;
}

/* ---- queries -------------------------------------------------------------------------------- */

/* Whether the plan's top is a global sort under projections, filters, limits and aliases. */
static bool top_ordered(const cs_logical_plan *p)
{
    while (p) {
        switch (p->kind) {
        case CS_LP_SORT:
            return p->global;
        case CS_LP_PROJECT:
        case CS_LP_FILTER:
        case CS_LP_LIMIT:
        case CS_LP_OFFSET:
        case CS_LP_SUBQUERY_ALIAS:
            p = p->n_children ? p->children[0] : NULL;
            break;
        default:
            return false;
        }
    }
    return false;
}

static int plan_query(qrun *q, cs_sql_arena *a, const cs_logical_plan *analyzed, bool for_explain,
                      cs_logical_plan **optimized, cs_phys_node **phys, cs_error *err)
{
    cs_sql_optimizer_conf oc;
    cs_sql_planner_ctx pc = {.run_scalar = for_explain ? null_scalar : run_scalar, .arg = q};
    int parallelism = q->sc ? q->sc->default_parallelism : 2;
    if (cs_sql_conf_optimizer(q->s->conf, &oc, err) < 0 ||
        cs_sql_conf_planner(q->s->conf, parallelism, &pc.conf, err) < 0 ||
        cs_sql_conf_adaptive(q->s->conf, parallelism, &q->aqe, err) < 0)
        return err->code;
    if (cs_sql_optimize(q->s->catalog, a, &oc, analyzed, optimized, err) != 0)
        return err->code ? err->code : CS_EINVAL;
    if (cs_sql_plan(&pc, *optimized, phys, err) != 0) return err->code ? err->code : CS_EINVAL;
    /* ReuseExchangeAndSubquery; adaptive execution reuses by its stage cache instead */
    q->reuse = cs_sql_conf_bool(q->s->conf, "spark.sql.exchange.reuse");
    if (q->reuse && !q->aqe.enabled && cs_sql_reuse_exchanges(*phys, err) < 0) {
        cs_phys_free(*phys);
        *phys = NULL;
        return err->code;
    }
    return 0;
}

static void qrun_begin(qrun *q, cs_sql_session *s, const char *text)
{
    memset(q, 0, sizeof *q);
    q->s = s;
    q->sc = s->sc;
    q->text = text;
    q->execution_id = cs_session_next_execution_id();
    if (s->job_group[0])
        snprintf(q->group, sizeof q->group, "%s", s->job_group);
    else
        snprintf(q->group, sizeof q->group, "cspark-sql-%lld", (long long)q->execution_id);
    snprintf(q->execution_id_text, sizeof q->execution_id_text, "%lld", (long long)q->execution_id);
}

/* "== Physical Plan ==" and the plan as Spark prints it: under "AdaptiveSparkPlan
 * isFinalPlan=false" when adaptive execution will run it stage by stage (a plan with an exchange,
 * as Spark's InsertAdaptiveSparkPlan decides); and its SparkPlanInfo the same way. */
static bool adaptive_plan(const qrun *q, const cs_phys_node *plan)
{
    return q->aqe.enabled && cs_aqe_has_exchange_anywhere(plan);
}

static void physical_plan_text(const qrun *q, const cs_phys_node *plan, cs_sbuf *out)
{
    cs_sbuf_puts(out, "== Physical Plan ==\n");
    cs_phys_explain_adaptive(plan, adaptive_plan(q, plan), out);
}

/* SQLExecutionStart / End on the listener bus (the event log; Spark's history server's SQL tab
 * shows the query and its jobs, which carry spark.sql.execution.id). */
static void post_start(qrun *q, const cs_phys_node *plan)
{
    if (!q->sc || !q->sc->bus) return;
    cs_sbuf text = CS_SBUF_INIT;
    physical_plan_text(q, plan, &text);
    cs_sbuf info = CS_SBUF_INIT;
    cs_phys_plan_info_adaptive(plan, adaptive_plan(q, plan), &info);
    cs_event ev = {.kind = CS_EV_SQL_EXECUTION_START,
                   .job_id = -1,
                   .sql_execution_id = q->execution_id,
                   .sql_description = q->text,
                   .sql_plan = cs_sbuf_str(&text),
                   .sql_plan_info = cs_sbuf_str(&info)};
    cs_listener_bus_post(q->sc->bus, &ev);
    cs_sbuf_free(&info);
    cs_sbuf_free(&text);
}

static void post_end(qrun *q, int rc, const cs_error *err)
{
    if (!q->sc || !q->sc->bus) return;
    cs_event ev = {.kind = CS_EV_SQL_EXECUTION_END,
                   .job_id = -1,
                   .sql_execution_id = q->execution_id,
                   .succeeded = rc == 0,
                   .reason = rc == 0 ? NULL : err->msg};
    cs_listener_bus_post(q->sc->bus, &ev);
}

/* The final stage handed to the session's write_stage instead of collected (query_write.c). */
static int run_final(qrun *q, cs_phys_node *plan, cs_error *err)
{
    q->root = plan;
    int rc =
        q->aqe.enabled ? cs_qrun_materialize_stages(q, plan, err) : cs_qrun_start_all(q, plan, err);
    cspark_rdd *r = rc == 0 ? build_stage(q, plan, err) : NULL;
    q->root = NULL;
    char call_site[160];
    job_properties props = cs_qrun_job_props(q, "save", call_site);
    cs_session_final_stage st = {q->sc, r, plan->schema, &props, &q->nodes};
    if (rc == 0 && !r) rc = err->code ? err->code : CS_EINVAL;
    if (rc == 0 && q->s->write_stage(q->s->write_arg, &st, err) < 0) rc = cs_session_job_error(err);
    cs_phys_free(plan);
    return rc;
}

int cs_session_run_query(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *analyzed,
                         const char *text, cs_sql_result *out, cs_error *err)
{
    if (!s->sc)
        return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                                "The feature is not supported: queries without a context.");
    qrun q;
    qrun_begin(&q, s, text);
    cs_logical_plan *optimized = NULL;
    cs_phys_node *phys = NULL;
    int rc = plan_query(&q, a, analyzed, false, &optimized, &phys, err);
    if (rc == 0) {
        out->ordered = top_ordered(analyzed);
        post_start(&q, phys);
        rc = s->write_stage ? run_final(&q, phys, err) : run_plan(&q, phys, out, err);
        post_end(&q, rc, err);
    }
    qrun_end(&q);
    return rc;
}

static void schema_line(const cs_logical_plan *p, cs_sbuf *out)
{
    for (int i = 0; i < p->n_output; i++) {
        cs_sbuf_printf(out, "%s%s: ", i ? ", " : "", p->output[i]->name);
        cs_col_type_simple_string(p->output[i]->type, out);
    }
    cs_sbuf_putc(out, '\n');
}

int cs_session_explain(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *parsed,
                       const char *mode, cs_sbuf *out, cs_error *err)
{
    qrun q;
    qrun_begin(&q, s, "EXPLAIN");
    cs_logical_plan *analyzed = NULL, *optimized = NULL;
    cs_phys_node *phys = NULL;
    if (cs_sql_analyze(s->catalog, a, parsed, &analyzed, err) != 0) return err->code;
    int rc = plan_query(&q, a, analyzed, true, &optimized, &phys, err);
    if (rc == 0) {
        bool extended = strcmp(mode, "EXTENDED") == 0;
        if (extended) {
            cs_sbuf_puts(out, "== Parsed Logical Plan ==\n");
            cs_logical_plan_print(parsed, out);
            cs_sbuf_puts(out, "\n\n== Analyzed Logical Plan ==\n");
            schema_line(analyzed, out);
            cs_logical_plan_print(analyzed, out);
            cs_sbuf_puts(out, "\n\n== Optimized Logical Plan ==\n");
            cs_logical_plan_print(optimized, out);
            cs_sbuf_puts(out, "\n\n");
        }
        physical_plan_text(&q, phys, out);
        cs_sbuf_putc(out, '\n');
        cs_phys_free(phys);
    }
    qrun_end(&q);
    return rc;
}
