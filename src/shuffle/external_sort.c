/*
 * external_sort.c — sort by key with spill (see external_sort.h), Spark's ExternalSorter used by
 * sortByKey's reduce side.
 *
 * Insert copies each record into an arena as [u32 klen][u32 vlen][key][value] and appends an
 * index entry (8-byte big-endian key prefix, record pointer). A run is sorted by LSD radix sort
 * on the prefix (one histogram pass for all 8 digits, passes whose digit is constant skipped),
 * then each group of equal prefixes is ordered by the full key. Spill writes the sorted run (in
 * output order) as lz4 recio blocks to an anonymous file. Iteration merges the runs and the
 * in-memory run with a binary heap. Called by the task runner.
 */
#include "shuffle/external_sort.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/err.h"
#include "records/recio.h"
#include "shuffle/arena.h"
#include "shuffle/spill.h"

typedef struct sort_ent {
    uint64_t prefix;
    const uint8_t *rec; /* [u32 klen][u32 vlen][key][value] */
} sort_ent;

typedef struct sort_run {
    int fd;
    uint64_t len;
} sort_run;

typedef struct sort_cursor {
    recio_reader *rd; /* NULL: the in-memory run */
    cspark_slice key, val;
    uint64_t pfx; /* cs_ext_key_prefix(key): most comparisons end here */
} sort_cursor;

struct ext_sorter {
    bool ascending, compress;
    cs_checksum_algo checksum; /* of spill runs */
    cs_task_memory *mem;
    cs_task_memory own_mem;
    char *dir;
    cs_arena arena;
    sort_ent *ents;
    size_t n, cap;
    int64_t index_bytes;
    sort_run *runs;
    int nruns;
    int state;   /* 0 insert, 1 iterate memory, 2 merge, 3 done */
    size_t iter; /* in-memory run position (in output order) */
    sort_cursor *cur;
    int *heap;
    int nheap;
    int merge_ways; /* runs merged at once; more runs are first merged into fewer */
};

static inline void rec_kv(const uint8_t *rec, cspark_slice *k, cspark_slice *v)
{
    uint32_t kl, vl;
    memcpy(&kl, rec, 4);
    memcpy(&vl, rec + 4, 4);
    k->ptr = rec + 8;
    k->len = kl;
    v->ptr = rec + 8 + kl;
    v->len = vl;
}

static void charge(ext_sorter *s, int64_t delta)
{
    s->index_bytes += delta;
    if (delta > 0)
        cs_task_memory_acquire(s->mem, delta);
    else if (delta < 0)
        cs_task_memory_release(s->mem, -delta);
}

ext_sorter *cs_ext_sorter_new(bool ascending, cs_task_memory *mem, const char *spill_dir,
                              cs_error *err)
{
    ext_sorter *s = cs_xcalloc(1, sizeof *s);
    s->ascending = ascending;
    s->compress = true;
    s->checksum = CS_CHECKSUM_DEFAULT;
    s->merge_ways = EXT_MERGE_WAYS;
    cs_task_memory_init(&s->own_mem, 0);
    s->mem = mem ? mem : &s->own_mem;
    s->dir = spill_dir ? strdup(spill_dir) : NULL;
    cs_arena_init(&s->arena, s->mem);
    return s;
}

void cs_ext_sorter_set_spill_compress(ext_sorter *s, bool compress)
{
    s->compress = compress;
}

void cs_ext_sorter_set_spill_checksum(ext_sorter *s, cs_checksum_algo algo)
{
    s->checksum = algo;
}

void cs_ext_sorter_set_merge_ways(ext_sorter *s, int ways)
{
    s->merge_ways = ways < 2 ? 2 : ways;
}

int cs_ext_sorter_spills(const ext_sorter *s)
{
    return s->nruns;
}

static int ent_cmp_full(const void *a, const void *b)
{
    const sort_ent *x = a, *y = b;
    if (x->prefix != y->prefix) return x->prefix < y->prefix ? -1 : 1;
    cspark_slice kx, ky, v;
    rec_kv(x->rec, &kx, &v);
    rec_kv(y->rec, &ky, &v);
    return cs_ext_key_compare(kx.ptr, kx.len, ky.ptr, ky.len);
}

/* Orders a group of equal prefixes by full key (insertion sort when small). */
static void sort_ties(sort_ent *e, size_t n)
{
    if (n > 16) {
        qsort(e, n, sizeof *e, ent_cmp_full);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        sort_ent t = e[i];
        size_t j = i;
        while (j > 0 && ent_cmp_full(&e[j - 1], &t) > 0) {
            e[j] = e[j - 1];
            j--;
        }
        e[j] = t;
    }
}

static void sort_run_mem(ext_sorter *s)
{
    size_t n = s->n;
    if (n < 2) return;
    if (n < 256) {
        qsort(s->ents, n, sizeof *s->ents, ent_cmp_full);
        return;
    }
    sort_ent *tmp = cs_shuffle_big_alloc(n * sizeof *tmp, false);
    int64_t scratch = (int64_t)(n * sizeof *tmp);
    cs_task_memory_acquire(s->mem, scratch);
    size_t(*hist)[256] = cs_xcalloc(8, sizeof *hist);
    sort_ent *src = s->ents, *dst = tmp;
    for (size_t i = 0; i < n; i++) {
        uint64_t p = src[i].prefix;
        for (int d = 0; d < 8; d++)
            hist[d][(p >> (8 * d)) & 0xff]++;
    }
    for (int d = 0; d < 8; d++) {
        size_t *h = hist[d];
        uint64_t first = (src[0].prefix >> (8 * d)) & 0xff;
        if (h[first] == n) continue; /* constant digit */
        size_t sum = 0;
        for (int b = 0; b < 256; b++) {
            size_t c = h[b];
            h[b] = sum;
            sum += c;
        }
        const int sh = 8 * d;
        for (size_t i = 0; i < n; i++) {
            sort_ent e = src[i];
            dst[h[(e.prefix >> sh) & 0xff]++] = e;
        }
        sort_ent *t = src;
        src = dst;
        dst = t;
    }
    if (src != s->ents) memcpy(s->ents, src, n * sizeof *src);
    free(hist);
    cs_shuffle_big_free(tmp, n * sizeof *tmp);
    cs_task_memory_release(s->mem, scratch);
    /* ties on the prefix: full-key order */
    size_t i = 0;
    while (i < n) {
        size_t j = i + 1;
        while (j < n && s->ents[j].prefix == s->ents[i].prefix)
            j++;
        if (j - i > 1) sort_ties(s->ents + i, j - i);
        i = j;
    }
}

static inline const sort_ent *mem_at(const ext_sorter *s, size_t i)
{
    return s->ascending ? &s->ents[i] : &s->ents[s->n - 1 - i];
}

static int sorter_spill(ext_sorter *s, cs_error *err)
{
    int fd = cs_spill_file_open(s->dir, err);
    if (fd < 0) return fd;
    sort_run_mem(s);
    recio_writer *rw = cs_recio_writer_new(fd, s->compress, 0);
    cs_recio_writer_set_checksum(rw, s->checksum);
    int rc = 0;
    for (size_t i = 0; i < s->n && rc == 0; i++) {
        cspark_slice k, v;
        if (i + 8 < s->n) {
            const uint8_t *ahead = mem_at(s, i + 8)->rec;
            __builtin_prefetch(ahead);
            __builtin_prefetch(ahead + 64);
        }
        rec_kv(mem_at(s, i)->rec, &k, &v);
        rc = cs_recio_writer_add(rw, k.ptr, k.len, v.ptr, v.len, err);
    }
    if (rc == 0) rc = cs_recio_writer_flush(rw, err);
    uint64_t len = cs_recio_writer_offset(rw);
    cs_recio_writer_free(rw);
    if (rc < 0) {
        close(fd);
        return rc;
    }
    s->runs = cs_xrealloc(s->runs, ((size_t)s->nruns + 1) * sizeof *s->runs);
    s->runs[s->nruns].fd = fd;
    s->runs[s->nruns].len = len;
    s->nruns++;
    cs_task_memory_note_spill(s->mem, s->arena.bytes + s->index_bytes, (int64_t)len);
    cs_arena_reset(&s->arena);
    cs_shuffle_big_free(s->ents, s->cap * sizeof *s->ents);
    s->ents = NULL;
    s->n = s->cap = 0;
    charge(s, -s->index_bytes);
    return 0;
}

int cs_ext_sorter_insert(ext_sorter *s, const cs_batch *b, cs_error *err)
{
    if (s->state != 0) return cs_error_set(err, CS_EINVAL, "ext_sorter: insert after iteration");
    int64_t floor = cs_task_memory_spill_floor(s->mem);
    for (size_t i = 0; i < b->n; i++) {
        const cs_rec *r = &b->recs[i];
        const uint8_t *k = b->data + r->off;
        size_t kv = (size_t)r->klen + r->vlen;
        uint8_t *p = arena_alloc(&s->arena, 8 + kv);
        memcpy(p, &r->klen, 4);
        memcpy(p + 4, &r->vlen, 4);
        memcpy(p + 8, k, kv);
        if (s->n == s->cap) {
            size_t nc = s->cap ? s->cap * 2 : 1024;
            sort_ent *ne = cs_shuffle_big_alloc(nc * sizeof *ne, false);
            if (s->n) memcpy(ne, s->ents, s->n * sizeof *ne);
            cs_shuffle_big_free(s->ents, s->cap * sizeof *ne);
            s->ents = ne;
            charge(s, (int64_t)((nc - s->cap) * sizeof *s->ents));
            s->cap = nc;
        }
        s->ents[s->n].prefix = cs_ext_key_prefix(k, r->klen);
        s->ents[s->n].rec = p;
        s->n++;
        if (cs_task_memory_over(s->mem) && s->arena.bytes + s->index_bytes >= floor) {
            int rc = sorter_spill(s, err);
            if (rc < 0) return rc;
        }
    }
    return 0;
}

static int scur_advance(ext_sorter *s, sort_cursor *c, cs_error *err)
{
    if (!c->rd) {
        if (s->iter >= s->n) return 0;
        const sort_ent *e = mem_at(s, s->iter++);
        rec_kv(e->rec, &c->key, &c->val);
        c->pfx = e->prefix;
        return 1;
    }
    cspark_record rec;
    int rc = cs_recio_reader_next(c->rd, &rec, err);
    if (rc <= 0) return rc;
    c->key = rec.key;
    c->val = rec.value;
    c->pfx = cs_ext_key_prefix(rec.key.ptr, rec.key.len);
    return 1;
}

static inline int scur_less(const ext_sorter *s, const sort_cursor *x, const sort_cursor *y)
{
    int c;
    if (x->pfx != y->pfx)
        c = x->pfx < y->pfx ? -1 : 1;
    else
        c = cs_ext_key_compare(x->key.ptr, x->key.len, y->key.ptr, y->key.len);
    return s->ascending ? c < 0 : c > 0;
}

static void ssift_down(ext_sorter *s, int i)
{
    int n = s->nheap;
    for (;;) {
        int l = 2 * i + 1, m = i;
        if (l < n && scur_less(s, &s->cur[s->heap[l]], &s->cur[s->heap[m]])) m = l;
        if (l + 1 < n && scur_less(s, &s->cur[s->heap[l + 1]], &s->cur[s->heap[m]])) m = l + 1;
        if (m == i) return;
        int t = s->heap[i];
        s->heap[i] = s->heap[m];
        s->heap[m] = t;
        i = m;
    }
}

/* Merges the k oldest runs into one new run (an intermediate pass of a multi-pass merge). */
static int merge_oldest_runs(ext_sorter *s, int k, cs_error *err)
{
    int fd = cs_spill_file_open(s->dir, err);
    if (fd < 0) return fd;
    size_t bufsz = cs_spill_merge_buffer(s->mem, k);
    s->cur = cs_xcalloc((size_t)k, sizeof *s->cur);
    s->heap = cs_xmalloc((size_t)k * sizeof *s->heap);
    int rc = 0;
    s->nheap = 0;
    for (int i = 0; i < k && rc >= 0; i++) {
        s->cur[i].rd = cs_recio_reader_fd(s->runs[i].fd, 0, s->runs[i].len, bufsz);
        rc = scur_advance(s, &s->cur[i], err);
        if (rc > 0) s->heap[s->nheap++] = i;
    }
    for (int i = s->nheap / 2 - 1; i >= 0; i--)
        ssift_down(s, i);
    recio_writer *rw = cs_recio_writer_new(fd, s->compress, 0);
    cs_recio_writer_set_checksum(rw, s->checksum);
    while (rc >= 0 && s->nheap > 0) {
        sort_cursor *top = &s->cur[s->heap[0]];
        rc = cs_recio_writer_add(rw, top->key.ptr, top->key.len, top->val.ptr, top->val.len, err);
        if (rc < 0) break;
        rc = scur_advance(s, top, err);
        if (rc < 0) break;
        if (rc == 0) s->heap[0] = s->heap[--s->nheap];
        if (s->nheap > 0) ssift_down(s, 0);
    }
    if (rc >= 0) rc = cs_recio_writer_flush(rw, err);
    uint64_t len = cs_recio_writer_offset(rw);
    cs_recio_writer_free(rw);
    for (int i = 0; i < k; i++)
        cs_recio_reader_free(s->cur[i].rd);
    free(s->cur);
    free(s->heap);
    s->cur = NULL;
    s->heap = NULL;
    s->nheap = 0;
    if (rc < 0) {
        close(fd);
        return rc;
    }
    for (int i = 0; i < k; i++)
        close(s->runs[i].fd);
    memmove(s->runs, s->runs + k, (size_t)(s->nruns - k) * sizeof *s->runs);
    s->nruns -= k;
    s->runs[s->nruns].fd = fd; /* the array had room for the k removed runs */
    s->runs[s->nruns].len = len;
    s->nruns++;
    return 0;
}

static int start_merge(ext_sorter *s, cs_error *err)
{
    /* at most merge_ways sources in the final merge (the in-memory run counts as one) */
    while (s->nruns + 1 > s->merge_ways) {
        int k = s->nruns + 2 - s->merge_ways;
        if (k > s->merge_ways) k = s->merge_ways;
        int rc = merge_oldest_runs(s, k, err);
        if (rc < 0) return rc;
    }
    sort_run_mem(s);
    int n = s->nruns + 1;
    s->cur = cs_xcalloc((size_t)n, sizeof *s->cur);
    s->heap = cs_xmalloc((size_t)n * sizeof *s->heap);
    size_t bufsz = cs_spill_merge_buffer(s->mem, n);
    for (int i = 0; i < s->nruns; i++)
        s->cur[i].rd = cs_recio_reader_fd(s->runs[i].fd, 0, s->runs[i].len, bufsz);
    s->nheap = 0;
    for (int i = 0; i < n; i++) {
        int rc = scur_advance(s, &s->cur[i], err);
        if (rc < 0) return rc;
        if (rc > 0) s->heap[s->nheap++] = i;
    }
    for (int i = s->nheap / 2 - 1; i >= 0; i--)
        ssift_down(s, i);
    return 0;
}

int cs_ext_sorter_next(ext_sorter *s, cs_batch *out, cs_error *err)
{
    size_t start = out->n;
    if (s->state == 0) {
        if (s->nruns == 0) {
            sort_run_mem(s);
            s->state = 1;
        } else {
            s->state = 2;
            int rc = start_merge(s, err);
            if (rc < 0) {
                s->state = 3;
                return rc;
            }
        }
    }
    if (s->state == 1) {
        while (s->iter < s->n && !batch_full(out)) {
            cspark_slice k, v;
            if (s->iter + 8 < s->n) { /* records are visited in key order: random in memory */
                const uint8_t *ahead = mem_at(s, s->iter + 8)->rec;
                __builtin_prefetch(ahead);
                __builtin_prefetch(ahead + 64);
            }
            rec_kv(mem_at(s, s->iter++)->rec, &k, &v);
            recio_batch_put(out, k.ptr, k.len, v.ptr, v.len);
        }
        if (s->iter >= s->n) s->state = 3;
        return out->n > start ? 1 : 0;
    }
    if (s->state == 2) {
        while (s->nheap > 0 && !batch_full(out)) {
            sort_cursor *top = &s->cur[s->heap[0]];
            recio_batch_put(out, top->key.ptr, top->key.len, top->val.ptr, top->val.len);
            int rc = scur_advance(s, top, err);
            if (rc < 0) {
                s->state = 3;
                return rc;
            }
            if (rc == 0) s->heap[0] = s->heap[--s->nheap];
            if (s->nheap > 0) ssift_down(s, 0);
        }
        if (s->nheap == 0) s->state = 3;
        return out->n > start ? 1 : 0;
    }
    return 0;
}

void cs_ext_sorter_free(ext_sorter *s)
{
    if (!s) return;
    if (s->cur)
        for (int i = 0; i < s->nruns + 1; i++)
            cs_recio_reader_free(s->cur[i].rd);
    free(s->cur);
    free(s->heap);
    for (int i = 0; i < s->nruns; i++)
        close(s->runs[i].fd);
    free(s->runs);
    cs_arena_free(&s->arena);
    cs_shuffle_big_free(s->ents, s->cap * sizeof *s->ents);
    charge(s, -s->index_bytes);
    free(s->dir);
    free(s);
}
