/*
 * connect_catalog.c — the catalog relations of Spark Connect (spark.catalog in a PySpark client:
 * Relation.catalog), which Spark's server answers itself as SparkConnectPlanner.transformCatalog
 * does through CatalogImpl, from the session's catalog, on the work's thread. Each answer is one
 * batch whose columns are those of Spark's Dataset for the call:
 *
 *   currentDatabase() / setCurrentDatabase(db)   one string / nothing (SCHEMA_NOT_FOUND)
 *   listDatabases([pattern]), getDatabase(name)  name, catalog, description, locationUri
 *   databaseExists(name)                         one boolean ("db" or "spark_catalog.db")
 *   listTables([db], [pattern]), getTable(name)  name, catalog, namespace (array<string>),
 *                                                description, tableType, isTemporary
 *   tableExists(name, [db])                      one boolean
 *   listColumns(table, [db])                     name, description, dataType (Spark's simple
 *                                                string), nullable, isPartition, isBucket
 *                                                (false), isCluster (saveAsTable's clusterBy)
 *   listFunctions([db], [pattern]), getFunction  name, catalog, namespace, description,
 *                                                className, isTemporary: the builtins first
 *                                                (temporary, no catalog, Spark's class and usage
 *                                                where function_docs.c has them), then the
 *                                                session's temporary and db's persistent ones
 *   functionExists(name, [db])                   one boolean
 *   createTable / createExternalTable            CREATE TABLE run by the session (path: an
 *                                                external table, else a managed one), then
 *                                                the table's rows
 *   dropTempView / dropGlobalTempView            one boolean: whether the view existed
 *   isCached(t)                                  one boolean
 *   cacheTable / uncacheTable / clearCache / refreshTable / refreshByPath / recoverPartitions
 *                                                the session's CACHE / UNCACHE / CLEAR CACHE /
 *                                                REFRESH commands; nothing
 *   currentCatalog / setCurrentCatalog / listCatalogs   spark_catalog, the only catalog
 *
 * Names are Spark's multipart identifiers (`a.b`, back-quoted parts), optionally led by
 * spark_catalog. Errors are Spark's (SCHEMA_NOT_FOUND, TABLE_OR_VIEW_NOT_FOUND,
 * UNRESOLVED_ROUTINE, CATALOG_NOT_FOUND); a call this server cannot answer is refused with
 * UNSUPPORTED_FEATURE naming it. Ownership: the result is the caller's (cs_sql_result_free).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/col_builder.h"
#include "columnar/column.h"
#include "connect/connect_internal.h"
#include "connect/plan_internal.h"
#include "spark/connect/catalog.pb-c.h"
#include "spark/connect/relations.pb-c.h"
#include "sql/catalog.h"
#include "sql/function_registry.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"
#include "sqlexec/sql_error.h"

#define SESSION_CATALOG "spark_catalog"

/* ---- the answer's columns ----------------------------------------------------------------- */

typedef struct rows {
    cs_col_field f[8];
    cs_col_builder *b[8];
    int n;
    int64_t count;
} rows;

enum { T_STR, T_BOOL, T_STRS }; /* string, boolean, array<string> */

static void rows_begin(rows *r, const char *const *names, const int *kinds, int n)
{
    memset(r, 0, sizeof *r);
    r->n = n;
    for (int i = 0; i < n; i++) {
        cs_col_type *t = kinds[i] == T_BOOL ? cs_col_type_primitive(CS_TYPE_BOOLEAN)
                         : kinds[i] == T_STRS
                             ? cs_col_type_array(cs_col_type_primitive(CS_TYPE_STRING), true)
                             : cs_col_type_primitive(CS_TYPE_STRING);
        r->f[i] = (cs_col_field){.name = (char *)names[i], .type = t, .nullable = true};
        r->b[i] = cs_col_builder_new(NULL, t);
    }
}

static void put_str(rows *r, int c, const char *s)
{
    if (s)
        cs_col_builder_append_string(r->b[c], s, strlen(s));
    else
        cs_col_builder_append_nulls(r->b[c], 1);
}

static void put_bool(rows *r, int c, bool v)
{
    uint8_t byte = v;
    cs_col_builder_append_values(r->b[c], &byte, 1, NULL);
}

/* an array<string> of one element, or null (s NULL) */
static void put_one_str_list(rows *r, int c, const char *s)
{
    if (!s) {
        cs_col_builder_append_nulls(r->b[c], 1);
        return;
    }
    int32_t one = 1;
    cs_col_builder_append_lists(r->b[c], &one, 1, NULL);
    cs_col_builder_append_string(cs_col_builder_child(r->b[c], 0), s, strlen(s));
}

static int rows_finish(rows *r, cs_sql_result *out, cs_error *err)
{
    cs_column *cols[8];
    for (int i = 0; i < r->n; i++) {
        cols[i] = cs_col_builder_finish(r->b[i]);
        cs_col_builder_free(r->b[i]);
        r->count = cols[i]->length;
    }
    cs_col_type *schema = cs_col_type_struct(r->f, r->n); /* takes the fields' types over */
    cs_col_batch *b = cs_col_batch_new(cs_col_type_ref(schema), cols, r->n, r->count, err);
    if (!b) {
        cs_col_type_unref(schema);
        return err->code ? err->code : CS_EINVAL;
    }
    memset(out, 0, sizeof *out);
    out->schema = schema;
    out->batches = cs_xmalloc(sizeof *out->batches);
    out->batches[0] = b;
    out->n_batches = 1;
    out->num_rows = r->count;
    return 0;
}

static int one_value(const char *name, const char *s, int kind, bool v, cs_sql_result *out,
                     cs_error *err)
{
    rows r;
    const char *names[1] = {name};
    int kinds[1] = {kind};
    rows_begin(&r, names, kinds, 1);
    if (kind == T_BOOL)
        put_bool(&r, 0, v);
    else
        put_str(&r, 0, s);
    return rows_finish(&r, out, err);
}

/* An answer of no columns and no rows (Spark's for the calls that return nothing). */
static int no_rows(cs_sql_result *out, cs_error *err)
{
    rows r;
    rows_begin(&r, NULL, NULL, 0);
    return rows_finish(&r, out, err);
}

/* ---- names ---------------------------------------------------------------------------------- */

/* Spark's multipart identifier: parts between dots, a back-quoted part may hold dots and ``.
 * Parts made in arena a; a leading spark_catalog is dropped when more parts follow it. */
static const char **split_name(cs_sql_arena *a, const char *text, int *n)
{
    size_t len = strlen(text);
    const char **parts = cs_sql_alloc(a, sizeof *parts * (len + 2));
    char *cur = cs_sql_alloc(a, len + 1);
    size_t k = 0;
    int np = 0;
    bool quoted = false;
    for (size_t i = 0; i <= len; i++) {
        char ch = text[i];
        if (quoted && ch == '`' && text[i + 1] == '`') {
            cur[k++] = '`';
            i++;
        } else if (ch == '`') {
            quoted = !quoted;
        } else if ((ch == '.' && !quoted) || ch == '\0') {
            cur[k] = '\0';
            parts[np++] = cur;
            cur = cs_sql_alloc(a, len + 1);
            k = 0;
        } else {
            cur[k++] = ch;
        }
    }
    if (np > 1 && strcasecmp(parts[0], SESSION_CATALOG) == 0) {
        parts++;
        np--;
    }
    *n = np;
    return parts;
}

/* name, or db.name when the call gave a database (tableExists(t, db), listColumns(t, db)). */
static const char **table_parts(cs_sql_arena *a, const char *name, const char *db, int *n)
{
    if (!db || !*db) return split_name(a, name, n);
    const char **parts = cs_sql_alloc(a, sizeof *parts * 2);
    parts[0] = cs_sql_strdup(a, db);
    parts[1] = cs_sql_strdup(a, name);
    *n = 2;
    return parts;
}

/* The database a call names ("db" or "spark_catalog.db"), or NULL with SCHEMA_NOT_FOUND. */
static const cs_catalog_database *database_named(cs_catalog *cat, cs_sql_arena *a, const char *name,
                                                 cs_error *err)
{
    int n;
    const char **parts = split_name(a, name, &n);
    const cs_catalog_database *d = n == 1 ? cs_catalog_find_database(cat, parts[0]) : NULL;
    if (!d) cs_catalog_schema_not_found_error(n == 1 ? parts[0] : name, err);
    return d;
}

/* ---- databases ------------------------------------------------------------------------------ */

static void database_row(rows *r, const cs_catalog_database *d)
{
    put_str(r, 0, d->name);
    put_str(r, 1, SESSION_CATALOG);
    put_str(r, 2, d->comment);
    cs_sbuf uri = CS_SBUF_INIT;
    if (d->location[0] == '/') cs_sbuf_puts(&uri, "file:");
    cs_sbuf_puts(&uri, d->location);
    put_str(r, 3, cs_sbuf_str(&uri));
    cs_sbuf_free(&uri);
}

static void databases_begin(rows *r)
{
    static const char *const names[] = {"name", "catalog", "description", "locationUri"};
    static const int kinds[] = {T_STR, T_STR, T_STR, T_STR};
    rows_begin(r, names, kinds, 4);
}

static int by_database_name(const void *x, const void *y)
{
    const cs_catalog_database *a = *(const cs_catalog_database *const *)x;
    const cs_catalog_database *b = *(const cs_catalog_database *const *)y;
    return strcmp(a->name, b->name);
}

static int list_databases(cs_catalog *cat, const char *pattern, cs_sql_result *out, cs_error *err)
{
    int n = cs_catalog_database_count(cat), k = 0;
    const cs_catalog_database **list = cs_xcalloc((size_t)n + 1, sizeof *list);
    for (int i = 0; i < n; i++) {
        const cs_catalog_database *d = cs_catalog_database_at(cat, i);
        if (!d->dropped && cs_sql_session_like(pattern, d->name)) list[k++] = d;
    }
    qsort(list, (size_t)k, sizeof *list, by_database_name);
    rows r;
    databases_begin(&r);
    for (int i = 0; i < k; i++)
        database_row(&r, list[i]);
    free(list);
    return rows_finish(&r, out, err);
}

/* ---- tables --------------------------------------------------------------------------------- */

static void tables_begin(rows *r)
{
    static const char *const names[] = {"name",        "catalog",   "namespace",
                                        "description", "tableType", "isTemporary"};
    static const int kinds[] = {T_STR, T_STR, T_STRS, T_STR, T_STR, T_BOOL};
    rows_begin(r, names, kinds, 6);
}

static void table_row(rows *r, const cs_catalog_table *t)
{
    bool temp = t->kind == CS_CATALOG_TEMP_VIEW;
    put_str(r, 0, t->name);
    if (temp && !t->database) { /* a session's view: no catalog, no namespace */
        put_str(r, 1, NULL);
        int32_t none = 0;
        cs_col_builder_append_lists(r->b[2], &none, 1, NULL);
    } else {
        put_str(r, 1, temp ? NULL : SESSION_CATALOG);
        put_one_str_list(r, 2, t->database);
    }
    put_str(r, 3, temp ? NULL : t->comment);
    put_str(r, 4, temp ? "TEMPORARY" : t->managed ? "MANAGED" : "EXTERNAL");
    put_bool(r, 5, temp);
}

static int list_tables(cs_catalog *cat, cs_sql_arena *a, const char *db_name, const char *pattern,
                       cs_sql_result *out, cs_error *err)
{
    const char *db = cs_catalog_current_database(cat);
    if (db_name && *db_name) {
        int n;
        const char **parts = split_name(a, db_name, &n);
        db = n == 1 ? parts[0] : db_name;
        if (!cs_catalog_database_exists(cat, db)) return cs_catalog_schema_not_found_error(db, err);
    }
    rows r;
    tables_begin(&r);
    for (int pass = 0; pass < 2; pass++) /* the database's tables, then the session's views */
        for (int i = 0; i < cs_catalog_count(cat); i++) {
            const cs_catalog_table *t = cs_catalog_entry(cat, i);
            bool view = t->kind == CS_CATALOG_TEMP_VIEW && !t->database;
            bool in_db = t->database && strcasecmp(t->database, db) == 0;
            if (t->dropped || t->kind == CS_CATALOG_PATH || (pass == 0 ? !in_db : !view)) continue;
            if (cs_sql_session_like(pattern, t->name)) table_row(&r, t);
        }
    return rows_finish(&r, out, err);
}

static const cs_catalog_table *table_named(cs_catalog *cat, cs_sql_arena *a, const char *name,
                                           const char *db, cs_error *err)
{
    int n;
    const char **parts = table_parts(a, name, db, &n);
    const cs_catalog_table *t = cs_catalog_lookup_relation(cat, parts, n);
    if (!t) cs_catalog_not_found_error(parts, n, err);
    return t;
}

static int list_columns(cs_sql_session *sql, cs_catalog *cat, cs_sql_arena *a, const char *name,
                        const char *db, cs_sql_result *out, cs_error *err)
{
    int n;
    const char **parts = table_parts(a, name, db, &n);
    const cs_catalog_table *t = cs_catalog_lookup_relation(cat, parts, n);
    if (!t) return cs_catalog_not_found_error(parts, n, err);
    cs_logical_plan *p = cs_logical_plan_new(a, CS_LP_UNRESOLVED_RELATION, 0), *resolved;
    p->parts = parts;
    p->n_parts = n;
    int rc = cs_sql_session_analyze(sql, a, p, &resolved, err);
    if (rc < 0) return rc;
    static const char *const names[] = {"name",        "description", "dataType", "nullable",
                                        "isPartition", "isBucket",    "isCluster"};
    static const int kinds[] = {T_STR, T_STR, T_STR, T_BOOL, T_BOOL, T_BOOL, T_BOOL};
    rows r;
    rows_begin(&r, names, kinds, 7);
    int first_partition = t->kind == CS_CATALOG_TABLE && t->schema
                              ? t->schema->n_fields - t->n_partition_columns
                              : resolved->n_output;
    for (int i = 0; i < resolved->n_output; i++) {
        const cs_sql_expr *c = resolved->output[i];
        cs_sbuf type = CS_SBUF_INIT;
        cs_col_type_simple_string(c->type, &type);
        put_str(&r, 0, c->name);
        put_str(&r, 1, NULL);
        put_str(&r, 2, cs_sbuf_str(&type));
        put_bool(&r, 3, c->nullable);
        put_bool(&r, 4, i >= first_partition);
        bool cluster = false;
        for (int k = 0; t->kind == CS_CATALOG_TABLE && k < t->n_cluster_columns; k++)
            cluster |= strcmp(t->cluster_columns[k], c->name) == 0;
        bool bucket = false;
        for (int k = 0; t->kind == CS_CATALOG_TABLE && k < t->n_bucket_columns; k++)
            bucket |= strcmp(t->bucket_columns[k], c->name) == 0;
        put_bool(&r, 5, bucket);
        put_bool(&r, 6, cluster);
        cs_sbuf_free(&type);
    }
    return rows_finish(&r, out, err);
}

/* CREATE TABLE name [(schema)] USING source [OPTIONS] [LOCATION path] [COMMENT], then the
 * table's rows, as Spark's createTable answers with spark.table(name). */
static int create_table(cs_connect_service *svc, cs_sql_session *sql, cs_sql_arena *a,
                        const char *name, const char *path, const char *source,
                        const char *description, const Spark__Connect__DataType *schema,
                        size_t n_options, const char *const *keys, const char *const *values,
                        cs_sql_result *out, cs_error *err)
{
    cs_sql_statement st = {.kind = CS_STMT_CREATE_TABLE, .comment = description};
    st.parts = split_name(a, name, &st.n_parts);
    st.format = source && *source ? source : cs_sql_session_conf(sql, "spark.sql.sources.default");
    if (!st.format) st.format = "parquet";
    st.n_options = (int)n_options;
    st.option_keys = (const char **)keys;
    st.option_values = (const char **)values;
    for (size_t i = 0; !path && i < n_options; i++) /* options(path=...) is the location too */
        if (strcasecmp(keys[i], "path") == 0) path = values[i];
    st.location = path;
    if (schema) {
        cs_connect_plan_ctx ctx = {a, sql, err};
        cs_cp cp;
        cs_cp_begin(&cp, &ctx, NULL, NULL);
        int rc = cs_cp_data_type(&cp, schema, &st.schema);
        if (rc < 0) return rc;
        if (st.schema->id != CS_TYPE_STRUCT)
            return cs_sql_error_set(err, CS_EINVAL, "INVALID_SCHEMA.NON_STRUCT_TYPE", "42K07",
                                    "The input schema is not a valid schema string: a table's "
                                    "schema must be a struct.");
        if (st.schema->n_fields == 0) st.schema = NULL; /* createTable's empty default */
    }
    cs_sql_result none;
    bool kept = false;
    int rc = cs_connect_run_statement(svc, sql, a, &st, "createTable", &none, &kept, err);
    if (rc < 0) return rc;
    cs_sql_result_free(&none);
    cs_sql_statement q = {.kind = CS_STMT_QUERY};
    q.plan = cs_logical_plan_new(a, CS_LP_UNRESOLVED_RELATION, 0);
    q.plan->parts = st.parts;
    q.plan->n_parts = st.n_parts;
    return cs_connect_run_statement(svc, sql, a, &q, "createTable", out, &kept, err);
}

/* ---- functions ------------------------------------------------------------------------------ */

static void functions_begin(rows *r)
{
    static const char *const names[] = {"name",        "catalog",   "namespace",
                                        "description", "className", "isTemporary"};
    static const int kinds[] = {T_STR, T_STR, T_STRS, T_STR, T_STR, T_BOOL};
    rows_begin(r, names, kinds, 6);
}

static void builtin_row(rows *r, const char *name)
{
    const cs_fn_doc *doc = cs_fn_doc_of(name);
    put_str(r, 0, name);
    put_str(r, 1, NULL);
    put_one_str_list(r, 2, NULL);
    put_str(r, 3, doc ? doc->usage : NULL);
    put_str(r, 4, doc ? doc->class_name : NULL);
    put_bool(r, 5, true);
}

static void function_row(rows *r, const cs_catalog_function *f)
{
    put_str(r, 0, f->name);
    put_str(r, 1, f->database ? SESSION_CATALOG : NULL);
    put_one_str_list(r, 2, f->database);
    put_str(r, 3, "N/A.");
    put_str(r, 4, f->class_name);
    put_bool(r, 5, !f->database);
}

static int by_name(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static int by_function_name(const void *x, const void *y)
{
    const cs_catalog_function *a = *(const cs_catalog_function *const *)x;
    const cs_catalog_function *b = *(const cs_catalog_function *const *)y;
    return strcmp(a->name, b->name);
}

static int list_functions(cs_catalog *cat, cs_sql_arena *a, const char *db_name,
                          const char *pattern, cs_sql_result *out, cs_error *err)
{
    const char *db = cs_catalog_current_database(cat);
    if (db_name && *db_name) {
        const cs_catalog_database *d = database_named(cat, a, db_name, err);
        if (!d) return CS_EINVAL;
        db = d->name;
    }
    int n = cs_fn_count(), k = 0;
    const char **names = cs_xcalloc((size_t)n + 1, sizeof *names);
    for (int i = 0; i < n; i++)
        if (cs_sql_session_like(pattern, cs_fn_at(i)->name)) names[k++] = cs_fn_at(i)->name;
    qsort(names, (size_t)k, sizeof *names, by_name);
    rows r;
    functions_begin(&r);
    for (int i = 0; i < k; i++)
        if (i == 0 || strcmp(names[i], names[i - 1]) != 0) builtin_row(&r, names[i]);
    free(names);
    int m = 0;
    for (const cs_catalog_function *f = cs_catalog_functions(cat); f; f = f->next)
        m++;
    const cs_catalog_function **user = cs_xcalloc((size_t)m + 1, sizeof *user);
    k = 0;
    for (const cs_catalog_function *f = cs_catalog_functions(cat); f; f = f->next)
        if (!f->dropped && (!f->database || strcasecmp(f->database, db) == 0) &&
            cs_sql_session_like(pattern, f->name))
            user[k++] = f;
    qsort(user, (size_t)k, sizeof *user, by_function_name);
    for (int i = 0; i < k; i++)
        function_row(&r, user[i]);
    free(user);
    return rows_finish(&r, out, err);
}

/* The function a call names: 0 with *builtin or *f set (neither: none), as Spark's
 * UnresolvedFunctionName resolves it: one part a builtin or temporary one, else the current
 * database's; db.f or spark_catalog.db.f a persistent one. */
static void find_function(cs_catalog *cat, cs_sql_arena *a, const char *name, const char *db,
                          const char **builtin, const cs_catalog_function **f, const char ***parts,
                          int *n)
{
    *parts = table_parts(a, name, db, n);
    *builtin = NULL;
    *f = NULL;
    if (*n == 1) {
        char *lower = cs_sql_strdup(a, (*parts)[0]);
        for (char *c = lower; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
        const cs_fn_info *info = cs_fn_lookup(lower);
        if (info) *builtin = info->name;
        if (!*builtin) *f = cs_catalog_lookup_function(cat, lower);
        if (!*builtin && !*f)
            *f =
                cs_catalog_lookup_persistent_function(cat, cs_catalog_current_database(cat), lower);
    } else if (*n == 2) {
        *f = cs_catalog_lookup_persistent_function(cat, (*parts)[0], (*parts)[1]);
    }
}

static int get_function(cs_catalog *cat, cs_sql_arena *a, const char *name, cs_sql_result *out,
                        cs_error *err)
{
    const char *builtin;
    const cs_catalog_function *f;
    const char **parts;
    int n;
    find_function(cat, a, name, NULL, &builtin, &f, &parts, &n);
    if (!builtin && !f) {
        cs_catalog_unresolved_routine_error(cat, parts, n, err);
        return CS_EINVAL;
    }
    rows r;
    functions_begin(&r);
    if (builtin)
        builtin_row(&r, builtin);
    else
        function_row(&r, f);
    return rows_finish(&r, out, err);
}

/* ---- caching and the commands run as SQL ------------------------------------------------- */

static int run_command(cs_connect_service *svc, cs_sql_session *sql, cs_sql_arena *a,
                       cs_sql_statement *st, const char *what, cs_sql_result *out, cs_error *err)
{
    cs_sql_result none;
    bool kept = false;
    int rc = cs_connect_run_statement(svc, sql, a, st, what, &none, &kept, err);
    if (rc < 0) return rc;
    cs_sql_result_free(&none);
    return no_rows(out, err);
}

static int cache_command(cs_connect_service *svc, cs_sql_session *sql, cs_sql_arena *a,
                         const char *mode, const char *name, cs_sql_result *out, cs_error *err)
{
    cs_sql_statement st = {.kind = CS_STMT_CACHE, .mode = mode};
    if (name) st.parts = split_name(a, name, &st.n_parts);
    return run_command(svc, sql, a, &st, mode, out, err);
}

static int recover_partitions(cs_catalog *cat, cs_sql_arena *a, const char *name,
                              cs_sql_result *out, cs_error *err)
{
    const cs_catalog_table *t = table_named(cat, a, name, NULL, err);
    if (!t) return CS_EINVAL;
    if (t->kind != CS_CATALOG_TABLE || t->n_partition_columns == 0)
        return cs_sql_error_set(err, CS_EINVAL, "NOT_A_PARTITIONED_TABLE", "42809",
                                "Operation ALTER TABLE RECOVER PARTITIONS is not allowed for "
                                "`%s`.`%s`.`%s` because it is not a partitioned table.",
                                SESSION_CATALOG, t->database ? t->database : "", t->name);
    /* a table's partitions are the folders its scans list at each query: nothing to record */
    return no_rows(out, err);
}

static int drop_temp_view(cs_connect_service *svc, cs_sql_session *sql, cs_catalog *cat,
                          cs_sql_arena *a, const char *name, bool global, cs_sql_result *out,
                          cs_error *err)
{
    const char *parts[2] = {CS_CATALOG_GLOBAL_TEMP_DB, name};
    const cs_catalog_table *t =
        cs_catalog_lookup_relation(cat, global ? parts : parts + 1, global ? 2 : 1);
    bool existed = t && t->kind == CS_CATALOG_TEMP_VIEW;
    if (existed) {
        cs_sql_statement st = {.kind = CS_STMT_DROP,
                               .mode = "VIEW",
                               .n_parts = global ? 2 : 1,
                               .parts = global ? parts : parts + 1,
                               .if_exists = true,
                               .temporary = true};
        cs_sql_result none;
        bool kept = false;
        int rc = cs_connect_run_statement(svc, sql, a, &st, "DROP VIEW", &none, &kept, err);
        if (rc < 0) return rc;
        cs_sql_result_free(&none);
    }
    return one_value(global ? "dropGlobalTempView" : "dropTempView", NULL, T_BOOL, existed, out,
                     err);
}

static int set_current_catalog(const char *name, cs_sql_result *out, cs_error *err)
{
    if (strcasecmp(name, SESSION_CATALOG) != 0)
        return cs_sql_error_set(err, CS_EINVAL, "CATALOG_NOT_FOUND", "42P08",
                                "The catalog `%s` not found. Consider to set the SQL config "
                                "\"spark.sql.catalog.%s\" to a catalog plugin.",
                                name, name);
    return no_rows(out, err);
}

static int list_catalogs(const char *pattern, cs_sql_result *out, cs_error *err)
{
    static const char *const names[] = {"name", "description"};
    static const int kinds[] = {T_STR, T_STR};
    rows r;
    rows_begin(&r, names, kinds, 2);
    if (cs_sql_session_like(pattern, SESSION_CATALOG)) {
        put_str(&r, 0, SESSION_CATALOG);
        put_str(&r, 1, NULL);
    }
    return rows_finish(&r, out, err);
}

/* The options of createTable / createExternalTable as arrays in arena a. */
#define OPTION_ARRAYS(msg, keys, values)                                                           \
    do {                                                                                           \
        keys = cs_sql_alloc(a, sizeof *keys * ((msg)->n_options + 1));                             \
        values = cs_sql_alloc(a, sizeof *values * ((msg)->n_options + 1));                         \
        for (size_t i_ = 0; i_ < (msg)->n_options; i_++) {                                         \
            keys[i_] = (msg)->options[i_]->key;                                                    \
            values[i_] = (msg)->options[i_]->value;                                                \
        }                                                                                          \
    } while (0)

int cs_connect_catalog_result(cs_connect_service *svc, cs_sql_session *sql, cs_sql_arena *a,
                              const Spark__Connect__Catalog *cat, cs_sql_result *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    cs_catalog *c = cs_sql_session_catalog(sql);
    const char **keys, **values;
    switch (cat->cat_type_case) {
    case SPARK__CONNECT__CATALOG__CAT_TYPE_CURRENT_DATABASE:
        return one_value("currentDatabase", cs_catalog_current_database(c), T_STR, false, out, err);
    case SPARK__CONNECT__CATALOG__CAT_TYPE_SET_CURRENT_DATABASE: {
        cs_sql_statement st = {.kind = CS_STMT_USE};
        st.parts = split_name(a, cat->set_current_database->db_name, &st.n_parts);
        return run_command(svc, sql, a, &st, "setCurrentDatabase", out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_LIST_DATABASES: {
        const Spark__Connect__ListDatabases *l = cat->list_databases;
        return list_databases(c, CS_CP_HAS(l, pattern) ? l->pattern : NULL, out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_GET_DATABASE: {
        const cs_catalog_database *d = database_named(c, a, cat->get_database->db_name, err);
        if (!d) return CS_EINVAL;
        rows r;
        databases_begin(&r);
        database_row(&r, d);
        return rows_finish(&r, out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_DATABASE_EXISTS: {
        cs_error quiet;
        bool exists = database_named(c, a, cat->database_exists->db_name, &quiet) != NULL;
        return one_value("databaseExists", NULL, T_BOOL, exists, out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_LIST_TABLES: {
        const Spark__Connect__ListTables *l = cat->list_tables;
        return list_tables(c, a, CS_CP_HAS(l, db_name) ? l->db_name : NULL,
                           CS_CP_HAS(l, pattern) ? l->pattern : NULL, out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_GET_TABLE: {
        const Spark__Connect__GetTable *g = cat->get_table;
        const cs_catalog_table *t =
            table_named(c, a, g->table_name, CS_CP_HAS(g, db_name) ? g->db_name : NULL, err);
        if (!t) return CS_EINVAL;
        rows r;
        tables_begin(&r);
        table_row(&r, t);
        return rows_finish(&r, out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_TABLE_EXISTS: {
        const Spark__Connect__TableExists *t = cat->table_exists;
        cs_error quiet;
        bool exists = table_named(c, a, t->table_name, CS_CP_HAS(t, db_name) ? t->db_name : NULL,
                                  &quiet) != NULL;
        return one_value("tableExists", NULL, T_BOOL, exists, out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_LIST_COLUMNS: {
        const Spark__Connect__ListColumns *l = cat->list_columns;
        return list_columns(sql, c, a, l->table_name, CS_CP_HAS(l, db_name) ? l->db_name : NULL,
                            out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_LIST_FUNCTIONS: {
        const Spark__Connect__ListFunctions *l = cat->list_functions;
        return list_functions(c, a, CS_CP_HAS(l, db_name) ? l->db_name : NULL,
                              CS_CP_HAS(l, pattern) ? l->pattern : NULL, out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_GET_FUNCTION: {
        const Spark__Connect__GetFunction *g = cat->get_function;
        const char *name = g->function_name;
        if (CS_CP_HAS(g, db_name) && *g->db_name) {
            size_t len = strlen(g->db_name) + strlen(name) + 2;
            char *q = cs_sql_alloc(a, len);
            snprintf(q, len, "%s.%s", g->db_name, name);
            name = q;
        }
        return get_function(c, a, name, out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_FUNCTION_EXISTS: {
        const Spark__Connect__FunctionExists *e = cat->function_exists;
        const char *builtin, **parts;
        const cs_catalog_function *f;
        int n;
        find_function(c, a, e->function_name, CS_CP_HAS(e, db_name) ? e->db_name : NULL, &builtin,
                      &f, &parts, &n);
        return one_value("functionExists", NULL, T_BOOL, builtin || f, out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_CREATE_TABLE: {
        const Spark__Connect__CreateTable *t = cat->create_table;
        OPTION_ARRAYS(t, keys, values);
        return create_table(svc, sql, a, t->table_name, CS_CP_HAS(t, path) ? t->path : NULL,
                            CS_CP_HAS(t, source) ? t->source : NULL,
                            CS_CP_HAS(t, description) ? t->description : NULL,
                            CS_CP_HAS(t, schema) ? t->schema : NULL, t->n_options, keys, values,
                            out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_CREATE_EXTERNAL_TABLE: {
        const Spark__Connect__CreateExternalTable *t = cat->create_external_table;
        OPTION_ARRAYS(t, keys, values);
        return create_table(svc, sql, a, t->table_name, CS_CP_HAS(t, path) ? t->path : NULL,
                            CS_CP_HAS(t, source) ? t->source : NULL, NULL,
                            CS_CP_HAS(t, schema) ? t->schema : NULL, t->n_options, keys, values,
                            out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_DROP_TEMP_VIEW:
        return drop_temp_view(svc, sql, c, a, cat->drop_temp_view->view_name, false, out, err);
    case SPARK__CONNECT__CATALOG__CAT_TYPE_DROP_GLOBAL_TEMP_VIEW:
        return drop_temp_view(svc, sql, c, a, cat->drop_global_temp_view->view_name, true, out,
                              err);
    case SPARK__CONNECT__CATALOG__CAT_TYPE_RECOVER_PARTITIONS:
        return recover_partitions(c, a, cat->recover_partitions->table_name, out, err);
    case SPARK__CONNECT__CATALOG__CAT_TYPE_IS_CACHED: {
        const cs_catalog_table *t = table_named(c, a, cat->is_cached->table_name, NULL, err);
        if (!t) return CS_EINVAL;
        return one_value("isCached", NULL, T_BOOL, t->cached, out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_CACHE_TABLE:
        return cache_command(svc, sql, a, "CACHE", cat->cache_table->table_name, out, err);
    case SPARK__CONNECT__CATALOG__CAT_TYPE_UNCACHE_TABLE:
        return cache_command(svc, sql, a, "UNCACHE", cat->uncache_table->table_name, out, err);
    case SPARK__CONNECT__CATALOG__CAT_TYPE_CLEAR_CACHE:
        return cache_command(svc, sql, a, "CLEAR", NULL, out, err);
    case SPARK__CONNECT__CATALOG__CAT_TYPE_REFRESH_TABLE:
        return cache_command(svc, sql, a, "REFRESH", cat->refresh_table->table_name, out, err);
    case SPARK__CONNECT__CATALOG__CAT_TYPE_REFRESH_BY_PATH: {
        cs_sql_statement st = {
            .kind = CS_STMT_CACHE, .mode = "REFRESH_PATH", .location = cat->refresh_by_path->path};
        return run_command(svc, sql, a, &st, "refreshByPath", out, err);
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_CURRENT_CATALOG:
        return one_value("currentCatalog", SESSION_CATALOG, T_STR, false, out, err);
    case SPARK__CONNECT__CATALOG__CAT_TYPE_SET_CURRENT_CATALOG:
        return set_current_catalog(cat->set_current_catalog->catalog_name, out, err);
    case SPARK__CONNECT__CATALOG__CAT_TYPE_LIST_CATALOGS: {
        const Spark__Connect__ListCatalogs *l = cat->list_catalogs;
        return list_catalogs(CS_CP_HAS(l, pattern) ? l->pattern : NULL, out, err);
    }
    default:
        return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                                "The feature is not supported: spark.catalog call %d.",
                                (int)cat->cat_type_case);
    }
}
