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
 * append(), overwrite(condition), overwritePartitions() and replace() write into an existing
 * table by column name, which the session's INSERT (by position) does not do, and Spark's
 * session catalog refuses REPLACE TABLE AS SELECT (createOrReplace): refused with
 * UNSUPPORTED_FEATURE.
 *
 * Called by plan_commands.c. Ownership: statements and plans in ctx->arena.
 */
#include <string.h>

#include "connect/plan_internal.h"
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

int cs_cp_write_operation_v2(cs_cp *c, const Spark__Connect__WriteOperationV2 *w,
                             cs_sql_statement **out)
{
    switch (w->mode) {
    case SPARK__CONNECT__WRITE_OPERATION_V2__MODE__MODE_CREATE:
        break;
    case SPARK__CONNECT__WRITE_OPERATION_V2__MODE__MODE_APPEND:
    case SPARK__CONNECT__WRITE_OPERATION_V2__MODE__MODE_OVERWRITE:
    case SPARK__CONNECT__WRITE_OPERATION_V2__MODE__MODE_OVERWRITE_PARTITIONS:
    case SPARK__CONNECT__WRITE_OPERATION_V2__MODE__MODE_REPLACE:
    case SPARK__CONNECT__WRITE_OPERATION_V2__MODE__MODE_CREATE_OR_REPLACE:
        return cs_cp_unsupported(c, "DataFrameWriterV2 writes into an existing table (writeTo "
                                    "append / overwrite / overwritePartitions / replace / "
                                    "createOrReplace)");
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
    s->save_mode = "errorifexists";
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
