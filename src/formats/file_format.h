/*
 * file_format.h — one table per file format, as Spark's FileFormat: how a data source asks a
 * format to infer a schema, whether a file may be cut into byte ranges, to read one range as
 * column batches, and to write batches to one file.
 *
 * The data source layer (src/datasource/) lists and globs paths, discovers `key=value`
 * partition folders, cuts files into splits (Spark's maxPartitionBytes / openCostInBytes), adds
 * the partition columns to the batches a format returns, and commits what a writer wrote with
 * the file-system committers. A format knows one file at a time and nothing of partitions or
 * committing. Formats are found by Spark's short name ("parquet", "csv", "json", "text").
 *
 * Reading: a split is a byte range [start, start + length) of one file. A splittable format
 * reads the records that begin in its range (text: lines, as TextInputFormat; Parquet: the row
 * groups whose midpoint lies in it, as Spark's ParquetFileFormat); a format that is not
 * splittable (compressed text, multiLine) is only ever given whole files. The reader returns
 * batches of req->read_schema's columns, in that order, at most req->batch_rows rows each.
 * Filters are advice: a reader may skip row groups and pages no row of which can pass them
 * (statistics, dictionaries) but need not filter rows; the caller still evaluates them.
 *
 * Writing: open a file, write batches of the schema it was opened with, close. close with
 * commit=false (a failed task) removes what was written. The extension is the part file's suffix
 * ("snappy.parquet", "csv.gz", ...).
 *
 * Errors: one line naming the file (and the column, row group or line) and what is wrong.
 * Ownership: a reader's and a writer's state belong to the format between open and close; the
 * batches a reader returns carry one reference each for the caller; the request, split, options
 * and schemas are borrowed for the reader's or writer's life.
 */
#ifndef CSPARK_FORMATS_FILE_FORMAT_H
#define CSPARK_FORMATS_FILE_FORMAT_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/col_memory.h"
#include "columnar/col_type.h"
#include "columnar/column.h"
#include "common/err.h"
#include "common/strutil.h"

/* A data source's options as the user gave them (keys case-insensitive, Spark's names). */
typedef struct cs_format_options {
    const char *const *keys;
    const char *const *values;
    int n;
} cs_format_options;

/* The value of key (case-insensitive), or NULL. */
const char *cs_format_option(const cs_format_options *o, const char *key);

/* A literal of a pushed-down filter, typed as the column it is compared with. */
typedef struct cs_scalar {
    cs_type_id type;
    bool is_null;
    int64_t i64;         /* boolean, byte..long, date (days), timestamps (microseconds) */
    double f64;          /* float, double */
    __int128 dec;        /* decimal: the unscaled value at the column's scale */
    const uint8_t *data; /* string, binary (borrowed) */
    int32_t len;
} cs_scalar;

/* Spark's data source filters (org.apache.spark.sql.sources.Filter) on one top-level column. */
typedef enum cs_filter_op {
    CS_FILTER_EQ,
    CS_FILTER_NULL_SAFE_EQ,
    CS_FILTER_LT,
    CS_FILTER_LE,
    CS_FILTER_GT,
    CS_FILTER_GE,
    CS_FILTER_IS_NULL,
    CS_FILTER_IS_NOT_NULL,
    CS_FILTER_IN /* values[0..n_values) */
} cs_filter_op;

typedef struct cs_scan_filter {
    const char *column; /* a field of the data schema */
    cs_filter_op op;
    const cs_scalar *values; /* one, or n_values for IN; none for the null tests */
    int n_values;
} cs_scan_filter;

/* One byte range of one file. */
typedef struct cs_file_split {
    const char *uri;
    uint64_t start, length;
    uint64_t file_size;
} cs_file_split;

/* Late materialization (optional; a format that ignores it returns every row as usual). The
 * scan reads columns[0..n_columns) (top-level read_schema ordinals, rising) of each batch first
 * and asks `test` about a batch of just those columns; when *any comes back false no row of
 * those is wanted, so the scan passes over the batch's other columns without decoding them and
 * returns nothing for its rows. When some row may be wanted the whole batch is returned (the
 * operators above still apply their conditions). `bound`, when set, gives a conjunct every
 * wanted row satisfies now (a top-N's worst kept key) for passing over whole row groups by their
 * statistics: false when there is none yet; *nulls_pass says rows whose column is null are
 * wanted too. f's values are borrowed until the next call of test or bound. */
typedef struct cs_scan_late_counts {
    int64_t row_groups; /* passed over by the bound */
    int64_t rows;       /* of row groups read, rows the test let go (only its columns decoded) */
} cs_scan_late_counts;

typedef struct cs_scan_late_filter {
    cs_scan_late_counts *counts; /* the format adds what it passed over (may be NULL) */
    const int *columns;
    int n_columns;
    int (*test)(void *arg, cs_col_batch *early, bool *any, cs_error *err);
    bool (*bound)(void *arg, cs_scan_filter *f, bool *nulls_pass);
    void *arg;
} cs_scan_late_filter;

typedef struct cs_scan_request {
    const cs_col_type *data_schema; /* the file's columns as the data source knows them */
    const cs_col_type *read_schema; /* the columns to return: fields of data_schema, by name */
    const cs_scan_filter *filters;  /* a conjunction; may be NULL */
    int n_filters;
    int64_t batch_rows; /* rows per batch at most (Spark's 4096 when 0) */
    cs_col_allocator *alloc;
    const cs_format_options *options;
    const cs_scan_late_filter *late; /* may be NULL */
} cs_scan_request;

typedef struct cs_file_format {
    const char *name; /* Spark's short name */

    /* The schema of the files uris[0..n) (options say how: header, inferSchema, mergeSchema). */
    int (*infer_schema)(const char *const *uris, int n, const cs_format_options *options,
                        cs_col_type **out, cs_error *err);
    /* May this file be cut into byte ranges? */
    bool (*is_splittable)(const char *uri, const cs_format_options *options);

    /* Read one split: open, next until it returns 0 (1: *out is a batch; -1: err), close. */
    int (*open_reader)(const cs_file_split *split, const cs_scan_request *req, void **reader,
                       cs_error *err);
    int (*next_batch)(void *reader, cs_col_batch **out, cs_error *err);
    void (*close_reader)(void *reader);

    /* Write one file of `schema`'s columns. */
    void (*extension)(const cs_format_options *options, cs_sbuf *out);
    int (*open_writer)(const char *uri, const cs_col_type *schema, const cs_format_options *options,
                       void **writer, cs_error *err);
    int (*write_batch)(void *writer, const cs_col_batch *batch, cs_error *err);
    int (*close_writer)(void *writer, bool commit, cs_error *err);
} cs_file_format;

/* The format called name: its short name (case-insensitive), Spark's class name for it or one of
 * the older names Spark maps to that class ("org.apache.spark.sql.json"); NULL when none. */
const cs_file_format *cs_file_format_find(const char *name);

#endif /* CSPARK_FORMATS_FILE_FORMAT_H */
