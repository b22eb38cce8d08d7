/*
 * actions.c — the actions of cspark.h: each runs a job through the scheduler with the matching
 * sink and assembles the per-partition results on the driver. save_as_text_file commits output
 * as Hadoop's committers do, through src/fs: on a local path tasks write under
 * <path>/_temporary and rename their part file into place, the job commit removes _temporary and
 * writes _SUCCESS, and a failed job removes the directory it created; on an object store (no
 * rename) each attempt's part is a multipart upload that only the driver completes, at job
 * commit, for the attempt it accepted — as S3A's magic committer — then _SUCCESS; other
 * attempts' uploads are aborted, and a failed job leaves nothing visible. take scans partitions
 * incrementally (1, then up to 4x more each round) as Spark does.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/rdd_internal.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "records/recio.h"
#include "exec/task_context.h"
#include "common/exit_cleanup.h"
#include "fs/fs.h"
#include "sched/scheduler.h"

size_t cspark_records_count(const cspark_records *r)
{
    return r ? r->b.n : 0;
}

cspark_record cspark_records_get(const cspark_records *r, size_t i)
{
    if (!r)
        cs_context_misuse("cspark_records_get: the records are NULL (the action that should have "
                          "returned them failed; check its return value)");
    if (i >= r->b.n)
        cs_context_misuse("cspark_records_get: index %zu out of range (%zu records)", i, r->b.n);
    return batch_get(&r->b, i);
}

void cspark_records_free(cspark_records *r)
{
    if (!r) return;
    cs_batch_free(&r->b);
    free(r);
}

/* Per-partition results kept until the job ends, then concatenated in partition order. */
typedef struct part_results {
    cs_batch *parts;
    int64_t *counts;
    bool *present;
    int n;
} part_results;

static void results_init(part_results *pr, int n)
{
    pr->n = n;
    pr->parts = cs_xcalloc((size_t)n + 1, sizeof *pr->parts);
    pr->counts = cs_xcalloc((size_t)n + 1, sizeof *pr->counts);
    pr->present = cs_xcalloc((size_t)n + 1, sizeof *pr->present);
}

static void results_free(part_results *pr)
{
    for (int i = 0; i < pr->n; i++)
        cs_batch_free(&pr->parts[i]);
    free(pr->parts);
    free(pr->counts);
    free(pr->present);
}

static void on_result(void *arg, int partition, task_result *r)
{
    part_results *pr = arg;
    pr->parts[partition] = r->data; /* moved */
    cs_batch_init(&r->data);
    pr->counts[partition] = r->count;
    pr->present[partition] = true;
}

/* Runs the job of action `op`, called by the job at `caller` (its call site names the job). */
static int run(cspark_rdd *rdd, const int *parts, int nparts, const task_sink *sink,
               part_results *pr, const char *op, const void *caller)
{
    cs_error err;
    cs_error_clear(&err);
    cspark_context *sc = cs_rdd_context(rdd);
    if (sc->failed) return CS_ECANCELLED;
    if (cs_api_run_job(sc, rdd, parts, nparts, sink, on_result, pr, op, caller, &err) < 0)
        return cs_api_action_failed(sc, &err);
    return 0;
}

static int refuse(cspark_context *sc, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int refuse(cspark_context *sc, int code, const char *fmt, ...)
{
    cs_error e;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e.msg, sizeof e.msg, fmt, ap);
    va_end(ap);
    e.code = code;
    return cs_context_fail(sc, &e);
}

int cspark_count(cspark_rdd *rdd, int64_t *count)
{
    if (!rdd) return cs_context_null_argument("count", "RDD");
    task_sink sink = {.kind = SINK_COUNT};
    part_results pr;
    results_init(&pr, rdd->num_partitions);
    int rc = run(rdd, NULL, 0, &sink, &pr, "count", CALLER());
    if (rc == 0 && count) {
        *count = 0;
        for (int i = 0; i < pr.n; i++)
            *count += pr.counts[i];
    }
    results_free(&pr);
    return rc;
}

int cspark_collect(cspark_rdd *rdd, cspark_records **out)
{
    if (!rdd || !out) return cs_context_null_argument("collect", rdd ? "output pointer" : "RDD");
    *out = NULL;
    task_sink sink = {.kind = SINK_COLLECT};
    part_results pr;
    results_init(&pr, rdd->num_partitions);
    int rc = run(rdd, NULL, 0, &sink, &pr, "collect", CALLER());
    if (rc == 0) {
        cspark_records *r = cs_xcalloc(1, sizeof *r);
        cs_batch_init(&r->b);
        for (int i = 0; i < pr.n; i++)
            cs_batch_append_batch(&r->b, &pr.parts[i]);
        *out = r;
    }
    results_free(&pr);
    return rc;
}

int cspark_take(cspark_rdd *rdd, size_t n, cspark_records **out)
{
    if (!rdd || !out) return cs_context_null_argument("take", rdd ? "output pointer" : "RDD");
    *out = NULL;
    const void *caller = CALLER();
    cspark_records *res = cs_xcalloc(1, sizeof *res);
    cs_batch_init(&res->b);
    int total = rdd->num_partitions, scanned = 0, rc = 0;
    while (res->b.n < n && scanned < total) {
        /* Spark: first 1 partition; then, if nothing found, 4x more; else estimate from the
         * rows per partition seen so far (x1.5), capped at 4x what has been scanned */
        int64_t want = 1;
        if (scanned > 0) {
            if (res->b.n == 0) {
                want = (int64_t)scanned * 4;
            } else {
                want = (int64_t)(1.5 * (double)n * scanned / (double)res->b.n) - scanned;
                if (want < 1) want = 1;
                if (want > (int64_t)scanned * 4) want = (int64_t)scanned * 4;
            }
        }
        int count = (int)(want < total - scanned ? want : total - scanned);
        int *parts = cs_xmalloc((size_t)count * sizeof *parts);
        for (int i = 0; i < count; i++)
            parts[i] = scanned + i;
        task_sink sink = {.kind = SINK_TAKE, .take_n = n - res->b.n};
        part_results pr;
        results_init(&pr, total);
        rc = run(rdd, parts, count, &sink, &pr, "take", caller);
        for (int i = 0; rc == 0 && i < count; i++) {
            const cs_batch *b = &pr.parts[scanned + i];
            for (size_t k = 0; k < b->n && res->b.n < n; k++) {
                cspark_record r = batch_get(b, k);
                cs_batch_append_record(&res->b, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
            }
        }
        results_free(&pr);
        free(parts);
        if (rc < 0) break;
        scanned += count;
    }
    if (rc < 0) {
        cspark_records_free(res);
        return rc;
    }
    *out = res;
    return 0;
}

/* Merges partition results on the driver with fn (exec/task_context.h). */
static int fold_results(cspark_rdd *rdd, const fn_ref *fn, part_results *pr, cspark_value *acc,
                        bool *has)
{
    char *why = NULL;
    int rc = cs_task_context_fold(fn, pr->parts, pr->n, acc, has, &why);
    if (rc < 0)
        rc = refuse(cs_rdd_context(rdd), CS_ETASK, "%s failed on the driver: %s", fn->name, why);
    free(why);
    return rc;
}

static int fold_common(cspark_rdd *rdd, const void *zero, size_t zero_len, bool has_zero,
                       cspark_reduce_fn fn, const void *closure, size_t len, void **out,
                       size_t *out_len, const char *op, const void *caller)
{
    if (!rdd || !out) return cs_context_null_argument(op, rdd ? "output pointer" : "RDD");
    *out = NULL;
    if (out_len) *out_len = 0;
    cs_error err;
    if (cs_recio_check_record(0, zero_len, "fold zero value", &err) < 0)
        return cs_context_fail(cs_rdd_context(rdd), &err);
    task_sink sink = {
        .kind = SINK_FOLD, .zero = zero, .zero_len = (uint32_t)zero_len, .has_zero = has_zero};
    if (cs_fn_ref_init(&sink.fn, (void *)fn, closure, len, op, &err) < 0)
        return cs_context_fail(cs_rdd_context(rdd), &err);
    part_results pr;
    results_init(&pr, rdd->num_partitions);
    int rc = run(rdd, NULL, 0, &sink, &pr, op, caller);
    cspark_value acc = {0};
    bool has = false;
    if (rc == 0 && has_zero) {
        cspark_value_set(&acc, zero, zero_len);
        has = true;
    }
    if (rc == 0) rc = fold_results(rdd, &sink.fn, &pr, &acc, &has);
    if (rc == 0 && !has)
        rc = refuse(cs_rdd_context(rdd), CS_EINVAL, "%s of an empty collection", op);
    if (rc == 0) {
        *out = acc.ptr ? acc.ptr : cs_xmalloc(1);
        if (out_len) *out_len = acc.len;
    } else {
        free(acc.ptr);
    }
    cs_fn_ref_free(&sink.fn);
    results_free(&pr);
    return rc;
}

int cspark_reduce(cspark_rdd *rdd, cspark_reduce_fn fn, const void *closure, size_t len, void **out,
                  size_t *out_len)
{
    return fold_common(rdd, NULL, 0, false, fn, closure, len, out, out_len, "reduce", CALLER());
}

int cspark_fold(cspark_rdd *rdd, const void *zero, size_t zero_len, cspark_reduce_fn fn,
                const void *closure, size_t len, void **out, size_t *out_len)
{
    return fold_common(rdd, zero, zero_len, true, fn, closure, len, out, out_len, "fold", CALLER());
}

int cspark_foreach(cspark_rdd *rdd, cspark_foreach_fn fn, const void *closure, size_t len)
{
    if (!rdd) return cs_context_null_argument("foreach", "RDD");
    cs_error err;
    task_sink sink = {.kind = SINK_FOREACH};
    if (cs_fn_ref_init(&sink.fn, (void *)fn, closure, len, "foreach", &err) < 0)
        return cs_context_fail(cs_rdd_context(rdd), &err);
    part_results pr;
    results_init(&pr, rdd->num_partitions);
    int rc = run(rdd, NULL, 0, &sink, &pr, "foreach", CALLER());
    cs_fn_ref_free(&sink.fn);
    results_free(&pr);
    return rc;
}

/* The pending commits of an object-store output, one per partition (the attempt the scheduler
 * accepted), kept by the driver until the job ends. */
typedef struct save_commits {
    part_results pr;
    cs_fs_pending **pending;
    int n;
} save_commits;

static void on_save_result(void *arg, int partition, task_result *r)
{
    save_commits *sc = arg;
    for (size_t i = 0; i < r->data.n; i++) {
        cspark_record rec = batch_get(&r->data, i);
        if (rec.key.len != strlen(CS_SAVE_PENDING_KEY) ||
            memcmp(rec.key.ptr, CS_SAVE_PENDING_KEY, rec.key.len) != 0)
            continue;
        cs_error e;
        cs_fs_pending *p = cs_fs_pending_decode(rec.value.ptr, rec.value.len, &e);
        if (p && partition >= 0 && partition < sc->n && !sc->pending[partition])
            sc->pending[partition] = p;
        else
            cs_fs_pending_free(p);
    }
    on_result(&sc->pr, partition, r);
}

/* Job commit on an object store: every accepted part appears (CompleteMultipartUpload), uploads
 * of attempts the driver never accepted are aborted, and _SUCCESS is written last. On failure,
 * nothing of the job stays visible or stored. */
static int commit_object_store_output(cspark_context *sc, const char *path, save_commits *c, int rc)
{
    cs_error err;
    cs_error_clear(&err);
    int i = 0;
    for (; rc == 0 && i < c->n; i++)
        if (c->pending[i] && cs_fs_pending_commit(c->pending[i], &err) < 0)
            rc = cs_context_fail(sc, &err);
    cs_error sweep_err;
    if (cs_fs_abort_uploads_under(path, (const cs_fs_pending *const *)c->pending,
                                  rc == 0 ? (size_t)c->n : 0, &sweep_err) < 0)
        CS_WARN("output", "path=%s event=abort-stray-uploads-failed error=%s", cs_log_quote(path),
                cs_log_quote(sweep_err.msg));
    if (rc == 0) {
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof tmp, "%s/_SUCCESS", path);
        if (cs_fs_put(tmp, "", 0, &err) < 0) rc = cs_context_fail(sc, &err);
    }
    if (rc < 0) { /* parts completed before the failure are removed again */
        for (int k = 0; k < c->n; k++)
            if (c->pending[k] && k >= i) cs_fs_pending_abort(c->pending[k], &sweep_err);
        cs_fs_delete(path, true, &sweep_err);
    }
    return rc;
}

/* save_as_text_file with a checked, normalised path, called by the job at `caller`. */
static int save_as_text_file(cspark_context *sc, cspark_rdd *rdd, const char *path,
                             const void *caller)
{
    cs_error err;
    bool local = cs_fs_is_local(path);
    if (local) path = cs_fs_local_path(path);
    cs_fs_status st;
    if (cs_fs_stat(path, &st, &err) < 0) return cs_context_fail(sc, &err);
    if (st.exists)
        return refuse(sc, CS_EEXIST, "Output directory %s%s already exists", local ? "file:" : "",
                      path);
    char tmp[PATH_MAX];
    if (local) {
        snprintf(tmp, sizeof tmp, "%s/_temporary/0/_temporary", path);
        if (cs_make_dirs(tmp) < 0) {
            int e = errno;
            cs_remove_tree(path);
            return refuse(sc, CS_EIO, "cannot create output directory %s: %s", path, strerror(e));
        }
        cs_exit_cleanup_add(path); /* a crash or exit() in a task leaves no half-written output */
    }
    task_sink sink = {.kind = SINK_SAVE, .save_path = path};
    save_commits c = {.n = rdd->num_partitions};
    results_init(&c.pr, rdd->num_partitions);
    c.pending = cs_xcalloc((size_t)c.n + 1, sizeof *c.pending);
    int rc = 0;
    if (cs_rdd_context(rdd)->failed)
        rc = CS_ECANCELLED;
    else if (cs_api_run_job(sc, rdd, NULL, 0, &sink, on_save_result, &c, "save_as_text_file",
                            caller, &err) < 0)
        rc = cs_api_action_failed(sc, &err);
    results_free(&c.pr);
    if (local) cs_exit_cleanup_remove(path);
    if (!local) {
        rc = commit_object_store_output(sc, path, &c, rc);
    } else if (rc < 0) {
        cs_remove_tree(path); /* nothing half-written stays behind */
    } else {
        snprintf(tmp, sizeof tmp, "%s/_temporary", path);
        cs_remove_tree(tmp);
        snprintf(tmp, sizeof tmp, "%s/_SUCCESS", path);
        FILE *f = fopen(tmp, "w");
        if (!f || fclose(f) != 0)
            rc = refuse(sc, CS_EIO, "cannot write %s: %s", tmp, strerror(errno));
    }
    for (int i = 0; i < c.n; i++)
        cs_fs_pending_free(c.pending[i]);
    free(c.pending);
    return rc;
}

int cspark_save_as_text_file(cspark_rdd *rdd, const char *path)
{
    if (!rdd) return cs_context_null_argument("save_as_text_file", "RDD");
    const void *caller = CALLER();
    cspark_context *sc = cs_rdd_context(rdd);
    if (!path || !*path)
        return refuse(sc, CS_EINVAL, "save_as_text_file: the output path is empty");
    cs_error err;
    const struct cs_codec *codec;
    if (cs_fs_check_uri(path, &err) < 0 || cs_fs_output_codec(&codec, &err) < 0)
        return cs_context_fail(sc, &err);
    char *normalized = cs_fs_normalize(path); /* "out/" is "out", as Hadoop's Path */
    int rc = save_as_text_file(sc, rdd, normalized, caller);
    free(normalized);
    return rc;
}
