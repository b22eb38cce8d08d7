/*
 * part_iter.c — the pull iterators that compute one partition of an RDD inside a task (see
 * part_iter.h). Narrow operators transform whole batches: a map/flat_map/filter iterator pulls
 * one batch from its parent, runs the user function over every record into its own output
 * batch and returns it, so there is no allocation per record and one indirect call per record.
 * map_partitions runs the user function once over an iterator of its parent and keeps what it
 * emits in memory up to a bound, spilling the rest to a temporary file, then replays it.
 * Shuffled RDDs read their map outputs through the shuffle reader and post-process them with
 * the external aggregator or sorter, which spill under memory pressure.
 */
#include "exec/part_iter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "common/recio.h"
#include "exec/block_fetcher.h"
#include "shuffle/external_agg.h"
#include "shuffle/external_sort.h"

struct cspark_emitter {
    cs_batch *out;
    void (*on_full)(cspark_emitter *e);
    void *arg;
    cspark_task_context *tc; /* failed when a record is over the record limit */
};

/* Lengths are size_t in the API and uint32_t in a batch: a record over CSPARK_MAX_RECORD_BYTES
 * fails the task here, before anything is narrowed or copied. */
static void emit_check(cspark_emitter *e, size_t key_len, size_t value_len, const char *what)
{
    cs_error err;
    if (cs_recio_check_record(key_len, value_len, what, &err) < 0)
        cspark_task_fail(e->tc, "%s", err.msg);
}

void cspark_emit(cspark_emitter *e, const void *key, size_t key_len, const void *value,
                 size_t value_len)
{
    emit_check(e, key_len, value_len, "cspark_emit");
    cs_batch_append_record(e->out, key, (uint32_t)key_len, value, (uint32_t)value_len);
    if (e->on_full && batch_full(e->out)) e->on_full(e);
}

static __attribute__((noinline)) uint8_t *emit_reserve_slow(cspark_emitter *e, size_t key_len,
                                                            size_t value_len, uint8_t **value_out)
{
    emit_check(e, key_len, value_len, "cspark_emit_reserve");
    /* A full batch is handed on before reserving, so the returned space stays valid. */
    if (e->on_full && batch_full(e->out)) e->on_full(e);
    uint8_t *p = batch_append(e->out, (uint32_t)key_len, (uint32_t)value_len);
    if (value_out) *value_out = p + key_len;
    return p;
}

uint8_t *cspark_emit_reserve(cspark_emitter *e, size_t key_len, size_t value_len,
                             uint8_t **value_out)
{
    /* Runs once per emitted record (a flat_map's words): the common case (room in the batch,
     * which is not full or has no hand-on) has no call and saves no registers. A sum of lengths
     * that wraps around or passes the record limit takes the slow path, which fails the task. */
    cs_batch *b = e->out;
    size_t kv;
    bool wraps = __builtin_add_overflow(key_len, value_len, &kv);
    size_t need = b->len + kv;
    if (__builtin_expect(!wraps && kv <= CSPARK_MAX_RECORD_BYTES && b->data && need <= b->cap &&
                             b->n < b->rcap && (!e->on_full || !batch_full(b)),
                         1)) {
        cs_rec *r = &b->recs[b->n++];
        r->off = b->len;
        r->klen = (uint32_t)key_len;
        r->vlen = (uint32_t)value_len;
        uint8_t *p = b->data + b->len;
        b->len = need;
        if (value_out) *value_out = p + key_len;
        return p;
    }
    return emit_reserve_slow(e, key_len, value_len, value_out);
}

/* ---- sources --------------------------------------------------------------------------- */

typedef struct par_iter {
    part_iter base;
    const cs_batch *src;
    size_t i, end;
    cs_batch out;
} par_iter;

static int par_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    par_iter *p = (par_iter *)it;
    if (p->i >= p->end) return 0;
    cs_batch_reset(&p->out);
    while (p->i < p->end && !batch_full(&p->out)) {
        cspark_record r = batch_get(p->src, p->i++);
        cs_batch_append_record(&p->out, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
    }
    *out = &p->out;
    return 1;
}

static void par_free(part_iter *it)
{
    par_iter *p = (par_iter *)it;
    cs_batch_free(&p->out);
    free(p);
}

typedef struct range_iter {
    part_iter base;
    int64_t next_value, step;
    uint64_t remaining;
    cs_batch out;
} range_iter;

static int range_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    range_iter *r = (range_iter *)it;
    if (!r->remaining) return 0;
    cs_batch_reset(&r->out);
    uint64_t n = r->remaining < CS_BATCH_TARGET_RECORDS ? r->remaining : CS_BATCH_TARGET_RECORDS;
    for (uint64_t i = 0; i < n; i++) {
        uint8_t *k = batch_append(&r->out, 8, 0);
        cspark_i64_encode(r->next_value, k);
        r->next_value += r->step;
    }
    r->remaining -= n;
    *out = &r->out;
    return 1;
}

static void range_free(part_iter *it)
{
    range_iter *r = (range_iter *)it;
    cs_batch_free(&r->out);
    free(r);
}

static part_iter *range_open(cspark_rdd *rdd, int partition)
{
    range_iter *r = cs_xcalloc(1, sizeof *r);
    r->base.next = range_next;
    r->base.free = range_free;
    __int128 span = (__int128)rdd->range_end - rdd->range_start;
    __int128 step = rdd->range_step;
    if (step < 0) {
        span = -span;
        step = -step;
    }
    __int128 total = span <= 0 ? 0 : (span + step - 1) / step;
    __int128 lo = total * partition / rdd->num_partitions;
    __int128 hi = total * (partition + 1) / rdd->num_partitions;
    r->remaining = (uint64_t)(hi - lo);
    r->next_value = (int64_t)(rdd->range_start + lo * rdd->range_step);
    r->step = rdd->range_step;
    return &r->base;
}

/* ---- map, flat_map, filter --------------------------------------------------------------- */

typedef struct narrow_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    part_iter *parent;
    const cs_batch *in; /* the parent's current batch (valid until we pull the next one) */
    size_t in_pos;      /* next input record to process */
    bool eof;           /* the parent has ended: never pull it again */
    cs_batch out;
} narrow_iter;

/* Runs the function over input records from in_pos until the input is used up or the output
 * batch is full, so a flat_map that multiplies its input still hands on bounded batches. */
static void narrow_apply(narrow_iter *m)
{
    const cs_batch *in = m->in;
    cspark_emitter em = {&m->out, NULL, NULL, m->tc};
    size_t i = m->in_pos;
    cs_task_context_enter(m->tc, &m->rdd->fn);
    switch (m->rdd->kind) {
    case RDD_FILTER: {
        cspark_filter_fn fn = (cspark_filter_fn)m->rdd->fn.ptr;
        for (; i < in->n && !batch_full(&m->out); i++) {
            cspark_record r = batch_get(in, i);
            if (fn(&r, m->tc))
                cs_batch_append_record(&m->out, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
        }
        break;
    }
    case RDD_MAP: {
        cspark_map_fn fn = (cspark_map_fn)m->rdd->fn.ptr;
        for (; i < in->n && !batch_full(&m->out); i++) {
            cspark_record r = batch_get(in, i);
            size_t before = m->out.n;
            fn(&r, &em, m->tc);
            if (m->out.n != before + 1)
                cspark_task_fail(m->tc,
                                 "map function %s emitted %zu records for one input "
                                 "(a map emits exactly one; use flat_map)",
                                 m->rdd->fn.name, m->out.n - before);
        }
        break;
    }
    default: {
        cspark_map_fn fn = (cspark_map_fn)m->rdd->fn.ptr;
        for (; i < in->n && !batch_full(&m->out); i++) {
            cspark_record r = batch_get(in, i);
            fn(&r, &em, m->tc);
        }
        break;
    }
    }
    cs_task_context_enter(m->tc, NULL);
    m->in_pos = i;
}

static int narrow_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    narrow_iter *m = (narrow_iter *)it;
    cs_batch_reset(&m->out);
    for (;;) {
        if (!m->in || m->in_pos >= m->in->n) {
            int rc = m->eof ? 0 : m->parent->next(m->parent, &m->in, err);
            if (rc <= 0) {
                m->in = NULL;
                m->eof = true;
                if (rc < 0) return rc;
                if (!m->out.n) return 0;
                *out = &m->out; /* what the last input produced */
                return 1;
            }
            m->in_pos = 0;
        }
        narrow_apply(m);
        if (batch_full(&m->out)) {
            *out = &m->out;
            return 1;
        }
    }
}

static void narrow_free(part_iter *it)
{
    narrow_iter *m = (narrow_iter *)it;
    cs_part_iter_free(m->parent);
    cs_batch_free(&m->out);
    free(m);
}

/* ---- map_partitions ---------------------------------------------------------------------- */

/* Output kept in memory up to this many bytes, the rest spilled to a temporary file. */
#define MAPPART_MEMORY_LIMIT (16u << 20)

struct cspark_iterator {
    part_iter *src;
    const cs_batch *cur;
    size_t i;
    int status; /* 1 while records may follow, 0 at end, <0 on error */
    cs_error err;
};

bool cspark_iterator_next(cspark_iterator *it, cspark_record *out)
{
    while (it->status > 0) {
        if (it->cur && it->i < it->cur->n) {
            *out = batch_get(it->cur, it->i++);
            return true;
        }
        it->status = it->src->next(it->src, &it->cur, &it->err);
        it->i = 0;
    }
    return false;
}

typedef struct mappart_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    part_iter *parent;
    bool ran;
    cs_batch *kept; /* batches kept in memory, in emit order */
    size_t num_kept, cap_kept, next_kept, kept_bytes;
    cs_batch cur; /* the emitter's current batch */
    char spill_path[4096];
    int spill_fd;
    recio_writer *spill;
    recio_reader *replay;
    cs_batch out;
    cs_error spill_err;
    int spill_failed;
} mappart_iter;

static void mappart_on_full(cspark_emitter *e)
{
    mappart_iter *m = e->arg;
    if (m->kept_bytes < MAPPART_MEMORY_LIMIT && !m->spill) {
        if (m->num_kept == m->cap_kept) {
            m->cap_kept = m->cap_kept ? m->cap_kept * 2 : 8;
            m->kept = cs_xrealloc(m->kept, m->cap_kept * sizeof *m->kept);
        }
        m->kept_bytes += cs_batch_memory(&m->cur);
        m->kept[m->num_kept++] = m->cur; /* moves the buffers */
        cs_batch_init(&m->cur);
        return;
    }
    if (!m->spill) {
        snprintf(m->spill_path, sizeof m->spill_path, "%s/mappart-%lld-XXXXXX",
                 m->tc->env->local_dir, (long long)m->tc->task->task_id);
        m->spill_fd = mkstemp(m->spill_path);
        if (m->spill_fd < 0) {
            cspark_task_fail(m->tc, "cannot create spill file under %s: %s", m->tc->env->local_dir,
                             strerror(errno));
        }
        m->spill = cs_recio_writer_new(m->spill_fd, m->tc->env->shuffle_compress, 1 << 20);
        cs_recio_writer_set_checksum(m->spill, m->tc->env->shuffle_checksum);
    }
    if (cs_recio_writer_add_batch(m->spill, &m->cur, &m->spill_err) < 0)
        cspark_task_fail(m->tc, "map_partitions spill failed: %s", m->spill_err.msg);
    cs_batch_reset(&m->cur);
}

static int mappart_run(mappart_iter *m, cs_error *err)
{
    cspark_iterator in = {m->parent, NULL, 0, 1, {0}};
    cspark_emitter em = {&m->cur, mappart_on_full, m, m->tc};
    cs_task_context_enter(m->tc, &m->rdd->fn);
    ((cspark_partition_fn)m->rdd->fn.ptr)(&in, &em, m->tc);
    cs_task_context_enter(m->tc, NULL);
    if (in.status < 0) {
        *err = in.err;
        return in.status;
    }
    if (m->spill) {
        if (m->cur.n && cs_recio_writer_add_batch(m->spill, &m->cur, err) < 0) return err->code;
        cs_batch_reset(&m->cur);
        if (cs_recio_writer_flush(m->spill, err) < 0) return err->code;
        uint64_t len = cs_recio_writer_offset(m->spill);
        m->replay = cs_recio_reader_fd(m->spill_fd, 0, len, 1 << 20);
    }
    return 0;
}

static int mappart_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    mappart_iter *m = (mappart_iter *)it;
    if (!m->ran) {
        m->ran = true;
        int rc = mappart_run(m, err);
        if (rc < 0) return rc;
    }
    if (m->next_kept < m->num_kept) {
        cs_batch_free(&m->out);
        m->out = m->kept[m->next_kept];
        cs_batch_init(&m->kept[m->next_kept++]);
        *out = &m->out;
        return 1;
    }
    if (m->replay) {
        cs_batch_reset(&m->out);
        int rc = cs_recio_reader_next_block(m->replay, &m->out, err);
        if (rc < 0) return rc;
        if (rc > 0) {
            *out = &m->out;
            return 1;
        }
        return 0;
    }
    if (m->cur.n) { /* the tail that never filled a batch */
        cs_batch_free(&m->out);
        m->out = m->cur;
        cs_batch_init(&m->cur);
        *out = &m->out;
        return 1;
    }
    return 0;
}

static void mappart_free(part_iter *it)
{
    mappart_iter *m = (mappart_iter *)it;
    cs_part_iter_free(m->parent);
    for (size_t i = 0; i < m->num_kept; i++)
        cs_batch_free(&m->kept[i]);
    free(m->kept);
    cs_batch_free(&m->cur);
    cs_batch_free(&m->out);
    if (m->replay) cs_recio_reader_free(m->replay);
    if (m->spill) cs_recio_writer_free(m->spill);
    if (m->spill_path[0]) {
        unlink(m->spill_path);
        close(m->spill_fd);
    }
    free(m);
}

/* ---- coalesce ---------------------------------------------------------------------------- */

typedef struct coalesce_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    int next_part, end_part;
    part_iter *cur;
} coalesce_iter;

static int coalesce_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    coalesce_iter *c = (coalesce_iter *)it;
    for (;;) {
        if (!c->cur) {
            if (c->next_part >= c->end_part) return 0;
            c->cur = cs_part_iter_open(c->tc, c->rdd->parents[0], c->next_part++, err);
            if (!c->cur) return err->code ? err->code : CS_EINVAL;
        }
        int rc = c->cur->next(c->cur, out, err);
        if (rc != 0) return rc;
        cs_part_iter_free(c->cur);
        c->cur = NULL;
    }
}

static void coalesce_free(part_iter *it)
{
    coalesce_iter *c = (coalesce_iter *)it;
    cs_part_iter_free(c->cur);
    free(c);
}

/* ---- shuffled ---------------------------------------------------------------------------- */

typedef struct shuffled_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd;
    int partition;
    bool prepared;
    shuffle_reader *plain; /* PLAIN */
    block_prefetch *plain_prefetch;
    cs_aggregator agg;
    ext_agg *aggr;      /* AGGREGATE, COGROUP */
    ext_sorter *sorter; /* SORT */
    cs_batch out, tmp;
} shuffled_iter;

static const shuffle_input *find_input(const task_desc *t, int shuffle_id)
{
    for (int i = 0; i < t->num_inputs; i++)
        if (t->inputs[i].shuffle_id == shuffle_id) return &t->inputs[i];
    return NULL;
}

/* Spark's shuffle read metrics for the blocks this reader will read: their bytes as stored (the
 * sizes the map tasks wrote, so a stage reads what its parents' Shuffle Bytes Written add up to)
 * and counts, split by where they come from: this executor's own outputs are local, the others'
 * remote (every block is local where no fetcher is set: local mode). Empty blocks are not read. */
static void count_shuffle_blocks(cspark_task_context *tc, const shuffle_input *in, int reduce_id)
{
    cs_task_metrics *m = &tc->result->metrics;
    for (int i = 0; i < in->num_maps; i++) {
        const cs_map_status *st = in->maps[i];
        uint64_t size = reduce_id < st->num_reduces ? st->sizes[reduce_id] : 0;
        if (size == 0) continue;
        m->shuffle_bytes_read += (int64_t)size;
        if (tc->env->fetcher && strcmp(st->executor_id, tc->env->executor_id) != 0) {
            m->shuffle_remote_bytes_read += (int64_t)size;
            m->shuffle_remote_blocks_fetched++;
        } else {
            m->shuffle_local_blocks_fetched++;
        }
    }
}

static shuffle_reader *open_reader(shuffled_iter *s, const shuffle_dep *dep, block_prefetch **pf,
                                   cs_error *err)
{
    const shuffle_input *in = find_input(s->tc->task, dep->shuffle_id);
    if (!in) {
        cs_error_set(err, CS_EINVAL, "internal: no map outputs given for shuffle %d",
                     dep->shuffle_id);
        return NULL;
    }
    for (int m = 0; m < in->num_maps; m++) {
        if (in->maps[m]) continue;
        /* lost before this attempt started (its executor is gone): no point fetching */
        s->tc->result->status = TASK_FETCH_FAILED;
        s->tc->result->fetch_shuffle_id = dep->shuffle_id;
        s->tc->result->fetch_map_id = m;
        cs_error_set(err, CS_EIO, "map output %d of shuffle %d is lost", m, dep->shuffle_id);
        return NULL;
    }
    count_shuffle_blocks(s->tc, in, s->partition);
    *pf = NULL;
    if (s->tc->env->fetcher) { /* remote blocks requested ahead, up to maxSizeInFlight */
        *pf = cs_block_fetcher_prefetch(s->tc->env->fetcher, in->maps, in->num_maps, s->partition);
        shuffle_block_source src = cs_block_prefetch_source(*pf);
        shuffle_reader *r = cs_shuffle_reader_new(in->maps, in->num_maps, s->partition, &src, err);
        if (!r) {
            cs_block_prefetch_free(*pf);
            *pf = NULL;
        }
        return r;
    }
    return cs_shuffle_reader_new(in->maps, in->num_maps, s->partition, &s->tc->env->blocks, err);
}

/* Reads every block of one shuffle, passing each batch to sink(s, batch). */
static int drain_shuffle(shuffled_iter *s, const shuffle_dep *dep, bool sort, cs_error *err)
{
    block_prefetch *pf;
    shuffle_reader *r = open_reader(s, dep, &pf, err);
    if (!r) return err->code ? err->code : CS_EINVAL;
    int rc;
    for (;;) {
        int failed_map = -1;
        const cs_batch *b = NULL;
        rc = cs_shuffle_reader_next_view(r, &b, &failed_map, err);
        if (rc < 0) {
            if (failed_map >= 0) {
                s->tc->result->status = TASK_FETCH_FAILED;
                s->tc->result->fetch_shuffle_id = dep->shuffle_id;
                s->tc->result->fetch_map_id = failed_map;
            }
            break;
        }
        if (rc == 0) break;
        s->tc->result->metrics.shuffle_records_read += (int64_t)b->n;
        cs_task_context_enter(s->tc, &s->rdd->agg.merge_value);
        rc = sort ? cs_ext_sorter_insert(s->sorter, b, err)
                  : cs_ext_agg_insert(s->aggr, b, s->rdd->values_are_combiners, err);
        cs_task_context_enter(s->tc, NULL);
        if (rc < 0) break;
    }
    cs_shuffle_reader_free(r);
    if (pf) cs_block_prefetch_free(pf);
    return rc < 0 ? rc : 0;
}

static int shuffled_prepare(shuffled_iter *s, cs_error *err)
{
    cspark_rdd *rdd = s->rdd;
    const char *dir = s->tc->env->local_dir;
    switch (rdd->read_mode) {
    case SHUFFLE_READ_PLAIN:
        s->plain = open_reader(s, rdd->deps[0], &s->plain_prefetch, err);
        return s->plain ? 0 : (err->code ? err->code : CS_EINVAL);
    case SHUFFLE_READ_SORT:
        s->sorter = cs_ext_sorter_new(rdd->ascending, &s->tc->mem, dir, err);
        if (!s->sorter) return err->code ? err->code : CS_EINVAL;
        cs_ext_sorter_set_spill_compress(s->sorter, s->tc->env->shuffle_compress);
        cs_ext_sorter_set_spill_checksum(s->sorter, s->tc->env->shuffle_checksum);
        return drain_shuffle(s, rdd->deps[0], true, err);
    case SHUFFLE_READ_AGGREGATE:
    case SHUFFLE_READ_COGROUP:
        cs_plan_aggregator_bind(&rdd->agg, s->tc, &s->agg);
        s->aggr = cs_ext_agg_new(&s->agg, &s->tc->mem, dir, err);
        if (!s->aggr) return err->code ? err->code : CS_EINVAL;
        cs_ext_agg_set_spill_checksum(s->aggr, s->tc->env->shuffle_checksum);
        for (int d = 0; d < rdd->num_deps; d++) {
            int rc = drain_shuffle(s, rdd->deps[d], false, err);
            if (rc < 0) return rc;
        }
        return 0;
    }
    return CS_EINVAL;
}

/* COGROUP combiners are lists of items whose first byte tags the side (0 left, 1 right); the
 * output value is pair(list of left values, list of right values). */
static void cogroup_to_pair(cs_batch *dst, const cs_batch *src)
{
    for (size_t i = 0; i < src->n; i++) {
        cspark_record r = batch_get(src, i);
        uint32_t left_bytes = 0, right_bytes = 0;
        cspark_slice list = r.value, item;
        while (cspark_list_next(&list, &item))
            if (item.len) *(item.ptr[0] == 0 ? &left_bytes : &right_bytes) += 4 + item.len - 1;
        uint8_t *k = batch_append(dst, r.key.len, 4 + left_bytes + 1 + right_bytes);
        memcpy(k, r.key.ptr, r.key.len);
        uint8_t *v = k + r.key.len;
        memcpy(v, &left_bytes, 4);
        uint8_t *lp = v + 4, *rp = v + 4 + left_bytes + 1;
        v[4 + left_bytes] = 1;
        list = r.value;
        while (cspark_list_next(&list, &item)) {
            if (!item.len) continue;
            uint32_t n = item.len - 1;
            uint8_t **p = item.ptr[0] == 0 ? &lp : &rp;
            memcpy(*p, &n, 4);
            memcpy(*p + 4, item.ptr + 1, n);
            *p += 4 + n;
        }
    }
}

static int shuffled_next(part_iter *it, const cs_batch **out, cs_error *err)
{
    shuffled_iter *s = (shuffled_iter *)it;
    if (!s->prepared) {
        s->prepared = true;
        int rc = shuffled_prepare(s, err);
        if (rc < 0) return rc;
    }
    cs_batch_reset(&s->out);
    int rc;
    switch (s->rdd->read_mode) {
    case SHUFFLE_READ_PLAIN: {
        /* the records of one block where the reader decoded them: no copy */
        int failed_map = -1;
        const cs_batch *b = NULL;
        rc = cs_shuffle_reader_next_view(s->plain, &b, &failed_map, err);
        if (rc < 0 && failed_map >= 0) {
            s->tc->result->status = TASK_FETCH_FAILED;
            s->tc->result->fetch_shuffle_id = s->rdd->deps[0]->shuffle_id;
            s->tc->result->fetch_map_id = failed_map;
        }
        if (rc > 0) {
            s->tc->result->metrics.shuffle_records_read += (int64_t)b->n;
            *out = b;
        }
        return rc;
    }
    case SHUFFLE_READ_SORT:
        rc = cs_ext_sorter_next(s->sorter, &s->out, err);
        break;
    case SHUFFLE_READ_AGGREGATE:
        cs_task_context_enter(s->tc, &s->rdd->agg.merge_value);
        rc = cs_ext_agg_next(s->aggr, &s->out, err);
        cs_task_context_enter(s->tc, NULL);
        break;
    default:
        cs_batch_reset(&s->tmp);
        cs_task_context_enter(s->tc, &s->rdd->agg.merge_value);
        rc = cs_ext_agg_next(s->aggr, &s->tmp, err);
        cs_task_context_enter(s->tc, NULL);
        if (rc > 0) cogroup_to_pair(&s->out, &s->tmp);
        break;
    }
    if (rc > 0) *out = &s->out;
    return rc;
}

static void shuffled_free(part_iter *it)
{
    shuffled_iter *s = (shuffled_iter *)it;
    cs_shuffle_reader_free(s->plain);
    if (s->plain_prefetch) cs_block_prefetch_free(s->plain_prefetch);
    if (s->aggr) cs_ext_agg_free(s->aggr);
    if (s->sorter) cs_ext_sorter_free(s->sorter);
    cs_batch_free(&s->out);
    cs_batch_free(&s->tmp);
    free(s);
}

/* ---- construction ------------------------------------------------------------------------ */

part_iter *cs_part_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition, cs_error *err)
{
    if (rdd->storage_level != CSPARK_STORAGE_NONE && tc->env->block_manager)
        return cs_cache_iter_open(tc, rdd, partition, err);
    return cs_part_iter_compute(tc, rdd, partition, err);
}

part_iter *cs_part_iter_compute(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                cs_error *err)
{
    switch (rdd->kind) {
    case RDD_PARALLELIZE: {
        par_iter *p = cs_xcalloc(1, sizeof *p);
        p->base.next = par_next;
        p->base.free = par_free;
        p->src = &rdd->par_data;
        p->i = rdd->par_offsets[partition];
        p->end = rdd->par_offsets[partition + 1];
        return &p->base;
    }
    case RDD_RANGE:
        return range_open(rdd, partition);
    case RDD_TEXT_FILE:
        return cs_text_iter_open(tc, &rdd->splits[partition], err);
    case RDD_MAP:
    case RDD_FLAT_MAP:
    case RDD_FILTER: {
        part_iter *parent = cs_part_iter_open(tc, rdd->parents[0], partition, err);
        if (!parent) return NULL;
        narrow_iter *m = cs_xcalloc(1, sizeof *m);
        m->base.next = narrow_next;
        m->base.free = narrow_free;
        m->tc = tc;
        m->rdd = rdd;
        m->parent = parent;
        return &m->base;
    }
    case RDD_MAP_PARTITIONS: {
        part_iter *parent = cs_part_iter_open(tc, rdd->parents[0], partition, err);
        if (!parent) return NULL;
        mappart_iter *m = cs_xcalloc(1, sizeof *m);
        m->base.next = mappart_next;
        m->base.free = mappart_free;
        m->tc = tc;
        m->rdd = rdd;
        m->parent = parent;
        m->spill_fd = -1;
        return &m->base;
    }
    case RDD_UNION:
        return cs_part_iter_open(tc, rdd->parents[rdd->union_parent[partition]],
                                 rdd->union_index[partition], err);
    case RDD_COALESCE: {
        coalesce_iter *c = cs_xcalloc(1, sizeof *c);
        c->base.next = coalesce_next;
        c->base.free = coalesce_free;
        c->tc = tc;
        c->rdd = rdd;
        c->next_part = rdd->group_start[partition];
        c->end_part = rdd->group_start[partition + 1];
        return &c->base;
    }
    case RDD_SHUFFLED: {
        shuffled_iter *s = cs_xcalloc(1, sizeof *s);
        s->base.next = shuffled_next;
        s->base.free = shuffled_free;
        s->tc = tc;
        s->rdd = rdd;
        s->partition = partition;
        return &s->base;
    }
    }
    cs_error_set(err, CS_EINVAL, "internal: unknown RDD kind %d", (int)rdd->kind);
    return NULL;
}

void cs_part_iter_free(part_iter *it)
{
    if (it) it->free(it);
}
