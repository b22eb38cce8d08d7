/*
 * bucket_write.c — bucketed tables' writes (Spark's BucketSpec, as DataFrameWriter.bucketBy /
 * sortBy and CREATE TABLE ... CLUSTERED BY (b) [SORTED BY (s)] INTO n BUCKETS make them):
 *   - the checks Spark makes of a bucket spec against the table's columns (BucketSpec's
 *     constructor: 0 < n <= spark.sql.sources.bucketing.maxBuckets; PreprocessTableCreation's
 *     normalizeBucketSpec: each column one of the table's, found case-insensitively, and none a
 *     partition column; DataFrameWriter: sortBy needs bucketBy);
 *   - the write's plan: the query's columns and each row's bucket id, pmod(hash(bucket columns),
 *     n) — HashPartitioning's partitionIdExpression, the Murmur3 hash that hash() computes —
 *     sorted within each task by the sort columns (FileFormatWriter's required ordering: a local
 *     sort). The task writer (datasource/ds_task.h) puts each row in its (folder, bucket) file,
 *     in arrival order, so each file's rows keep the sort; the bucket id column is not written.
 *
 * Called by table_write.c (CREATE TABLE, CTAS, INSERT into a bucketed table) and query_write.c.
 * Ownership: everything made lives in the caller's arena.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/session_internal.h"
#include "sql/analyzer.h"
#include "sql/sql_parser.h"
#include "sqlexec/sql_error.h"

#define MAX_BUCKETS_KEY "spark.sql.sources.bucketing.maxBuckets"

/* `name` with backticks doubled, appended to out. */
static void quoted(cs_sbuf *out, const char *name)
{
    cs_sbuf_putc(out, '`');
    for (const char *p = name; *p; p++) {
        if (*p == '`') cs_sbuf_putc(out, '`');
        cs_sbuf_putc(out, *p);
    }
    cs_sbuf_putc(out, '`');
}

/* Spark's COLUMN_NOT_DEFINED_IN_TABLE for a bucket or sort column. */
static int not_defined(const char *kind, const char *name, const char *db, const char *table,
                       const cs_col_type *cols, cs_error *err)
{
    cs_sbuf list = CS_SBUF_INIT, col = CS_SBUF_INIT;
    for (int i = 0; i < cols->n_fields; i++) {
        if (i) cs_sbuf_puts(&list, ", ");
        quoted(&list, cols->fields[i].name);
    }
    quoted(&col, name);
    cs_sql_error_set(err, CS_EINVAL, "COLUMN_NOT_DEFINED_IN_TABLE", "42703",
                     "%s column %s is not defined in table `spark_catalog`.`%s`.`%s`, defined "
                     "table columns are: %s.",
                     kind, cs_sbuf_str(&col), db, table, cs_sbuf_str(&list));
    cs_sbuf_free(&list);
    cs_sbuf_free(&col);
    return err->code;
}

/* names[0..n) as cols spells them, in arena a; an error for one cols lacks or that is one of
 * st's partition columns. */
static int normalize(cs_sql_arena *a, const cs_sql_statement *st, const char *kind,
                     const char *const *names, int n, const char *db, const cs_col_type *cols,
                     const char ***out, cs_error *err)
{
    const char **r = cs_sql_alloc(a, sizeof *r * (size_t)(n + 1));
    const char *table = st->parts[st->n_parts - 1];
    for (int i = 0; i < n; i++) {
        r[i] = NULL;
        for (int j = 0; j < cols->n_fields && !r[i]; j++)
            if (cs_str_ieq(names[i], cols->fields[j].name)) r[i] = cols->fields[j].name;
        if (!r[i]) return not_defined(kind, names[i], db, table, cols, err);
        for (int k = 0; k < st->n_partition_by; k++) {
            if (!cs_str_ieq(st->partition_by[k], r[i])) continue;
            cs_sbuf parts = CS_SBUF_INIT;
            for (int m = 0; m < st->n_partition_by; m++)
                cs_sbuf_printf(&parts, "%s%s", m ? ", " : "", st->partition_by[m]);
            bool bucket = strcmp(kind, "bucket") == 0;
            cs_sql_error_set(
                err, CS_EINVAL, bucket ? "_LEGACY_ERROR_TEMP_1166" : "_LEGACY_ERROR_TEMP_1167", "",
                "%s '%s' should not be part of partition columns '%s'.",
                bucket ? "Bucketing column" : "Bucket sorting column", r[i], cs_sbuf_str(&parts));
            cs_sbuf_free(&parts);
            return err->code;
        }
    }
    *out = r;
    return 0;
}

int cs_session_bucket_columns(cs_sql_session *s, cs_sql_arena *a, const cs_sql_statement *st,
                              const char *db, const cs_col_type *cols, const char ***bucket,
                              const char ***sort, cs_error *err)
{
    if (!st->bucketed && st->n_sort_by > 0)
        return cs_sql_error_set(err, CS_EINVAL, "SORT_BY_WITHOUT_BUCKETING", "42601",
                                "sortBy must be used together with bucketBy.");
    const char *max_text = cs_sql_conf_get(s->conf, MAX_BUCKETS_KEY);
    long max = max_text ? strtol(max_text, NULL, 10) : 100000;
    if (st->num_buckets <= 0 || st->num_buckets > max)
        return cs_sql_error_set(err, CS_EINVAL, "_LEGACY_ERROR_TEMP_1083", "",
                                "Number of buckets should be greater than 0 but less than or "
                                "equal to bucketing.maxBuckets (`%ld`). Got `%d`.",
                                max, st->num_buckets);
    if (st->n_cluster_by > 0)
        return cs_sql_error_set(err, CS_EINVAL, "SPECIFY_CLUSTER_BY_WITH_BUCKETING_IS_NOT_ALLOWED",
                                "42908",
                                "Cannot specify both CLUSTER BY and CLUSTERED BY INTO BUCKETS.");
    if (normalize(a, st, "bucket", st->bucket_by, st->n_bucket_by, db, cols, bucket, err) != 0)
        return err->code;
    return normalize(a, st, "sort", st->sort_by, st->n_sort_by, db, cols, sort, err);
}

int cs_session_bucketed_plan(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *analyzed,
                             const cs_session_write *w, cs_logical_plan **out, cs_error *err)
{
    cs_sbuf text = CS_SBUF_INIT;
    cs_sbuf_puts(&text, "pmod(hash(");
    for (int i = 0; i < w->n_bucket_by; i++) {
        if (i) cs_sbuf_puts(&text, ", ");
        quoted(&text, w->bucket_by[i]);
    }
    cs_sbuf_printf(&text, "), %d) AS " CS_SESSION_BUCKET_ID_COLUMN, w->num_buckets);
    cs_sql_expr *bucket_id;
    int rc = cs_sql_parse_expression(a, cs_sbuf_str(&text), &bucket_id, NULL, err);
    cs_logical_plan *p = NULL;
    if (rc == 0) {
        p = cs_logical_plan_new(a, CS_LP_PROJECT, 1);
        p->children[0] = (cs_logical_plan *)analyzed;
        p->n_exprs = 2;
        p->exprs = cs_sql_alloc(a, sizeof *p->exprs * 2);
        p->exprs[0] = cs_sql_expr_new(a, CS_EX_STAR, 0);
        p->exprs[1] = bucket_id;
    }
    for (int i = 0; rc == 0 && i < w->n_sort_by; i++) {
        if (i == 0) {
            cs_logical_plan *sort = cs_logical_plan_new(a, CS_LP_SORT, 1);
            sort->children[0] = p;
            sort->global = false;
            sort->n_order = w->n_sort_by;
            sort->order = cs_sql_alloc(a, sizeof *sort->order * (size_t)w->n_sort_by);
            p = sort;
        }
        text.len = 0;
        quoted(&text, w->sort_by[i]);
        cs_sql_expr *col;
        rc = cs_sql_parse_expression(a, cs_sbuf_str(&text), &col, NULL, err);
        if (rc != 0) break;
        cs_sql_expr *o = cs_sql_expr_new(a, CS_EX_SORT_ORDER, 1);
        o->args[0] = col;
        o->nulls_first = true; /* ascending: nulls first */
        p->order[i] = o;
    }
    cs_sbuf_free(&text);
    if (rc != 0) return rc;
    return cs_sql_analyze(s->catalog, a, p, out, err) != 0 ? err->code : 0;
}
