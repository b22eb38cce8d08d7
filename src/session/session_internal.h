/*
 * session_internal.h — private to src/session: the session's state and what its files share
 * (sql_session.c: statements and commands; query_run.c: queries from the analyzed plan to
 * jobs; result_rows.c: building a command's rows; table_write.c: the statements that write
 * files; query_write.c: a query's final stage written by its tasks and committed;
 * query_local.c: a query of local rows answered on the driver without a job;
 * catalog_commands.c: the commands over databases and functions; job_collect.c: a job
 * collecting a stage's records on the driver; bucket_write.c: bucketed tables' checks and write
 * plans; table_describe.c: DESCRIBE EXTENDED's table details and SHOW CREATE TABLE).
 */
#ifndef CSPARK_SESSION_SESSION_INTERNAL_H
#define CSPARK_SESSION_SESSION_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "columnar/col_builder.h"
#include "datasource/ds_commit.h"
#include "formats/file_format.h"
#include "plan/task.h"
#include "session/sql_conf.h"
#include "session/sql_session.h"
#include "sql/catalog.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"

struct cs_session_final_stage; /* below */
struct cs_sql_session {
    cspark_context *sc; /* borrowed */
    cs_catalog *catalog;
    cs_sql_conf *conf;
    char job_group[96]; /* the jobs' group when set (cs_sql_session_set_job_group) */
    /* set by cs_session_run_query_final (query_write.c) for the duration of one query: its
     * final stage goes to write_stage instead of being collected */
    int (*write_stage)(void *arg, const struct cs_session_final_stage *stage, cs_error *err);
    void *write_arg;
};

/* The next SQL execution id (sql_session.c): the process's, as Spark's SQLExecution ids, so that
 * the queries of sessions running at once never share one in the events, the UI or job groups. */
int64_t cs_session_next_execution_id(void);

/* Runs a resolved query (analyzed in arena a): optimizes, plans and runs it, collecting its
 * rows into *out (query_run.c). text: the statement, for the jobs' description. */
int cs_session_run_query(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *analyzed,
                         const char *text, cs_sql_result *out, cs_error *err);
/* Whether a physical plan is answered on the driver without a job (query_local.c): a LOCAL leaf
 * under filters, projections, limits and single-partition exchanges only. */
struct cs_phys_node;
bool cs_session_plan_local(const struct cs_phys_node *plan);
/* Runs such a plan's operators on the driver (plan taken over, freed), appending its non-empty
 * batches to *out and setting out->schema when unset; 0, or a negative code with err holding
 * Spark's error (the same as the query's task would have raised). */
int cs_session_run_local(cs_sql_session *s, struct cs_phys_node *plan, cs_sql_result *out,
                         cs_error *err);
/* A job failed: when a task's message carries Spark's "[CLASS] ... SQLSTATE: xxxxx", err becomes
 * that error (class, state, message from the class on), as Spark rethrows the task's
 * SparkThrowable; a job cancelled on request becomes SPARK_JOB_CANCELLED. Returns err->code. */
int cs_session_job_error(cs_error *err);
/* The records of a stage node collected by cs_session_collect: per partition, the batch its
 * task returned (owned until cs_session_collected_free). */
typedef struct cs_session_collected {
    cs_batch *parts;
    int n;
} cs_session_collected;
/* Runs a job over every partition of r with props (borrowed for the call), collecting their
 * records into *c (always set up: free it whatever the outcome); 0, or the job's error mapped by
 * cs_session_job_error (CS_ECANCELLED when the application is stopping). Any thread. */
struct job_properties;
struct cspark_rdd;
int cs_session_collect(cspark_context *sc, struct cspark_rdd *r, const struct job_properties *props,
                       cs_session_collected *c, cs_error *err);
void cs_session_collected_free(cs_session_collected *c);
/* The final stage of a query, for a consumer other than collecting (query_write.c): its lineage
 * node, the schema of its batches (each record's value one cs_sql_batch_encode'd batch) and the
 * properties its job runs with, and the query's lineage, where a node the consumer makes goes
 * (freed with the query's). All borrowed for the call. */
struct job_properties;
struct cspark_rdd;
typedef struct cs_session_final_stage {
    cspark_context *sc;
    struct cspark_rdd *rdd;
    const cs_col_type *schema;
    const struct job_properties *props;
    struct cs_query_lineage *lineage;
} cs_session_final_stage;
typedef int (*cs_session_final_fn)(void *arg, const cs_session_final_stage *stage, cs_error *err);
/* cs_session_run_query with the final stage handed to fn instead of collected (out is the
 * empty result of a write; the SQL execution events and the jobs' error mapping the same). */
int cs_session_run_query_final(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *analyzed,
                               const char *text, cs_session_final_fn fn, void *arg, cs_error *err);
/* ---- writing a query's rows as files (query_write.c) ---- */
typedef struct cs_session_write {
    const char *format; /* the data source: parquet, csv, json, ... */
    cs_format_options options;
    const char *path; /* the output directory, as written */
    cs_ds_save_mode mode;
    const char *const *partition_by;
    int n_partition_by;
    const char *table;       /* the catalog table written (its name), NULL: a path */
    bool replaces;           /* the write replaces folders of the path (a static partition's) */
    const char *clear_first; /* a folder removed before the job (a static partition's), or NULL */
    /* bucketed (num_buckets > 0; bucket_write.c): the columns as the query's output spells
     * them (checked by cs_session_bucket_columns) */
    int num_buckets;
    const char *const *bucket_by;
    int n_bucket_by;
    const char *const *sort_by;
    int n_sort_by;
} cs_session_write;
/* Runs the resolved query `analyzed`, its final stage's tasks writing files under w->path, and
 * commits the job (or aborts it on failure, leaving nothing behind). A write that replaces
 * what the query reads is Spark's UNSUPPORTED_OVERWRITE, refused before anything changes. */
int cs_session_write_query(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *analyzed,
                           const char *text, const cs_session_write *w, cs_error *err);
/* ---- bucketed writes (bucket_write.c) ---- */
/* Spark's BucketSpec checks of a CREATE TABLE's (or saveAsTable's) bucketing against the
 * table's columns cols (the data columns and then the partition columns): the number of buckets
 * in (0, spark.sql.sources.bucketing.maxBuckets], each bucket and sort column one of the table's
 * (COLUMN_NOT_DEFINED_IN_TABLE) and none a partition column; sortBy without bucketBy. On
 * success the statement's columns as the table spells them, in *bucket and *sort (arena a). */
int cs_session_bucket_columns(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                              const char *db, const cs_col_type *cols, const char ***bucket,
                              const char ***sort, cs_error *err);
/* The name of the int column a bucketed write's plan adds: each row's bucket id. */
#define CS_SESSION_BUCKET_ID_COLUMN "_cspark_bucket_id_"
/* analyzed topped for w's bucketed write, as Spark's FileFormatWriter orders it: its columns and
 * the bucket id pmod(hash(bucket columns), n) (Murmur3, HashPartitioning's), sorted within each
 * task by the sort columns; *out in arena a. */
int cs_session_bucketed_plan(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *analyzed,
                             const cs_session_write *w, cs_logical_plan **out, cs_error *err);
/* ---- statements that write (table_write.c) ---- */
/* INSERT OVERWRITE DIRECTORY (and Connect's save(path)). */
int cs_session_insert_directory(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                                const char *text, cs_error *err);
/* CREATE TABLE ... AS query (and Connect's saveAsTable); on success the catalog borrows from a
 * (the caller keeps the arena). */
int cs_session_create_table_as(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                               const char *text, cs_error *err);
/* INSERT INTO|OVERWRITE a catalog table over files. */
int cs_session_insert_table(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                            const char *text, cs_error *err);
/* EXPLAIN [EXTENDED] of a statement's query: the plans as Spark prints them, appended to out. */
int cs_session_explain(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *parsed,
                       const char *mode, cs_sbuf *out, cs_error *err);

/* ---- databases and functions (catalog_commands.c) ---- */
/* A location as Spark shows it: "file:" before an absolute local path. Appended to out. */
void cs_session_location_uri(const char *location, cs_sbuf *out);
/* path made absolute against the current directory (a file: URI as its path), in arena a. */
const char *cs_session_absolute_path(cs_sql_arena *a, const char *path);
int cs_session_create_database(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                               cs_error *err);
/* DROP TABLE|VIEW|DATABASE|FUNCTION (st->mode). */
int cs_session_drop(cs_sql_session *s, const cs_sql_statement *st, cs_error *err);
/* DROP TABLE|VIEW of the relation parts[0..n): the catalog's entry, and a managed table's
 * folder with it (as Spark's catalog deletes it); TABLE_OR_VIEW_NOT_FOUND unless if_exists. */
int cs_session_drop_relation(cs_sql_session *s, const char *const *parts, int n, bool if_exists,
                             cs_error *err);
int cs_session_use(cs_sql_session *s, const cs_sql_statement *st, cs_error *err);
int cs_session_show_databases(cs_sql_session *s, const cs_sql_statement *st, cs_sql_result *out,
                              cs_error *err);
int cs_session_describe_database(cs_sql_session *s, const cs_sql_statement *st, cs_sql_result *out,
                                 cs_error *err);
/* CREATE [TEMPORARY] FUNCTION f AS 'class' (SQL's; a Python UDF's is sql_session.c's). */
int cs_session_create_function(cs_sql_session *s, const cs_sql_statement *st, cs_error *err);
int cs_session_show_functions(cs_sql_session *s, const cs_sql_statement *st, cs_sql_result *out,
                              cs_error *err);
int cs_session_describe_function(cs_sql_session *s, const cs_sql_statement *st, cs_sql_result *out,
                                 cs_error *err);

/* ---- a command's rows (result_rows.c) ---- */
typedef struct cs_rows_builder {
    cs_col_type *schema;
    cs_col_builder **cols;
    int n_cols;
    int64_t rows;
} cs_rows_builder;

/* Columns named names[0..n) of types[i] (borrowed ids: string, boolean, ...). */
void cs_rows_begin(cs_rows_builder *b, const char *const *names, const cs_type_id *types, int n);
void cs_rows_string(cs_rows_builder *b, int col, const char *s); /* NULL: null */
void cs_rows_bool(cs_rows_builder *b, int col, bool v);
void cs_rows_end_row(cs_rows_builder *b);
/* The rows as *out's one batch (schema and batch taken over); the builder is emptied. */
int cs_rows_finish(cs_rows_builder *b, cs_sql_result *out, cs_error *err);
/* A result without columns or rows (what most commands give). */
void cs_rows_none(cs_sql_result *out);
/* Appends b (its reference taken over) to out's batches; an empty batch is released instead. */
void cs_result_take_batch(cs_sql_result *out, cs_col_batch *b);

/* ---- a table's details (table_describe.c) ---- */
/* DESCRIBE TABLE EXTENDED's "# Detailed Table Information" rows of table t (col_name,
 * data_type, comment), appended to b. */
void cs_session_describe_detail(const cs_catalog_table *t, cs_rows_builder *b);
/* SHOW CREATE TABLE t: its one createtab_stmt row. */
int cs_session_show_create_table(cs_sql_session *s, const cs_sql_statement *st, cs_sql_result *out,
                                 cs_error *err);

#endif /* CSPARK_SESSION_SESSION_INTERNAL_H */
