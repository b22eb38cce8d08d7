/*
 * catalog.h — a session's catalog, as Spark's SessionCatalog: the databases `default` (the
 * current one) and `global_temp`, temporary views (session-scoped), global temporary views
 * (`global_temp.v`), and tables created with `CREATE TABLE t USING parquet|csv|json|text
 * [OPTIONS (...)] LOCATION 'path'` over files, whose schema is inferred from the files by the
 * format (src/formats infer_schema over the data source's file listing) unless declared.
 * Names are case-insensitive (stored lower case) as Spark's default.
 *
 * The catalog also hands out the session's expression ids (Spark's ExprId counter), so that
 * every attribute the analyzer makes in a session is unique.
 *
 * It also keeps the session's temporary functions: Python UDFs registered by name
 * (spark.udf.register, Spark Connect's RegisterFunction), which SQL calls by that name before
 * a builtin function of the same name, as Spark's session function registry.
 *
 * Lookups (cs_catalog_lookup_relation) follow Spark's order: a one-part name is a temporary
 * view, else a table of the current database; `global_temp.v` a global temporary view; `db.t`
 * a table of db.
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
    int64_t size_bytes; /* sum of the files' sizes when listed, -1 unknown */
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
const char *cs_catalog_current_database(const cs_catalog *c);

/* The relation called parts[0..n) (case-insensitive), or NULL. */
cs_catalog_table *cs_catalog_lookup_relation(cs_catalog *c, const char *const *parts, int n);
/* The entries in creation order, dropped ones included (`dropped` set), for SHOW TABLES:
 * 0 <= i < cs_catalog_count(c). */
int cs_catalog_count(const cs_catalog *c);
const cs_catalog_table *cs_catalog_entry(const cs_catalog *c, int i);
/* The database name exists ("default", "global_temp"). */
bool cs_catalog_database_exists(const cs_catalog *c, const char *db);

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

/* DROP TABLE|VIEW [IF EXISTS] name: TABLE_OR_VIEW_NOT_FOUND unless if_exists. */
int cs_catalog_drop(cs_catalog *c, const char *const *parts, int n, bool if_exists, cs_error *err);

/* A relation over files at path in format (parquet.`path`), made in the query's arena:
 * PATH_NOT_FOUND when the path does not exist; the schema inferred by the format unless
 * declared (borrowed); the reader's options keys/values[0..n_options) (borrowed from the
 * arena) as a table's OPTIONS. */
cs_catalog_table *cs_catalog_path_relation(cs_sql_arena *a, const char *format, const char *path,
                                           const char *const *keys, const char *const *values,
                                           int n_options, cs_col_type *declared, cs_error *err);

/* A temporary function: a Python UDF called by name. */
typedef struct cs_catalog_function {
    const char *name;             /* as registered (matched case-insensitively) */
    const cs_sql_python_udf *udf; /* its command, copied into the catalog */
    cs_col_type *type;            /* its result type, kept by the catalog */
    struct cs_catalog_function *next;
} cs_catalog_function;

/* spark.udf.register(name, f): the Python UDF udf (copied) returning type (a reference taken)
 * becomes the temporary function `name`, replacing one of that name. */
void cs_catalog_create_temp_function(cs_catalog *c, const char *name, const cs_sql_python_udf *udf,
                                     cs_col_type *type);
/* The temporary function called name (case-insensitive), or NULL. */
const cs_catalog_function *cs_catalog_lookup_function(const cs_catalog *c, const char *name);

/* Spark's TABLE_OR_VIEW_NOT_FOUND for parts[0..n) ("`t`", "`db`.`t`"). */
int cs_catalog_not_found_error(const char *const *parts, int n, cs_error *err);

#endif /* CSPARK_SQL_CATALOG_H */
