/*
 * plan_write_v2.c — Spark Connect's WriteOperationV2 (DataFrameWriterV2, df.writeTo(t)) as the
 * statements the session runs, following SparkConnectPlanner's handleWriteOperationV2:
 *
 *   create()           CREATE TABLE t USING provider PARTITIONED BY (...) AS <relation>, which
 *                      fails when t exists (Spark's CreateTableAsSelect without IF NOT EXISTS);
 *
 * the provider is using(...)'s, else spark.sql.sources.default (the session catalog's default,
 * as Spark's V2SessionCatalog takes it); partitionedBy columns must be plain columns (the
 * partition transforms years/months/days/hours/bucket are refused with UNSUPPORTED_FEATURE, as
 * are table properties); clusterBy columns are recorded on the table as saveAsTable records them.
 * append(), overwrite(condition), overwritePartitions(): Spark's session catalog answers them
 * for its tables (v1 data source tables, all of cspark's) before anything is written, in its
 * analyzer's ResolveRelations: TABLE_OR_VIEW_NOT_FOUND when the table is missing,
 * _LEGACY_ERROR_TEMP_1007 ("Cannot write into temp view ...") for a temporary view and
 * _LEGACY_ERROR_TEMP_1012 ("Cannot write into v1 table ...") for a table; the same here, from
 * the session's catalog; replace() and createOrReplace() are REPLACE TABLE AS SELECT, which
 * the session refuses as Spark's session catalog does (UNSUPPORTED_FEATURE.TABLE_OPERATION),
 * whether the table exists or not.
 *
 * Called by plan_commands.c. Ownership: statements and plans in ctx->arena.
 */
#include <string.h>

#include "connect/plan_internal.h"
#include "sql/catalog.h"
#include "sqlexec/sql_error.h"

/* a partitionedBy expression: only a column reference names a partition column */
static int partition_column(cs_cp *c, const Spark__Connect__Expression *e, const char **out)
{
    if (!e || e->expr_type_case != SPARK__CONNECT__EXPRESSION__EXPR_TYPE_UNRESOLVED_ATTRIBUTE ||
        !e->unresolved_attribute || !e->unresolved_attribute->unparsed_identifier)
        return cs_cp_unsupported(c, "partition transforms in DataFrameWriterV2.partitionedBy");
    const char **parts;
    int n;
    int rc = cs_cp_attribute_name(c, e->unresolved_attribute->unparsed_identifier, &parts, &n);
    if (rc) return rc;
    if (n != 1) return cs_cp_unsupported(c, "nested fields in DataFrameWriterV2.partitionedBy");
    *out = parts[0];
    return 0;
}

/* A multipart name as Spark's quoted(): parts joined by dots, back-quoted where needed. */
static const char *quoted(cs_cp *c, const char *const *parts, int n)
{
    cs_sbuf b = CS_SBUF_INIT;
    for (int i = 0; i < n; i++) {
        bool plain = parts[i][0] != '\0';
        for (const char *q = parts[i]; *q; q++)
            if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') ||
                  (*q >= '0' && *q <= '9') || *q == '_'))
                plain = false;
        if (i) cs_sbuf_putc(&b, '.');
        if (plain) {
            cs_sbuf_puts(&b, parts[i]);
            continue;
        }
        cs_sbuf_putc(&b, '`');
        for (const char *q = parts[i]; *q; q++) {
            if (*q == '`') cs_sbuf_putc(&b, '`');
            cs_sbuf_putc(&b, *q);
        }
        cs_sbuf_putc(&b, '`');
    }
    const char *out = cs_sql_strdup(c->a, cs_sbuf_str(&b));
    cs_sbuf_free(&b);
    return out;
}

/* append / overwrite / overwritePartitions into the table w names: Spark's session catalog
 * refuses each for the relation it finds (none, a temporary view, a v1 table). */
static int write_into_existing(cs_cp *c, const Spark__Connect__WriteOperationV2 *w)
{
    const char **parts;
    int n;
    int rc = cs_cp_attribute_name(c, w->table_name ? w->table_name : "", &parts, &n);
    if (rc) return rc;
    cs_catalog *cat = c->ctx->session ? cs_sql_session_catalog(c->ctx->session) : NULL;
    cs_catalog_table *t = cat ? cs_catalog_lookup_relation(cat, parts, n) : NULL;
    if (!t) return cs_catalog_not_found_error(parts, n, c->err);
    if (t->kind == CS_CATALOG_TEMP_VIEW)
        return cs_sql_error_set(c->err, CS_EINVAL, "_LEGACY_ERROR_TEMP_1007", "",
                                "Cannot write into temp view %s as it's not a data source v2 "
                                "relation.",
                                quoted(c, parts, n));
    return cs_sql_error_set(c->err, CS_EINVAL, "_LEGACY_ERROR_TEMP_1012", "",
                            "Cannot write into v1 table: `spark_catalog`.`%s`.`%s`.", t->database,
                            t->name);
}

int cs_cp_write_operation_v2(cs_cp *c, const Spark__Connect__WriteOperationV2 *w,
                             cs_sql_statement **out)
{
    switch (w->mode) {
    case SPARK__CONNECT__WRITE_OPERATION_V2__MODE__MODE_CREATE:
    case SPARK__CONNECT__WRITE_OPERATION_V2__MODE__MODE_REPLACE:
    case SPARK__CONNECT__WRITE_OPERATION_V2__MODE__MODE_CREATE_OR_REPLACE:
        break;
    case SPARK__CONNECT__WRITE_OPERATION_V2__MODE__MODE_APPEND:
    case SPARK__CONNECT__WRITE_OPERATION_V2__MODE__MODE_OVERWRITE:
    case SPARK__CONNECT__WRITE_OPERATION_V2__MODE__MODE_OVERWRITE_PARTITIONS:
        return write_into_existing(c, w);
    default:
        return cs_cp_invalid(c, "WriteOperationV2:Mode not supported %d", (int)w->mode);
    }
    if (w->n_table_properties)
        return cs_cp_unsupported(c, "table properties in DataFrameWriterV2 (tableProperty)");
    cs_logical_plan *plan;
    int rc = cs_cp_input(c, w->input, "WriteOperationV2", &plan);
    if (rc) return rc;
    cs_sql_statement *s = cs_sql_alloc(c->a, sizeof *s);
    s->kind = CS_STMT_CREATE_TABLE;
    if ((rc = cs_cp_attribute_name(c, w->table_name ? w->table_name : "", &s->parts,
                                   &s->n_parts)) != 0)
        return rc;
    const char *format = CS_CP_HAS(w, provider) && w->provider[0] ? w->provider : NULL;
    if (!format && c->ctx->session)
        format = cs_sql_session_conf(c->ctx->session, "spark.sql.sources.default");
    if (!format) format = "parquet"; /* spark.sql.sources.default's default */
    s->format = cs_sql_strdup(c->a, format);
    if (w->mode == SPARK__CONNECT__WRITE_OPERATION_V2__MODE__MODE_CREATE)
        s->save_mode = "errorifexists";
    else /* REPLACE TABLE AS SELECT: the session refuses it for its v1 tables */
        s->or_replace = true;
    s->plan = plan;
    s->n_options = (int)w->n_options;
    s->option_keys = (const char **)cs_cp_array(c, w->n_options);
    s->option_values = (const char **)cs_cp_array(c, w->n_options);
    for (size_t i = 0; i < w->n_options; i++) {
        s->option_keys[i] = cs_sql_strdup(c->a, w->options[i]->key);
        s->option_values[i] = cs_sql_strdup(c->a, w->options[i]->value);
    }
    s->n_partition_by = (int)w->n_partitioning_columns;
    s->partition_by = (const char **)cs_cp_array(c, w->n_partitioning_columns);
    for (size_t i = 0; i < w->n_partitioning_columns; i++)
        if ((rc = partition_column(c, w->partitioning_columns[i], &s->partition_by[i])) != 0)
            return rc;
    s->n_cluster_by = (int)w->n_clustering_columns;
    s->cluster_by = (const char **)cs_cp_array(c, w->n_clustering_columns);
    for (size_t i = 0; i < w->n_clustering_columns; i++)
        s->cluster_by[i] = cs_sql_strdup(c->a, w->clustering_columns[i]);
    *out = s;
    return 0;
}
