/*
 * sql_ops_scan.h — the file scan leaf of the SQL engine (op_file_scan.c): what one task of a
 * scan reads, as Spark's FileSourceScanExec gives a FilePartition to its task.
 *
 * Ownership: the spec is the caller's and is copied by the constructor (nothing borrowed; the
 * bound is shared by reference with the TopN that sets it).
 */
#ifndef CSPARK_SQLEXEC_SQL_OPS_SCAN_H
#define CSPARK_SQLEXEC_SQL_OPS_SCAN_H

#include "formats/file_format.h"
#include "sqlexec/operator.h"
#include "sqlexec/pexpr.h"
#include "sqlexec/topn_bound.h"

typedef struct cs_sql_file_scan_spec {
    const cs_file_format *format;
    const cs_format_options *options;
    const cs_col_type *data_schema; /* the files' columns */
    const cs_col_type *read_schema; /* the columns to read: fields of data_schema */
    const cs_scan_filter *filters;  /* pushed down, a conjunction; may be NULL */
    int n_filters;
    const cs_col_batch *partition_values; /* one row per partition folder; NULL: none */
    const cs_file_split *splits;          /* this task's splits, read in order */
    const int *split_partition;           /* per split, its row of partition_values or -1 */
    int n_splits;
    /* Late materialization under a TopN (both optional): the Filter's condition above the scan
     * (over the scan's output, deterministic) and the TopN's bound (topn_bound.h) on the scan's
     * column bound_column. The scan reads the columns they use first and passes over the other
     * columns of a batch none of whose rows passes both (the formats that can). */
    const cs_pexpr *late_condition;
    cs_sql_topn_bound *bound; /* a reference is taken */
    int bound_column;
} cs_sql_file_scan_spec;

/* Output: read_schema's columns, then partition_values' columns. */
cs_sql_op *cs_sql_op_file_scan(const cs_sql_file_scan_spec *spec);

#endif /* CSPARK_SQLEXEC_SQL_OPS_SCAN_H */
