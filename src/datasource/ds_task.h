/*
 * ds_task.h — what a task of a data source does: read one split through its format and append
 * the split's partition values as constant columns (Spark's FileScanRDD with its
 * PartitionedFile's partitionValues), and write batches into part files, routed by partition
 * columns into `name=value` folders (Spark's FileFormatWriter with its dynamic-partition data
 * writer), staged so that nothing is visible until the driver commits the job (ds_commit.h).
 *
 * Part files are named as Spark's: part-<task partition, 5 digits>-<job uuid>[_<bucket id, 5
 * digits>].c<file, 3 digits>.<format extension>. Staging: under
 * <path>/_temporary/0/_temporary/attempt_<task id>/ on the local file system (FileOutputCommitter's
 * task attempt folder), moved into place at job commit; for an object store, in a local folder of
 * the executor, uploaded at task commit as uploads the driver completes (the S3A staging
 * committer's way): the task's commit messages say which.
 *
 * Called by the data source plan kinds (plan/kinds/datasource.c) on task threads. Ownership:
 * readers and writers are the caller's (close/abort); batches returned carry a reference for the
 * caller; specs, schemas and formats are borrowed for the object's life.
 */
#ifndef CSPARK_DATASOURCE_DS_TASK_H
#define CSPARK_DATASOURCE_DS_TASK_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/file_format.h"

/* What a data source node carries to its tasks (packed by plan/kinds/datasource.c). */
typedef struct cs_ds_desc {
    const char *format;
    cs_format_options options;
    const cs_col_type *data_schema;
    const cs_col_type *read_schema;       /* scan */
    const cs_col_batch *partition_values; /* scan: one row per folder; NULL: not partitioned */
    const int *split_partition;           /* scan: per split, its row or -1 */
    int n_splits;
    const char *path; /* write */
    const char *const *partition_by;
    int n_partition_by;
    const char *job_uuid;
    int num_buckets;           /* write: bucketed into this many buckets (0: not bucketed) */
    const char *bucket_column; /* write: the int column of each row's bucket id (not written) */
} cs_ds_desc;

/* A copy of the rows rows[0..n) of c (flat types: every type but array, struct and map), from
 * alloc; NULL + err for a nested type. */
cs_column *cs_ds_column_take(const cs_column *c, const int64_t *rows, int64_t n,
                             cs_col_allocator *alloc, cs_error *err);

/* The columns a scan's batches have: read_schema's, then partition_schema's (may be NULL); one
 * new reference. */
cs_col_type *cs_ds_scan_schema(const cs_col_type *read_schema, const cs_col_type *partition_schema);

typedef struct cs_ds_split_reader cs_ds_split_reader;
/* Opens split through fmt; partition_values (may be NULL) row partition_row (-1: none) gives the
 * constant columns appended to every batch. */
int cs_ds_split_reader_open(const cs_file_format *fmt, const cs_file_split *split,
                            const cs_scan_request *req, const cs_col_batch *partition_values,
                            int partition_row, cs_ds_split_reader **out, cs_error *err);
/* 1 and *out: a batch of read_schema's columns then the partition columns; 0: the end. */
int cs_ds_split_reader_next(cs_ds_split_reader *r, cs_col_batch **out, cs_error *err);
void cs_ds_split_reader_close(cs_ds_split_reader *r);

typedef struct cs_ds_write_spec {
    const cs_file_format *format;
    const cs_format_options *options;
    const char *path;     /* the output directory, normalised (a local path or a URI) */
    const char *job_uuid; /* the same for every task of the job */
    const char *const *partition_by;
    int n_partition_by;
    int task_partition;
    int64_t attempt_id;    /* the task id: names the attempt's staging folder */
    const char *local_dir; /* where an object store's output is staged */
    /* bucketed (Spark's BucketSpec, num_buckets > 0): the int column bucket_column holds each
     * row's bucket id (computed by the query: pmod(hash(bucket columns), n)); it is not
     * written, and each (folder, bucket) gets its own file, named with the bucket's suffix
     * (BucketingUtils: part-...-<uuid>_00003.c000.<ext>) */
    int num_buckets;
    const char *bucket_column;
} cs_ds_write_spec;

/* A commit message: kind CS_DS_COMMIT_LOCAL (value "attempt_<id>/<relative path>": the staged
 * file to move to <path>/<relative path>) or CS_DS_COMMIT_PENDING (an encoded cs_fs_pending). */
#define CS_DS_COMMIT_LOCAL "local"
#define CS_DS_COMMIT_PENDING "pending"
typedef void (*cs_ds_commit_fn)(void *arg, const char *kind, const void *value, size_t len);

typedef struct cs_ds_task_writer cs_ds_task_writer;
/* A writer of batches of `schema` (the data columns and the partition columns). Checks the
 * partition columns as Spark: each a column of the schema, not all of them. */
cs_ds_task_writer *cs_ds_task_writer_new(const cs_ds_write_spec *spec, const cs_col_type *schema,
                                         cs_error *err);
int cs_ds_task_writer_write(cs_ds_task_writer *w, const cs_col_batch *b, cs_error *err);
/* Closes every file (task commit) and hands each one's commit message to fn; frees w. */
int cs_ds_task_writer_commit(cs_ds_task_writer *w, cs_ds_commit_fn fn, void *arg, int64_t *rows,
                             cs_error *err);
/* Removes everything written and staged; frees w. NULL is fine. */
void cs_ds_task_writer_abort(cs_ds_task_writer *w);

/* The text of value `row` of c as a partition folder shows it (Spark's cast to string: ints,
 * Java doubles, ISO dates, "yyyy-MM-dd HH:mm:ss[.f]" timestamps in UTC); false when null. */
bool cs_ds_value_text(const cs_column *c, int64_t row, cs_sbuf *out);

#endif
