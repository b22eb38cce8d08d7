/*
 * table_write.c — the SQL statements that write files (sql_session.h's statements, as Spark 4
 * runs them over its session catalog's data source tables):
 *   INSERT OVERWRITE [LOCAL] DIRECTORY ['path'] USING fmt [OPTIONS (...)] query
 *     (Spark's InsertIntoDataSourceDirCommand; a Spark Connect save(path) too, with the
 *     writer's SaveMode and partitionBy columns);
 *   CREATE TABLE [IF NOT EXISTS] t USING fmt [OPTIONS] [PARTITIONED BY (...)] [LOCATION 'p']
 *     AS query (CreateDataSourceTableAsSelectCommand; Connect's saveAsTable with its SaveMode
 *     and clusterBy columns, which the table records: Spark 4's ClusterBySpec, never with
 *     PARTITIONED BY; CLUSTERED BY ... INTO n BUCKETS and bucketBy: bucket_write.c):
 *     the query's rows written at the location — without one, in the database's folder as a
 *     managed table (<spark.sql.warehouse.dir>/t for default, <warehouse>/<db>.db/t else) — then
 * the table entered into the session catalog over them (OR REPLACE is Spark's
 * UNSUPPORTED_FEATURE.TABLE_OPERATION for its v1 tables); INSERT INTO|OVERWRITE [TABLE] t
 * [PARTITION (k = v, k2)] [(columns)] query (InsertIntoHadoopFsRelationCommand): the query's
 * columns by position (or to the listed columns; the others null), cast by Spark's ANSI store
 * assignment; static partition values as constant columns, dynamic ones from the query's last
 * columns; OVERWRITE replaces the table (static mode) or the static partition's folder. The rows
 * are written by the query's own tasks (query_write.c).
 *
 * Called by sql_session.c's statement dispatch. Ownership: statements, plans and names are the
 * caller's arena's, borrowed for the call.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <unistd.h>

#include "session/session_internal.h"
#include "sql/analyzer.h"
#include "sql/type_coercion.h"
#include "sqlexec/sql_error.h"

static const char *option_of(const cs_sql_statement *st, const char *key)
{
    for (int i = 0; i < st->n_options; i++)
        if (cs_str_ieq(st->option_keys[i], key)) return st->option_values[i];
    return NULL;
}

static cs_session_write write_of(const cs_sql_statement *st, const char *path, cs_ds_save_mode m)
{
    return (cs_session_write){.format = st->format,
                              .options = {st->option_keys, st->option_values, st->n_options},
                              .path = path,
                              .mode = m,
                              .partition_by = st->partition_by,
                              .n_partition_by = st->n_partition_by};
}

int cs_session_insert_directory(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                                const char *text, cs_error *err)
{
    cs_ds_save_mode m = CS_DS_MODE_OVERWRITE;
    if (st->save_mode && cs_ds_parse_save_mode(st->save_mode, &m, err) < 0) return err->code;
    cs_session_write w = write_of(st, st->location ? st->location : option_of(st, "path"), m);
    cs_logical_plan *resolved;
    if (cs_sql_analyze(s->catalog, a, st->plan, &resolved, err) != 0) return err->code;
    return cs_session_write_query(s, a, resolved, text, &w, err);
}

/* ---- CREATE TABLE ... AS query --------------------------------------------------------------- */

/* Whether a local path exists as a file or a directory that holds anything. */
static bool local_path_nonempty(const char *path)
{
    DIR *d = opendir(path);
    if (!d) return errno == ENOTDIR; /* a file */
    bool any = false;
    for (struct dirent *e; !any && (e = readdir(d));)
        any = strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return any;
}

/* The query's columns that are not partition columns: the data schema the files hold. */
static cs_col_type *data_schema_of(const cs_logical_plan *q, const cs_sql_statement *st)
{
    cs_col_field *f = cs_xcalloc((size_t)q->n_output + 1, sizeof *f);
    int k = 0;
    for (int i = 0; i < q->n_output; i++) {
        bool part = false;
        for (int j = 0; j < st->n_partition_by; j++)
            part |= cs_str_ieq(st->partition_by[j], q->output[i]->name);
        if (part) continue;
        f[k].name = (char *)q->output[i]->name;
        f[k].type = cs_col_type_ref(q->output[i]->type);
        f[k++].nullable = true;
    }
    cs_col_type *t = cs_col_type_struct(f, k);
    free(f);
    return t;
}

/* The query's columns as the table has them: the data columns, then the partition columns. */
static cs_col_type *table_schema_of(const cs_logical_plan *q, const cs_sql_statement *st)
{
    cs_col_type *data = data_schema_of(q, st);
    int nd = data->n_fields, np = st->n_partition_by;
    cs_col_field *f = cs_xcalloc((size_t)(nd + np) + 1, sizeof *f);
    for (int i = 0; i < nd; i++) {
        f[i] = data->fields[i];
        cs_col_type_ref(f[i].type);
    }
    int k = nd;
    for (int j = 0; j < np; j++)
        for (int i = 0; i < q->n_output; i++)
            if (cs_str_ieq(st->partition_by[j], q->output[i]->name)) {
                f[k].name = (char *)q->output[i]->name;
                f[k].type = cs_col_type_ref(q->output[i]->type);
                f[k++].nullable = true;
                break;
            }
    cs_col_type *t = cs_col_type_struct(f, k);
    free(f);
    cs_col_type_unref(data);
    return t;
}

/* The clustering columns of saveAsTable's clusterBy as the query's columns spell them (Spark's
 * ClusterBySpec.normalizeClusterBySpec: found case-insensitively in the data schema), in names
 * (st->n_cluster_by entries of the arena); Spark's error for a column the query lacks. */
static int cluster_columns(cs_sql_arena *a, const cs_sql_statement *st, const cs_col_type *data,
                           const char ***names, cs_error *err)
{
    const char **out = cs_sql_alloc(a, sizeof *out * (size_t)(st->n_cluster_by + 1));
    for (int i = 0; i < st->n_cluster_by; i++) {
        out[i] = NULL;
        for (int j = 0; j < data->n_fields && !out[i]; j++)
            if (cs_str_ieq(st->cluster_by[i], data->fields[j].name)) out[i] = data->fields[j].name;
        if (!out[i]) {
            cs_sbuf tree = CS_SBUF_INIT;
            cs_col_type_tree_string(data, 0, &tree);
            cs_sql_error_set(err, CS_EINVAL, "_LEGACY_ERROR_TEMP_3060", "",
                             "Couldn't find column %s in:\n%s", st->cluster_by[i],
                             cs_sbuf_str(&tree));
            cs_sbuf_free(&tree);
            return err->code;
        }
    }
    *names = out;
    return 0;
}

int cs_session_create_table_as(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                               const char *text, cs_error *err)
{
    const char *name = st->parts[st->n_parts - 1];
    const char *full[2] = {cs_catalog_database_of(s->catalog, st->parts, st->n_parts), name};
    if (!cs_catalog_find_database(s->catalog, full[0]))
        return cs_catalog_schema_not_found_error(full[0], err);
    if (st->n_cluster_by > 0 && st->n_partition_by > 0)
        return cs_sql_error_set(err, CS_EINVAL,
                                "SPECIFY_CLUSTER_BY_WITH_PARTITIONED_BY_IS_NOT_ALLOWED", "42908",
                                "Cannot specify both CLUSTER BY and PARTITIONED BY.");
    if (st->or_replace && !st->save_mode)
        return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE.TABLE_OPERATION",
                                "0A000",
                                "The feature is not supported: Table `spark_catalog`.`%s`.`%s` "
                                "does not support REPLACE TABLE AS SELECT. Please check the "
                                "current catalog and namespace to make sure the qualified table "
                                "name is expected, and also check the catalog implementation "
                                "which is configured by \"spark.sql.catalog\".",
                                full[0], name);
    cs_ds_save_mode m = CS_DS_MODE_ERROR;
    if (st->save_mode && cs_ds_parse_save_mode(st->save_mode, &m, err) < 0) return err->code;
    if (!st->save_mode && st->if_not_exists) m = CS_DS_MODE_IGNORE;
    cs_catalog_table *old = cs_catalog_lookup_relation(s->catalog, full, 2);
    if (old && m == CS_DS_MODE_IGNORE) return 0;
    if (old && m == CS_DS_MODE_APPEND)
        return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                                "The feature is not supported: saveAsTable in append mode.");
    if (old && m == CS_DS_MODE_OVERWRITE) {
        /* a managed table's folder goes with it, as Spark's dropTable before the overwrite */
        if (cs_session_drop_relation(s, full, 2, false, err) < 0) return err->code;
        old = NULL;
    }
    if (old) /* the catalog's own TABLE_OR_VIEW_ALREADY_EXISTS */
        return cs_catalog_create_table(s->catalog, full, 2, st->format, old->location, NULL, NULL,
                                       0, NULL, false, err);
    const char *location = st->location ? st->location : option_of(st, "path");
    bool managed = !location;
    if (managed) location = cs_catalog_managed_location(s->catalog, a, full[0], name);
    if (managed && local_path_nonempty(location))
        return cs_sql_error_set(err, CS_EINVAL, "LOCATION_ALREADY_EXISTS", "42710",
                                "Cannot name the managed table as `spark_catalog`.`%s`.`%s`, as "
                                "its associated location 'file:%s' already exists. Please pick a "
                                "different table name, or remove the existing location first.",
                                full[0], name, location);
    if (!managed && m == CS_DS_MODE_ERROR && local_path_nonempty(location))
        return cs_sql_error_set(err, CS_EINVAL, "_LEGACY_ERROR_TEMP_1241", "42000",
                                "CREATE-TABLE-AS-SELECT cannot create table with location to a "
                                "non-empty directory file://%s. To allow overwriting the "
                                "existing non-empty directory, set "
                                "'spark.sql.legacy.allowNonEmptyLocationInCTAS' to true.",
                                location);
    cs_logical_plan *resolved;
    if (cs_sql_analyze(s->catalog, a, st->plan, &resolved, err) != 0) return err->code;
    cs_col_type *data = cs_sql_arena_keep_type(a, data_schema_of(resolved, st));
    const char **clustering = NULL, **bucket = NULL, **sort = NULL;
    if (cluster_columns(a, st, data, &clustering, err) != 0) return err->code;
    bool bucketed = st->bucketed || st->n_sort_by > 0;
    if (bucketed) {
        cs_col_type *cols = cs_sql_arena_keep_type(a, table_schema_of(resolved, st));
        if (cs_session_bucket_columns(s, a, st, full[0], cols, &bucket, &sort, err) != 0)
            return err->code;
    }
    cs_session_write w = write_of(st, location, CS_DS_MODE_OVERWRITE);
    if (bucketed) {
        w.num_buckets = st->num_buckets;
        w.bucket_by = bucket;
        w.n_bucket_by = st->n_bucket_by;
        w.sort_by = sort;
        w.n_sort_by = st->n_sort_by;
    }
    int rc = cs_session_write_query(s, a, resolved, text, &w, err);
    if (rc < 0) return rc;
    rc = cs_catalog_create_table(s->catalog, full, 2, st->format, location, st->option_keys,
                                 st->option_values, st->n_options, data, false, err);
    cs_catalog_table *t = rc == 0 ? cs_catalog_lookup_relation(s->catalog, full, 2) : NULL;
    if (t) cs_catalog_table_describe(s->catalog, t, managed, st->comment);
    if (t && st->n_cluster_by > 0)
        cs_catalog_table_cluster_by(s->catalog, t, clustering, st->n_cluster_by);
    if (t && bucketed)
        cs_catalog_table_bucket_by(s->catalog, t, st->num_buckets, bucket, st->n_bucket_by, sort,
                                   st->n_sort_by);
    return rc;
}

/* ---- INSERT INTO | OVERWRITE [TABLE] t [PARTITION (...)] [(columns)] query ----------------- */

/* Spark's ANSI store assignment (Cast.canANSIStoreAssign): which query types a table column of
 * type `to` takes; the others are INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST. */
static bool can_store_assign(const cs_col_type *from, const cs_col_type *to)
{
    if (cs_col_type_equal(from, to) || from->id == CS_TYPE_NULL) return true;
    if (cs_tc_is_numeric(from) && cs_tc_is_numeric(to)) return true;
    if (cs_tc_is_atomic(from) && cs_tc_is_string(to)) return true;
    if (cs_tc_is_datetime(from) && cs_tc_is_datetime(to)) return true;
    return false;
}

static cs_sql_expr *alias_of(cs_sql_session *s, cs_sql_arena *a, cs_sql_expr *e, const char *name)
{
    cs_sql_expr *al = cs_sql_expr_new(a, CS_EX_ALIAS, 1);
    al->args[0] = e;
    al->name = name;
    al->type = e->type;
    al->nullable = true;
    al->id = cs_catalog_next_expr_id(s->catalog);
    al->resolved = true;
    return al;
}

/* A resolved string literal (NULL: a null of type string). */
static cs_sql_expr *string_literal(cs_sql_arena *a, const char *v)
{
    cs_col_builder *b = cs_col_builder_new(NULL, cs_col_type_primitive(CS_TYPE_STRING));
    if (v)
        cs_col_builder_append_string(b, v, strlen(v));
    else
        cs_col_builder_append_nulls(b, 1);
    cs_sql_expr *e = cs_sql_expr_literal(a, cs_col_builder_finish(b));
    cs_col_builder_free(b);
    return e;
}

static void column_list(cs_sbuf *out, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        cs_sbuf_printf(out, "%s`%s`", i ? ", " : "", names[i]);
}

/* INSERT_COLUMN_ARITY_MISMATCH: the table's columns the query feeds, and the query's. */
static int arity_error(const cs_catalog_table *t, const char *const *want, int n_want,
                       const cs_logical_plan *q, cs_error *err)
{
    cs_sbuf tc = CS_SBUF_INIT, dc = CS_SBUF_INIT;
    column_list(&tc, want, n_want);
    for (int i = 0; i < q->n_output; i++)
        cs_sbuf_printf(&dc, "%s`%s`", i ? ", " : "", q->output[i]->name);
    bool many = q->n_output > n_want;
    cs_sql_error_set(err, CS_EINVAL,
                     many ? "INSERT_COLUMN_ARITY_MISMATCH.TOO_MANY_DATA_COLUMNS"
                          : "INSERT_COLUMN_ARITY_MISMATCH.NOT_ENOUGH_DATA_COLUMNS",
                     "21S01",
                     "Cannot write to `spark_catalog`.`%s`.`%s`, the reason is %s data columns:\n"
                     "Table columns: %s.\nData columns: %s.",
                     t->database, t->name, many ? "too many" : "not enough", cs_sbuf_str(&tc),
                     cs_sbuf_str(&dc));
    cs_sbuf_free(&tc);
    cs_sbuf_free(&dc);
    return CS_EINVAL;
}

/* A type as Spark's errors name it: "INT", "DECIMAL(10,2)". */
static void sql_type_name(const cs_col_type *t, cs_sbuf *out)
{
    cs_sbuf s = CS_SBUF_INIT;
    cs_col_type_simple_string(t, &s);
    for (size_t i = 0; i < s.len; i++)
        cs_sbuf_putc(out,
                     (char)(s.data[i] >= 'a' && s.data[i] <= 'z' ? s.data[i] - 32 : s.data[i]));
    cs_sbuf_free(&s);
}

/* The index of column `name` in t's schema, or -1. */
static int column_index(const cs_catalog_table *t, const char *name)
{
    for (int i = 0; i < t->schema->n_fields; i++)
        if (cs_str_ieq(t->schema->fields[i].name, name)) return i;
    return -1;
}

int cs_session_insert_table(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                            const char *text, cs_error *err)
{
    cs_catalog_table *t = cs_catalog_lookup_relation(s->catalog, st->parts, st->n_parts);
    if (!t) return cs_catalog_not_found_error(st->parts, st->n_parts, err);
    if (t->kind != CS_CATALOG_TABLE)
        return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                                "The feature is not supported: INSERT into a view (`%s`).",
                                t->name);
    int nf = t->schema->n_fields, nd = nf - t->n_partition_columns;
    /* each column: its static value, or the query's column feeding it (-1: null) */
    const char **static_value = cs_sql_alloc(a, sizeof *static_value * (size_t)(nf + 1));
    bool *is_static = cs_sql_alloc(a, sizeof *is_static * (size_t)(nf + 1));
    int *from = cs_sql_alloc(a, sizeof *from * (size_t)(nf + 1));
    bool dynamic_parts = false;
    for (int i = 0; i < st->n_partition_by; i++) {
        int c = column_index(t, st->partition_by[i]);
        if (c < nd)
            return cs_sql_error_set(err, CS_EINVAL, "PARTITIONS_NOT_FOUND", "428FT",
                                    "The partition(s) `%s` cannot be found in table "
                                    "`spark_catalog`.`%s`.`%s`.",
                                    st->partition_by[i], t->database, t->name);
        is_static[c] = st->partition_values[i] != NULL;
        static_value[c] = st->partition_values[i];
        dynamic_parts |= !is_static[c];
    }
    int n_target = 0;
    const char **target = cs_sql_alloc(a, sizeof *target * (size_t)(nf + 1));
    for (int c = 0; c < nf; c++)
        from[c] = -1;
    if (st->n_columns > 0) {
        for (int i = 0; i < st->n_columns; i++) {
            int c = column_index(t, st->column_names[i]);
            if (c < 0)
                return cs_sql_error_set(err, CS_EINVAL, "UNRESOLVED_COLUMN.WITH_SUGGESTION",
                                        "42703",
                                        "A column, variable, or function parameter with name "
                                        "`%s` cannot be resolved.",
                                        st->column_names[i]);
            target[n_target] = t->schema->fields[c].name;
            from[c] = n_target++;
        }
    } else {
        for (int c = 0; c < nf; c++)
            if (!is_static[c]) {
                target[n_target] = t->schema->fields[c].name;
                from[c] = n_target++;
            }
    }
    cs_logical_plan *q;
    if (cs_sql_analyze(s->catalog, a, st->plan, &q, err) != 0) return err->code;
    if (q->n_output != n_target) return arity_error(t, target, n_target, q, err);
    cs_logical_plan *p = cs_logical_plan_new(a, CS_LP_PROJECT, 1);
    p->children[0] = q;
    p->n_exprs = nf;
    p->exprs = cs_sql_alloc(a, sizeof *p->exprs * (size_t)(nf + 1));
    for (int c = 0; c < nf; c++) {
        cs_col_type *to = t->schema->fields[c].type;
        cs_sql_expr *e;
        if (is_static[c]) {
            e = string_literal(a, static_value[c]);
        } else if (from[c] >= 0) {
            e = q->output[from[c]];
            if (!can_store_assign(e->type, to)) {
                cs_sbuf ft = CS_SBUF_INIT, tt = CS_SBUF_INIT;
                sql_type_name(e->type, &ft);
                sql_type_name(to, &tt);
                cs_sql_error_set(err, CS_EINVAL, "INCOMPATIBLE_DATA_FOR_TABLE.CANNOT_SAFELY_CAST",
                                 "KD000",
                                 "Cannot write incompatible data for the table "
                                 "`spark_catalog`.`%s`.`%s`: Cannot safely cast `%s` \"%s\" to "
                                 "\"%s\".",
                                 t->database, t->name, t->schema->fields[c].name, cs_sbuf_str(&ft),
                                 cs_sbuf_str(&tt));
                cs_sbuf_free(&ft);
                cs_sbuf_free(&tt);
                return CS_EINVAL;
            }
        } else {
            e = string_literal(a, NULL);
        }
        p->exprs[c] = alias_of(s, a, cs_tc_cast(a, e, to), t->schema->fields[c].name);
    }
    cs_logical_plan_output_of_list(a, p);
    /* the write: appended, or over what it replaces (static mode: the whole table, or the
     * folders of the static partition values) */
    cs_ds_save_mode m = CS_DS_MODE_APPEND;
    bool all_static = t->n_partition_columns > 0 && !dynamic_parts;
    for (int c = nd; c < nf; c++)
        all_static &= is_static[c];
    if (st->overwrite) {
        const char *mode = cs_sql_conf_get(s->conf, "spark.sql.sources.partitionOverwriteMode");
        if (cs_str_ieq(mode, "DYNAMIC") && t->n_partition_columns > 0)
            return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                                    "The feature is not supported: INSERT OVERWRITE with "
                                    "spark.sql.sources.partitionOverwriteMode=DYNAMIC.");
        if (st->n_partition_by == 0 || !all_static) {
            if (st->n_partition_by > 0 && !all_static)
                return cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                                        "The feature is not supported: INSERT OVERWRITE of "
                                        "a partial partition specification.");
            m = CS_DS_MODE_OVERWRITE;
        }
    }
    const char **pby = cs_sql_alloc(a, sizeof *pby * (size_t)(nf - nd + 1));
    for (int c = nd; c < nf; c++)
        pby[c - nd] = t->schema->fields[c].name;
    cs_session_write w = {.format = t->format,
                          .options = {t->option_keys, t->option_values, t->n_options},
                          .path = t->location,
                          .mode = m,
                          .partition_by = pby,
                          .n_partition_by = nf - nd,
                          .table = t->name,
                          .replaces = st->overwrite,
                          .num_buckets = t->num_buckets,
                          .bucket_by = t->bucket_columns,
                          .n_bucket_by = t->n_bucket_columns,
                          .sort_by = t->sort_columns,
                          .n_sort_by = t->n_sort_columns};
    cs_sbuf folder = CS_SBUF_INIT;
    if (st->overwrite && m == CS_DS_MODE_APPEND) { /* static partition: its folder replaced */
        cs_sbuf_puts(&folder, t->location);
        for (int c = nd; c < nf; c++)
            cs_sbuf_printf(&folder, "/%s=%s", t->schema->fields[c].name, static_value[c]);
        w.clear_first = cs_sbuf_str(&folder);
    }
    int rc = cs_session_write_query(s, a, p, text, &w, err);
    cs_sbuf_free(&folder);
    return rc;
}
