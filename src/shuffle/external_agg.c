/*
 * external_agg.c — hash aggregation with spill (see external_agg.h), Spark's
 * ExternalAppendOnlyMap.
 *
 * Insert: every record is combined into an aggmap. Spill: the table's entries are sorted by
 * (hash, key) and written as one lz4 run to an anonymous spill file; the table is cleared.
 * Iterate: without spills, the table's entries in insertion order. With spills, the in-memory
 * table is sorted the same way and a binary heap merges it with every run; consecutive records
 * with the same (hash, key) are folded with merge_combiners into one accumulator, so each key
 * comes out once. Called by the task runner for reduce-side aggregation.
 */
#include "shuffle/external_agg.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "records/recio.h"
#include "shuffle/aggmap.h"
#include "shuffle/aggmerge.h"
#include "shuffle/spill.h"

typedef struct agg_run {
    int fd;
    uint64_t len;
} agg_run;

struct ext_agg {
    const cs_aggregator *agg;
    cs_task_memory *mem;
    cs_task_memory own_mem;
    char *dir;
    aggmap map;
    agg_run *runs;
    int nruns;
    int state; /* 0 insert, 1 iterate table, 2 merge, 3 done */
    size_t iter;
    agg_merger *merger;
    int merge_ways;
    cs_checksum_algo checksum; /* of spill runs */
    uint64_t *hashes;          /* of the batch being inserted (grown to the largest batch) */
    size_t hcap;
};

ext_agg *cs_ext_agg_new(const cs_aggregator *agg, cs_task_memory *mem, const char *spill_dir,
                        cs_error *err)
{
    if (!agg || !agg->merge_value || !agg->merge_combiners) {
        cs_error_set(err, CS_EINVAL, "ext_agg: aggregator needs merge_value and merge_combiners");
        return NULL;
    }
    ext_agg *a = cs_xcalloc(1, sizeof *a);
    a->agg = agg;
    cs_task_memory_init(&a->own_mem, 0);
    a->mem = mem ? mem : &a->own_mem;
    a->dir = spill_dir ? strdup(spill_dir) : NULL;
    cs_aggmap_init(&a->map, agg, a->mem);
    a->merge_ways = EXT_MERGE_WAYS;
    a->checksum = CS_CHECKSUM_DEFAULT;
    return a;
}

size_t cs_ext_agg_size(const ext_agg *a)
{
    return a->map.n;
}

void cs_ext_agg_set_spill_checksum(ext_agg *a, cs_checksum_algo algo)
{
    a->checksum = algo;
}

void cs_ext_agg_set_merge_ways(ext_agg *a, int ways)
{
    a->merge_ways = ways < 2 ? 2 : ways;
}

int cs_ext_agg_spills(const ext_agg *a)
{
    return a->nruns;
}

static int agg_spill(ext_agg *a, cs_error *err)
{
    int fd = cs_spill_file_open(a->dir, err);
    if (fd < 0) return fd;
    cs_aggmap_sort_by_hash(&a->map);
    recio_writer *rw = cs_recio_writer_new(fd, true, 0);
    cs_recio_writer_set_checksum(rw, a->checksum);
    int rc = 0;
    for (size_t i = 0; i < a->map.n && rc == 0; i++) {
        const aggmap_entry *e = a->map.ents[i];
        rc = cs_recio_writer_add(rw, aggmap_key(e), e->klen, e->vptr, e->vlen, err);
    }
    if (rc == 0) rc = cs_recio_writer_flush(rw, err);
    uint64_t len = cs_recio_writer_offset(rw);
    cs_recio_writer_free(rw);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    a->runs = cs_xrealloc(a->runs, ((size_t)a->nruns + 1) * sizeof *a->runs);
    a->runs[a->nruns].fd = fd;
    a->runs[a->nruns].len = len;
    a->nruns++;
    cs_task_memory_note_spill(a->mem, aggmap_memory(&a->map), (int64_t)len);
    cs_aggmap_clear(&a->map);
    return 0;
}

int cs_ext_agg_insert(ext_agg *a, const cs_batch *b, bool values_are_combiners, cs_error *err)
{
    if (a->state != 0) return cs_error_set(err, CS_EINVAL, "ext_agg: insert after iteration");
    cs_task_memory *mem = a->mem;
    int64_t floor = cs_task_memory_spill_floor(mem);
    if (b->n > a->hcap) {
        free(a->hashes);
        a->hcap = b->n;
        a->hashes = cs_xmalloc(a->hcap * sizeof *a->hashes);
    }
    /* all hashes first, so the inserts prefetch across chunk boundaries; the spill check runs
     * every 256 records */
    for (size_t i = 0; i < b->n; i++) {
        const cs_rec *r = &b->recs[i];
        cspark_slice key = {b->data + r->off, r->klen};
        a->hashes[i] = shuffle_key_hash(key);
    }
    for (size_t from = 0; from < b->n; from += 256) {
        size_t to = from + 256 < b->n ? from + 256 : b->n;
        cs_aggmap_insert_batch(&a->map, b, from, to, b->n, a->hashes, NULL, values_are_combiners);
        if (cs_task_memory_over(mem) && aggmap_memory(&a->map) >= floor) {
            int rc = agg_spill(a, err);
            if (rc < 0) return rc;
        }
    }
    return 0;
}

/* Merges the k oldest runs into one new run (an intermediate pass of a multi-pass merge). */
static int merge_oldest_runs(ext_agg *a, int k, cs_error *err)
{
    int fd = cs_spill_file_open(a->dir, err);
    if (fd < 0) return fd;
    size_t bufsz = cs_spill_merge_buffer(a->mem, k);
    agg_merger *m = cs_agg_merger_new(a->agg);
    for (int i = 0; i < k; i++)
        cs_agg_merger_add_run(m, cs_recio_reader_fd(a->runs[i].fd, 0, a->runs[i].len, bufsz));
    recio_writer *rw = cs_recio_writer_new(fd, true, 0);
    cs_recio_writer_set_checksum(rw, a->checksum);
    cspark_slice key, val;
    int rc;
    while ((rc = cs_agg_merger_next(m, &key, &val, err)) > 0) {
        rc = cs_recio_writer_add(rw, key.ptr, key.len, val.ptr, val.len, err);
        if (rc < 0) break;
    }
    if (rc >= 0) rc = cs_recio_writer_flush(rw, err);
    uint64_t len = cs_recio_writer_offset(rw);
    cs_recio_writer_free(rw);
    cs_agg_merger_free(m);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    for (int i = 0; i < k; i++)
        close(a->runs[i].fd);
    memmove(a->runs, a->runs + k, (size_t)(a->nruns - k) * sizeof *a->runs);
    a->nruns -= k;
    a->runs[a->nruns].fd = fd;
    a->runs[a->nruns].len = len;
    a->nruns++;
    return 0;
}

static int start_merge(ext_agg *a, cs_error *err)
{
    while (a->nruns + 1 > a->merge_ways) {
        int k = a->nruns + 2 - a->merge_ways;
        if (k > a->merge_ways) k = a->merge_ways;
        int rc = merge_oldest_runs(a, k, err);
        if (rc < 0) return rc;
    }
    cs_aggmap_sort_by_hash(&a->map);
    size_t bufsz = cs_spill_merge_buffer(a->mem, a->nruns + 1);
    a->merger = cs_agg_merger_new(a->agg);
    for (int i = 0; i < a->nruns; i++)
        cs_agg_merger_add_run(a->merger,
                              cs_recio_reader_fd(a->runs[i].fd, 0, a->runs[i].len, bufsz));
    cs_agg_merger_add_mem(a->merger, a->map.ents, NULL, a->map.n);
    return 0;
}

int cs_ext_agg_next(ext_agg *a, cs_batch *out, cs_error *err)
{
    size_t start = out->n;
    if (a->state == 0) {
        if (a->nruns == 0) {
            a->state = 1;
        } else {
            a->state = 2;
            int rc = start_merge(a, err);
            if (rc < 0) {
                a->state = 3;
                return rc;
            }
        }
    }
    if (a->state == 1) {
        while (a->iter < a->map.n && !batch_full(out)) {
            const aggmap_entry *e = a->map.ents[a->iter++];
            recio_batch_put(out, aggmap_key(e), e->klen, e->vptr, e->vlen);
        }
        if (a->iter >= a->map.n) a->state = 3;
        return out->n > start ? 1 : 0;
    }
    if (a->state == 2) {
        while (!batch_full(out)) {
            cspark_slice k, v;
            int rc = cs_agg_merger_next(a->merger, &k, &v, err);
            if (rc < 0) {
                a->state = 3;
                return rc;
            }
            if (rc == 0) {
                a->state = 3;
                break;
            }
            recio_batch_put(out, k.ptr, k.len, v.ptr, v.len);
        }
        return out->n > start ? 1 : 0;
    }
    return 0;
}

void cs_ext_agg_free(ext_agg *a)
{
    if (!a) return;
    cs_agg_merger_free(a->merger);
    for (int i = 0; i < a->nruns; i++)
        close(a->runs[i].fd);
    free(a->runs);
    cs_aggmap_free(&a->map);
    free(a->hashes);
    free(a->dir);
    free(a);
}
