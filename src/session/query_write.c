/*
 * query_write.c — a query's rows written as files (Spark's InsertIntoHadoopFsRelationCommand
 * over FileFormatWriter): the save mode checked on the driver (datasource/ds_commit.h), the
 * query's final stage topped by a data source write node (plan/kinds/datasource.c) so that its
 * tasks write their own partitions through the task writer (partitionBy folders, staged part
 * files; a bucketed write's rows in one file per bucket: bucket_write.c), each task's commit
 * messages gathered by the driver, then the job committed (files
 * moved into place, _SUCCESS) or, on any failure, aborted (nothing of it left visible; a
 * directory the write created or overwrote is removed).
 *
 * Called by table_write.c for INSERT OVERWRITE DIRECTORY, CREATE TABLE ... AS and INSERT (and
 * Spark Connect's save, saveAsTable, insertInto); the query runs through query_run.c, its final
 * stage handed here (cs_session_run_query_final sets the session's write_stage for that one
 * query). Ownership: everything in the write description is borrowed for the call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "api/context.h"
#include "api/rdd_internal.h"
#include "datasource/ds_commit.h"
#include "datasource/ds_task.h"
#include "fs/fs.h"
#include "plan/rdd.h"
#include "sched/scheduler.h"
#include "session/query_lineage.h"
#include "session/session_internal.h"
#include "sqlexec/sql_error.h"

/* A random (version 4) UUID: the job's, in its part files' names. */
static void job_uuid(char out[37])
{
    uint8_t b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
        for (size_t i = 0; i < sizeof b; i++)
            b[i] = (uint8_t)rand();
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0],
             b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13],
             b[14], b[15]);
}

typedef struct write_job {
    const cs_session_write *w;
    const cs_file_format *fmt;
    const char *path; /* normalised: a local path or a URI */
    cs_batch *parts;  /* per task partition: its commit messages as records */
    int n_parts;
} write_job;

static void on_task_result(void *arg, int partition, task_result *r)
{
    write_job *j = arg;
    if (partition < 0 || partition >= j->n_parts) return;
    cs_batch_free(&j->parts[partition]);
    j->parts[partition] = r->data; /* moved */
    cs_batch_init(&r->data);
}

/* Commits (rc == 0) or aborts the job with the messages its tasks gave. */
static int finish_job(write_job *j, bool fresh, int rc, cs_error *err)
{
    size_t n = 0, cap = 16;
    cs_ds_commit_msg *msgs = cs_xmalloc(cap * sizeof *msgs);
    char **kinds = cs_xmalloc(cap * sizeof *kinds);
    for (int p = 0; p < j->n_parts; p++)
        for (size_t i = 0; i < j->parts[p].n; i++) {
            cspark_record rec = batch_get(&j->parts[p], i);
            if (n == cap) {
                cap *= 2;
                msgs = cs_xrealloc(msgs, cap * sizeof *msgs);
                kinds = cs_xrealloc(kinds, cap * sizeof *kinds);
            }
            kinds[n] = cs_xstrndup((const char *)rec.key.ptr, rec.key.len);
            msgs[n] = (cs_ds_commit_msg){kinds[n], rec.value.ptr, rec.value.len};
            n++;
        }
    if (rc == 0)
        rc = cs_ds_job_commit(j->path, fresh, msgs, n, err);
    else
        cs_ds_job_abort(j->path, fresh, msgs, n);
    for (size_t i = 0; i < n; i++)
        free(kinds[i]);
    free(kinds);
    free(msgs);
    return rc;
}

/* The final stage's tasks write; the driver commits (query_run.c's cs_session_final_fn). */
static int write_stage(void *arg, const cs_session_final_stage *st, cs_error *err)
{
    write_job *j = arg;
    bool fresh = false;
    int rc = cs_ds_write_prepare(j->path, j->w->mode, &fresh, err);
    if (rc != 0) return rc > 0 ? 0 : rc; /* ignore: the path exists */
    char uuid[37];
    job_uuid(uuid);
    cs_ds_desc d = {
        .format = j->fmt->name,
        .options = j->w->options,
        .data_schema = st->schema,
        .path = j->path,
        .partition_by = j->w->partition_by,
        .n_partition_by = j->w->n_partition_by,
        .job_uuid = uuid,
        .num_buckets = j->w->num_buckets,
        .bucket_column = j->w->num_buckets > 0 ? CS_SESSION_BUCKET_ID_COLUMN : NULL,
    };
    char name[160];
    snprintf(name, sizeof name, "WriteFiles (%s)", j->fmt->name);
    cspark_rdd *wr = cs_query_lineage_add_rdd(
        st->lineage, cs_rdd_datasource_write_new(&st->sc->graph, &d, st->rdd, name));
    j->n_parts = wr->num_partitions;
    j->parts = cs_xcalloc((size_t)j->n_parts + 1, sizeof *j->parts);
    for (int i = 0; i < j->n_parts; i++)
        cs_batch_init(&j->parts[i]);
    task_sink sink = {.kind = SINK_COLLECT};
    rc = cs_scheduler_run_job(st->sc->sched, wr, NULL, 0, st->props, &sink, on_task_result, j, err);
    if (rc < 0 && !err->code) err->code = rc;
    return finish_job(j, fresh, rc < 0 ? rc : 0, err);
}

/* Whether p reads files at or under the directory path (normalised, as the write's). */
static bool plan_reads(const cs_logical_plan *p, const char *path)
{
    if (!p) return false;
    if (p->kind == CS_LP_RELATION && p->table && p->table->location) {
        char *n = cs_fs_normalize(p->table->location);
        const char *loc = cs_fs_is_local(n) ? cs_fs_local_path(n) : n;
        size_t len = strlen(path);
        bool hit = strncmp(loc, path, len) == 0 && (loc[len] == '\0' || loc[len] == '/');
        free(n);
        if (hit) return true;
    }
    for (int i = 0; i < p->n_children; i++)
        if (plan_reads(p->children[i], path)) return true;
    return false;
}

int cs_session_run_query_final(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *analyzed,
                               const char *text, cs_session_final_fn fn, void *arg, cs_error *err)
{
    cs_sql_result none = {0};
    s->write_stage = fn;
    s->write_arg = arg;
    int rc = cs_session_run_query(s, a, analyzed, text, &none, err);
    s->write_stage = NULL;
    s->write_arg = NULL;
    cs_sql_result_free(&none);
    return rc;
}

int cs_session_write_query(cs_sql_session *s, cs_sql_arena *a, const cs_logical_plan *analyzed,
                           const char *text, const cs_session_write *w, cs_error *err)
{
    const cs_file_format *fmt = cs_file_format_find(w->format);
    if (!fmt)
        return cs_sql_error_set(err, CS_EINVAL, "DATA_SOURCE_NOT_FOUND", "42K02",
                                "Failed to find the data source: %s. Make sure the provider name "
                                "is correct and the package is properly registered and compatible "
                                "with your Spark version.",
                                w->format ? w->format : "");
    if (!w->path || !*w->path)
        return cs_sql_error_set(err, CS_EINVAL, "_LEGACY_ERROR_TEMP_0049", "42000",
                                "Directory path and 'path' in OPTIONS should be specified one, "
                                "but not both.");
    int rc = cs_fs_check_uri(w->path, err);
    if (rc < 0) return rc;
    char *normalized = cs_fs_normalize(w->path);
    write_job j = {.w = w,
                   .fmt = fmt,
                   .path = cs_fs_is_local(normalized) ? cs_fs_local_path(normalized) : normalized};
    if ((w->mode == CS_DS_MODE_OVERWRITE || w->replaces) && plan_reads(analyzed, j.path)) {
        if (w->table)
            rc = cs_sql_error_set(err, CS_EINVAL, "UNSUPPORTED_OVERWRITE.TABLE", "42902",
                                  "Can't overwrite the target that is also being read from. The "
                                  "target table is `spark_catalog`.`default`.`%s`.",
                                  w->table);
        else
            rc = cs_sql_error_set(err, CS_EINVAL, "UNSUPPORTED_OVERWRITE.PATH", "42902",
                                  "Can't overwrite the target that is also being read from. The "
                                  "target path is file:%s.",
                                  j.path);
        free(normalized);
        return rc;
    }
    if (w->num_buckets > 0) {
        cs_logical_plan *bucketed;
        if (cs_session_bucketed_plan(s, a, analyzed, w, &bucketed, err) != 0) {
            free(normalized);
            return err->code;
        }
        analyzed = bucketed;
    }
    if (w->clear_first) {
        cs_error ignored; /* nothing there is fine */
        cs_fs_delete(w->clear_first, true, &ignored);
    }
    rc = cs_session_run_query_final(s, a, analyzed, text, write_stage, &j, err);
    for (int i = 0; i < j.n_parts; i++)
        cs_batch_free(&j.parts[i]);
    free(j.parts);
    free(normalized);
    return rc;
}
