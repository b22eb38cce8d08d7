/*
 * connect_catalog.c — the catalog relations of Spark Connect (spark.catalog in a PySpark client:
 * Relation.catalog), which Spark's server answers itself as SparkConnectPlanner.transformCatalog
 * does, from the session's catalog, on the work's thread:
 *
 *   listTables([db], [pattern])   name, catalog, namespace (array<string>), description,
 *                                 tableType, isTemporary — one row per table or temporary view
 *   tableExists(name, [db])       one boolean
 *   dropTempView(name)            one boolean: whether the view existed (it is dropped)
 *   currentDatabase()             one string
 *
 * Each runs the SQL command that answers it (SHOW TABLES, DROP VIEW) through the session and
 * reshapes its rows; other catalog calls are refused with UNSUPPORTED_FEATURE naming them.
 * Ownership: the result is the caller's (cs_sql_result_free).
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "columnar/col_builder.h"
#include "columnar/column.h"
#include "connect/connect_internal.h"
#include "spark/connect/catalog.pb-c.h"
#include "spark/connect/relations.pb-c.h"
#include "sql/logical_plan.h"
#include "sql/sql_arena.h"
#include "sqlexec/sql_error.h"

/* SHOW TABLES [IN db] [LIKE pattern]: rows (namespace, tableName, isTemporary). */
static int show_tables(cs_connect_service *svc, cs_sql_session *sql, cs_sql_arena *a,
                       const char *db, const char *pattern, cs_sql_result *out, cs_error *err)
{
    cs_sql_statement st = {.kind = CS_STMT_SHOW, .mode = "TABLES", .value = pattern};
    const char *parts[1] = {db};
    if (db && *db) {
        st.n_parts = 1;
        st.parts = parts;
    }
    bool kept = false;
    return cs_connect_run_statement(svc, sql, a, &st, "SHOW TABLES", out, &kept, err);
}

static char *text_at(const cs_column *c, int64_t i)
{
    if (!cs_column_is_valid(c, i)) return NULL;
    int32_t len;
    const uint8_t *p = cs_column_bytes(c, i, &len);
    char *s = cs_xmalloc((size_t)len + 1);
    memcpy(s, p, (size_t)len);
    s[len] = '\0';
    return s;
}

static bool bool_at(const cs_column *c, int64_t i)
{
    return cs_column_is_valid(c, i) && cs_bit_get(c->values, i);
}

/* A result of one batch made of cols (taken over) under the field names and types given. */
static int result_of(cs_col_field *fields, int n, cs_column **cols, int64_t rows,
                     cs_sql_result *out, cs_error *err)
{
    cs_col_type *schema = cs_col_type_struct(fields, n);
    cs_col_batch *b = cs_col_batch_new(cs_col_type_ref(schema), cols, n, rows, err);
    if (!b) {
        cs_col_type_unref(schema);
        return err->code ? err->code : CS_EINVAL;
    }
    memset(out, 0, sizeof *out);
    out->schema = schema;
    out->batches = cs_xmalloc(sizeof *out->batches);
    out->batches[0] = b;
    out->n_batches = 1;
    out->num_rows = rows;
    return 0;
}

static int one_bool(const char *name, bool v, cs_sql_result *out, cs_error *err)
{
    cs_col_field f = {.name = (char *)name, .type = cs_col_type_primitive(CS_TYPE_BOOLEAN)};
    cs_col_builder *b = cs_col_builder_new(NULL, f.type);
    uint8_t byte = v;
    cs_col_builder_append_values(b, &byte, 1, NULL);
    cs_column *col = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    return result_of(&f, 1, &col, 1, out, err);
}

/* Whether SHOW TABLES' rows hold `name` (temporary ones only when temp_only). */
static bool has_table(const cs_sql_result *r, const char *name, bool temp_only)
{
    for (int bi = 0; bi < r->n_batches; bi++) {
        const cs_col_batch *b = r->batches[bi];
        for (int64_t i = 0; i < b->num_rows; i++) {
            char *t = text_at(b->columns[1], i);
            bool match = t && strcasecmp(t, name) == 0 && (!temp_only || bool_at(b->columns[2], i));
            free(t);
            if (match) return true;
        }
    }
    return false;
}

static int list_tables(const cs_sql_result *r, cs_sql_result *out, cs_error *err)
{
    cs_col_type *str = cs_col_type_primitive(CS_TYPE_STRING);
    cs_col_field f[6] = {
        {.name = "name", .type = str},
        {.name = "catalog", .type = str, .nullable = true},
        {.name = "namespace",
         .type = cs_col_type_array(cs_col_type_primitive(CS_TYPE_STRING), false),
         .nullable = true},
        {.name = "description", .type = str, .nullable = true},
        {.name = "tableType", .type = str},
        {.name = "isTemporary", .type = cs_col_type_primitive(CS_TYPE_BOOLEAN)},
    };
    cs_col_builder *b[6];
    for (int c = 0; c < 6; c++)
        b[c] = cs_col_builder_new(NULL, f[c].type);
    int64_t rows = 0;
    for (int bi = 0; bi < r->n_batches; bi++) {
        const cs_col_batch *batch = r->batches[bi];
        for (int64_t i = 0; i < batch->num_rows; i++, rows++) {
            char *ns = text_at(batch->columns[0], i), *name = text_at(batch->columns[1], i);
            bool temp = bool_at(batch->columns[2], i);
            cs_col_builder_append_string(b[0], name ? name : "", name ? strlen(name) : 0);
            if (temp) { /* a temporary view: no catalog, no namespace, as Spark lists it */
                cs_col_builder_append_nulls(b[1], 1);
                int32_t none = 0;
                cs_col_builder_append_lists(b[2], &none, 1, NULL);
            } else {
                cs_col_builder_append_string(b[1], "spark_catalog", 13);
                int32_t one = 1;
                cs_col_builder_append_lists(b[2], &one, 1, NULL);
                const char *n = ns && *ns ? ns : "default";
                cs_col_builder_append_string(cs_col_builder_child(b[2], 0), n, strlen(n));
            }
            cs_col_builder_append_nulls(b[3], 1);
            const char *type = temp ? "TEMPORARY" : "EXTERNAL";
            cs_col_builder_append_string(b[4], type, strlen(type));
            uint8_t t = temp;
            cs_col_builder_append_values(b[5], &t, 1, NULL);
            free(ns);
            free(name);
        }
    }
    cs_column *cols[6];
    for (int c = 0; c < 6; c++) {
        cols[c] = cs_col_builder_finish(b[c]);
        cs_col_builder_free(b[c]);
    }
    return result_of(f, 6, cols, rows, out, err);
}

int cs_connect_catalog_result(cs_connect_service *svc, cs_sql_session *sql, cs_sql_arena *a,
                              const Spark__Connect__Catalog *cat, cs_sql_result *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    cs_sql_result tables = {0};
    int rc;
    switch (cat->cat_type_case) {
    case SPARK__CONNECT__CATALOG__CAT_TYPE_LIST_TABLES: {
        const Spark__Connect__ListTables *l = cat->list_tables;
        rc = show_tables(
            svc, sql, a,
            l->_db_name_case == SPARK__CONNECT__LIST_TABLES___DB_NAME_DB_NAME ? l->db_name : NULL,
            l->_pattern_case == SPARK__CONNECT__LIST_TABLES___PATTERN_PATTERN ? l->pattern : NULL,
            &tables, err);
        if (rc == 0) rc = list_tables(&tables, out, err);
        break;
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_TABLE_EXISTS: {
        const Spark__Connect__TableExists *t = cat->table_exists;
        rc = show_tables(
            svc, sql, a,
            t->_db_name_case == SPARK__CONNECT__TABLE_EXISTS___DB_NAME_DB_NAME ? t->db_name : NULL,
            NULL, &tables, err);
        if (rc == 0)
            rc = one_bool("tableExists", has_table(&tables, t->table_name, false), out, err);
        break;
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_DROP_TEMP_VIEW: {
        const char *name = cat->drop_temp_view->view_name;
        rc = show_tables(svc, sql, a, NULL, NULL, &tables, err);
        bool existed = rc == 0 && has_table(&tables, name, true);
        if (rc == 0 && existed) {
            const char *parts[1] = {name};
            cs_sql_statement st = {.kind = CS_STMT_DROP,
                                   .mode = "VIEW",
                                   .n_parts = 1,
                                   .parts = parts,
                                   .if_exists = true,
                                   .temporary = true};
            cs_sql_result none;
            bool kept = false;
            rc = cs_connect_run_statement(svc, sql, a, &st, "DROP VIEW", &none, &kept, err);
            if (rc == 0) cs_sql_result_free(&none);
        }
        if (rc == 0) rc = one_bool("dropTempView", existed, out, err);
        break;
    }
    case SPARK__CONNECT__CATALOG__CAT_TYPE_CURRENT_DATABASE: {
        cs_col_field f = {.name = "currentDatabase", .type = cs_col_type_primitive(CS_TYPE_STRING)};
        cs_col_builder *b = cs_col_builder_new(NULL, f.type);
        cs_col_builder_append_string(b, "default", 7);
        cs_column *col = cs_col_builder_finish(b);
        cs_col_builder_free(b);
        rc = result_of(&f, 1, &col, 1, out, err);
        break;
    }
    default:
        rc = cs_sql_error_set(err, CS_EUNSUPPORTED, "UNSUPPORTED_FEATURE", "0A000",
                              "The feature is not supported: spark.catalog call %d.",
                              (int)cat->cat_type_case);
        break;
    }
    cs_sql_result_free(&tables);
    return rc;
}
