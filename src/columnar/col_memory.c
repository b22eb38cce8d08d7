/*
 * col_memory.c — 64-byte aligned, zero-padded column buffers counted against execution memory
 * (see col_memory.h). Called by the columns and builders of src/columnar and by the readers of
 * src/formats.
 */
#include "columnar/col_memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"
#include "common/log.h"

/* Buffers at least this large grow with realloc (see cs_col_buffer_realloc). */
#define GROW_IN_PLACE_MIN (1u << 20)

static cs_col_allocator default_allocator;

void cs_col_allocator_init(cs_col_allocator *a, cs_task_memory *task_memory)
{
    a->task_memory = task_memory;
    atomic_store(&a->allocated, 0);
    atomic_store(&a->peak, 0);
}

cs_col_allocator *cs_col_default_allocator(void)
{
    return &default_allocator;
}

bool cs_col_allocator_over(const cs_col_allocator *a)
{
    return a->task_memory && cs_task_memory_over(a->task_memory);
}

size_t cs_col_padded(size_t n)
{
    return (n + CS_COL_ALIGN - 1) & ~(size_t)(CS_COL_ALIGN - 1);
}

static void charge(cs_col_allocator *a, int64_t delta)
{
    if (!a) a = &default_allocator;
    int64_t now = atomic_fetch_add(&a->allocated, delta) + delta;
    int64_t peak = atomic_load(&a->peak);
    while (now > peak && !atomic_compare_exchange_weak(&a->peak, &peak, now)) {
    }
    if (a->task_memory) {
        if (delta > 0)
            cs_task_memory_acquire(a->task_memory, delta);
        else if (delta < 0)
            cs_task_memory_release(a->task_memory, -delta);
    }
}

/* A buffer of n bytes (padded to the alignment): the first src_n bytes copied from src, the
 * rest zero; zero_from > src_n leaves [src_n, zero_from) as the C library gave it (the caller
 * writes those bytes itself). */
static void *alloc_aligned_from(cs_col_allocator *a, size_t n, const void *src, size_t src_n,
                                size_t zero_from)
{
    if (n == 0) return NULL;
    size_t cap = cs_col_padded(n);
    if (cap < n)
        cap = SIZE_MAX & ~(size_t)(CS_COL_ALIGN - 1); /* overflow: let aligned_alloc fail */
    void *p = aligned_alloc(CS_COL_ALIGN, cap);
    if (!p) {
        const char *note = cs_memory_limit_note();
        cs_log(CS_LOG_ERROR, "columnar",
               "out of memory allocating a column buffer of %zu bytes%s%s", cap,
               note && note[0] ? ": " : "", note ? note : "");
        abort();
    }
    if (src) memcpy(p, src, src_n);
    if (zero_from < src_n) zero_from = src_n;
    memset((uint8_t *)p + zero_from, 0, cap - zero_from);
    charge(a, (int64_t)cap);
    return p;
}

static void *alloc_aligned(cs_col_allocator *a, size_t n, const void *src, size_t src_n)
{
    return alloc_aligned_from(a, n, src, src_n, src_n);
}

void *cs_col_buffer_alloc(cs_col_allocator *a, size_t n)
{
    return alloc_aligned(a, n, NULL, 0);
}

void *cs_col_buffer_alloc_unset(cs_col_allocator *a, size_t n)
{
    return alloc_aligned_from(a, n, NULL, 0, n);
}

void *cs_col_buffer_copy(cs_col_allocator *a, const void *src, size_t n)
{
    return alloc_aligned(a, n, src, n);
}

void *cs_col_buffer_realloc(cs_col_allocator *a, void *p, size_t old_n, size_t new_n)
{
    if (cs_col_padded(old_n) == cs_col_padded(new_n) && (p || new_n == 0)) {
        /* same capacity: only keep the "bytes past the length are zero" rule when shrinking */
        if (new_n < old_n) memset((uint8_t *)p + new_n, 0, old_n - new_n);
        return p;
    }
    if (p && new_n > old_n && old_n >= GROW_IN_PLACE_MIN) {
        /* a large buffer grown by the C library where it can (a mapping grown by mremap): no
         * copy, and the kept pages are not faulted in again. realloc keeps only malloc's
         * alignment when it moves a block, so a moved, misaligned one is copied as below. */
        size_t old_cap = cs_col_padded(old_n), cap = cs_col_padded(new_n);
        void *q = cap >= new_n ? realloc(p, cap) : NULL;
        if (q && (uintptr_t)q % CS_COL_ALIGN == 0) {
            memset((uint8_t *)q + old_n, 0, cap - old_n);
            charge(a, (int64_t)(cap - old_cap));
            return q;
        }
        if (q) {
            void *r = alloc_aligned(a, new_n, q, old_n);
            free(q);
            charge(a, -(int64_t)old_cap);
            return r;
        }
        /* realloc failed: p is untouched; the path below reports the failure */
    }
    /* the kept bytes copied, only the rest zeroed (not the whole buffer first) */
    void *q = p ? alloc_aligned(a, new_n, p, old_n < new_n ? old_n : new_n)
                : alloc_aligned(a, new_n, NULL, 0);
    cs_col_buffer_free(a, p, old_n);
    return q;
}

void cs_col_buffer_free(cs_col_allocator *a, void *p, size_t n)
{
    if (!p) return;
    free(p);
    charge(a, -(int64_t)cs_col_padded(n));
}
