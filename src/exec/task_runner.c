/*
 * task_runner.c — runs one task: opens the iterator chain of the stage's final RDD for the
 * task's partition and drives it into the task's sink (shuffle writer or action sink), filling
 * a task_result (see exec/task.h; the task context user functions see is task_context.c).
 * Called by backends on their worker threads (cluster/local, the executor's core slots).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/err.h"
#include "common/exit_cleanup.h"
#include "common/fsutil.h"
#include "records/recio.h"
#include "exec/checkpoint_io.h"
#include "exec/part_iter.h"
#include "exec/task_vars.h"
#include "exec/top_heap.h"
#include "fs/codec.h"
#include "fs/fs.h"
#include "shuffle/shuffle.h"
#include "storage/block_manager.h"

/* ---- sinks ------------------------------------------------------------------------------- */

/* The save sink: one part file per task attempt through src/fs. On the local file system the
 * attempt writes under <path>/_temporary/0/_temporary/attempt_<tid>/ and the finished file is
 * renamed to <path>/part-NNNNN at task commit (Hadoop's FileOutputCommitter); on an object store
 * the part is a multipart upload that stays invisible, and the task's result carries its pending
 * commit (one record, key CS_SAVE_PENDING_KEY) for the driver to complete or abort. Output is
 * compressed with the codec of mapreduce.output.fileoutputformat.compress(.codec), the part name
 * taking the codec's extension, as Hadoop's TextOutputFormat. */
typedef struct save_state {
    cs_fs_writer *w;
    uint8_t *buf;
    size_t len, cap;
    int64_t written; /* Spark's output bytesWritten: the text written (before a codec) */
} save_state;

static int save_flush(save_state *s, cs_error *err)
{
    int rc = s->len ? cs_fs_write(s->w, s->buf, s->len, err) : 0;
    if (rc == 0) s->written += (int64_t)s->len;
    s->len = 0;
    return rc;
}

static int save_open(save_state *s, const task_desc *t, cs_error *err)
{
    const cs_codec *codec = NULL;
    if (cs_fs_output_codec(&codec, err) < 0) return err->code;
    const char *ext = codec ? codec->extension : "";
    const char *base = t->sink->save_path;
    char uri[4200];
    snprintf(uri, sizeof uri, "%s/part-%05d%s", base, t->partition, ext);
    char staging[4200] = "";
    bool local = cs_fs_is_local(base);
    /* a local output is removed if the process ends mid-job (a task's exit() or crash): what is
     * created under it is created while that removal waits (exit_cleanup.h) */
    if (local) {
        if (!cs_exit_cleanup_enter())
            return cs_error_set(err, CS_ECANCELLED, "the process is ending: %s not written", uri);
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/_temporary/0/_temporary/attempt_%lld", cs_fs_local_path(base),
                 (long long)t->task_id);
        if (cs_make_dirs(dir) < 0) { /* an executor may be the first to write under the path */
            cs_exit_cleanup_leave();
            return cs_error_set(err, CS_EIO, "cannot create %s: %s", dir, strerror(errno));
        }
        snprintf(staging, sizeof staging, "%s/part-%05d%s", dir, t->partition, ext);
    }
    s->w = cs_fs_create(uri, staging[0] ? staging : NULL, codec, err);
    if (local) cs_exit_cleanup_leave();
    if (!s->w) return err->code ? err->code : CS_EIO;
    s->cap = 1 << 20;
    s->buf = cs_xmalloc(s->cap);
    return 0;
}

static int save_batch(save_state *s, const cs_batch *b, cs_error *err)
{
    for (size_t i = 0; i < b->n; i++) {
        cspark_record r = batch_get(b, i);
        size_t need = (size_t)r.key.len + 1 + r.value.len + 1;
        if (s->len + need > s->cap) {
            if (save_flush(s, err) < 0) return err->code;
            if (need > s->cap) {
                s->cap = need;
                s->buf = cs_xrealloc(s->buf, s->cap);
            }
        }
        uint8_t *p = s->buf + s->len;
        memcpy(p, r.key.ptr, r.key.len);
        p += r.key.len;
        if (r.value.len) {
            *p++ = '\t';
            memcpy(p, r.value.ptr, r.value.len);
            p += r.value.len;
        }
        *p++ = '\n';
        s->len = (size_t)(p - s->buf);
    }
    return 0;
}

/* Task commit: the local part is renamed into place; an object store's part waits for the
 * driver, which gets its pending commit in the result. */
static int save_commit(save_state *s, task_result *res, cs_error *err)
{
    if (save_flush(s, err) < 0) return err->code;
    cs_fs_pending *pending = NULL;
    cs_fs_writer *w = s->w;
    s->w = NULL;
    if (cs_fs_writer_finish(w, &pending, err) < 0) return err->code ? err->code : CS_EIO;
    if (pending) {
        size_t len;
        char *enc = cs_fs_pending_encode(pending, &len);
        cs_batch_append_record(&res->data, CS_SAVE_PENDING_KEY,
                               (uint32_t)strlen(CS_SAVE_PENDING_KEY), enc, (uint32_t)len);
        free(enc);
        cs_fs_pending_free(pending);
    }
    return 0;
}

static void save_cleanup(save_state *s)
{
    cs_fs_writer_abort(s->w); /* a failed attempt leaves nothing behind */
    free(s->buf);
}

/* Reservoir sampling of keys (Algorithm R) with a per-partition deterministic generator. */
typedef struct sample_state {
    uint64_t rng;
    int64_t seen;
} sample_state;

static uint64_t sample_rand(sample_state *s)
{
    uint64_t z = (s->rng += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static void sample_batch(sample_state *s, task_result *res, int k, const cs_batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        cspark_record r = batch_get(b, i);
        s->seen++;
        if (res->data.n < (size_t)k) {
            cs_batch_append_record(&res->data, r.key.ptr, r.key.len, NULL, 0);
        } else {
            uint64_t j = sample_rand(s) % (uint64_t)s->seen;
            if (j < (uint64_t)k) {
                /* replace slot j: append, then point slot j at the new bytes */
                cs_batch_append_record(&res->data, r.key.ptr, r.key.len, NULL, 0);
                res->data.recs[j] = res->data.recs[--res->data.n];
            }
        }
    }
    /* replaced keys leave garbage behind: compact when the buffer is mostly garbage */
    if (res->data.len > 4u * 1024 * 1024) {
        size_t live = 0;
        for (size_t i = 0; i < res->data.n; i++)
            live += res->data.recs[i].klen;
        if (live * 2 < res->data.len) {
            cs_batch fresh;
            cs_batch_init(&fresh);
            for (size_t i = 0; i < res->data.n; i++) {
                cspark_record r = batch_get(&res->data, i);
                cs_batch_append_record(&fresh, r.key.ptr, r.key.len, NULL, 0);
            }
            cs_batch_free(&res->data);
            res->data = fresh;
        }
    }
}

/* ---- the task ---------------------------------------------------------------------------- */

typedef struct run_state {
    part_iter *root;
    shuffle_writer *writer;
    cs_partitioner partitioner;
    cs_aggregator combiner;
    save_state save;
    bool save_open;
    cspark_value acc;
    bool has_acc;
    cs_top_heap top;   /* SINK_TOP, SINK_TAKE_ORDERED */
    ckpt_writer *ckpt; /* SINK_CHECKPOINT (its paths are 8 KiB: not zeroed for every task) */
} run_state;

static int drive(cspark_task_context *tc, run_state *st, cs_error *err)
{
    const task_desc *t = tc->task;
    const task_sink *sink = t->sink;
    task_result *res = tc->result;
    int rc;

    st->root = cs_part_iter_open(tc, t->rdd, t->partition, err);
    if (!st->root) return err->code ? err->code : CS_EINVAL;

    if (sink->kind == SINK_SHUFFLE) {
        shuffle_dep *dep = sink->dep;
        shuffle_write_spec spec = {0};
        spec.shuffle_id = dep->shuffle_id;
        spec.map_id = t->partition;
        spec.attempt_id = t->task_id;
        spec.partitioner = &dep->partitioner;
        if (dep->map_side_combine) {
            cs_plan_aggregator_bind(&dep->agg, tc, &st->combiner);
            spec.combiner = &st->combiner;
        }
        spec.compress = tc->env->shuffle_compress && !tc->env->shuffle_in_process;
        spec.checksum = tc->env->shuffle_checksum;
        spec.dir = tc->env->local_dir;
        spec.mem = &tc->mem;
        const cs_map_status_opts *so = &tc->env->map_status_opts;
        spec.status_opts = so->min_partitions_to_highly_compress > 0 ? so : NULL;
        st->writer = cs_shuffle_writer_new(&spec, err);
        if (!st->writer) return err->code ? err->code : CS_EINVAL;
    } else if (sink->kind == SINK_SAVE) {
        st->save_open = true;
        if ((rc = save_open(&st->save, t, err)) < 0) return rc;
    } else if (sink->kind == SINK_CHECKPOINT) {
        st->ckpt = cs_xcalloc(1, sizeof *st->ckpt);
        if ((rc = cs_checkpoint_writer_open(st->ckpt, t, tc->env, err)) < 0) return rc;
    } else if (sink->kind == SINK_TOP || sink->kind == SINK_TAKE_ORDERED) {
        cs_top_heap_init(&st->top, sink->take_n, sink->kind == SINK_TOP);
    } else if (sink->kind == SINK_FOLD && sink->has_zero) {
        cspark_value_set(&st->acc, sink->zero, sink->zero_len);
        st->has_acc = true;
    }

    sample_state sample = {.rng = 0x5eed0000ULL + (uint64_t)t->partition * 7919u, .seen = 0};
    const cs_batch *b;
    while ((rc = st->root->next(st->root, &b, err)) > 0) {
        if (t->cancelled && *t->cancelled)
            return cs_error_set(err, CS_ECANCELLED, "%s", CS_TASK_CANCELLED);
        switch (sink->kind) {
        case SINK_SHUFFLE:
            if (sink->dep->map_side_combine) cs_task_context_enter(tc, &sink->dep->agg.merge_value);
            rc = cs_shuffle_writer_write(st->writer, b, err);
            cs_task_context_enter(tc, NULL);
            if (rc < 0) return rc;
            break;
        case SINK_COUNT:
            res->count += (int64_t)b->n;
            break;
        case SINK_COLLECT:
            cs_batch_append_batch(&res->data, b);
            break;
        case SINK_TAKE:
            for (size_t i = 0; i < b->n && res->data.n < sink->take_n; i++) {
                cspark_record r = batch_get(b, i);
                cs_batch_append_record(&res->data, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
            }
            if (res->data.n >= sink->take_n) return 0;
            break;
        case SINK_FOLD: {
            cspark_reduce_fn fn = (cspark_reduce_fn)sink->fn.ptr;
            cs_task_context_enter(tc, &sink->fn);
            for (size_t i = 0; i < b->n; i++) {
                cspark_record r = batch_get(b, i);
                if (!st->has_acc) {
                    cspark_value_set(&st->acc, r.value.ptr, r.value.len);
                    st->has_acc = true;
                } else {
                    fn(&st->acc, r.value, tc);
                }
            }
            cs_task_context_enter(tc, NULL);
            break;
        }
        case SINK_SAVE:
            if ((rc = save_batch(&st->save, b, err)) < 0) return rc;
            res->metrics.records_written += (int64_t)b->n;
            break;
        case SINK_FOREACH: {
            cspark_foreach_fn fn = (cspark_foreach_fn)sink->fn.ptr;
            cs_task_context_enter(tc, &sink->fn);
            for (size_t i = 0; i < b->n; i++) {
                cspark_record r = batch_get(b, i);
                fn(&r, tc);
            }
            cs_task_context_enter(tc, NULL);
            break;
        }
        case SINK_SAMPLE:
            sample_batch(&sample, res, sink->sample_size, b);
            break;
        case SINK_TOP:
        case SINK_TAKE_ORDERED:
            cs_top_heap_add_batch(&st->top, b);
            break;
        case SINK_CHECKPOINT:
            if ((rc = cs_checkpoint_writer_add(st->ckpt, b, err)) < 0) return rc;
            res->metrics.records_written += (int64_t)b->n;
            break;
        }
    }
    if (rc < 0) return rc;

    switch (sink->kind) {
    case SINK_SHUFFLE:
        /* merging spilled combiners at commit calls the combine function */
        if (sink->dep->map_side_combine) cs_task_context_enter(tc, &sink->dep->agg.merge_value);
        rc = cs_shuffle_writer_commit(st->writer, &res->map_status, err);
        cs_task_context_enter(tc, NULL);
        if (rc < 0) return rc;
        res->has_map_status = true;
        strncpy(res->map_status.executor_id, tc->env->executor_id,
                sizeof res->map_status.executor_id - 1);
        strncpy(res->map_status.host, tc->env->host, sizeof res->map_status.host - 1);
        res->map_status.port = tc->env->block_port;
        res->metrics.shuffle_records_written = (int64_t)res->map_status.records_written;
        res->metrics.shuffle_bytes_written = (int64_t)res->map_status.bytes_written;
        break;
    case SINK_FOLD:
        if (st->has_acc) cs_batch_append_record(&res->data, NULL, 0, st->acc.ptr, st->acc.len);
        break;
    case SINK_SAVE:
        if ((rc = save_commit(&st->save, res, err)) < 0) return rc;
        res->metrics.bytes_written = st->save.written;
        break;
    case SINK_SAMPLE:
        res->count = sample.seen;
        break;
    case SINK_TOP:
    case SINK_TAKE_ORDERED:
        cs_top_heap_result(&st->top, &res->data);
        break;
    case SINK_CHECKPOINT:
        res->metrics.bytes_written = (int64_t)cs_recio_writer_offset(st->ckpt->w);
        if ((rc = cs_checkpoint_writer_commit(st->ckpt, err)) < 0) return rc;
        break;
    default:
        break;
    }
    return 0;
}

void cs_task_run(const exec_env *env, const task_desc *t, task_result *out)
{
    int64_t start_ns = cs_now_ns();
    struct timespec cpu0, cpu1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu0);

    cspark_task_context *tc = cs_xcalloc(1, sizeof *tc);
    tc->task = t;
    tc->env = env;
    tc->result = out;
    cs_task_memory_init(&tc->mem, env->task_memory_budget);
    if (env->block_manager)
        cs_task_memory_attach(&tc->mem, cs_block_manager_pool(env->block_manager));
    cs_task_set_current(tc);

    run_state *volatile st = cs_xcalloc(1, sizeof *st);
    cs_error err;
    cs_error_clear(&err);
    int rc;
    if (sigsetjmp(tc->fail_jmp, 0) == 0) {
        rc = drive(tc, st, &err);
    } else {
        rc = CS_ETASK;
        cs_error_set(&err, CS_ETASK, "%s", tc->fail_msg ? tc->fail_msg : "task failed");
    }

    cs_part_iter_free(st->root);
    cs_shuffle_writer_free(st->writer);
    if (st->save_open) save_cleanup(&st->save);
    free(st->acc.ptr);
    cs_top_heap_free(&st->top);
    if (st->ckpt) cs_checkpoint_writer_abort(st->ckpt);
    free(st->ckpt);
    free(st);

    if (rc < 0) {
        /* as Spark's Executor: a fetch failure stays one; else a task asked to stop (KillTask)
         * that failed was killed (TaskKilled), whatever it failed with */
        if (out->status != TASK_FETCH_FAILED)
            out->status = t->cancelled && *t->cancelled ? TASK_KILLED : TASK_FAILED;
        out->error = cs_xstrdup(err.msg[0] ? err.msg : cs_strerror(rc));
        if (out->has_map_status) {
            cs_map_status_free(&out->map_status);
            out->has_map_status = false;
        }
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu1);
    out->metrics.run_time_ms = (cs_now_ns() - start_ns) / 1000000;
    out->metrics.cpu_time_ns =
        (cpu1.tv_sec - cpu0.tv_sec) * 1000000000LL + (cpu1.tv_nsec - cpu0.tv_nsec);
    out->metrics.peak_execution_memory = tc->mem.peak;
    out->metrics.memory_bytes_spilled = tc->mem.memory_spilled_bytes;
    out->metrics.disk_bytes_spilled = tc->mem.spilled_bytes;
    out->metrics.result_size = (int64_t)out->data.len;
    cs_task_vars_finish(tc, out, rc == 0); /* accumulator updates of a successful attempt only */
    cs_task_memory_detach(&tc->mem);
    if (env->block_manager) /* blocks stored or dropped meanwhile, for the driver's registry */
        out->num_updated_blocks =
            cs_block_manager_drain_updates(env->block_manager, &out->updated_blocks);
    free(tc->fail_msg);
    cs_task_context_leave(tc);
    cs_task_set_current(NULL);
    free(tc);
}
