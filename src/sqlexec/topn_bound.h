/*
 * topn_bound.h — a top-N's running bound, shared with the file scan under it (a dynamic filter,
 * as DuckDB's top-N filter pushdown and DataFusion's TopK dynamic filters).
 *
 * Once the TopN (op_sort.c) holds limit + offset rows, no row whose first sort key sorts after
 * the first key of its worst kept row can enter any more. The TopN publishes that key each time
 * it shrinks what it holds (the bound only tightens); the scan below it (op_file_scan.c) asks
 * whether any row of a batch could still enter before decoding the batch's other columns, and
 * offers the bound to the format as a statistics filter to pass over whole row groups. Rows
 * whose first key ties with the bound are kept: the later keys or the arrival order decide them
 * in the TopN, as without the bound.
 *
 * Built by the planner (phys_build.c) for TopN over [Filter over] FileScan in one task's tree;
 * the TopN and the scan each hold a reference and run on the task's one thread. The tasks of one
 * stage alive at once in a process share their bounds (topn_bound.c says why that is sound).
 * Ownership: refcounted; the last unref frees the copied key bytes and value.
 */
#ifndef CSPARK_SQLEXEC_TOPN_BOUND_H
#define CSPARK_SQLEXEC_TOPN_BOUND_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/column.h"
#include "formats/file_format.h"
#include "sqlexec/sql_ops.h"

typedef struct cs_sql_topn_bound cs_sql_topn_bound;

/* A bound on the first sort key `key` (its ordinal: in the TopN's input), whose values come
 * from the scan's data column `column` (copied). No bound is known until the first set. id
 * (copied; may be NULL: never shared) identifies the subtree among the stage's tasks: the
 * TopN subtree's wire form. */
cs_sql_topn_bound *cs_sql_topn_bound_new(cs_sort_key key, const char *column, const uint8_t *id,
                                         size_t id_len);
/* Joins the bounds of the live handles with the same id, ANSI mode and time zone (the TopN,
 * when it opens): their keys tighten each other's from then on. */
void cs_sql_topn_bound_attach(cs_sql_topn_bound *tb, bool ansi, const char *session_tz);
cs_sql_topn_bound *cs_sql_topn_bound_ref(cs_sql_topn_bound *tb);
void cs_sql_topn_bound_unref(cs_sql_topn_bound *tb);

/* The TopN: row `row` of b (its input's schema), whose encoded sort key is key[0..len), is now
 * its worst kept row, with limit + offset rows held. */
void cs_sql_topn_bound_set(cs_sql_topn_bound *tb, const cs_col_batch *b, int64_t row,
                           const uint8_t *key, size_t len);

/* The scan: whether any of the rows sel[0..n) of b (sel NULL: rows 0..n) could still enter,
 * by b's column key_ordinal (the sort key's values). True while no bound is known. */
bool cs_sql_topn_bound_may_pass(cs_sql_topn_bound *tb, const cs_col_batch *b, int key_ordinal,
                                const int32_t *sel, int64_t n);

/* The bound as a data source filter (column <= v for ASC, >= for DESC), for row group
 * statistics: false while none is known or its value has no scalar form. *nulls_pass: rows with
 * a null key may still enter (NULLS FIRST). f's column and value are borrowed until the next
 * set. */
bool cs_sql_topn_bound_filter(cs_sql_topn_bound *tb, cs_scan_filter *f, bool *nulls_pass);

/* Makes TopN top_n (cs_sql_op_top_n) set tb (a reference taken); its first sort key must be
 * tb's. Other operators are left alone. */
void cs_sql_op_top_n_publish(cs_sql_op *top_n, cs_sql_topn_bound *tb);

#endif /* CSPARK_SQLEXEC_TOPN_BOUND_H */
