/*
 * catalog.c — the session catalog: databases and the current one, temporary and global
 * temporary views, tables over files, anonymous path relations, temporary and persistent
 * functions and the session's expression ids (see catalog.h). Called by the analyzer and by
 * command execution.
 *
 * Entries live in the catalog's own arena (names, option arrays, kept types) and in one
 * growing array; a view's plan lives in the arena it was created with, kept until the catalog
 * is freed.
 */
#include "sql/catalog.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <strings.h>

#include "datasource/file_index.h"
#include "formats/file_format.h"
#include "sqlexec/sql_error.h"

struct cs_catalog {
    cs_sql_arena *arena; /* entries, names, schemas */
    cs_catalog_table **entries;
    int n, cap;
    cs_sql_arena **view_arenas;
    int n_view_arenas, cap_view_arenas;
    int64_t next_expr_id;
    cs_catalog_function *functions;  /* temporary and persistent functions, the newest first */
    bool legacy_coercion;            /* spark.sql.ansi.enabled=false */
    bool not_adaptive;               /* spark.sql.adaptive.enabled=false */
    cs_catalog_database **databases; /* [0] is default */
    int n_databases, cap_databases;
    const char *current_db; /* lower case */
    const char *warehouse;  /* the default database's location */
};

static void add_database(cs_catalog *c, cs_catalog_database *d)
{
    if (c->n_databases == c->cap_databases) {
        c->cap_databases = c->cap_databases ? c->cap_databases * 2 : 8;
        c->databases = cs_xrealloc(c->databases, sizeof *c->databases * (size_t)c->cap_databases);
    }
    c->databases[c->n_databases++] = d;
}

cs_catalog *cs_catalog_new(void)
{
    cs_catalog *c = cs_xcalloc(1, sizeof *c);
    c->arena = cs_sql_arena_new();
    c->next_expr_id = 1;
    c->warehouse = "spark-warehouse";
    cs_catalog_database *d = cs_sql_alloc(c->arena, sizeof *d);
    d->name = CS_CATALOG_DEFAULT_DB;
    d->comment = "default database";
    d->location = c->warehouse;
    add_database(c, d);
    c->current_db = CS_CATALOG_DEFAULT_DB;
    return c;
}

void cs_catalog_free(cs_catalog *c)
{
    if (!c) return;
    for (int i = 0; i < c->n_view_arenas; i++)
        cs_sql_arena_free(c->view_arenas[i]);
    free(c->view_arenas);
    for (int i = 0; i < c->n; i++)
        cs_catalog_table_uncache(c->entries[i]);
    free(c->entries);
    free(c->databases);
    cs_sql_arena_free(c->arena);
    free(c);
}

void cs_catalog_set_ansi(cs_catalog *c, bool ansi)
{
    c->legacy_coercion = !ansi;
}

bool cs_catalog_ansi(const cs_catalog *c)
{
    return !c->legacy_coercion;
}

void cs_catalog_set_adaptive(cs_catalog *c, bool adaptive)
{
    c->not_adaptive = !adaptive;
}

bool cs_catalog_adaptive(const cs_catalog *c)
{
    return !c->not_adaptive;
}

int64_t cs_catalog_next_expr_id(cs_catalog *c)
{
    return c->next_expr_id++;
}

const char *cs_catalog_current_database(const cs_catalog *c)
{
    return c->current_db;
}

int cs_catalog_count(const cs_catalog *c)
{
    return c->n;
}

const cs_catalog_table *cs_catalog_entry(const cs_catalog *c, int i)
{
    return i >= 0 && i < c->n ? c->entries[i] : NULL;
}

bool cs_catalog_database_exists(const cs_catalog *c, const char *db)
{
    return cs_str_ieq(db, CS_CATALOG_GLOBAL_TEMP_DB) || cs_catalog_find_database(c, db);
}

static char *lower_dup(cs_sql_arena *a, const char *s)
{
    char *d = cs_sql_strdup(a, s);
    for (char *p = d; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return d;
}

static bool same_db(const char *a, const char *b)
{
    if (!a || !b) return a == b;
    return cs_str_ieq(a, b);
}

/* An entry of (db, name), db NULL for session temporary views. */
static cs_catalog_table *find(cs_catalog *c, const char *db, const char *name)
{
    for (int i = c->n - 1; i >= 0; i--) {
        cs_catalog_table *t = c->entries[i];
        if (!t->dropped && same_db(t->database, db) && cs_str_ieq(t->name, name)) return t;
    }
    return NULL;
}

cs_catalog_table *cs_catalog_lookup_relation(cs_catalog *c, const char *const *parts, int n)
{
    if (n == 1) {
        cs_catalog_table *t = find(c, NULL, parts[0]);
        return t ? t : find(c, c->current_db, parts[0]);
    }
    if (n == 2) return find(c, parts[0], parts[1]);
    if (n == 3 && cs_str_ieq(parts[0], "spark_catalog")) return find(c, parts[1], parts[2]);
    return NULL;
}

static void quoted_name(const char *const *parts, int n, cs_sbuf *out)
{
    for (int i = 0; i < n; i++) {
        if (i) cs_sbuf_putc(out, '.');
        cs_sbuf_putc(out, '`');
        for (const char *p = parts[i]; *p; p++) {
            if (*p == '`') cs_sbuf_putc(out, '`');
            cs_sbuf_putc(out, *p);
        }
        cs_sbuf_putc(out, '`');
    }
}

int cs_catalog_not_found_error(const char *const *parts, int n, cs_error *err)
{
    cs_sbuf name = {0};
    quoted_name(parts, n, &name);
    cs_sql_error_set(err, CS_EINVAL, "TABLE_OR_VIEW_NOT_FOUND", "42P01",
                     "The table or view %s cannot be found. Verify the spelling and correctness "
                     "of the schema and catalog.\nIf you did not qualify the name with a schema, "
                     "verify the current_schema() output, or qualify the name with the correct "
                     "schema and catalog.\nTo tolerate the error on drop use DROP VIEW IF EXISTS "
                     "or DROP TABLE IF EXISTS.",
                     cs_sbuf_str(&name));
    cs_sql_error_param(err, "relationName", cs_sbuf_str(&name));
    cs_sbuf_free(&name);
    return CS_EINVAL;
}

int cs_catalog_unresolved_routine_error(const cs_catalog *c, const char *const *parts, int n,
                                        cs_error *err)
{
    cs_sbuf name = {0};
    quoted_name(parts, n, &name);
    cs_sql_error_set(err, CS_EINVAL, "UNRESOLVED_ROUTINE", "42883",
                     "Cannot resolve routine %s on search path [`system`.`builtin`, "
                     "`system`.`session`, `spark_catalog`.`%s`].",
                     cs_sbuf_str(&name), cs_catalog_current_database(c));
    cs_sbuf_free(&name);
    return CS_EINVAL;
}

static int exists_error(const char *const *parts, int n, cs_error *err)
{
    cs_sbuf name = {0};
    quoted_name(parts, n, &name);
    cs_sql_error_set(err, CS_EINVAL, "TABLE_OR_VIEW_ALREADY_EXISTS", "42P07",
                     "Cannot create table or view %s because it already exists. Choose a "
                     "different name, drop or replace the existing object, or add the IF NOT "
                     "EXISTS clause to tolerate pre-existing objects.",
                     cs_sbuf_str(&name));
    cs_sbuf_free(&name);
    return CS_EINVAL;
}

static void add_entry(cs_catalog *c, cs_catalog_table *t)
{
    if (c->n == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 16;
        cs_catalog_table **e = cs_xcalloc((size_t)c->cap, sizeof *e);
        if (c->n) memcpy(e, c->entries, sizeof *e * (size_t)c->n);
        free(c->entries);
        c->entries = e;
    }
    c->entries[c->n++] = t;
}

static void keep_view_arena(cs_catalog *c, cs_sql_arena *a)
{
    if (c->n_view_arenas == c->cap_view_arenas) {
        c->cap_view_arenas = c->cap_view_arenas ? c->cap_view_arenas * 2 : 8;
        cs_sql_arena **v = cs_xcalloc((size_t)c->cap_view_arenas, sizeof *v);
        if (c->n_view_arenas) memcpy(v, c->view_arenas, sizeof *v * (size_t)c->n_view_arenas);
        free(c->view_arenas);
        c->view_arenas = v;
    }
    c->view_arenas[c->n_view_arenas++] = a;
}

int cs_catalog_create_temp_view(cs_catalog *c, const char *name, bool global, bool replace,
                                const char *const *columns, int n_columns,
                                const cs_logical_plan *plan, cs_sql_arena *arena, cs_error *err)
{
    keep_view_arena(c, arena);
    const char *db = global ? CS_CATALOG_GLOBAL_TEMP_DB : NULL;
    cs_catalog_table *old = find(c, db, name);
    if (old && !replace) {
        const char *parts[2] = {CS_CATALOG_GLOBAL_TEMP_DB, name};
        cs_sbuf q = {0};
        quoted_name(global ? parts : parts + 1, global ? 2 : 1, &q);
        cs_sql_error_set(err, CS_EINVAL, "TEMP_TABLE_OR_VIEW_ALREADY_EXISTS", "42P07",
                         "Cannot create the temporary view %s because it already exists.\n"
                         "Choose a different name, drop or replace the existing view, or add "
                         "the IF NOT EXISTS clause to tolerate pre-existing views.",
                         cs_sbuf_str(&q));
        cs_sbuf_free(&q);
        return CS_EINVAL;
    }
    if (old) old->dropped = true;
    cs_catalog_table *t = cs_sql_alloc(c->arena, sizeof *t);
    t->kind = CS_CATALOG_TEMP_VIEW;
    t->database = db;
    t->name = lower_dup(c->arena, name);
    t->view_plan = plan;
    t->view_arena = arena;
    t->n_view_columns = n_columns;
    if (n_columns > 0) {
        t->view_columns = cs_sql_alloc(c->arena, sizeof *t->view_columns * (size_t)n_columns);
        for (int i = 0; i < n_columns; i++)
            t->view_columns[i] = cs_sql_strdup(c->arena, columns[i]);
    }
    t->size_bytes = -1;
    add_entry(c, t);
    return 0;
}

void cs_catalog_create_temp_function(cs_catalog *c, const char *name, const cs_sql_python_udf *udf,
                                     cs_col_type *type)
{
    cs_sql_python_udf *u = cs_sql_alloc(c->arena, sizeof *u);
    uint8_t *command = cs_sql_alloc(c->arena, udf->command_len + 1);
    if (udf->command_len) memcpy(command, udf->command, udf->command_len);
    *u = (cs_sql_python_udf){udf->eval_type, command, udf->command_len,
                             cs_sql_strdup(c->arena, udf->python_ver ? udf->python_ver : ""),
                             udf->deterministic};
    cs_catalog_function *old = (cs_catalog_function *)cs_catalog_lookup_function(c, name);
    if (old) old->dropped = true; /* replaced */
    cs_catalog_function *f = cs_sql_alloc(c->arena, sizeof *f);
    f->name = cs_sql_strdup(c->arena, name);
    f->udf = u;
    f->type = cs_sql_arena_keep_type(c->arena, cs_col_type_ref(type));
    f->next = c->functions;
    c->functions = f;
}

const cs_catalog_function *cs_catalog_lookup_function(const cs_catalog *c, const char *name)
{
    for (const cs_catalog_function *f = c ? c->functions : NULL; f; f = f->next)
        if (!f->dropped && !f->database && strcasecmp(f->name, name) == 0) return f;
    return NULL;
}

const cs_catalog_function *cs_catalog_lookup_persistent_function(const cs_catalog *c,
                                                                 const char *db, const char *name)
{
    for (const cs_catalog_function *f = c ? c->functions : NULL; f; f = f->next)
        if (!f->dropped && f->database && cs_str_ieq(f->database, db) &&
            strcasecmp(f->name, name) == 0)
            return f;
    return NULL;
}

const cs_catalog_function *cs_catalog_functions(const cs_catalog *c)
{
    return c->functions;
}

int cs_catalog_create_function(cs_catalog *c, const char *db, const char *name,
                               const char *class_name, bool replace, bool if_not_exists,
                               cs_error *err)
{
    cs_catalog_function *old =
        (cs_catalog_function *)cs_catalog_lookup_persistent_function(c, db, name);
    if (old && if_not_exists) return 0;
    if (old && !replace)
        return cs_sql_error_set(err, CS_EINVAL, "ROUTINE_ALREADY_EXISTS", "42723",
                                "Cannot create the routine `%s`.`%s` because a routine of that "
                                "name already exists.\nChoose a different name, drop or replace "
                                "the existing routine, or add the IF NOT EXISTS clause to "
                                "tolerate a pre-existing routine.",
                                db, name);
    if (old) old->dropped = true;
    cs_catalog_function *f = cs_sql_alloc(c->arena, sizeof *f);
    f->name = lower_dup(c->arena, name);
    f->database = lower_dup(c->arena, db);
    f->class_name = cs_sql_strdup(c->arena, class_name);
    f->next = c->functions;
    c->functions = f;
    return 0;
}

int cs_catalog_drop_function(cs_catalog *c, const char *db, const char *name)
{
    cs_catalog_function *f =
        (cs_catalog_function *)(db ? cs_catalog_lookup_persistent_function(c, db, name)
                                   : cs_catalog_lookup_function(c, name));
    if (!f) return 0;
    f->dropped = true;
    return 1;
}

/* ---- databases ------------------------------------------------------------------------------ */

void cs_catalog_set_warehouse(cs_catalog *c, const char *warehouse)
{
    c->warehouse = cs_sql_strdup(c->arena, warehouse);
    c->databases[0]->location = c->warehouse;
}

int cs_catalog_database_count(const cs_catalog *c)
{
    return c->n_databases;
}

const cs_catalog_database *cs_catalog_database_at(const cs_catalog *c, int i)
{
    return i >= 0 && i < c->n_databases ? c->databases[i] : NULL;
}

const cs_catalog_database *cs_catalog_find_database(const cs_catalog *c, const char *name)
{
    for (int i = 0; name && i < c->n_databases; i++)
        if (!c->databases[i]->dropped && cs_str_ieq(c->databases[i]->name, name))
            return c->databases[i];
    return NULL;
}

const char *cs_catalog_database_of(const cs_catalog *c, const char *const *parts, int n)
{
    return n >= 2 ? parts[n - 2] : c->current_db;
}

int cs_catalog_schema_not_found_error(const char *db, cs_error *err)
{
    cs_sql_error_set(err, CS_EINVAL, "SCHEMA_NOT_FOUND", "42704",
                     "The schema `spark_catalog`.`%s` cannot be found. Verify the spelling and "
                     "correctness of the schema and catalog.\nIf you did not qualify the name "
                     "with a catalog, verify the current_schema() output, or qualify the name "
                     "with the correct catalog.\nTo tolerate the error on drop use DROP SCHEMA "
                     "IF EXISTS.",
                     db);
    char name[160];
    snprintf(name, sizeof name, "`spark_catalog`.`%s`", db);
    cs_sql_error_param(err, "schemaName", name);
    return CS_EINVAL;
}

int cs_catalog_create_database(cs_catalog *c, const char *name, const char *comment,
                               const char *location, const char *const *keys,
                               const char *const *values, int n, bool if_not_exists, bool *created,
                               cs_error *err)
{
    *created = false;
    if (cs_str_ieq(name, CS_CATALOG_GLOBAL_TEMP_DB))
        return cs_sql_error_set(err, CS_EINVAL, "_LEGACY_ERROR_TEMP_1252", "42000",
                                "%s is a system preserved database, you cannot create a "
                                "database with this name.",
                                CS_CATALOG_GLOBAL_TEMP_DB);
    if (cs_catalog_find_database(c, name)) {
        if (if_not_exists) return 0;
        return cs_sql_error_set(err, CS_EINVAL, "SCHEMA_ALREADY_EXISTS", "42P06",
                                "Cannot create schema `%s` because it already exists.\nChoose a "
                                "different name, drop the existing schema, or add the IF NOT "
                                "EXISTS clause to tolerate pre-existing schema.",
                                name);
    }
    cs_catalog_database *d = cs_sql_alloc(c->arena, sizeof *d);
    d->name = lower_dup(c->arena, name);
    d->comment = comment ? cs_sql_strdup(c->arena, comment) : NULL;
    if (location) {
        d->location = cs_sql_strdup(c->arena, location);
    } else {
        size_t len = strlen(c->warehouse) + strlen(d->name) + 8;
        char *l = cs_sql_alloc(c->arena, len);
        snprintf(l, len, "%s/%s.db", c->warehouse, d->name);
        d->location = l;
    }
    d->n_properties = n;
    if (n > 0) {
        d->property_keys = cs_sql_alloc(c->arena, sizeof *d->property_keys * (size_t)n);
        d->property_values = cs_sql_alloc(c->arena, sizeof *d->property_values * (size_t)n);
        for (int i = 0; i < n; i++) {
            d->property_keys[i] = cs_sql_strdup(c->arena, keys[i]);
            d->property_values[i] = cs_sql_strdup(c->arena, values[i]);
        }
    }
    add_database(c, d);
    *created = true;
    return 0;
}

int cs_catalog_drop_database(cs_catalog *c, const char *name, bool if_exists, bool cascade,
                             const cs_catalog_database **dropped, cs_error *err)
{
    *dropped = NULL;
    if (cs_str_ieq(name, CS_CATALOG_DEFAULT_DB))
        return cs_sql_error_set(err, CS_EINVAL, "UNSUPPORTED_FEATURE.DROP_DATABASE", "0A000",
                                "The feature is not supported: Drop the default database "
                                "`spark_catalog`.`%s`.",
                                CS_CATALOG_DEFAULT_DB);
    cs_catalog_database *d = (cs_catalog_database *)cs_catalog_find_database(c, name);
    if (!d) return if_exists ? 0 : cs_catalog_schema_not_found_error(name, err);
    bool any = false;
    for (int i = 0; i < c->n; i++)
        any |= !c->entries[i]->dropped && same_db(c->entries[i]->database, d->name);
    for (cs_catalog_function *f = c->functions; f; f = f->next)
        any |= !f->dropped && same_db(f->database, d->name);
    if (any && !cascade)
        return cs_sql_error_set(err, CS_EINVAL, "SCHEMA_NOT_EMPTY", "2BP01",
                                "Cannot drop a schema `%s` because it contains objects.\nUse DROP "
                                "SCHEMA ... CASCADE to drop the schema and all its objects.",
                                d->name);
    for (int i = 0; i < c->n; i++)
        if (same_db(c->entries[i]->database, d->name)) c->entries[i]->dropped = true;
    for (cs_catalog_function *f = c->functions; f; f = f->next)
        if (same_db(f->database, d->name)) f->dropped = true;
    d->dropped = true;
    *dropped = d;
    return 0;
}

int cs_catalog_set_current_database(cs_catalog *c, const char *name, cs_error *err)
{
    const cs_catalog_database *d = cs_catalog_find_database(c, name);
    if (!d) return cs_catalog_schema_not_found_error(name, err);
    c->current_db = d->name;
    return 0;
}

const char *cs_catalog_managed_location(const cs_catalog *c, cs_sql_arena *a, const char *db,
                                        const char *name)
{
    const cs_catalog_database *d = cs_catalog_find_database(c, db);
    const char *base = d ? d->location : c->warehouse;
    size_t len = strlen(base) + strlen(name) + 2;
    char *l = cs_sql_alloc(a, len);
    snprintf(l, len, "%s/%s", base, name);
    for (char *p = l + strlen(base); *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return l;
}

void cs_catalog_table_describe(cs_catalog *c, cs_catalog_table *t, bool managed,
                               const char *comment)
{
    t->managed = managed;
    t->comment = comment ? cs_sql_strdup(c->arena, comment) : NULL;
}

void cs_catalog_table_cluster_by(cs_catalog *c, cs_catalog_table *t, const char *const *names,
                                 int n)
{
    t->cluster_columns = cs_sql_alloc(c->arena, sizeof *t->cluster_columns * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        t->cluster_columns[i] = cs_sql_strdup(c->arena, names[i]);
    t->n_cluster_columns = n;
}

static const char **names_copy(cs_catalog *c, const char *const *names, int n)
{
    const char **out = cs_sql_alloc(c->arena, sizeof *out * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        out[i] = cs_sql_strdup(c->arena, names[i]);
    return out;
}

void cs_catalog_table_bucket_by(cs_catalog *c, cs_catalog_table *t, int num_buckets,
                                const char *const *bucket, int nb, const char *const *sort, int ns)
{
    t->num_buckets = num_buckets;
    t->bucket_columns = names_copy(c, bucket, nb);
    t->n_bucket_columns = nb;
    t->sort_columns = names_copy(c, sort, ns);
    t->n_sort_columns = ns;
}

/* Lists location and fills t's schema (inferred, plus partition columns) and size. */
static int describe_files(cs_sql_arena *a, cs_catalog_table *t, cs_col_type *declared,
                          cs_error *err)
{
    const cs_file_format *fmt = cs_file_format_find(t->format);
    if (!fmt) {
        return cs_sql_error_set(err, CS_EINVAL, "DATA_SOURCE_NOT_FOUND", "42K02",
                                "Failed to find the data source: %s. Make sure the provider name "
                                "is correct and the package is properly registered and "
                                "compatible with your Spark version.",
                                t->format);
    }
    cs_format_options o = {t->option_keys, t->option_values, t->n_options};
    cs_ds_file_index ix;
    const char *paths[1] = {t->location};
    cs_error lerr;
    cs_error_clear(&lerr);
    if (cs_ds_file_index_build(paths, 1, &o, true, &ix, &lerr) != 0) {
        if (cs_sql_error_is(&lerr, "PATH_NOT_FOUND")) {
            /* the data source's text is Spark's, after its "[PATH_NOT_FOUND] " */
            char text[sizeof lerr.msg];
            cs_str_copy(text, sizeof text, lerr.msg + strlen(lerr.error_class) + 3);
            return cs_sql_error_set(err, CS_EINVAL, "PATH_NOT_FOUND", "42K03", "%s", text);
        }
        if (err) *err = lerr;
        return lerr.code ? lerr.code : CS_EIO;
    }
    int64_t size = 0;
    const char **uris = cs_xcalloc((size_t)ix.n_files + 1, sizeof *uris);
    for (int i = 0; i < ix.n_files; i++) {
        uris[i] = ix.files[i].uri;
        size += (int64_t)ix.files[i].size;
    }
    cs_col_type *data = NULL;
    int rc = 0;
    if (declared)
        data = cs_col_type_ref(declared);
    else if (fmt->infer_schema(uris, ix.n_files, &o, &data, err) < 0)
        rc = err ? err->code : CS_EIO;
    free(uris);
    if (rc == 0) {
        /* data columns, then partition columns the files do not hold */
        cs_col_type *ps = ix.parts.schema;
        int np = ps ? ps->n_fields : 0, nd = data->n_fields;
        cs_col_field *f = cs_xcalloc((size_t)(nd + np) + 1, sizeof *f);
        int k = 0;
        for (int i = 0; i < nd; i++) {
            f[k] = data->fields[i];
            f[k++].type = cs_col_type_ref(data->fields[i].type);
        }
        int added = 0;
        for (int i = 0; i < np; i++) {
            bool dup = false;
            for (int j = 0; j < nd; j++)
                dup |= cs_str_ieq(data->fields[j].name, ps->fields[i].name);
            if (dup) continue;
            f[k] = ps->fields[i];
            f[k++].type = cs_col_type_ref(ps->fields[i].type);
            added++;
        }
        t->schema = cs_sql_arena_keep_type(a, cs_col_type_struct(f, k));
        t->n_partition_columns = added;
        t->size_bytes = size;
        free(f);
        cs_col_type_unref(data);
    }
    cs_ds_file_index_free(&ix);
    return rc;
}

int cs_catalog_create_table(cs_catalog *c, const char *const *parts, int n_parts,
                            const char *format, const char *location, const char *const *keys,
                            const char *const *values, int n_options, cs_col_type *schema,
                            bool if_not_exists, cs_error *err)
{
    const cs_catalog_database *d =
        cs_catalog_find_database(c, cs_catalog_database_of(c, parts, n_parts));
    const char *name = parts[n_parts - 1];
    if (!d)
        return cs_catalog_schema_not_found_error(cs_catalog_database_of(c, parts, n_parts), err);
    const char *db = d->name;
    if (find(c, db, name)) {
        if (if_not_exists) return 0;
        const char *full[3] = {"spark_catalog", db, name};
        return exists_error(full, 3, err);
    }
    if (!location) {
        return cs_sql_error_set(err, CS_EINVAL, "UNSUPPORTED_FEATURE.TABLE_OPERATION", "0A000",
                                "The feature is not supported: Table `%s` does not support "
                                "CREATE TABLE without LOCATION (managed tables).",
                                name);
    }
    cs_catalog_table *t = cs_sql_alloc(c->arena, sizeof *t);
    t->kind = CS_CATALOG_TABLE;
    t->created_s = (int64_t)time(NULL);
    t->database = db;
    t->name = lower_dup(c->arena, name);
    t->format = lower_dup(c->arena, format);
    t->location = cs_sql_strdup(c->arena, location);
    t->n_options = n_options;
    if (n_options > 0) {
        t->option_keys = cs_sql_alloc(c->arena, sizeof *t->option_keys * (size_t)n_options);
        t->option_values = cs_sql_alloc(c->arena, sizeof *t->option_values * (size_t)n_options);
        for (int i = 0; i < n_options; i++) {
            t->option_keys[i] = cs_sql_strdup(c->arena, keys[i]);
            t->option_values[i] = cs_sql_strdup(c->arena, values[i]);
        }
    }
    int rc = describe_files(c->arena, t, schema, err);
    if (rc != 0) return rc; /* t stays unlinked in the arena: nothing is created */
    add_entry(c, t);
    return 0;
}

void cs_catalog_table_cache(cs_catalog_table *t, cs_col_batch *const *batches, int n)
{
    cs_catalog_table_uncache(t);
    t->cached_batches = cs_xcalloc((size_t)n + 1, sizeof *t->cached_batches);
    if (n > 0) memcpy(t->cached_batches, batches, sizeof *batches * (size_t)n);
    t->n_cached_batches = n;
    t->cached = true;
}

void cs_catalog_table_uncache(cs_catalog_table *t)
{
    for (int i = 0; i < t->n_cached_batches; i++)
        cs_col_batch_unref(t->cached_batches[i]);
    free(t->cached_batches);
    t->cached_batches = NULL;
    t->n_cached_batches = 0;
    t->cached = false;
}

int cs_catalog_drop(cs_catalog *c, const char *const *parts, int n, bool if_exists, cs_error *err)
{
    cs_catalog_table *t = cs_catalog_lookup_relation(c, parts, n);
    if (!t) return if_exists ? 0 : cs_catalog_not_found_error(parts, n, err);
    t->dropped = true;
    cs_catalog_table_uncache(t);
    return 0;
}

cs_catalog_table *cs_catalog_path_relation(cs_sql_arena *a, const char *format, const char *path,
                                           const char *const *keys, const char *const *values,
                                           int n_options, cs_col_type *declared, cs_error *err)
{
    cs_catalog_table *t = cs_sql_alloc(a, sizeof *t);
    t->kind = CS_CATALOG_PATH;
    t->name = cs_sql_strdup(a, path);
    t->format = lower_dup(a, format);
    t->location = cs_sql_strdup(a, path);
    t->n_options = n_options;
    t->option_keys = (const char **)keys;
    t->option_values = (const char **)values;
    return describe_files(a, t, declared, err) == 0 ? t : NULL;
}
