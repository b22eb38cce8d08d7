/*
 * query_adaptive.c — adaptive execution's waves (Spark's AdaptiveSparkPlanExec), for
 * query_run.c (query_run_internal.h): the exchanges with no exchange below them run as map
 * stages together, wave after wave; each becomes a SHUFFLE_READ leaf of its materialized shuffle
 * (numbered -1 - k), and a shuffled join with a side now known to be small becomes a broadcast
 * join. An exchange whose canonical form (sqlexec/phys_canonical.h) equals one already
 * materialized, in this wave or an earlier one, in the query or one of its scalar subqueries,
 * reads that one's shuffle instead of running its own map stage (Spark's stage cache, with
 * spark.sql.exchange.reuse): each reading stage then coalesces its reads on its own.
 */
#include <stdint.h>
#include <stdlib.h>

#include "common/log.h"
#include "sched/scheduler.h"
#include "session/adaptive_plan.h"
#include "session/query_run_internal.h"

/* The bytes of a materialized shuffle read by leaf n, or -1 when n is not one (or its sizes are
 * unknown). */
static int64_t materialized_bytes(const qrun *q, const cs_phys_node *n)
{
    if (n->kind != CS_PH_SHUFFLE_READ || n->input >= 0 || -1 - n->input >= q->n_mat) return -1;
    const materialized *m = &q->mat[-1 - n->input];
    if (!m->bytes) return -1;
    uint64_t total = 0;
    for (int p = 0; p < m->parts; p++)
        total += m->bytes[p];
    return total > INT64_MAX ? INT64_MAX : (int64_t)total;
}

/* Spark's AQE join selection with runtime sizes: a shuffled hash join whose side is a
 * materialized shuffle of at most spark.sql.adaptive.autoBroadcastJoinThreshold bytes (the
 * smaller one when both are) becomes a broadcast hash join building that side, which is
 * broadcast from the shuffle's output; the other side's exchange, when its map stage has not
 * run yet, is dropped unless what is above the join needs its rows hash-partitioned (Spark's
 * EnsureRequirements would keep one there). A shuffled join that stays shuffled, both sides
 * materialized, builds the side whose shuffle came out smaller (its hash table is what a task
 * holds in memory): TPC-H q04's semi join then builds its few orders, not lineitem's keys.
 * Returns the joins switched to broadcast. */
static int switch_joins(qrun *q, cs_phys_node *n, cs_phys_node **path, int *via, int depth)
{
    int switched = 0;
    if (n->kind == CS_PH_HASH_JOIN && !n->broadcast && depth < 256) {
        int64_t lb = materialized_bytes(q, n->children[0]);
        int64_t rb = materialized_bytes(q, n->children[1]);
        int64_t thr = q->aqe.broadcast_threshold;
        bool right = n->adaptive_build_right && rb >= 0 && thr >= 0 && rb <= thr;
        bool left = n->adaptive_build_left && lb >= 0 && thr >= 0 && lb <= thr;
        if (right || left) {
            int b = right && (!left || rb <= lb) ? 1 : 0;
            cs_phys_node *leaf_b = n->children[b], *other = n->children[1 - b];
            cs_phys_node *bex =
                cs_phys_new(CS_PH_BROADCAST_EXCHANGE, cs_col_type_ref(leaf_b->schema), 1);
            bex->id = leaf_b->id;
            bex->children[0] = leaf_b;
            n->children[b] = bex;
            n->broadcast = true;
            n->build_side = b ? CS_BUILD_RIGHT : CS_BUILD_LEFT;
            bool dropped = false;
            if (other->kind == CS_PH_EXCHANGE && other->partitioning == CS_PART_HASH &&
                !other->user_partitions && cs_aqe_partitioning_unused(path, via, depth)) {
                n->children[1 - b] = other->children[0];
                other->children[0] = NULL;
                cs_qrun_keep_cut(q, other);
                dropped = true;
            }
            CS_INFO("sql",
                    "execution=%lld event=broadcast_join build=%s bytes=%lld "
                    "streamed_exchange_dropped=%s",
                    (long long)q->execution_id, b ? "right" : "left", (long long)(b ? rb : lb),
                    dropped ? "true" : "false");
            switched++;
        } else if (cs_aqe_build_smaller_side(n, lb, rb)) {
            CS_INFO("sql", "execution=%lld event=shuffled_join_build build=%s bytes=%lld",
                    (long long)q->execution_id, n->build_side == CS_BUILD_RIGHT ? "right" : "left",
                    (long long)(n->build_side == CS_BUILD_RIGHT ? rb : lb));
        }
    }
    for (int i = 0; i < n->n_children; i++) {
        if (!n->children[i] || depth >= 256) continue;
        path[depth] = n;
        via[depth] = i;
        switched += switch_joins(q, n->children[i], path, via, depth + 1);
    }
    return switched;
}

/* Adaptive execution's stage by stage run of plan (Spark's AdaptiveSparkPlanExec): while an
 * exchange below the root has no exchange under it, those exchanges' map stages are built (their
 * reads coalesced by what their inputs' map stages wrote), run together as one job
 * (cs_scheduler_run_map_stages), their partitions' sizes read back from the map-output tracker,
 * each exchange replaced by a leaf of its materialized shuffle, and shuffled joins with a side
 * now known to be small switched to broadcast joins. The final stage is then built as usual,
 * its reads coalesced in turn. */
int cs_qrun_materialize_stages(qrun *q, cs_phys_node *plan, cs_error *err)
{
    int rc = 0;
    cs_aqe_ready r = {0};
    shuffle_dep **deps = NULL;
    for (;;) {
        if ((rc = cs_qrun_start_all(q, plan, err)) < 0) break; /* the broadcasts ready, meanwhile */
        r.n = 0;
        cs_aqe_find_ready(plan, &r);
        if (r.n == 0) break;
        deps = cs_xrealloc(deps, sizeof *deps * (size_t)r.n);
        int first = q->n_mat, n_new = 0;
        for (int i = 0; i < r.n && rc == 0; i++) {
            cs_phys_node *ex = r.parent[i]->children[r.child[i]];
            cs_sbuf key = CS_SBUF_INIT; /* Spark's stage cache: an equal exchange's stage */
            int k = q->reuse && (rc = cs_phys_canonical(ex, &key, err)) == 0
                        ? cs_phys_canonical_map_get(&q->stage_cache, &key)
                        : -1;
            shuffle_dep *d = k >= 0 || rc < 0 ? NULL : cs_qrun_map_stage(q, ex, err);
            if (k >= 0) {
                CS_INFO("sql", "execution=%lld event=exchange_reused reused_by=%d stage=%d",
                        (long long)q->execution_id, ex->id, k);
                r.parent[i]->children[r.child[i]] = cs_qrun_leaf(CS_PH_SHUFFLE_READ, ex, -1 - k);
                cs_qrun_keep_cut(q, ex);
                cs_sbuf_free(&key);
                continue;
            }
            if (key.len) cs_phys_canonical_map_put(&q->stage_cache, &key, q->n_mat);
            cs_sbuf_free(&key);
            if (!d) {
                rc = rc < 0 ? rc : err->code ? err->code : CS_EINVAL;
                break;
            }
            if (q->n_mat == q->cap_mat) {
                q->cap_mat = q->cap_mat ? 2 * q->cap_mat : 8;
                q->mat = cs_xrealloc(q->mat, sizeof *q->mat * (size_t)q->cap_mat);
            }
            q->mat[q->n_mat] = (materialized){d, ex->num_partitions, ex->user_partitions, NULL};
            r.parent[i]->children[r.child[i]] = cs_qrun_leaf(CS_PH_SHUFFLE_READ, ex, -1 - q->n_mat);
            q->n_mat++;
            cs_qrun_keep_cut(q, ex);
            deps[n_new++] = d;
        }
        if (rc != 0) break;
        if (q->sc->failed || q->sc->interrupted) {
            rc = cs_error_set(err, CS_ECANCELLED, "the application is stopping");
            break;
        }
        char call_site[160];
        job_properties props = cs_qrun_job_props(q, "shuffle map stages", call_site);
        rc = n_new ? cs_scheduler_run_map_stages(q->sc->sched, deps, n_new, &props, err) : 0;
        if (rc < 0) {
            rc = cs_session_job_error(err);
            break;
        }
        for (int k = first; k < q->n_mat; k++) {
            q->mat[k].bytes = cs_xcalloc((size_t)q->mat[k].parts + 1, sizeof *q->mat[k].bytes);
            if (cs_scheduler_shuffle_sizes(q->sc->sched, q->mat[k].dep->shuffle_id, q->mat[k].bytes,
                                           q->mat[k].parts) < 0) {
                free(q->mat[k].bytes); /* lost meanwhile: read as planned */
                q->mat[k].bytes = NULL;
            }
        }
        cs_phys_node *path[256];
        int via[256];
        switch_joins(q, plan, path, via, 0);
    }
    free(r.parent);
    free(r.child);
    free(deps);
    return rc;
}
