/*
 * plan_commands.c — Spark Connect commands (spark.connect.Command) as the statements the
 * session runs (session/sql_session.h's cs_sql_session_run_statement), following
 * SparkConnectPlanner's process():
 *
 *   sql_command            its SQL relation (or the deprecated text and arguments) parsed with
 *                          the arguments bound: a query or any statement the parser knows; a
 *                          query over DataFrames (WithRelations) with them as its CTEs;
 *   create_dataframe_view  CREATE [OR REPLACE] [GLOBAL] TEMPORARY VIEW name AS <relation>
 *                          (createTempView / createOrReplaceTempView / ...GlobalTempView);
 *   write_operation        DataFrameWriter.save / saveAsTable / insertInto:
 *                            save(path)       INSERT OVERWRITE DIRECTORY 'path' USING format
 *                                             OPTIONS (...) <relation>, partitioned by the
 *                                             partitionBy columns;
 *                            saveAsTable(t)   CREATE TABLE t USING format OPTIONS (...)
 *                                             PARTITIONED BY (...) AS <relation> (overwrite:
 *                                             OR REPLACE; ignore: IF NOT EXISTS), with the
 *                                             clusterBy columns, which the table records,
 *                                             and the bucketBy / sortBy columns (a
 *                                             bucketed table; save and insertInto refuse
 *                                             them as Spark's assertNotBucketed);
 *                            insertInto(t)    INSERT INTO|OVERWRITE t <relation>;
 *                          (clusterBy with save(path) or insertInto is left out, as Spark's
 *                          file sources leave it);
 *                          each with the writer's SaveMode in the statement's save_mode
 *                          ("errorifexists" when unspecified, Spark's default), which the
 *                          session honours for the path and table cases;
 *   register_function      spark.udf.register(name, f) of a scalar Python UDF: the session's
 *                          temporary function `name` (CREATE_FUNCTION), which SQL calls; a
 *                          Java UDF or UDAF (registerJavaFunction / registerJavaUDAF) is
 *                          refused as Spark refuses a class it cannot load.
 *   write_operation_v2     df.writeTo(t) (plan_write_v2.c).
 * The server runs checkpoint and remove_cached_remote_relation itself (connect_persist.c).
 * Refused with UNSUPPORTED_FEATURE: streaming commands, table function / data source
 * registration, ML, resource profiles, MERGE INTO, external commands, extensions.
 *
 * Called by the Spark Connect server. Ownership: statements and plans in ctx->arena.
 */
#include <string.h>

#include "connect/plan_internal.h"
#include "sqlexec/sql_error.h"

static cs_sql_statement *statement_new(cs_cp *c, cs_statement_kind kind)
{
    cs_sql_statement *s = cs_sql_alloc(c->a, sizeof *s);
    s->kind = kind;
    return s;
}

/* the deprecated fields are read as Spark reads them, for older clients */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static int sql_command(cs_cp *c, const Spark__Connect__SqlCommand *q, cs_sql_statement **out)
{
    if (q->input) {
        if (q->input->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_SQL)
            return cs_cp_sql(c, q->input->sql, out);
        if (q->input->rel_type_case == SPARK__CONNECT__RELATION__REL_TYPE_WITH_RELATIONS) {
            cs_sql_statement *s = statement_new(c, CS_STMT_QUERY);
            int rc = cs_cp_with_relations(c, q->input->with_relations, &s->plan);
            if (rc == 0) *out = s;
            return rc;
        }
        return cs_cp_invalid(c, "SQL command expects either a SQL or a WithRelations, but got %d",
                             (int)q->input->rel_type_case);
    }
    /* the deprecated fields: the same relation, built here */
    Spark__Connect__SQL sql = SPARK__CONNECT__SQL__INIT;
    sql.query = q->sql;
    sql.n_args = q->n_args;
    sql.args = (Spark__Connect__SQL__ArgsEntry **)cs_cp_array(c, q->n_args);
    for (size_t i = 0; i < q->n_args; i++) {
        Spark__Connect__SQL__ArgsEntry *e = cs_sql_alloc(c->a, sizeof *e);
        spark__connect__sql__args_entry__init(e);
        e->key = q->args[i]->key;
        e->value = q->args[i]->value;
        sql.args[i] = e;
    }
    sql.n_pos_args = q->n_pos_args;
    sql.pos_args = q->pos_args;
    sql.n_named_arguments = q->n_named_arguments;
    sql.named_arguments =
        (Spark__Connect__SQL__NamedArgumentsEntry **)cs_cp_array(c, q->n_named_arguments);
    for (size_t i = 0; i < q->n_named_arguments; i++) {
        Spark__Connect__SQL__NamedArgumentsEntry *e = cs_sql_alloc(c->a, sizeof *e);
        spark__connect__sql__named_arguments_entry__init(e);
        e->key = q->named_arguments[i]->key;
        e->value = q->named_arguments[i]->value;
        sql.named_arguments[i] = e;
    }
    sql.n_pos_arguments = q->n_pos_arguments;
    sql.pos_arguments = q->pos_arguments;
    return cs_cp_sql(c, &sql, out);
}
#pragma GCC diagnostic pop

static int create_view(cs_cp *c, const Spark__Connect__CreateDataFrameViewCommand *v,
                       cs_sql_statement **out)
{
    const char **parts;
    int n;
    const char *name = v->name ? v->name : "";
    int rc = cs_cp_attribute_name(c, name, &parts, &n);
    if (rc || n == 0 || n > 2 || !parts[n - 1][0])
        return cs_sql_error_set(c->err, CS_EINVAL, "INVALID_VIEW_NAME", "42000",
                                "The view name %s is invalid.", name);
    cs_sql_statement *s = statement_new(c, CS_STMT_CREATE_VIEW);
    if ((rc = cs_cp_input(c, v->input, "CreateDataFrameViewCommand", &s->plan)) != 0) return rc;
    s->parts = parts;
    s->n_parts = n;
    s->temporary = true;
    s->global = v->is_global;
    s->or_replace = v->replace;
    *out = s;
    return 0;
}

/* spark.udf.register(name, f): a scalar Python UDF (SparkConnectPlanner's
 * handleRegisterPythonUDF) becomes the session's temporary function `name`. */
static int register_function(cs_cp *c, const Spark__Connect__CommonInlineUserDefinedFunction *f,
                             cs_sql_statement **out)
{
    if (!f || !f->function_name || !f->function_name[0])
        return cs_cp_invalid(c, "RegisterFunction without a function name");
    /* registerJavaFunction / registerJavaUDAF: no JVM class can be loaded here, which Spark's
     * UDFRegistration reports for a class not on its classpath (_LEGACY_ERROR_TEMP_1329) */
    if (f->function_case ==
            SPARK__CONNECT__COMMON_INLINE_USER_DEFINED_FUNCTION__FUNCTION_JAVA_UDF &&
        f->java_udf) {
        const char *cls = f->java_udf->class_name ? f->java_udf->class_name : "";
        int e = cs_sql_error_set(c->err, CS_EINVAL, "_LEGACY_ERROR_TEMP_1329", "",
                                 "Can not load class %s, please make sure it is on the classpath.",
                                 cls);
        cs_sql_error_param(c->err, "className", cls);
        return e;
    }
    cs_sql_expr *udf;
    int rc = cs_cp_python_udf(c, f, CS_CP_UDF_EXPRESSION, &udf);
    if (rc) return rc;
    cs_sql_statement *s = statement_new(c, CS_STMT_CREATE_FUNCTION);
    s->parts = (const char **)cs_cp_array(c, 1);
    s->parts[0] = cs_sql_strdup(c->a, f->function_name);
    s->n_parts = 1;
    s->temporary = true;
    s->function = udf;
    *out = s;
    return 0;
}

static const char *save_mode(Spark__Connect__WriteOperation__SaveMode m)
{
    switch (m) {
    case SPARK__CONNECT__WRITE_OPERATION__SAVE_MODE__SAVE_MODE_APPEND:
        return "append";
    case SPARK__CONNECT__WRITE_OPERATION__SAVE_MODE__SAVE_MODE_OVERWRITE:
        return "overwrite";
    case SPARK__CONNECT__WRITE_OPERATION__SAVE_MODE__SAVE_MODE_IGNORE:
        return "ignore";
    default:
        return "errorifexists";
    }
}

static int write_operation(cs_cp *c, const Spark__Connect__WriteOperation *w,
                           cs_sql_statement **out)
{
    bool save_as_table =
        w->save_type_case == SPARK__CONNECT__WRITE_OPERATION__SAVE_TYPE_TABLE &&
        w->table->save_method ==
            SPARK__CONNECT__WRITE_OPERATION__SAVE_TABLE__TABLE_SAVE_METHOD__TABLE_SAVE_METHOD_SAVE_AS_TABLE;
    if (w->n_sort_column_names && !w->bucket_by) /* DataFrameWriter.getBucketSpec */
        return cs_sql_error_set(c->err, CS_EINVAL, "SORT_BY_WITHOUT_BUCKETING", "42601",
                                "sortBy must be used together with bucketBy.");
    if (w->bucket_by && !save_as_table) { /* DataFrameWriter.assertNotBucketed */
        const char *op = w->save_type_case == SPARK__CONNECT__WRITE_OPERATION__SAVE_TYPE_TABLE
                             ? "insertInto"
                             : "save";
        if (w->n_sort_column_names)
            return cs_sql_error_set(c->err, CS_EINVAL, "_LEGACY_ERROR_TEMP_1313", "",
                                    "'%s' does not support bucketBy and sortBy right now.", op);
        return cs_sql_error_set(c->err, CS_EINVAL, "_LEGACY_ERROR_TEMP_1312", "",
                                "'%s' does not support bucketBy right now.", op);
    }
    cs_logical_plan *plan;
    int rc = cs_cp_input(c, w->input, "WriteOperation", &plan);
    if (rc) return rc;
    const char *format = CS_CP_HAS(w, source) && w->source[0] ? w->source : NULL;
    if (!format && c->ctx->session)
        format = cs_sql_session_conf(c->ctx->session, "spark.sql.sources.default");
    if (!format) format = "parquet"; /* spark.sql.sources.default's default */
    const char *mode = save_mode(w->mode);
    cs_sql_statement *s;
    const char *path = NULL;
    if (w->save_type_case == SPARK__CONNECT__WRITE_OPERATION__SAVE_TYPE_TABLE) {
        const Spark__Connect__WriteOperation__SaveTable *t = w->table;
        bool insert =
            t->save_method ==
            SPARK__CONNECT__WRITE_OPERATION__SAVE_TABLE__TABLE_SAVE_METHOD__TABLE_SAVE_METHOD_INSERT_INTO;
        if (!insert &&
            t->save_method !=
                SPARK__CONNECT__WRITE_OPERATION__SAVE_TABLE__TABLE_SAVE_METHOD__TABLE_SAVE_METHOD_SAVE_AS_TABLE)
            return cs_cp_invalid(c, "WriteOperation:SaveTable:TableSaveMethod not supported %d",
                                 (int)t->save_method);
        s = statement_new(c, insert ? CS_STMT_INSERT : CS_STMT_CREATE_TABLE);
        if ((rc = cs_cp_attribute_name(c, t->table_name ? t->table_name : "", &s->parts,
                                       &s->n_parts)) != 0)
            return rc;
        if (insert) {
            s->overwrite = strcmp(mode, "overwrite") == 0;
        } else {
            s->or_replace = strcmp(mode, "overwrite") == 0;
            s->if_not_exists = strcmp(mode, "ignore") == 0;
            s->n_cluster_by = (int)w->n_clustering_columns;
            s->cluster_by = (const char **)cs_cp_array(c, w->n_clustering_columns);
            for (size_t i = 0; i < w->n_clustering_columns; i++)
                s->cluster_by[i] = cs_sql_strdup(c->a, w->clustering_columns[i]);
            if (w->bucket_by) { /* bucketBy(n, cols).sortBy(cols): the table's BucketSpec */
                const Spark__Connect__WriteOperation__BucketBy *b = w->bucket_by;
                s->bucketed = true;
                s->num_buckets = b->num_buckets;
                s->n_bucket_by = (int)b->n_bucket_column_names;
                s->bucket_by = (const char **)cs_cp_array(c, b->n_bucket_column_names);
                for (size_t i = 0; i < b->n_bucket_column_names; i++)
                    s->bucket_by[i] = cs_sql_strdup(c->a, b->bucket_column_names[i]);
                s->n_sort_by = (int)w->n_sort_column_names;
                s->sort_by = (const char **)cs_cp_array(c, w->n_sort_column_names);
                for (size_t i = 0; i < w->n_sort_column_names; i++)
                    s->sort_by[i] = cs_sql_strdup(c->a, w->sort_column_names[i]);
            }
        }
    } else {
        if (w->save_type_case == SPARK__CONNECT__WRITE_OPERATION__SAVE_TYPE_PATH) path = w->path;
        for (size_t i = 0; !path && i < w->n_options; i++)
            if (cs_str_ieq(w->options[i]->key, "path")) path = w->options[i]->value;
        if (!path) /* Spark's file sources: QueryExecutionErrors.dataPathNotSpecifiedError */
            return cs_sql_error_set(c->err, CS_EINVAL, "_LEGACY_ERROR_TEMP_2047", "",
                                    "'path' is not specified.");
        s = statement_new(c, CS_STMT_INSERT);
        s->mode = "DIRECTORY";
        s->location = cs_sql_strdup(c->a, path);
        s->overwrite = strcmp(mode, "overwrite") == 0;
    }
    s->plan = plan;
    s->save_mode = mode;
    s->format = cs_sql_strdup(c->a, format);
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
        s->partition_by[i] = cs_sql_strdup(c->a, w->partitioning_columns[i]);
    *out = s;
    return 0;
}

static int command(cs_cp *c, const Spark__Connect__Command *cmd, cs_sql_statement **out)
{
    switch (cmd->command_type_case) {
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_SQL_COMMAND:
        return sql_command(c, cmd->sql_command, out);
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_CREATE_DATAFRAME_VIEW:
        return create_view(c, cmd->create_dataframe_view, out);
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_WRITE_OPERATION:
        return write_operation(c, cmd->write_operation, out);
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_WRITE_OPERATION_V2:
        return cs_cp_write_operation_v2(c, cmd->write_operation_v2, out);
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_REGISTER_FUNCTION:
        return register_function(c, cmd->register_function, out);
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_REGISTER_TABLE_FUNCTION:
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_REGISTER_DATA_SOURCE:
        return cs_cp_unsupported(c, "registering user-defined table functions and data sources");
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_WRITE_STREAM_OPERATION_START:
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_STREAMING_QUERY_COMMAND:
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_STREAMING_QUERY_MANAGER_COMMAND:
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_STREAMING_QUERY_LISTENER_BUS_COMMAND:
        return cs_cp_unsupported(c, "Structured Streaming");
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_CHECKPOINT_COMMAND:
        return cs_cp_unsupported(c, "DataFrame.checkpoint");
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_MERGE_INTO_TABLE_COMMAND:
        return cs_cp_unsupported(c, "MERGE INTO");
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE_ML_COMMAND:
        return cs_cp_unsupported(c, "Spark ML commands");
    case SPARK__CONNECT__COMMAND__COMMAND_TYPE__NOT_SET:
        return cs_cp_invalid(c, "Expected Command to be set, but is empty.");
    default:
        return cs_cp_unsupported(c, "the Spark Connect command %d", (int)cmd->command_type_case);
    }
}

int cs_connect_plan_command(cs_connect_plan_ctx *ctx, const Spark__Connect__Command *cmd,
                            cs_sql_statement **out)
{
    cs_cp c;
    cs_cp_begin(&c, ctx, NULL, cmd);
    *out = NULL;
    if (!cmd) return cs_cp_invalid(&c, "a command is missing");
    cs_sql_statement *s;
    int rc = command(&c, cmd, &s);
    if (rc == 0) *out = s;
    return rc;
}
