/*
 * sql_session.c — a SQL session's statements (sql_session.h): parsing, the commands a session
 * runs on the driver, and queries handed to query_run.c once analyzed.
 *
 * Commands and the rows they give, as Spark 4's:
 *   CREATE [OR REPLACE] [GLOBAL] TEMPORARY VIEW v [(cols)] AS query   (query analyzed first)
 *   CREATE TEMPORARY VIEW v [(schema)] USING fmt OPTIONS (path '...')  (a relation over files)
 *   CREATE TABLE [IF NOT EXISTS] [db.]t [(schema)] USING fmt [OPTIONS] [LOCATION 'p'] [COMMENT]
 *   (without LOCATION a managed table: its folder made under its database's location, empty)
 *   (CREATE TABLE ... AS query and INSERT OVERWRITE DIRECTORY: table_write.c)
 *   CACHE [LAZY] TABLE t [AS query] (the rows computed and kept in the catalog: queries read
 *   them instead of the files), UNCACHE TABLE, CLEAR CACHE, REFRESH TABLE (kept rows computed
 *   again), and Connect's refreshByPath (mode "REFRESH_PATH") -> no columns, no rows;
 *   (databases, functions, DROP and USE: catalog_commands.c)
 *   SET -> key, value of every set key; SET -v -> key, value, meaning, Since version of the
 *   known keys; SET k -> (k, value or <undefined>); SET k=v -> (k, v); RESET [k] -> nothing;
 *   SHOW TABLES [IN db] [LIKE 'p'] -> namespace, tableName, isTemporary (the current database
 *   by default);
 *   SHOW COLUMNS IN t -> col_name; DESCRIBE [TABLE] t, DESCRIBE QUERY q -> col_name, data_type,
 *   comment; EXPLAIN [EXTENDED] q -> plan.
 * LIKE patterns are Spark's: '*' any characters, '|' alternatives, case-insensitive.
 */
#include <fnmatch.h> /* first: FNM_CASEFOLD */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/context.h"
#include "common/fsutil.h"
#include "session/session_internal.h"
#include "sql/analyzer.h"
#include "sql/function_registry.h"
#include "sql/sql_parser.h"
#include "sqlexec/sql_error.h"

/* The settings the analyzer reads through the catalog (ANSI coercion, the REBALANCE hint). */
static void conf_to_catalog(cs_sql_session *s)
{
    cs_catalog_set_ansi(s->catalog, cs_sql_conf_bool(s->conf, "spark.sql.ansi.enabled"));
    cs_catalog_set_adaptive(s->catalog, cs_sql_conf_bool(s->conf, "spark.sql.adaptive.enabled"));
}

cs_sql_session *cs_sql_session_new(cspark_context *sc, cs_error *err)
{
    cs_sql_conf *conf = cs_sql_conf_new(sc ? sc->conf : NULL, err);
    if (!conf) return NULL;
    cs_sql_session *s = cs_xcalloc(1, sizeof *s);
    s->sc = sc;
    s->conf = conf;
    s->catalog = cs_catalog_new();
    cs_sql_arena *a = cs_sql_arena_new(); /* the warehouse, made absolute, is copied */
    cs_catalog_set_warehouse(
        s->catalog, cs_session_absolute_path(a, cs_sql_conf_get(conf, "spark.sql.warehouse.dir")));
    cs_sql_arena_free(a);
    conf_to_catalog(s);
    return s;
}

void cs_sql_session_free(cs_sql_session *s)
{
    if (!s) return;
    cs_catalog_free(s->catalog);
    cs_sql_conf_free(s->conf);
    free(s);
}

struct cs_catalog *cs_sql_session_catalog(cs_sql_session *s)
{
    return s->catalog;
}

const char *cs_sql_session_conf(const cs_sql_session *s, const char *key)
{
    return cs_sql_conf_get(s->conf, key);
}

const char *cs_sql_session_conf_set(const cs_sql_session *s, const char *key)
{
    return cs_sql_conf_get_set(s->conf, key);
}

static atomic_llong next_execution_id;

int64_t cs_session_next_execution_id(void)
{
    return atomic_fetch_add(&next_execution_id, 1);
}

void cs_sql_session_set_job_group(cs_sql_session *s, const char *group)
{
    snprintf(s->job_group, sizeof s->job_group, "%s", group ? group : "");
}

static int unsupported(cs_error *err, const char *what)
{
    return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                            "The feature is not supported: %s.", what);
}

static const char *option_of(const cs_sql_statement *st, const char *key)
{
    for (int i = 0; i < st->n_options; i++)
        if (cs_str_ieq(st->option_keys[i], key)) return st->option_values[i];
    return NULL;
}

bool cs_sql_session_like(const char *pattern, const char *name)
{
    if (!pattern) return true;
    const char *p = pattern;
    for (;;) {
        const char *bar = strchr(p, '|');
        size_t n = bar ? (size_t)(bar - p) : strlen(p);
        char *alt = cs_str_trim_dup(p, n);
        bool hit = fnmatch(alt, name, FNM_CASEFOLD) == 0;
        free(alt);
        if (hit) return true;
        if (!bar) return false;
        p = bar + 1;
    }
}

/* ---- views and tables ----------------------------------------------------------------------- */

static int create_view(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st, bool *kept,
                       cs_error *err)
{
    const char *name = st->parts[st->n_parts - 1];
    if (st->if_not_exists) {
        const char *parts[1] = {name};
        if (cs_catalog_lookup_relation(s->catalog, parts, 1)) return 0;
    }
    if (!st->plan) { /* CREATE TEMPORARY VIEW v USING fmt OPTIONS (path ...) */
        const char *path = option_of(st, "path");
        const char *parts[1] = {name};
        if (!path) return unsupported(err, "CREATE TEMPORARY VIEW ... USING without a path option");
        /* the catalog copies the names and options and takes its own references to the
         * declared schema's types: the statement's arena is the caller's to free */
        return cs_catalog_create_table(s->catalog, parts, 1, st->format, path, st->option_keys,
                                       st->option_values, st->n_options, st->schema, false, err);
    }
    cs_logical_plan *resolved;
    if (cs_sql_analyze(s->catalog, a, st->plan, &resolved, err) != 0) return err->code;
    *kept = true; /* taken over by the catalog, also on failure */
    return cs_catalog_create_temp_view(s->catalog, name, st->global, st->or_replace,
                                       st->column_names, st->n_columns, st->plan, a, err);
}

/* Whether a local folder holds anything (a managed table's must not, as Spark checks). */
static bool folder_nonempty(const char *path)
{
    DIR *d = opendir(path);
    if (!d) return false;
    bool any = false;
    for (struct dirent *e; !any && (e = readdir(d));)
        any = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return any;
}

static int create_table(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                        cs_error *err)
{
    const char *location = st->location ? st->location : option_of(st, "path");
    if (!st->format) return unsupported(err, "CREATE TABLE without USING (Hive tables)");
    const char *db = cs_catalog_database_of(s->catalog, st->parts, st->n_parts);
    const char *name = st->parts[st->n_parts - 1];
    bool managed = !location;
    if (!cs_catalog_find_database(s->catalog, db))
        return cs_catalog_schema_not_found_error(db, err);
    const char **bucket = NULL, **sort = NULL;
    bool bucketed = st->bucketed || st->n_sort_by > 0;
    if (bucketed && !st->schema)
        return cs_sql_error_set(err, CS_EINVAL, "SPECIFY_BUCKETING_IS_NOT_ALLOWED", "42601",
                                "A CREATE TABLE without explicit column list cannot specify "
                                "bucketing information.\nPlease use the form with explicit "
                                "column list and specify bucketing information.\nAlternatively, "
                                "allow bucketing information to be inferred by omitting the "
                                "clause.");
    if (bucketed && cs_session_bucket_columns(s, a, st, db, st->schema, &bucket, &sort, err) != 0)
        return err->code;
    if (managed) {
        const char *full[2] = {db, name};
        if (cs_catalog_lookup_relation(s->catalog, full, 2)) /* the catalog's error */
            return cs_catalog_create_table(s->catalog, full, 2, st->format, "", NULL, NULL, 0,
                                           st->schema, st->if_not_exists, err);
        if (!st->schema)
            return cs_sql_error_set(err, CS_EINVAL, "UNABLE_TO_INFER_SCHEMA", "42KD9",
                                    "Unable to infer schema for %s. It must be specified "
                                    "manually.",
                                    st->format);
        location = cs_catalog_managed_location(s->catalog, a, db, name);
        if (folder_nonempty(location))
            return cs_sql_error_set(err, CS_EINVAL, "LOCATION_ALREADY_EXISTS", "42710",
                                    "Cannot name the managed table as `spark_catalog`.`%s`.`%s`, "
                                    "as its associated location 'file:%s' already exists. Please "
                                    "pick a different table name, or remove the existing location "
                                    "first.",
                                    db, name, location);
        if (cs_make_dirs(location) < 0)
            return cs_sql_error_set(err, CS_EIO, "_LEGACY_ERROR_TEMP_2096", "58030",
                                    "Unable to create the table's directory %s: %s", location,
                                    strerror(errno));
    }
    if (!managed && st->schema && !strstr(location, "://") && access(location, F_OK) != 0 &&
        cs_make_dirs(location) < 0) /* Spark's table over a declared schema needs no folder yet */
        return cs_sql_error_set(err, CS_EIO, "_LEGACY_ERROR_TEMP_2096", "58030",
                                "Unable to create the table's directory %s: %s", location,
                                strerror(errno));
    /* the catalog copies what it keeps (see create_view): the arena stays the caller's */
    int rc = cs_catalog_create_table(s->catalog, st->parts, st->n_parts, st->format, location,
                                     st->option_keys, st->option_values, st->n_options, st->schema,
                                     st->if_not_exists, err);
    if (rc == 0) {
        cs_catalog_table *t = cs_catalog_lookup_relation(s->catalog, st->parts, st->n_parts);
        if (t && t->kind == CS_CATALOG_TABLE && strcmp(t->location, location) == 0) {
            cs_catalog_table_describe(s->catalog, t, managed, st->comment);
            if (bucketed)
                cs_catalog_table_bucket_by(s->catalog, t, st->num_buckets, bucket, st->n_bucket_by,
                                           sort, st->n_sort_by);
        }
    }
    return rc;
}

/* ---- writes --------------------------------------------------------------------------------- */

static int insert(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st, const char *text,
                  cs_error *err)
{
    if (st->mode && strcmp(st->mode, "DIRECTORY") == 0)
        return cs_session_insert_directory(s, a, st, text, err);
    return cs_session_insert_table(s, a, st, text, err);
}

/* Computes t's rows (parts[0..n) names it) and keeps them in the catalog: Spark's cacheQuery
 * of the table's plan, made eagerly (CACHE TABLE is eager in Spark; cacheTable's laziness shows
 * in no result). Rows already kept are released first, so the table's files are read again. */
static int cache_rows(cs_sql_session *s, cs_sql_arena *a, cs_catalog_table *t,
                      const char *const *parts, int n, cs_error *err)
{
    cs_catalog_table_uncache(t);
    cs_logical_plan *p = cs_logical_plan_new(a, CS_LP_UNRESOLVED_RELATION, 0), *resolved;
    p->parts = (const char **)parts;
    p->n_parts = n;
    if (cs_sql_analyze(s->catalog, a, p, &resolved, err) != 0) return err->code;
    cs_sql_result r = {0};
    int rc = cs_session_run_query(s, a, resolved, "CACHE TABLE", &r, err);
    if (rc < 0) return rc;
    for (int i = 0; i < r.n_batches; i++)
        cs_col_batch_ref(r.batches[i]);
    cs_catalog_table_cache(t, r.batches, r.n_batches);
    cs_sql_result_free(&r);
    return 0;
}

/* Whether location is path or under it (file: URIs and plain paths alike). */
static bool under_path(const char *location, const char *path)
{
    if (strncmp(location, "file:", 5) == 0) location += 5;
    if (strncmp(path, "file:", 5) == 0) path += 5;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    return strncmp(location, path, n) == 0 && (location[n] == '\0' || location[n] == '/');
}

static int cache(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st, bool *kept,
                 cs_error *err)
{
    if (strcmp(st->mode, "CLEAR") == 0 || strcmp(st->mode, "REFRESH_PATH") == 0) {
        bool clear = strcmp(st->mode, "CLEAR") == 0;
        for (int i = 0; i < cs_catalog_count(s->catalog); i++) {
            cs_catalog_table *t = (cs_catalog_table *)cs_catalog_entry(s->catalog, i);
            if (!t->cached) continue;
            if (clear) {
                cs_catalog_table_uncache(t);
            } else if (t->kind == CS_CATALOG_TABLE && under_path(t->location, st->location)) {
                const char *parts[2] = {t->database, t->name};
                int rc = cache_rows(s, a, t, parts, 2, err);
                if (rc < 0) return rc;
            }
        }
        return 0;
    }
    if (st->plan) { /* CACHE TABLE t AS query: a temporary view of the query, cached */
        cs_sql_statement v = *st;
        v.kind = CS_STMT_CREATE_VIEW;
        v.or_replace = false;
        int rc = create_view(s, a, &v, kept, err);
        if (rc < 0) return rc;
        /* the view's plan lives in a, now the catalog's: the query runs in an arena of its own */
        cs_sql_arena *qa = cs_sql_arena_new();
        const char *parts[1] = {st->parts[st->n_parts - 1]};
        rc = cache_rows(s, qa, cs_catalog_lookup_relation(s->catalog, parts, 1), parts, 1, err);
        cs_sql_arena_free(qa);
        return rc;
    }
    cs_catalog_table *t = cs_catalog_lookup_relation(s->catalog, st->parts, st->n_parts);
    if (!t) return st->if_exists ? 0 : cs_catalog_not_found_error(st->parts, st->n_parts, err);
    if (strcmp(st->mode, "UNCACHE") == 0) {
        cs_catalog_table_uncache(t);
        return 0;
    }
    if (strcmp(st->mode, "REFRESH") == 0 && !t->cached) return 0;
    return cache_rows(s, a, t, st->parts, st->n_parts, err);
}

/* ---- SET / RESET ---------------------------------------------------------------------------- */

static int set_reset(cs_sql_session *s, const cs_sql_statement *st, cs_sql_result *out,
                     cs_error *err)
{
    if (strcmp(st->mode, "RESET") == 0) {
        cs_sql_conf_reset(s->conf, st->key);
        conf_to_catalog(s);
        cs_rows_none(out);
        return 0;
    }
    cs_rows_builder b;
    bool verbose = st->key && strcmp(st->key, "-v") == 0;
    static const char *const names[] = {"key", "value", "meaning", "Since version"};
    static const cs_type_id types[] = {CS_TYPE_STRING, CS_TYPE_STRING, CS_TYPE_STRING,
                                       CS_TYPE_STRING};
    if (st->key && st->value && cs_sql_conf_set(s->conf, st->key, st->value, err) < 0) {
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return cs_sql_error_set(err, CS_EINVAL, "INVALID_CONF_VALUE.TYPE_MISMATCH", "22022",
                                "The value '%s' in the config \"%s\" is invalid. %s", st->value,
                                st->key, why);
    }
    conf_to_catalog(s);
    cs_rows_begin(&b, names, types, verbose ? 4 : 2);
    if (st->key && !verbose) {
        const char *v = cs_sql_conf_get(s->conf, st->key);
        cs_rows_string(&b, 0, st->key);
        cs_rows_string(&b, 1, v ? v : "<undefined>");
        cs_rows_end_row(&b);
    } else {
        cs_sql_conf_entry *e;
        int n;
        cs_sql_conf_list(s->conf, verbose, &e, &n);
        for (int i = 0; i < n; i++) {
            cs_rows_string(&b, 0, e[i].key);
            cs_rows_string(&b, 1, e[i].value);
            if (verbose) {
                cs_rows_string(&b, 2, e[i].meaning);
                cs_rows_string(&b, 3, e[i].since);
            }
            cs_rows_end_row(&b);
        }
        free(e);
    }
    return cs_rows_finish(&b, out, err);
}

/* ---- SHOW and DESCRIBE ---------------------------------------------------------------------- */

static int show_tables(cs_sql_session *s, const cs_sql_statement *st, cs_sql_result *out,
                       cs_error *err)
{
    const char *db =
        st->n_parts ? st->parts[st->n_parts - 1] : cs_catalog_current_database(s->catalog);
    if (!cs_catalog_database_exists(s->catalog, db))
        return cs_catalog_schema_not_found_error(db, err);
    bool views_only = strcmp(st->mode, "VIEWS") == 0;
    static const char *const names[] = {"namespace", "tableName", "isTemporary"};
    static const cs_type_id types[] = {CS_TYPE_STRING, CS_TYPE_STRING, CS_TYPE_BOOLEAN};
    cs_rows_builder b;
    cs_rows_begin(&b, names, types, 3);
    bool global_db = cs_str_ieq(db, CS_CATALOG_GLOBAL_TEMP_DB);
    for (int pass = 0; pass < 2; pass++) /* the database's entries, then the session's views */
        for (int i = 0; i < cs_catalog_count(s->catalog); i++) {
            const cs_catalog_table *t = cs_catalog_entry(s->catalog, i);
            bool session_view = t->kind == CS_CATALOG_TEMP_VIEW && !t->database;
            bool in_db = t->database && cs_str_ieq(t->database, db);
            if (t->dropped || t->kind == CS_CATALOG_PATH || (pass == 0 ? !in_db : !session_view))
                continue;
            bool temporary = t->kind == CS_CATALOG_TEMP_VIEW;
            if ((views_only && !temporary) || !cs_sql_session_like(st->value, t->name)) continue;
            cs_rows_string(&b, 0, session_view ? "" : (global_db ? t->database : db));
            cs_rows_string(&b, 1, t->name);
            cs_rows_bool(&b, 2, temporary);
            cs_rows_end_row(&b);
        }
    return cs_rows_finish(&b, out, err);
}

/* The columns of a relation or a query: its resolved plan's output. */
static int columns_of(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                      cs_logical_plan **resolved, cs_error *err)
{
    cs_logical_plan *plan = st->plan;
    if (!plan) {
        plan = cs_logical_plan_new(a, CS_LP_UNRESOLVED_RELATION, 0);
        plan->parts = st->parts;
        plan->n_parts = st->n_parts;
    }
    return cs_sql_analyze(s->catalog, a, plan, resolved, err) != 0 ? err->code : 0;
}

static int describe(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                    cs_sql_result *out, cs_error *err)
{
    bool columns_only = strcmp(st->mode, "COLUMNS") == 0;
    cs_logical_plan *p;
    if (columns_of(s, a, st, &p, err) < 0) return err->code;
    static const char *const names[] = {"col_name", "data_type", "comment"};
    static const cs_type_id types[] = {CS_TYPE_STRING, CS_TYPE_STRING, CS_TYPE_STRING};
    cs_rows_builder b;
    cs_rows_begin(&b, names, types, columns_only ? 1 : 3);
    for (int i = 0; i < p->n_output; i++) {
        cs_rows_string(&b, 0, p->output[i]->name);
        if (!columns_only) {
            cs_sbuf t = CS_SBUF_INIT;
            cs_col_type_simple_string(p->output[i]->type, &t);
            cs_rows_string(&b, 1, cs_sbuf_str(&t));
            cs_rows_string(&b, 2, NULL);
            cs_sbuf_free(&t);
        }
        cs_rows_end_row(&b);
    }
    const cs_catalog_table *t =
        st->plan ? NULL : cs_catalog_lookup_relation(s->catalog, st->parts, st->n_parts);
    if (!columns_only && t && t->n_partition_columns > 0) { /* Spark's partition section */
        const char *head[] = {"# Partition Information", "# col_name"};
        const char *head2[] = {"", "data_type"}, *head3[] = {"", "comment"};
        for (int k = 0; k < 2; k++) {
            cs_rows_string(&b, 0, head[k]);
            cs_rows_string(&b, 1, head2[k]);
            cs_rows_string(&b, 2, head3[k]);
            cs_rows_end_row(&b);
        }
        int first = t->schema->n_fields - t->n_partition_columns;
        for (int i = first; i < t->schema->n_fields; i++) {
            cs_sbuf ty = CS_SBUF_INIT;
            cs_col_type_simple_string(t->schema->fields[i].type, &ty);
            cs_rows_string(&b, 0, t->schema->fields[i].name);
            cs_rows_string(&b, 1, cs_sbuf_str(&ty));
            cs_rows_string(&b, 2, NULL);
            cs_rows_end_row(&b);
            cs_sbuf_free(&ty);
        }
    }
    if (t && t->kind == CS_CATALOG_TABLE && st->extended) cs_session_describe_detail(t, &b);
    return cs_rows_finish(&b, out, err);
}

static int show(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st, cs_sql_result *out,
                cs_error *err)
{
    const char *m = st->mode;
    if (strcmp(m, "TABLES") == 0 || strcmp(m, "VIEWS") == 0) return show_tables(s, st, out, err);
    if (strcmp(m, "DATABASES") == 0) return cs_session_show_databases(s, st, out, err);
    if (strcmp(m, "FUNCTIONS") == 0) return cs_session_show_functions(s, st, out, err);
    if (strcmp(m, "DESCRIBE_DATABASE") == 0) return cs_session_describe_database(s, st, out, err);
    if (strcmp(m, "DESCRIBE_FUNCTION") == 0) return cs_session_describe_function(s, st, out, err);
    if (strcmp(m, "CREATE_TABLE") == 0) return cs_session_show_create_table(s, st, out, err);
    static const char *const describe_modes[] = {"COLUMNS", "DESCRIBE", "DESCRIBE EXTENDED",
                                                 "DESCRIBE QUERY"};
    for (size_t i = 0; i < sizeof describe_modes / sizeof describe_modes[0]; i++)
        if (strcmp(m, describe_modes[i]) == 0) return describe(s, a, st, out, err);
    char what[96];
    snprintf(what, sizeof what, "%s%s", strncmp(m, "DESCRIBE", 8) == 0 ? "" : "SHOW ", m);
    return unsupported(err, what);
}

/* ---- EXPLAIN -------------------------------------------------------------------------------- */

static int explain(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                   cs_sql_result *out, cs_error *err)
{
    if (!st->inner || st->inner->kind != CS_STMT_QUERY || !st->plan)
        return unsupported(err, "EXPLAIN of a command");
    cs_sbuf text = CS_SBUF_INIT;
    int rc = cs_session_explain(s, a, st->plan, st->mode, &text, err);
    if (rc == 0) {
        static const char *const names[] = {"plan"};
        static const cs_type_id types[] = {CS_TYPE_STRING};
        cs_rows_builder b;
        cs_rows_begin(&b, names, types, 1);
        cs_rows_string(&b, 0, cs_sbuf_str(&text));
        cs_rows_end_row(&b);
        rc = cs_rows_finish(&b, out, err);
    }
    cs_sbuf_free(&text);
    return rc;
}

/* ---- statements ----------------------------------------------------------------------------- */

static int run_statement(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                         const char *text, cs_sql_result *out, bool *kept, cs_error *err)
{
    int rc;
    switch (st->kind) {
    case CS_STMT_QUERY: {
        cs_logical_plan *resolved;
        if (cs_sql_analyze(s->catalog, a, st->plan, &resolved, err) != 0) return err->code;
        return cs_session_run_query(s, a, resolved, text, out, err);
    }
    case CS_STMT_EXPLAIN:
        return explain(s, a, st, out, err);
    case CS_STMT_SET:
        return set_reset(s, st, out, err);
    case CS_STMT_SHOW:
        return show(s, a, st, out, err);
    case CS_STMT_CREATE_VIEW:
        rc = create_view(s, a, st, kept, err);
        break;
    case CS_STMT_CREATE_TABLE:
        if (st->plan) {
            /* the catalog copies the table's names and options and references its types */
            rc = cs_session_create_table_as(s, a, st, text, err);
        } else {
            rc = create_table(s, a, st, err);
        }
        break;
    case CS_STMT_DROP:
        rc = cs_session_drop(s, st, err);
        break;
    case CS_STMT_USE:
        rc = cs_session_use(s, st, err);
        break;
    case CS_STMT_CREATE_DATABASE:
        rc = cs_session_create_database(s, a, st, err);
        break;
    case CS_STMT_CACHE:
        rc = cache(s, a, st, kept, err);
        break;
    case CS_STMT_INSERT:
        rc = insert(s, a, st, text, err);
        break;
    case CS_STMT_CREATE_FUNCTION:
        if (!st->function) { /* SQL's CREATE FUNCTION f AS 'class' */
            rc = cs_session_create_function(s, st, err);
            break;
        }
        /* a Python UDF (spark.udf.register): the catalog copies it */
        cs_catalog_create_temp_function(s->catalog, st->parts[0], st->function->python_udf,
                                        st->function->type);
        rc = 0;
        break;
    default:
        return unsupported(err, "this statement");
    }
    if (rc == 0) cs_rows_none(out);
    return rc;
}

int cs_sql_session_analyze(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *plan,
                           cs_logical_plan **resolved, cs_error *err)
{
    return cs_sql_analyze(s->catalog, a, plan, resolved, err);
}

int cs_sql_session_run_statement(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                                 const char *text, cs_sql_result *out, bool *kept, cs_error *err)
{
    memset(out, 0, sizeof *out); /* the result starts empty whoever calls (cs_sql_result_free) */
    *kept = false;
    int rc = run_statement(s, a, st, text, out, kept, err);
    if (rc < 0) {
        cs_sql_result_free(out); /* a failed statement gives no rows, nor a schema */
        if (!err->code) err->code = rc;
    }
    return rc < 0 ? rc : 0;
}

int cs_sql_session_execute(cs_sql_session *s, const char *sql, cs_sql_result *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    cs_sql_arena *a = cs_sql_arena_new();
    cs_sql_statement *st = NULL;
    bool kept = false;
    int rc = cs_sql_parse_statement(a, sql, &st, NULL, err);
    if (rc == 0) rc = cs_sql_session_run_statement(s, a, st, sql, out, &kept, err);
    if (!kept) cs_sql_arena_free(a);
    if (rc < 0 && !err->code) err->code = rc;
    return rc < 0 ? rc : 0;
}
