/*
 * operator.h — the physical operator interface of the SQL engine: a tree of operators that
 * pull column batches from their children (the Volcano model, a batch at a time), as Spark's
 * SparkPlan.executeColumnar does inside one task.
 *
 * One task of a SQL stage runs one operator tree: a scan (or a shuffle read of an exchange)
 * at the leaves, Filter / Project / HashAggregate / HashJoin / Sort / ... above, and the stage's
 * sink (a shuffle write of the next exchange, a result to the driver, a file write) pulling from
 * the root. Every operator has a fixed output schema (a struct type) known before it opens.
 *
 * Protocol: open (once, children first — an operator opens its own children), then next until
 * it gives *out == NULL (the end) or an error, then close (always, also after an error or a
 * cancellation; close frees what open made and closes the children). An operator may return a
 * batch with 0 rows only at its own discretion; callers skip them. A batch returned by next is
 * one new reference owned by the caller. Operators check ctx->cancelled between batches and
 * return CS_ECANCELLED.
 *
 * Memory: operators that keep state (hash aggregate, hash join's build side, sort, window)
 * allocate it from ctx->alloc and charge ctx->task_memory; when cs_col_allocator_over() says the
 * task is over its share they spill to ctx->spill_dir (sorted runs, hash partitions) and merge
 * back, as Spark's UnsafeExternalSorter / TungstenAggregationIterator / grace hash join do.
 *
 * Metrics are Spark's SQLMetrics for the SQL tab: rows and batches out, time, spill and peak
 * memory per operator, summed per stage by the caller.
 *
 * Ownership: cs_sql_op_free frees an operator and its children (closing it if open). An
 * operator's constructor takes over its children and every expression and type passed to it.
 * Single-threaded: one task's thread.
 */
#ifndef CSPARK_SQLEXEC_OPERATOR_H
#define CSPARK_SQLEXEC_OPERATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/column.h"
#include "common/err.h"
#include "common/strutil.h"
#include "sqlexec/exec_ctx.h"

typedef struct cs_sql_op cs_sql_op;

typedef struct cs_sql_op_metrics {
    int64_t rows_out, batches_out;
    int64_t time_ns;     /* in next(), children's time included */
    int64_t spill_bytes; /* written to spill files */
    int64_t spill_count;
    int64_t peak_memory; /* bytes of state held at most */
    /* a scan's late filter (sql_ops_scan.h): row groups a TopN's bound ruled out, and rows
     * whose other columns were passed over undecoded */
    int64_t row_groups_skipped, rows_skipped;
} cs_sql_op_metrics;

typedef struct cs_sql_op_vtable {
    const char *name; /* Spark's node name in EXPLAIN: "HashAggregate", "Filter", "Sort", ... */
    int (*open)(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err);
    int (*next)(cs_sql_op *op, cs_col_batch **out, cs_error *err);
    void (*close)(cs_sql_op *op);
    void (*destroy)(cs_sql_op *op); /* frees the operator's own state (not the children) */
    /* The node's arguments as Spark prints them in EXPLAIN ("[l_returnflag#8], [sum(...)]"). */
    void (*explain_args)(const cs_sql_op *op, cs_sbuf *out);
} cs_sql_op_vtable;

struct cs_sql_op {
    const cs_sql_op_vtable *vt;
    cs_col_type *schema; /* output schema, a struct type (one reference) */
    int n_children;
    cs_sql_op **children;       /* owned */
    const cs_sql_exec_ctx *ctx; /* set by cs_sql_op_open */
    bool opened;
    cs_sql_op_metrics metrics;
};

/* Fills the common part of an operator; takes over schema and the children array's operators
 * (children is copied). Operators embed cs_sql_op as their first member. */
void cs_sql_op_init(cs_sql_op *op, const cs_sql_op_vtable *vt, cs_col_type *schema,
                    cs_sql_op **children, int n_children);
/* The protocol above with metrics and cancellation done once for every operator. */
int cs_sql_op_open(cs_sql_op *op, const cs_sql_exec_ctx *ctx, cs_error *err);
int cs_sql_op_next(cs_sql_op *op, cs_col_batch **out, cs_error *err);
void cs_sql_op_close(cs_sql_op *op);
void cs_sql_op_free(cs_sql_op *op);
/* The tree as Spark's EXPLAIN prints a physical plan ("+- " / ":- " indentation). */
void cs_sql_op_explain(const cs_sql_op *op, cs_sbuf *out);

/* A leaf giving the batches b[0..n) (references taken) then the end: for the driver's local
 * relations (VALUES, createDataFrame data) and tests. */
cs_sql_op *cs_sql_op_batches(cs_col_type *schema, cs_col_batch **b, int n);

#endif /* CSPARK_SQLEXEC_OPERATOR_H */
