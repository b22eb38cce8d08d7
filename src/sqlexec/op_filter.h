/*
 * op_filter.h — the Filter and Project operators (Spark's FilterExec and ProjectExec) over
 * operator.h, evaluating pexpr.h expressions a batch at a time. Built by the planner.
 *
 * Filter passes on the rows of its child's batches where the condition is true (null counts as
 * false), compacted. Project gives one column per expression; an expression that is a plain
 * column reference shares the child's column (no copy).
 *
 * Ownership: each constructor takes over the child operator, the expressions and the schema.
 */
#ifndef CSPARK_SQLEXEC_OP_FILTER_H
#define CSPARK_SQLEXEC_OP_FILTER_H

#include "sqlexec/operator.h"
#include "sqlexec/pexpr.h"

/* condition: a boolean expression over the child's schema. */
cs_sql_op *cs_sql_op_filter(cs_sql_op *child, cs_pexpr *condition);
/* When op is a Filter: read[0..n) (copied) says which of its n output columns its parent reads;
 * a string, list or struct column it does not read is passed on as nulls, not compacted. The
 * parent must read no other column. Does nothing for another operator. */
void cs_sql_op_filter_reads(cs_sql_op *op, const bool *read, int n);
/* schema: the output struct type, one field per expression (names are the aliases). */
cs_sql_op *cs_sql_op_project(cs_sql_op *child, cs_pexpr **exprs, int n, cs_col_type *schema);

#endif /* CSPARK_SQLEXEC_OP_FILTER_H */
