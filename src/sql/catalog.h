/*
 * catalog.h — a session's catalog, as Spark's SessionCatalog: its databases (`default`, always
 * there, and those made by CREATE DATABASE, each with a comment, a location and properties;
 * `global_temp` holds the global temporary views and is no database one can create or list),
 * the current database (USE db), temporary views (session-scoped), global temporary views
 * (`global_temp.v`), and tables of a database over files: external ones (`CREATE TABLE t USING
 * parquet|csv|json|text [OPTIONS (...)] LOCATION 'path'`) and managed ones, whose folder is the
 * database's (`<warehouse>/t` for default, `<db location>/t` for the others, as Spark's
 * `<warehouse>/<db>.db/t`), made and removed by the session. A table's schema is inferred from
 * its files by the format (src/formats infer_schema over the data source's file listing) unless
 * declared. Names are case-insensitive (stored lower case) as Spark's default.
 *
 * The catalog also hands out the session's expression ids (Spark's ExprId counter), so that
 * every attribute the analyzer makes in a session is unique.
 *
 * It also keeps the session's functions: temporary ones, Python UDFs registered by name
 * (spark.udf.register, Spark Connect's RegisterFunction), which SQL calls by that name before
 * a builtin function of the same name, as Spark's session function registry; and persistent
 * ones (CREATE FUNCTION [db.]f AS 'class'), recorded with their class name in their database as
 * Spark's external catalog records them (the class is never loaded: calling one is the
 * analyzer's CANNOT_LOAD_FUNCTION_CLASS).
 *
 * Lookups (cs_catalog_lookup_relation) follow Spark's order: a one-part name is a temporary
 * view, else a table of the current database; `global_temp.v` a global temporary view; `db.t`
 * a table of db; `spark_catalog.db.t` the same.
 *
 * Ownership: the catalog owns its entries; a view owns the arena its (unresolved) plan lives
 * in; entries live until the catalog is freed (a dropped entry is only unlinked, since plans in
 * flight may point to it). Single-threaded: one session's statements run one at a time.
 * Called by the analyzer (lookups, path relations) and by cspark-sql's command execution
 * (CREATE/DROP).
 */
#ifndef CSPARK_SQL_CATALOG_H
#define CSPARK_SQL_CATALOG_H

#include <stdbool.h>

#include "columnar/col_type.h"
#include "common/err.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"

#define CS_CATALOG_DEFAULT_DB "default"
#define CS_CATALOG_GLOBAL_TEMP_DB "global_temp"

typedef enum cs_catalog_kind {
    CS_CATALOG_TABLE,     /* files at a location, in a format */
    CS_CATALOG_TEMP_VIEW, /* a query; database NULL (global_temp for global ones) */
    CS_CATALOG_PATH       /* an anonymous relation over a path: parquet.`/data/x` */
} cs_catalog_kind;

struct cs_catalog_table {
    cs_catalog_kind kind;
    const char *database; /* "default", "global_temp", or NULL for a session temp view */
    const char *name;     /* lower case */
    /* TABLE, PATH */
    const char *format;
    const char *location;
    int n_options;
    const char **option_keys, **option_values;
    cs_col_type *schema; /* struct: data columns then partition columns (kept by the arena) */
    int n_partition_columns;
    /* TABLE: clustering columns (Spark 4's ClusterBySpec of saveAsTable's clusterBy), names as
     * the table's columns spell them; the files are written as without them */
    int n_cluster_columns;
    const char **cluster_columns;
    /* TABLE: bucketed (Spark's BucketSpec; num_buckets 0: not): writes put each row in the file
     * of its bucket, sorted by the sort columns; names as the table's columns spell them */
    int num_buckets;
    int n_bucket_columns, n_sort_columns;
    const char **bucket_columns, **sort_columns;
    int64_t size_bytes;  /* sum of the files' sizes when listed, -1 unknown */
    bool managed;        /* TABLE: its folder is the catalog's (dropped with it) */
    int64_t created_s;   /* TABLE: when it was created (seconds since the epoch) */
    const char *comment; /* TABLE: COMMENT '...' (Spark's description), or NULL */
    /* CACHE TABLE / spark.catalog.cacheTable (TABLE, TEMP_VIEW): the rows kept, one reference
     * each, which queries read in place of the relation (the analyzer makes them a local
     * relation) until it is uncached or refreshed, as Spark's CacheManager serves them */
    bool cached;
    int n_cached_batches;
    cs_col_batch **cached_batches;
    /* TEMP_VIEW: the query as written (unresolved), resolved again at each reference */
    const cs_logical_plan *view_plan;
    int n_view_columns; /* CREATE VIEW v (a, b) */
    const char **view_columns;
    cs_sql_arena *view_arena; /* owns view_plan; freed with the catalog */
    bool dropped;
};

typedef struct cs_catalog cs_catalog;

cs_catalog *cs_catalog_new(void);
void cs_catalog_free(cs_catalog *c);

/* The session's next expression id (1, 2, ...). */
int64_t cs_catalog_next_expr_id(cs_catalog *c);
/* The session's spark.sql.ansi.enabled (true unless set false), which the analyzer's type
 * coercion follows; set by the session when the conf changes. */
void cs_catalog_set_ansi(cs_catalog *c, bool ansi);
bool cs_catalog_ansi(const cs_catalog *c);
/* The session's spark.sql.adaptive.enabled (true unless set false): the REBALANCE hint is
 * resolved only then, as Spark's; set by the session with the ANSI mode. */
void cs_catalog_set_adaptive(cs_catalog *c, bool adaptive);
bool cs_catalog_adaptive(const cs_catalog *c);
const char *cs_catalog_current_database(const cs_catalog *c);

/* The relation called parts[0..n) (case-insensitive), or NULL. */
cs_catalog_table *cs_catalog_lookup_relation(cs_catalog *c, const char *const *parts, int n);
/* The entries in creation order, dropped ones included (`dropped` set), for SHOW TABLES:
 * 0 <= i < cs_catalog_count(c). */
int cs_catalog_count(const cs_catalog *c);
const cs_catalog_table *cs_catalog_entry(const cs_catalog *c, int i);
/* The database name exists ("default", "global_temp", or one created and not dropped). */
bool cs_catalog_database_exists(const cs_catalog *c, const char *db);

/* A database: name lower case; location a path or URI as given (the default one's is the
 * warehouse); properties from WITH DBPROPERTIES. Kept by the catalog. */
typedef struct cs_catalog_database {
    const char *name, *comment, *location;
    int n_properties;
    const char **property_keys, **property_values;
    bool dropped;
} cs_catalog_database;

/* The warehouse (spark.sql.warehouse.dir made absolute, copied): the default database's
 * location and the parent of the other databases' default locations. Set by the session. */
void cs_catalog_set_warehouse(cs_catalog *c, const char *warehouse);
/* The databases in creation order, dropped ones included (`dropped` set), `default` first,
 * `global_temp` never: 0 <= i < cs_catalog_database_count(c). */
int cs_catalog_database_count(const cs_catalog *c);
const cs_catalog_database *cs_catalog_database_at(const cs_catalog *c, int i);
/* The database called name (case-insensitive), or NULL. */
const cs_catalog_database *cs_catalog_find_database(const cs_catalog *c, const char *name);
/* CREATE DATABASE [IF NOT EXISTS] name [COMMENT] [LOCATION] [WITH DBPROPERTIES]: location NULL
 * is <warehouse>/<name>.db. SCHEMA_ALREADY_EXISTS unless if_not_exists (then 0, nothing
 * changed: *created false); global_temp is refused as Spark's. Everything is copied. */
int cs_catalog_create_database(cs_catalog *c, const char *name, const char *comment,
                               const char *location, const char *const *keys,
                               const char *const *values, int n, bool if_not_exists, bool *created,
                               cs_error *err);
/* DROP DATABASE [IF EXISTS] name [CASCADE]: SCHEMA_NOT_FOUND unless if_exists; default is
 * UNSUPPORTED_FEATURE.DROP_DATABASE; SCHEMA_NOT_EMPTY when it holds tables or functions and
 * !cascade (with cascade they are dropped too). *dropped: the database, NULL when it did not
 * exist (borrowed: the caller removes its folder and its managed tables' folders). */
int cs_catalog_drop_database(cs_catalog *c, const char *name, bool if_exists, bool cascade,
                             const cs_catalog_database **dropped, cs_error *err);
/* USE db: SCHEMA_NOT_FOUND when it does not exist. */
int cs_catalog_set_current_database(cs_catalog *c, const char *name, cs_error *err);
/* The folder of managed table name of database db (an existing one): "<location>/<name>" with
 * the name lower case. Made in arena a. */
const char *cs_catalog_managed_location(const cs_catalog *c, cs_sql_arena *a, const char *db,
                                        const char *name);
/* Spark's SCHEMA_NOT_FOUND for db ("The schema `spark_catalog`.`db` cannot be found..."). */
int cs_catalog_schema_not_found_error(const char *db, cs_error *err);
/* The database a table name of n parts is in: parts[n-2] when qualified, else the current. */
const char *cs_catalog_database_of(const cs_catalog *c, const char *const *parts, int n);

/* CREATE [OR REPLACE] [GLOBAL] TEMPORARY VIEW name [(columns)] AS plan: takes over arena (which
 * holds plan) also on failure. TABLE_OR_VIEW_ALREADY_EXISTS when it exists and !replace. */
int cs_catalog_create_temp_view(cs_catalog *c, const char *name, bool global, bool replace,
                                const char *const *columns, int n_columns,
                                const cs_logical_plan *plan, cs_sql_arena *arena, cs_error *err);

/* CREATE TABLE [IF NOT EXISTS] [db.]name [(schema)] USING format [OPTIONS] LOCATION location:
 * lists the files and infers the schema (and partition columns) when schema is NULL.
 * TABLE_OR_VIEW_ALREADY_EXISTS when it exists (0 with if_not_exists), PATH_NOT_FOUND when the
 * location does not exist; nothing is created on failure. schema is borrowed (copied by
 * reference). */
int cs_catalog_create_table(cs_catalog *c, const char *const *parts, int n_parts,
                            const char *format, const char *location, const char *const *keys,
                            const char *const *values, int n_options, cs_col_type *schema,
                            bool if_not_exists, cs_error *err);

/* A table's details beyond its files: managed (the catalog owns its folder) and its comment
 * (copied; NULL none). */
void cs_catalog_table_describe(cs_catalog *c, cs_catalog_table *t, bool managed,
                               const char *comment);
/* Records t's clustering columns names[0..n) (copied). */
void cs_catalog_table_cluster_by(cs_catalog *c, cs_catalog_table *t, const char *const *names,
                                 int n);

/* Records t's bucket spec: num_buckets buckets by bucket[0..nb), sorted by sort[0..ns)
 * (copied). */
void cs_catalog_table_bucket_by(cs_catalog *c, cs_catalog_table *t, int num_buckets,
                                const char *const *bucket, int nb, const char *const *sort, int ns);

/* t's rows kept: batches[0..n) (references taken over; the array is copied), replacing any
 * kept before; cs_catalog_table_uncache releases them (t->cached false). */
void cs_catalog_table_cache(cs_catalog_table *t, cs_col_batch *const *batches, int n);
void cs_catalog_table_uncache(cs_catalog_table *t);

/* DROP TABLE|VIEW [IF EXISTS] name: TABLE_OR_VIEW_NOT_FOUND unless if_exists. */
int cs_catalog_drop(cs_catalog *c, const char *const *parts, int n, bool if_exists, cs_error *err);

/* A relation over files at path in format (parquet.`path`), made in the query's arena:
 * PATH_NOT_FOUND when the path does not exist; the schema inferred by the format unless
 * declared (borrowed); the reader's options keys/values[0..n_options) (borrowed from the
 * arena) as a table's OPTIONS. */
cs_catalog_table *cs_catalog_path_relation(cs_sql_arena *a, const char *format, const char *path,
                                           const char *const *keys, const char *const *values,
                                           int n_options, cs_col_type *declared, cs_error *err);

/* A function of the session: a temporary one (database NULL) is a Python UDF called by name; a
 * persistent one (database set) is a class name recorded in its database. */
typedef struct cs_catalog_function {
    const char *name;             /* as registered (matched case-insensitively) */
    const char *database;         /* persistent: its database (lower case); NULL: temporary */
    const char *class_name;       /* persistent: the class of CREATE FUNCTION ... AS 'class' */
    const cs_sql_python_udf *udf; /* temporary: its command, copied into the catalog */
    cs_col_type *type;            /* temporary: its result type, kept by the catalog */
    bool dropped;
    struct cs_catalog_function *next;
} cs_catalog_function;

/* The functions, the newest first, dropped and replaced ones included (`dropped` set). */
const cs_catalog_function *cs_catalog_functions(const cs_catalog *c);
/* CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS] db.name AS 'class_name' (db exists):
 * ROUTINE_ALREADY_EXISTS when it exists unless replace or if_not_exists. Copied. */
int cs_catalog_create_function(cs_catalog *c, const char *db, const char *name,
                               const char *class_name, bool replace, bool if_not_exists,
                               cs_error *err);
/* The persistent function db.name (case-insensitive), or NULL. */
const cs_catalog_function *cs_catalog_lookup_persistent_function(const cs_catalog *c,
                                                                 const char *db, const char *name);
/* DROP FUNCTION: the persistent function db.name, or (db NULL) the temporary function name;
 * 1 when it was dropped, 0 when there was none (the caller says Spark's error). */
int cs_catalog_drop_function(cs_catalog *c, const char *db, const char *name);

/* spark.udf.register(name, f): the Python UDF udf (copied) returning type (a reference taken)
 * becomes the temporary function `name`, replacing one of that name. */
void cs_catalog_create_temp_function(cs_catalog *c, const char *name, const cs_sql_python_udf *udf,
                                     cs_col_type *type);
/* The temporary function called name (case-insensitive, not dropped), or NULL. */
const cs_catalog_function *cs_catalog_lookup_function(const cs_catalog *c, const char *name);

/* Spark's UNRESOLVED_ROUTINE for the function parts[0..n), naming the current database's
 * search path. */
int cs_catalog_unresolved_routine_error(const cs_catalog *c, const char *const *parts, int n,
                                        cs_error *err);
/* Spark's TABLE_OR_VIEW_NOT_FOUND for parts[0..n) ("`t`", "`db`.`t`"). */
int cs_catalog_not_found_error(const char *const *parts, int n, cs_error *err);

#endif /* CSPARK_SQL_CATALOG_H */
