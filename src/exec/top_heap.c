/*
 * top_heap.c — the bounded heap of top / take_ordered (see top_heap.h): a binary heap of indexes
 * into a record store whose root is the worst record kept, so a record better than the root
 * replaces it in O(log k) and every other record costs one comparison.
 */
#define _GNU_SOURCE
#include "exec/top_heap.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "shuffle/external_sort.h"

int cs_record_compare(const cspark_record *a, const cspark_record *b)
{
    int c = cs_ext_key_compare(a->key.ptr, a->key.len, b->key.ptr, b->key.len);
    return c ? c : cs_ext_key_compare(a->value.ptr, a->value.len, b->value.ptr, b->value.len);
}

void cs_top_heap_init(cs_top_heap *t, size_t k, bool largest)
{
    memset(t, 0, sizeof *t);
    t->k = k;
    t->sign = largest ? 1 : -1;
    cs_batch_init(&t->store);
}

void cs_top_heap_free(cs_top_heap *t)
{
    cs_batch_free(&t->store);
    free(t->heap);
    memset(t, 0, sizeof *t);
}

/* true when record i of the store is worse than record j (would leave the heap first) */
static inline bool worse(const cs_top_heap *t, uint32_t i, uint32_t j)
{
    cspark_record a = batch_get(&t->store, i), b = batch_get(&t->store, j);
    return t->sign * cs_record_compare(&a, &b) < 0;
}

static void sift_up(cs_top_heap *t, size_t i)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!worse(t, t->heap[i], t->heap[p])) break;
        uint32_t x = t->heap[i];
        t->heap[i] = t->heap[p];
        t->heap[p] = x;
        i = p;
    }
}

static void sift_down(cs_top_heap *t, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < t->n && worse(t, t->heap[l], t->heap[m])) m = l;
        if (r < t->n && worse(t, t->heap[r], t->heap[m])) m = r;
        if (m == i) return;
        uint32_t x = t->heap[i];
        t->heap[i] = t->heap[m];
        t->heap[m] = x;
        i = m;
    }
}

/* Copies the live records into a fresh store (in heap order, which the heap keeps). */
static void compact(cs_top_heap *t)
{
    cs_batch fresh;
    cs_batch_init(&fresh);
    for (size_t i = 0; i < t->n; i++) {
        cspark_record r = batch_get(&t->store, t->heap[i]);
        cs_batch_append_record(&fresh, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
        t->heap[i] = (uint32_t)i;
    }
    cs_batch_free(&t->store);
    t->store = fresh;
}

static uint32_t store_add(cs_top_heap *t, const cspark_record *r)
{
    cs_batch_append_record(&t->store, r->key.ptr, r->key.len, r->value.ptr, r->value.len);
    t->live_bytes += (size_t)r->key.len + r->value.len;
    return (uint32_t)(t->store.n - 1);
}

void cs_top_heap_add_batch(cs_top_heap *t, const cs_batch *b)
{
    if (t->k == 0) return;
    for (size_t i = 0; i < b->n; i++) {
        cspark_record r = batch_get(b, i);
        if (t->n < t->k) {
            if (t->n == t->cap) {
                t->cap = t->cap ? t->cap * 2 : 64;
                if (t->cap > t->k) t->cap = t->k;
                t->heap = cs_xrealloc(t->heap, t->cap * sizeof *t->heap);
            }
            t->heap[t->n++] = store_add(t, &r);
            sift_up(t, t->n - 1);
            continue;
        }
        cspark_record root = batch_get(&t->store, t->heap[0]);
        if (t->sign * cs_record_compare(&r, &root) <= 0) continue; /* not better than the worst */
        t->live_bytes -= (size_t)root.key.len + root.value.len;
        t->heap[0] = store_add(t, &r);
        sift_down(t, 0);
        /* dead records: compact when they outweigh the live ones (amortized O(1) per record) */
        if (t->store.n > 2 * t->k + 1024 || t->store.len > 2 * t->live_bytes + (1u << 20))
            compact(t);
    }
}

static int cmp_best_first(const void *x, const void *y, void *arg)
{
    const cs_top_heap *t = arg;
    cspark_record a = batch_get(&t->store, *(const uint32_t *)x);
    cspark_record b = batch_get(&t->store, *(const uint32_t *)y);
    return -t->sign * cs_record_compare(&a, &b);
}

void cs_top_heap_result(cs_top_heap *t, cs_batch *out)
{
    if (!t->n) return;
    qsort_r(t->heap, t->n, sizeof *t->heap, cmp_best_first, t);
    for (size_t i = 0; i < t->n; i++) {
        cspark_record r = batch_get(&t->store, t->heap[i]);
        cs_batch_append_record(out, r.key.ptr, r.key.len, r.value.ptr, r.value.len);
    }
    t->n = 0; /* the heap order is gone */
}
