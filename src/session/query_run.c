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
 * BROADCAST_EXCHANGE child's stage runs at once as its own job, its batches are collected into
 * a broadcast variable (each encoded batch preceded by its u32 little-endian length) and
 * replaced by a BROADCAST_READ leaf; a UNION whose children give different numbers of
 * partitions (or would bring the stage over a node's inputs) has each child made a node of its
 * own, their union (Spark's UnionRDD: partitions one after the other) read through a
 * PARENT_READ leaf. Map stages run when the final stage's job needs them (the DAG scheduler).
 *
 * Uncorrelated scalar subqueries run through the planner's run_scalar callback: planned,
 * copied and run as a query of their own before the outer plan is finished.
 *
 * Jobs carry the statement as their description and the group "cspark-sql-<execution id>".
 * A job that fails does not fail the context (the session goes on); a task's Spark error
 * ("[DIVIDE_BY_ZERO] ... SQLSTATE: 22012") becomes the statement's error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/context.h"
#include "api/rdd_internal.h"
#include "plan/rdd.h"
#include "sched/listener.h"
#include "sched/scheduler.h"
#include "session/session_internal.h"
#include "sql/analyzer.h"
#include "sql/optimizer.h"
#include "sql/planner.h"
#include "sqlexec/phys_plan.h"
#include "sqlexec/sql_error.h"

#define MAX_BROADCASTS 64

typedef struct qrun {
    cs_sql_session *s;
    cspark_context *sc;
    const char *text; /* the statement: the jobs' description */
    char group[96];   /* the jobs' group */
    int64_t execution_id;
    char execution_id_text[24]; /* the jobs' spark.sql.execution.id */
    cs_phys_node **cut;         /* subtrees detached at exchanges and unions (freed at the end) */
    int n_cut, cap_cut;
    int64_t *broadcasts; /* broadcast variables made for this query (destroyed at the end) */
    int n_broadcasts, cap_broadcasts;
} qrun;

/* The inputs of the stage being built: its leaves' numbers index these. */
typedef struct stage_inputs {
    shuffle_dep *deps[8];
    int dep_parts[8];
    int n_deps;
    cspark_rdd *parents[8];
    int n_parents;
    int64_t bc[MAX_BROADCASTS];
    int n_bc;
} stage_inputs;

#define NODE_MAX_DEPS ((int)(sizeof((cspark_rdd *)0)->deps / sizeof(shuffle_dep *)))
#define NODE_MAX_PARENTS ((int)(sizeof((cspark_rdd *)0)->parents / sizeof(cspark_rdd *)))

static void keep_cut(qrun *q, cs_phys_node *n)
{
    if (q->n_cut == q->cap_cut) {
        q->cap_cut = q->cap_cut ? 2 * q->cap_cut : 16;
        q->cut = cs_xrealloc(q->cut, (size_t)q->cap_cut * sizeof *q->cut);
    }
    q->cut[q->n_cut++] = n;
}

/* ---- errors of jobs ------------------------------------------------------------------------- */

/* A job failed: when a task's message carries Spark's "[CLASS] ... SQLSTATE: xxxxx", err becomes
 * that error (class, state, message from the class on), as Spark rethrows the task's
 * SparkThrowable. */
static int job_error(cs_error *err)
{
    if (err->error_class[0]) return err->code;
    for (const char *p = strchr(err->msg, '['); p; p = strchr(p + 1, '[')) {
        const char *e = p + 1;
        while ((*e >= 'A' && *e <= 'Z') || (*e >= '0' && *e <= '9') || *e == '_' || *e == '.')
            e++;
        if (*e != ']' || e - p < 4 || !(p[1] >= 'A' && p[1] <= 'Z')) continue;
        char cls[96], state[6] = "";
        snprintf(cls, sizeof cls, "%.*s", (int)(e - p - 1), p + 1);
        const char *st = strstr(p, "SQLSTATE: ");
        if (st) snprintf(state, sizeof state, "%.5s", st + 10);
        char msg[sizeof err->msg];
        size_t n = strcspn(p, "\n");
        if (st) n = (size_t)(st + 15 - p) < n ? (size_t)(st + 15 - p) : n;
        snprintf(msg, sizeof msg, "%.*s", (int)n, p);
        snprintf(err->msg, sizeof err->msg, "%s", msg);
        snprintf(err->error_class, sizeof err->error_class, "%s", cls);
        memcpy(err->sql_state, state, sizeof state);
        break;
    }
    return err->code;
}

/* ---- running a node ------------------------------------------------------------------------- */

typedef struct collected {
    cs_batch *parts; /* per partition: its records */
    int n;
} collected;

static void on_collect(void *arg, int partition, task_result *r)
{
    collected *c = arg;
    if (partition < 0 || partition >= c->n) return;
    cs_batch_free(&c->parts[partition]);
    c->parts[partition] = r->data; /* moved */
    cs_batch_init(&r->data);
}

static void collected_free(collected *c)
{
    for (int i = 0; i < c->n; i++)
        cs_batch_free(&c->parts[i]);
    free(c->parts);
}

/* Runs a job collecting every record of r's partitions (in *c, by partition). */
static int run_collect(qrun *q, cspark_rdd *r, const char *op, collected *c, cs_error *err)
{
    c->n = r->num_partitions;
    c->parts = cs_xcalloc((size_t)c->n + 1, sizeof *c->parts);
    for (int i = 0; i < c->n; i++)
        cs_batch_init(&c->parts[i]);
    if (q->sc->failed || q->sc->interrupted)
        return cs_error_set(err, CS_ECANCELLED, "the application is stopping");
    char call_site[160];
    snprintf(call_site, sizeof call_site, "%s at SQL execution %lld", op,
             (long long)q->execution_id);
    job_properties props = {.call_site = call_site,
                            .description = q->text,
                            .group_id = q->group,
                            .interrupt_on_cancel = true,
                            .sql_execution_id = q->execution_id_text};
    task_sink sink = {.kind = SINK_COLLECT};
    int rc = cs_scheduler_run_job(q->sc->sched, r, NULL, 0, &props, &sink, on_collect, c, err);
    return rc < 0 ? job_error(err) : 0;
}

/* ---- cutting a stage ------------------------------------------------------------------------ */

/* The partitions a subtree gives (before cutting): -1 for none (broadcast sides). */
static int subtree_parts(const cs_phys_node *n)
{
    switch (n->kind) {
    case CS_PH_FILE_SCAN:
        return n->n_groups;
    case CS_PH_LOCAL:
        return 1;
    case CS_PH_RANGE:
        return n->num_slices;
    case CS_PH_EXCHANGE:
        return n->num_partitions;
    case CS_PH_BROADCAST_EXCHANGE:
    case CS_PH_BROADCAST_READ:
        return -1;
    case CS_PH_UNION: {
        int sum = 0, first = -2;
        bool same = true;
        for (int i = 0; i < n->n_children; i++) {
            int p = subtree_parts(n->children[i]);
            if (p < 0) continue;
            sum += p;
            if (first == -2) first = p;
            same &= p == first;
        }
        return first == -2 ? -1 : (same ? first : sum);
    }
    default:
        for (int i = 0; i < n->n_children; i++) {
            int p = subtree_parts(n->children[i]);
            if (p >= 0) return p;
        }
        return -1;
    }
}

/* The shuffles a subtree's stage reads (exchanges not below another exchange). */
static int subtree_reads(const cs_phys_node *n)
{
    if (n->kind == CS_PH_EXCHANGE) return 1;
    if (n->kind == CS_PH_BROADCAST_EXCHANGE) return 0;
    int r = 0;
    for (int i = 0; i < n->n_children; i++)
        r += subtree_reads(n->children[i]);
    return r;
}

/* A union runs inside the task when its children give the same partitions. */
static bool union_in_task(const cs_phys_node *u, bool stage_crowded)
{
    if (stage_crowded) return false;
    int first = -2;
    for (int i = 0; i < u->n_children; i++) {
        int p = subtree_parts(u->children[i]);
        if (p < 0) continue;
        if (first != -2 && p != first) return false;
        first = p;
    }
    return true;
}

static cspark_rdd *build_stage(qrun *q, cs_phys_node *root, cs_error *err);

static int run_broadcast(qrun *q, cs_phys_node *bex, int64_t *id, cs_error *err)
{
    cspark_rdd *r = build_stage(q, bex, err);
    if (!r) return err->code ? err->code : CS_EINVAL;
    collected c;
    int rc = run_collect(q, r, "broadcast exchange", &c, err);
    cs_sbuf value = CS_SBUF_INIT;
    for (int p = 0; rc == 0 && p < c.n; p++)
        for (size_t i = 0; i < c.parts[p].n; i++) {
            cspark_record rec = batch_get(&c.parts[p], i);
            uint8_t len[4] = {(uint8_t)rec.value.len, (uint8_t)(rec.value.len >> 8),
                              (uint8_t)(rec.value.len >> 16), (uint8_t)(rec.value.len >> 24)};
            cs_sbuf_append(&value, len, 4);
            cs_sbuf_append(&value, rec.value.ptr, rec.value.len);
        }
    collected_free(&c);
    if (rc == 0) {
        cspark_broadcast_var b = cspark_broadcast(q->sc, value.data ? value.data : "", value.len);
        if (b.id < 0) rc = cs_error_set(err, CS_EIO, "the broadcast of a join's build side failed");
        *id = b.id;
        if (b.id >= 0) {
            if (q->n_broadcasts == q->cap_broadcasts) {
                q->cap_broadcasts = q->cap_broadcasts ? 2 * q->cap_broadcasts : 8;
                q->broadcasts =
                    cs_xrealloc(q->broadcasts, (size_t)q->cap_broadcasts * sizeof *q->broadcasts);
            }
            q->broadcasts[q->n_broadcasts++] = b.id;
        }
    }
    cs_sbuf_free(&value);
    return rc;
}

static cs_phys_node *leaf(cs_phys_kind kind, const cs_phys_node *replaced, int input)
{
    cs_phys_node *l = cs_phys_new(kind, cs_col_type_ref(replaced->schema), 0);
    l->id = replaced->id;
    l->input = input;
    return l;
}

static int cut_inputs(qrun *q, cs_phys_node *n, stage_inputs *in, bool crowded, cs_error *err);

/* A node that only reads shuffle d (exchange ex's output): its records, read as a parent. */
static cspark_rdd *shuffle_read_node(qrun *q, const cs_phys_node *ex, shuffle_dep *d, cs_error *err)
{
    cs_phys_node *read = leaf(CS_PH_SHUFFLE_READ, ex, 0);
    cs_sbuf plan = CS_SBUF_INIT;
    cspark_rdd *r = NULL;
    if (cs_phys_encode(read, &plan, err) == 0) {
        char name[160];
        snprintf(name, sizeof name, "ShuffleRead (SQL execution %lld)", (long long)q->execution_id);
        r = cs_rdd_sql_exec_new(&q->sc->graph, (const uint8_t *)plan.data, plan.len,
                                ex->num_partitions, name);
        r->deps[r->num_deps++] = d;
    }
    cs_sbuf_free(&plan);
    cs_phys_free(read);
    return r;
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
        keep_cut(q, u->children[k]);
        u->children[k] = NULL;
        all = all ? cs_rdd_union_new(&q->sc->graph, all, r, "Union") : r;
    }
    keep_cut(q, u);
    n->children[i] = leaf(CS_PH_PARENT_READ, u, in->n_parents);
    in->parents[in->n_parents++] = all;
    return 0;
}

static int cut_inputs(qrun *q, cs_phys_node *n, stage_inputs *in, bool crowded, cs_error *err)
{
    for (int i = 0; i < n->n_children; i++) {
        cs_phys_node *ch = n->children[i];
        if (!ch) continue;
        if (ch->kind == CS_PH_EXCHANGE) {
            cspark_rdd *map = build_stage(q, ch, err);
            if (!map) return err->code ? err->code : CS_EINVAL;
            shuffle_dep *d = cs_shuffle_dep_new(&q->sc->graph, map);
            d->partitioner.kind = PART_PASSTHROUGH;
            d->partitioner.num_partitions = ch->num_partitions;
            keep_cut(q, ch);
            if (in->n_deps < NODE_MAX_DEPS) {
                n->children[i] = leaf(CS_PH_SHUFFLE_READ, ch, in->n_deps);
                in->dep_parts[in->n_deps] = ch->num_partitions;
                in->deps[in->n_deps++] = d;
            } else if (in->n_parents < NODE_MAX_PARENTS) {
                /* more shuffles than a node reads: this one through a node of its own */
                cspark_rdd *read = shuffle_read_node(q, ch, d, err);
                if (!read) return err->code ? err->code : CS_EINVAL;
                n->children[i] = leaf(CS_PH_PARENT_READ, ch, in->n_parents);
                in->parents[in->n_parents++] = read;
            } else {
                return cs_error_set(err, CS_EUNSUPPORTED,
                                    "a SQL stage reads more than %d shuffles and unions",
                                    NODE_MAX_DEPS + NODE_MAX_PARENTS);
            }
        } else if (ch->kind == CS_PH_BROADCAST_EXCHANGE) {
            if (in->n_bc >= MAX_BROADCASTS)
                return cs_error_set(err, CS_EUNSUPPORTED,
                                    "a SQL stage reads more than %d "
                                    "broadcasts",
                                    MAX_BROADCASTS);
            int64_t id = -1;
            if (run_broadcast(q, ch, &id, err) < 0) return err->code;
            keep_cut(q, ch);
            n->children[i] = leaf(CS_PH_BROADCAST_READ, ch, in->n_bc);
            in->bc[in->n_bc++] = id;
        } else if (ch->kind == CS_PH_UNION && !union_in_task(ch, crowded)) {
            if (cut_union(q, n, i, in, err) < 0) return err->code;
        } else if (cut_inputs(q, ch, in, crowded, err) < 0) {
            return err->code;
        }
    }
    return 0;
}

/* The partitions of a cut stage tree (every partition-giving leaf agrees). */
static int stage_parts(const cs_phys_node *n, const stage_inputs *in)
{
    switch (n->kind) {
    case CS_PH_SHUFFLE_READ:
        return in->dep_parts[n->input];
    case CS_PH_PARENT_READ:
        return in->parents[n->input]->num_partitions;
    case CS_PH_BROADCAST_READ:
        return -1;
    default:
        if (n->n_children == 0) return subtree_parts(n);
        for (int i = 0; i < n->n_children; i++) {
            int p = n->children[i] ? stage_parts(n->children[i], in) : -1;
            if (p >= 0) return p;
        }
        return -1;
    }
}

/* The lineage node of the stage whose tree is root (root may be an exchange: the map side). */
static cspark_rdd *build_stage(qrun *q, cs_phys_node *root, cs_error *err)
{
    stage_inputs in;
    memset(&in, 0, sizeof in);
    bool crowded =
        subtree_reads(root->kind == CS_PH_EXCHANGE ? root->children[0] : root) > NODE_MAX_DEPS;
    if (root->kind == CS_PH_EXCHANGE || root->kind == CS_PH_BROADCAST_EXCHANGE) {
        /* the root stays: only what is below it is cut */
    }
    if (cut_inputs(q, root, &in, crowded, err) < 0) return NULL;
    int parts = stage_parts(root, &in);
    if (parts < 0) parts = 1; /* a tree of broadcasts only */
    cs_sbuf plan = CS_SBUF_INIT;
    if (cs_phys_encode(root, &plan, err) < 0) {
        cs_sbuf_free(&plan);
        return NULL;
    }
    char name[160];
    snprintf(name, sizeof name, "%s (SQL execution %lld)", cs_phys_node_name(root),
             (long long)q->execution_id);
    cspark_rdd *r =
        cs_rdd_sql_exec_new(&q->sc->graph, (const uint8_t *)plan.data, plan.len, parts, name);
    cs_sbuf_free(&plan);
    for (int i = 0; i < in.n_deps; i++)
        r->deps[r->num_deps++] = in.deps[i];
    for (int i = 0; i < in.n_parents; i++)
        r->parents[r->num_parents++] = in.parents[i];
    if (in.n_bc) cs_rdd_sql_exec_set_broadcasts(r, in.bc, in.n_bc);
    return r;
}

/* ---- a physical plan to its batches --------------------------------------------------------- */

static void qrun_end(qrun *q)
{
    for (int i = 0; i < q->n_cut; i++)
        cs_phys_free(q->cut[i]);
    free(q->cut);
    for (int i = 0; i < q->n_broadcasts; i++)
        cspark_broadcast_destroy(q->sc, (cspark_broadcast_var){q->broadcasts[i]});
    free(q->broadcasts);
}

/* A RANGE exchange needs bounds sampled from its input before its map stage runs; until the
 * driver samples them, a global sort's exchange gathers everything in one partition (the same
 * rows in the same order, in one task). */
static void range_to_single(cs_phys_node *n)
{
    if (n->kind == CS_PH_EXCHANGE && n->partitioning == CS_PART_RANGE) {
        n->partitioning = CS_PART_SINGLE;
        n->num_partitions = 1;
    }
    for (int i = 0; i < n->n_children; i++)
        if (n->children[i]) range_to_single(n->children[i]);
}

/* Runs plan (taken over, freed) and appends its batches to out. */
static int run_plan(qrun *q, cs_phys_node *plan, cs_sql_result *out, cs_error *err)
{
    range_to_single(plan);
    cspark_rdd *r = build_stage(q, plan, err);
    int rc = r ? 0 : (err->code ? err->code : CS_EINVAL);
    collected c = {0};
    if (rc == 0) rc = run_collect(q, r, "collect", &c, err);
    for (int p = 0; rc == 0 && p < c.n; p++)
        for (size_t i = 0; rc == 0 && i < c.parts[p].n; i++) {
            cspark_record rec = batch_get(&c.parts[p], i);
            cs_col_batch *b = NULL;
            rc = cs_sql_batch_decode(plan->schema, rec.value.ptr, rec.value.len,
                                     cs_col_default_allocator(), &b, err);
            if (rc < 0) break;
            if (b->num_rows == 0) {
                cs_col_batch_unref(b);
                continue;
            }
            out->batches =
                cs_xrealloc(out->batches, (size_t)(out->n_batches + 1) * sizeof *out->batches);
            out->batches[out->n_batches++] = b;
            out->num_rows += b->num_rows;
        }
    if (c.parts) collected_free(&c);
    if (!out->schema) out->schema = cs_col_type_ref(plan->schema);
    cs_phys_free(plan);
    return rc;
}

/* ---- scalar subqueries ---------------------------------------------------------------------- */

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
    if (rc == 0 && r.num_rows == 1) {
        *value = cs_column_ref(r.batches[0]->columns[0]);
    } else if (rc == 0) {
        cs_col_builder *b = cs_col_builder_new(NULL, r.schema->fields[0].type);
        cs_col_builder_append_nulls(b, 1);
        *value = cs_col_builder_finish(b);
        cs_col_builder_free(b);
    }
    cs_sql_result_free(&r);
    return rc;
}

/* EXPLAIN plans scalar subqueries without running them: a null stands for the value. */
static int null_scalar(void *arg, const cs_phys_node *plan, cs_column **value, cs_error *err)
{
    (void)arg, (void)err;
    cs_col_builder *b = cs_col_builder_new(NULL, plan->schema->fields[0].type);
    cs_col_builder_append_nulls(b, 1);
    *value = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return 0;
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
    if (cs_sql_conf_optimizer(q->s->conf, &oc, err) < 0 ||
        cs_sql_conf_planner(q->s->conf, q->sc ? q->sc->default_parallelism : 2, &pc.conf, err) < 0)
        return err->code;
    if (cs_sql_optimize(q->s->catalog, a, &oc, analyzed, optimized, err) != 0)
        return err->code ? err->code : CS_EINVAL;
    return cs_sql_plan(&pc, *optimized, phys, err) != 0 ? (err->code ? err->code : CS_EINVAL) : 0;
}

static void qrun_begin(qrun *q, cs_sql_session *s, const char *text)
{
    memset(q, 0, sizeof *q);
    q->s = s;
    q->sc = s->sc;
    q->text = text;
    q->execution_id = s->next_execution_id++;
    if (s->job_group[0])
        snprintf(q->group, sizeof q->group, "%s", s->job_group);
    else
        snprintf(q->group, sizeof q->group, "cspark-sql-%lld", (long long)q->execution_id);
    snprintf(q->execution_id_text, sizeof q->execution_id_text, "%lld", (long long)q->execution_id);
}

/* SQLExecutionStart / End on the listener bus (the event log; Spark's history server's SQL tab
 * shows the query and its jobs, which carry spark.sql.execution.id). */
static void post_start(qrun *q, const cs_phys_node *plan)
{
    if (!q->sc || !q->sc->bus) return;
    cs_sbuf text = CS_SBUF_INIT;
    cs_sbuf_puts(&text, "== Physical Plan ==\n");
    cs_phys_explain(plan, &text);
    cs_sbuf info = CS_SBUF_INIT;
    cs_phys_plan_info(plan, &info);
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
        rc = run_plan(&q, phys, out, err);
        post_end(&q, rc, err);
    }
    qrun_end(&q);
    return rc;
}

/* ---- a query's final stage to another consumer (query_write.c) ---------------------------- */

int cs_session_run_query_final(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *analyzed,
                               const char *text, cs_session_final_fn fn, void *arg, cs_error *err)
{
    if (!s->sc)
        return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                                "The feature is not supported: writes without a context.");
    qrun q;
    qrun_begin(&q, s, text);
    cs_logical_plan *optimized = NULL;
    cs_phys_node *phys = NULL;
    int rc = plan_query(&q, a, analyzed, false, &optimized, &phys, err);
    if (rc == 0) {
        post_start(&q, phys);
        range_to_single(phys);
        cspark_rdd *r = build_stage(&q, phys, err);
        rc = r ? 0 : (err->code ? err->code : CS_EINVAL);
        if (rc == 0) {
            char call_site[160];
            snprintf(call_site, sizeof call_site, "save at SQL execution %lld",
                     (long long)q.execution_id);
            job_properties props = {.call_site = call_site,
                                    .description = q.text,
                                    .group_id = q.group,
                                    .interrupt_on_cancel = true,
                                    .sql_execution_id = q.execution_id_text};
            cs_session_final_stage st = {q.sc, r, phys->schema, &props};
            if (q.sc->failed || q.sc->interrupted)
                rc = cs_error_set(err, CS_ECANCELLED, "the application is stopping");
            else if ((rc = fn(arg, &st, err)) < 0)
                rc = job_error(err);
        }
        post_end(&q, rc, err);
        cs_phys_free(phys);
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
        cs_sbuf_puts(out, "== Physical Plan ==\n");
        cs_phys_explain(phys, out);
        cs_sbuf_putc(out, '\n');
        cs_phys_free(phys);
    }
    qrun_end(&q);
    return rc;
}
