/*
 * catalog_commands.c — the SQL commands over the session catalog's databases and functions, as
 * Spark 4 runs them over its SessionCatalog (sql_session.c dispatches to them):
 *
 *   CREATE DATABASE|SCHEMA|NAMESPACE [IF NOT EXISTS] db [COMMENT] [LOCATION] [WITH DBPROPERTIES]
 *       the database recorded, its folder made (<warehouse>/<db>.db unless LOCATION);
 *   DROP DATABASE [IF EXISTS] db [RESTRICT|CASCADE]
 *       SCHEMA_NOT_EMPTY without CASCADE when it holds tables or functions; with it, its
 *       tables and functions go too, and its folder with its managed tables' folders;
 *   DROP TABLE|VIEW [IF EXISTS] t      a managed table's folder is removed with it;
 *   USE db                              the current database (SCHEMA_NOT_FOUND if unknown);
 *   SHOW DATABASES [LIKE 'p']           namespace, sorted;
 *   DESCRIBE DATABASE [EXTENDED] db     info_name, info_value: Catalog Name, Namespace Name,
 *                                       Comment, Location, Owner (EXTENDED: Properties);
 *   CREATE [OR REPLACE] FUNCTION [IF NOT EXISTS] [db.]f AS 'class' [USING JAR ...]
 *       recorded with its class in its database, the class not loaded (as Spark); a TEMPORARY
 *       one is CANNOT_LOAD_FUNCTION_CLASS: no JVM class can be loaded here;
 *   DROP [TEMPORARY] FUNCTION [IF EXISTS] f
 *   SHOW [USER|SYSTEM|ALL] FUNCTIONS [IN db] [LIKE 'p']   function, sorted: builtins by name,
 *       temporary ones by name, persistent ones as spark_catalog.db.f;
 *   DESCRIBE FUNCTION [EXTENDED] f      function_desc: Function, Class, Usage lines.
 *
 * Called on the statement's thread by sql_session.c. Ownership: statements are the caller's;
 * the catalog copies what it keeps; results are the caller's (cs_sql_result_free).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/fsutil.h"
#include "session/session_internal.h"
#include "sql/function_registry.h"
#include "sql/optimizer.h"
#include "sqlexec/sql_error.h"

void cs_session_location_uri(const char *location, cs_sbuf *out)
{
    if (location[0] == '/') cs_sbuf_puts(out, "file:");
    cs_sbuf_puts(out, location);
}

const char *cs_session_absolute_path(cs_sql_arena *a, const char *path)
{
    if (path[0] == '/' || strstr(path, "://") || strncmp(path, "file:", 5) == 0)
        return cs_sql_strdup(a, strncmp(path, "file:", 5) == 0 && path[5] == '/' ? path + 5 : path);
    char cwd[PATH_MAX];
    cs_sbuf p = CS_SBUF_INIT;
    if (getcwd(cwd, sizeof cwd)) cs_sbuf_printf(&p, "%s/", cwd);
    cs_sbuf_puts(&p, path);
    const char *out = cs_sql_strdup(a, cs_sbuf_str(&p));
    cs_sbuf_free(&p);
    return out;
}

/* The folder of a location when it is on this machine (a path or file: URI), else NULL. */
static const char *local_folder(const char *location)
{
    if (location[0] == '/') return location;
    if (strncmp(location, "file:", 5) == 0 && location[5] == '/') return location + 5;
    return NULL;
}

/* ---- databases ------------------------------------------------------------------------------ */

int cs_session_create_database(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                               cs_error *err)
{
    const char *name = st->parts[st->n_parts - 1];
    const char *location = st->location ? cs_session_absolute_path(a, st->location) : NULL;
    bool created;
    int rc = cs_catalog_create_database(s->catalog, name, st->comment, location, st->option_keys,
                                        st->option_values, st->n_options, st->if_not_exists,
                                        &created, err);
    if (rc < 0 || !created) return rc;
    const char *dir = local_folder(cs_catalog_find_database(s->catalog, name)->location);
    if (dir && cs_make_dirs(dir) < 0)
        return cs_sql_error_set(err, CS_EIO, "_LEGACY_ERROR_TEMP_2096", "58030",
                                "Unable to create database %s's directory %s: %s", name, dir,
                                strerror(errno));
    return 0;
}

/* A managed table's folder removed with it (best effort, as Spark's catalog deletes it). */
static void remove_managed_folder(const cs_catalog_table *t)
{
    const char *dir =
        t && t->kind == CS_CATALOG_TABLE && t->managed ? local_folder(t->location) : NULL;
    if (dir) cs_remove_tree(dir);
}

static int drop_database(cs_sql_session *s, const cs_sql_statement *st, cs_error *err)
{
    const char *name = st->parts[st->n_parts - 1];
    /* the managed tables it holds, whose folders go with a cascade */
    int n = cs_catalog_count(s->catalog);
    const cs_catalog_table **mine = cs_xcalloc((size_t)n + 1, sizeof *mine);
    int k = 0;
    for (int i = 0; i < n; i++) {
        const cs_catalog_table *t = cs_catalog_entry(s->catalog, i);
        if (!t->dropped && t->database && cs_str_ieq(t->database, name)) mine[k++] = t;
    }
    const cs_catalog_database *d;
    int rc = cs_catalog_drop_database(s->catalog, name, st->if_exists, st->cascade, &d, err);
    if (rc == 0 && d) {
        for (int i = 0; i < k; i++)
            remove_managed_folder(mine[i]);
        const char *dir = local_folder(d->location);
        if (dir) cs_remove_tree(dir);
    }
    free(mine);
    return rc;
}

/* The database and name of a function called parts[0..n): [spark_catalog.][db.]f. */
static const char *function_db(cs_sql_session *s, const char *const *parts, int n)
{
    return n >= 2 ? parts[n - 2] : cs_catalog_current_database(s->catalog);
}

static int drop_function(cs_sql_session *s, const cs_sql_statement *st, cs_error *err)
{
    const char *name = st->parts[st->n_parts - 1];
    if (st->temporary) {
        if (cs_catalog_drop_function(s->catalog, NULL, name) || st->if_exists) return 0;
        return cs_sql_error_set(err, CS_EINVAL, "ROUTINE_NOT_FOUND", "42883",
                                "The routine `%s` cannot be found. Verify the spelling and "
                                "correctness of the schema and catalog.\nIf you did not qualify "
                                "the name with a schema and catalog, verify the current_schema() "
                                "output, or qualify the name with the correct schema and "
                                "catalog.\nTo tolerate the error on drop use DROP ... IF EXISTS.",
                                name);
    }
    const char *db = function_db(s, st->parts, st->n_parts);
    if (cs_catalog_drop_function(s->catalog, db, name) || st->if_exists) return 0;
    return cs_catalog_unresolved_routine_error(s->catalog, st->parts, st->n_parts, err);
}

int cs_session_drop_relation(cs_sql_session *s, const char *const *parts, int n, bool if_exists,
                             cs_error *err)
{
    const cs_catalog_table *t = cs_catalog_lookup_relation(s->catalog, parts, n);
    int rc = cs_catalog_drop(s->catalog, parts, n, if_exists, err);
    if (rc == 0) remove_managed_folder(t);
    return rc;
}

int cs_session_drop(cs_sql_session *s, const cs_sql_statement *st, cs_error *err)
{
    if (strcmp(st->mode, "DATABASE") == 0) return drop_database(s, st, err);
    if (strcmp(st->mode, "FUNCTION") == 0) return drop_function(s, st, err);
    return cs_session_drop_relation(s, st->parts, st->n_parts, st->if_exists, err);
}

int cs_session_use(cs_sql_session *s, const cs_sql_statement *st, cs_error *err)
{
    const char *db = st->n_parts ? st->parts[st->n_parts - 1] : "";
    if (st->n_parts == 2 && !cs_str_ieq(st->parts[0], "spark_catalog"))
        return cs_sql_error_set(err, CS_EINVAL, "CATALOG_NOT_FOUND", "42P08",
                                "The catalog `%s` not found. Consider to set the SQL config "
                                "\"spark.sql.catalog.%s\" to a catalog plugin.",
                                st->parts[0], st->parts[0]);
    return cs_catalog_set_current_database(s->catalog, db, err);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int cs_session_show_databases(cs_sql_session *s, const cs_sql_statement *st, cs_sql_result *out,
                              cs_error *err)
{
    int n = cs_catalog_database_count(s->catalog), k = 0;
    const char **names = cs_xcalloc((size_t)n + 1, sizeof *names);
    for (int i = 0; i < n; i++) {
        const cs_catalog_database *d = cs_catalog_database_at(s->catalog, i);
        if (!d->dropped && cs_sql_session_like(st->value, d->name)) names[k++] = d->name;
    }
    qsort(names, (size_t)k, sizeof *names, by_name);
    static const char *const cols[] = {"namespace"};
    static const cs_type_id types[] = {CS_TYPE_STRING};
    cs_rows_builder b;
    cs_rows_begin(&b, cols, types, 1);
    for (int i = 0; i < k; i++) {
        cs_rows_string(&b, 0, names[i]);
        cs_rows_end_row(&b);
    }
    free(names);
    return cs_rows_finish(&b, out, err);
}

static void info_row(cs_rows_builder *b, const char *name, const char *value)
{
    cs_rows_string(b, 0, name);
    cs_rows_string(b, 1, value);
    cs_rows_end_row(b);
}

int cs_session_describe_database(cs_sql_session *s, const cs_sql_statement *st, cs_sql_result *out,
                                 cs_error *err)
{
    const char *name = st->parts[st->n_parts - 1];
    const cs_catalog_database *d = cs_catalog_find_database(s->catalog, name);
    if (!d) return cs_catalog_schema_not_found_error(name, err);
    static const char *const cols[] = {"info_name", "info_value"};
    static const cs_type_id types[] = {CS_TYPE_STRING, CS_TYPE_STRING};
    cs_rows_builder b;
    cs_rows_begin(&b, cols, types, 2);
    info_row(&b, "Catalog Name", "spark_catalog");
    info_row(&b, "Namespace Name", d->name);
    info_row(&b, "Comment", d->comment ? d->comment : "");
    cs_sbuf v = CS_SBUF_INIT;
    cs_session_location_uri(d->location, &v);
    info_row(&b, "Location", cs_sbuf_str(&v));
    info_row(&b, "Owner", cs_sql_current_user());
    if (st->extended) {
        /* ((k1,v1), (k2,v2)) sorted by key, as Spark prints a properties map */
        int n = d->n_properties;
        int *order = cs_xcalloc((size_t)n + 1, sizeof *order);
        for (int i = 0; i < n; i++) {
            int j = i;
            while (j > 0 && strcmp(d->property_keys[order[j - 1]], d->property_keys[i]) > 0) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = i;
        }
        v.len = 0;
        cs_sbuf_putc(&v, '(');
        for (int i = 0; i < n; i++)
            cs_sbuf_printf(&v, "%s(%s,%s)", i ? ", " : "", d->property_keys[order[i]],
                           d->property_values[order[i]]);
        cs_sbuf_putc(&v, ')');
        info_row(&b, "Properties", cs_sbuf_str(&v));
        free(order);
    }
    cs_sbuf_free(&v);
    return cs_rows_finish(&b, out, err);
}

/* ---- functions ------------------------------------------------------------------------------ */

int cs_session_create_function(cs_sql_session *s, const cs_sql_statement *st, cs_error *err)
{
    const char *name = st->parts[st->n_parts - 1];
    if (st->temporary && st->n_parts > 1)
        return cs_sql_error_set(err, CS_EINVAL, "INVALID_SQL_SYNTAX.CREATE_TEMP_FUNC_WITH_DATABASE",
                                "42000",
                                "Invalid SQL syntax: CREATE TEMPORARY FUNCTION with specifying a "
                                "database(`%s`) is not allowed.",
                                st->parts[st->n_parts - 2]);
    if (st->temporary) /* registering it loads its class, which no JVM here can */
        return cs_sql_error_set(err, CS_EINVAL, "CANNOT_LOAD_FUNCTION_CLASS", "46103",
                                "Cannot load class %s when registering the function `%s`, please "
                                "make sure it is on the classpath.",
                                st->class_name, name);
    const char *db = function_db(s, st->parts, st->n_parts);
    const cs_catalog_database *d = cs_catalog_find_database(s->catalog, db);
    if (!d) return cs_catalog_schema_not_found_error(db, err);
    return cs_catalog_create_function(s->catalog, d->name, name, st->class_name, st->or_replace,
                                      st->if_not_exists, err);
}

int cs_session_show_functions(cs_sql_session *s, const cs_sql_statement *st, cs_sql_result *out,
                              cs_error *err)
{
    const char *scope = st->function_scope ? st->function_scope : "ALL";
    const char *db =
        st->n_parts ? st->parts[st->n_parts - 1] : cs_catalog_current_database(s->catalog);
    if (!cs_catalog_find_database(s->catalog, db))
        return cs_catalog_schema_not_found_error(db, err);
    bool user = strcmp(scope, "SYSTEM") != 0, system = strcmp(scope, "USER") != 0;
    int n = cs_fn_count(), k = 0, cap = n + 16;
    const char **list = cs_xcalloc((size_t)cap, sizeof *list);
    cs_sql_arena *a = cs_sql_arena_new();
    for (int i = 0; system && i < n; i++)
        if (cs_sql_session_like(st->value, cs_fn_at(i)->name)) list[k++] = cs_fn_at(i)->name;
    /* the user functions: temporary ones by name, persistent ones of db as spark_catalog.db.f */
    for (const cs_catalog_function *f = cs_catalog_functions(s->catalog); user && f; f = f->next) {
        if (f->dropped || (f->database && !cs_str_ieq(f->database, db))) continue;
        if (!cs_sql_session_like(st->value, f->name)) continue;
        if (k == cap) list = cs_xrealloc(list, sizeof *list * (size_t)(cap *= 2));
        if (!f->database) {
            list[k++] = f->name;
            continue;
        }
        size_t len = strlen(f->database) + strlen(f->name) + 16;
        char *q = cs_sql_alloc(a, len);
        snprintf(q, len, "spark_catalog.%s.%s", f->database, f->name);
        list[k++] = q;
    }
    qsort(list, (size_t)k, sizeof *list, by_name);
    static const char *const cols[] = {"function"};
    static const cs_type_id types[] = {CS_TYPE_STRING};
    cs_rows_builder b;
    cs_rows_begin(&b, cols, types, 1);
    for (int i = 0; i < k; i++)
        if (i == 0 || strcmp(list[i], list[i - 1]) != 0) {
            cs_rows_string(&b, 0, list[i]);
            cs_rows_end_row(&b);
        }
    cs_sql_arena_free(a);
    free(list);
    return cs_rows_finish(&b, out, err);
}

int cs_session_describe_function(cs_sql_session *s, const cs_sql_statement *st, cs_sql_result *out,
                                 cs_error *err)
{
    const char *name = st->parts[st->n_parts - 1];
    bool extended = st->extended;
    static const char *const cols[] = {"function_desc"};
    static const cs_type_id types[] = {CS_TYPE_STRING};
    cs_sbuf line = CS_SBUF_INIT;
    cs_rows_builder b;
    const cs_catalog_function *tf =
        st->n_parts == 1 ? cs_catalog_lookup_function(s->catalog, name) : NULL;
    const cs_fn_info *bf = st->n_parts == 1 && !tf ? cs_fn_lookup(name) : NULL;
    const cs_catalog_function *pf =
        tf || bf ? NULL
                 : cs_catalog_lookup_persistent_function(
                       s->catalog, function_db(s, st->parts, st->n_parts), name);
    if (!tf && !bf && !pf)
        return cs_catalog_unresolved_routine_error(s->catalog, st->parts, st->n_parts, err);
    cs_rows_begin(&b, cols, types, 1);
    const cs_fn_doc *doc = bf ? cs_fn_doc_of(bf->name) : NULL;
    if (pf)
        cs_sbuf_printf(&line, "Function: spark_catalog.%s.%s", pf->database, pf->name);
    else
        cs_sbuf_printf(&line, "Function: %s", tf ? tf->name : bf->name);
    cs_rows_string(&b, 0, cs_sbuf_str(&line));
    cs_rows_end_row(&b);
    const char *cls = pf ? pf->class_name : doc ? doc->class_name : NULL;
    line.len = 0;
    cs_sbuf_printf(&line, "Class: %s", cls ? cls : "N/A");
    cs_rows_string(&b, 0, cs_sbuf_str(&line));
    cs_rows_end_row(&b);
    line.len = 0;
    cs_sbuf_printf(&line, "Usage: %s", doc && doc->usage ? doc->usage : "N/A.");
    cs_rows_string(&b, 0, cs_sbuf_str(&line));
    cs_rows_end_row(&b);
    if (extended) {
        line.len = 0;
        cs_sbuf_printf(&line, "Extended Usage:\n    No example/argument for %s.\n",
                       pf ? pf->name : name);
        cs_rows_string(&b, 0, cs_sbuf_str(&line));
        cs_rows_end_row(&b);
    }
    cs_sbuf_free(&line);
    return cs_rows_finish(&b, out, err);
}
