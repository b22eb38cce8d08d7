/*
 * shuffled_read.c — the iterator of a shuffled RDD's partition (Spark's ShuffledRDD and
 * CoGroupedRDD compute, BlockStoreShuffleReader; opened by plan/kinds/shuffled.c): it reads its
 * map outputs through the shuffle reader (remote blocks through the block fetcher's prefetch),
 * and the parents it reads narrowly (already partitioned as it is) partition by partition, and
 * post-processes them by read mode with the external aggregator or sorter, which spill under
 * memory pressure. A map output lost or unreadable marks the task FETCH_FAILED. Shuffle read
 * metrics are counted here.
 *
 * Ownership: as part_iter.h; the iterator owns its readers, aggregator or sorter and its output.
 * One task thread.
 */
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "blocktransfer/block_fetcher.h"
#include "exec/part_iter.h"
#include "shuffle/external_agg.h"
#include "shuffle/external_sort.h"

/* ---- shuffled ---------------------------------------------------------------------------- */

typedef struct shuffled_iter {
    part_iter base;
    cspark_task_context *tc;
    cspark_rdd *rdd; /* NULL: a plain read of plain_dep alone (cs_shuffle_dep_iter_open) */
    shuffle_read_mode mode;
    const shuffle_dep *plain_dep; /* PLAIN: the shuffle read */
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

/* Spark's shuffle read metrics for the blocks this reader will read: their counts, split by
 * where they come from: this executor's own outputs are local, the others' remote (every block
 * is local where no fetcher is set: local mode). Empty blocks (exact in every status) are not
 * read. Their bytes are counted as read, by count_shuffle_bytes. */
static bool remote_block(cspark_task_context *tc, const cs_map_status *st)
{
    return tc->env->fetcher && strcmp(st->executor_id, tc->env->executor_id) != 0;
}

static void count_shuffle_blocks(cspark_task_context *tc, const shuffle_input *in, int reduce_id)
{
    cs_task_metrics *m = &tc->result->metrics;
    for (int i = 0; i < in->num_maps; i++) {
        const cs_map_status *st = in->maps[i];
        if (cs_map_status_block_empty(st, reduce_id)) continue;
        if (remote_block(tc, st))
            m->shuffle_remote_blocks_fetched++;
        else
            m->shuffle_local_blocks_fetched++;
    }
}

/* The bytes reader r read, as stored (so a stage reads what its parents' Shuffle Bytes Written
 * add up to): called once, before r is freed. */
static void count_shuffle_bytes(cspark_task_context *tc, const shuffle_input *in,
                                const shuffle_reader *r)
{
    cs_task_metrics *m = &tc->result->metrics;
    for (int i = 0; in && r && i < in->num_maps; i++) {
        uint64_t n = cs_shuffle_reader_map_bytes(r, i);
        m->shuffle_bytes_read += (int64_t)n;
        if (n && remote_block(tc, in->maps[i])) m->shuffle_remote_bytes_read += (int64_t)n;
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
    count_shuffle_bytes(s->tc, find_input(s->tc->task, dep->shuffle_id), r);
    cs_shuffle_reader_free(r);
    if (pf) cs_block_prefetch_free(pf);
    return rc < 0 ? rc : 0;
}

/* Feeds partition s->partition of a parent read narrowly (placed as this node already, so no
 * shuffle: Spark's one-to-one dependency of a cogroup, or reduceByKey over an RDD partitioned by
 * its partitioner) to the aggregator. */
static int drain_parent(shuffled_iter *s, cspark_rdd *parent, cs_error *err)
{
    part_iter *in = cs_part_iter_open(s->tc, parent, s->partition, err);
    if (!in) return err->code ? err->code : CS_EINVAL;
    int rc;
    for (;;) {
        const cs_batch *b = NULL;
        rc = in->next(in, &b, err);
        if (rc <= 0) break;
        cs_task_context_enter(s->tc, &s->rdd->agg.merge_value);
        rc = cs_ext_agg_insert(s->aggr, b, s->rdd->values_are_combiners, err);
        cs_task_context_enter(s->tc, NULL);
        if (rc < 0) break;
    }
    cs_part_iter_free(in);
    return rc < 0 ? rc : 0;
}

static int shuffled_prepare(shuffled_iter *s, cs_error *err)
{
    cspark_rdd *rdd = s->rdd;
    const char *dir = s->tc->env->local_dir;
    switch (s->mode) {
    case SHUFFLE_READ_PLAIN:
        s->plain = open_reader(s, s->plain_dep, &s->plain_prefetch, err);
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
        for (int p = 0; p < rdd->num_parents; p++) {
            int rc = drain_parent(s, rdd->parents[p], err);
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
    switch (s->mode) {
    case SHUFFLE_READ_PLAIN: {
        /* the records of one block where the reader decoded them: no copy */
        int failed_map = -1;
        const cs_batch *b = NULL;
        rc = cs_shuffle_reader_next_view(s->plain, &b, &failed_map, err);
        if (rc < 0 && failed_map >= 0) {
            s->tc->result->status = TASK_FETCH_FAILED;
            s->tc->result->fetch_shuffle_id = s->plain_dep->shuffle_id;
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
    if (s->plain)
        count_shuffle_bytes(s->tc, find_input(s->tc->task, s->plain_dep->shuffle_id), s->plain);
    cs_shuffle_reader_free(s->plain);
    if (s->plain_prefetch) cs_block_prefetch_free(s->plain_prefetch);
    if (s->aggr) cs_ext_agg_free(s->aggr);
    if (s->sorter) cs_ext_sorter_free(s->sorter);
    cs_batch_free(&s->out);
    cs_batch_free(&s->tmp);
    free(s);
}

static part_iter *iter_new(cspark_task_context *tc, cspark_rdd *rdd, shuffle_read_mode mode,
                           const shuffle_dep *plain_dep, int partition)
{
    shuffled_iter *s = cs_xcalloc(1, sizeof *s);
    s->base.next = shuffled_next;
    s->base.free = shuffled_free;
    s->tc = tc;
    s->rdd = rdd;
    s->mode = mode;
    s->plain_dep = plain_dep;
    s->partition = partition;
    return &s->base;
}

part_iter *cs_shuffled_iter_open(cspark_task_context *tc, cspark_rdd *rdd, int partition,
                                 cs_error *err)
{
    (void)err;
    return iter_new(tc, rdd, rdd->read_mode, rdd->num_deps ? rdd->deps[0] : NULL, partition);
}

part_iter *cs_shuffle_dep_iter_open(cspark_task_context *tc, const shuffle_dep *dep, int partition,
                                    cs_error *err)
{
    (void)err;
    return iter_new(tc, NULL, SHUFFLE_READ_PLAIN, dep, partition);
}
