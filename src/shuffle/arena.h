/*
 * arena.h — bump allocator for shuffle structures: keys and accumulator values of the hash
 * aggregation, records of the external sorter. Chunks never move, so pointers stay valid until
 * cs_arena_reset; chunk sizes grow from 64 KB to 4 MB and are charged to the task's memory (when
 * mem is non-NULL). A value that outgrows its space is reallocated elsewhere in the arena
 * (value.c); the old space is reclaimed only at reset (spill) or free.
 * Internal to src/shuffle. The arena struct is the caller's; cs_arena_free releases the chunks.
 */
#ifndef CSPARK_SHUFFLE_ARENA_H
#define CSPARK_SHUFFLE_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "shuffle/memory.h"

typedef struct arena_chunk arena_chunk;
typedef struct cs_arena {
    arena_chunk *chunks;
    uint8_t *cur, *end;
    size_t next_size, max_size;
    int64_t bytes; /* held, as charged to mem */
    cs_task_memory *mem;
} cs_arena;

void cs_arena_init(cs_arena *a, cs_task_memory *mem);
void *cs_arena_alloc_slow(cs_arena *a, size_t n);
/* n bytes, no alignment. */
static inline void *arena_alloc(cs_arena *a, size_t n)
{
    if ((size_t)(a->end - a->cur) >= n) {
        void *p = a->cur;
        a->cur += n;
        return p;
    }
    return cs_arena_alloc_slow(a, n);
}
/* n bytes aligned to 8. */
static inline void *arena_alloc8(cs_arena *a, size_t n)
{
    uintptr_t c = ((uintptr_t)a->cur + 7) & ~(uintptr_t)7;
    if (a->cur && c <= (uintptr_t)a->end && (size_t)((uintptr_t)a->end - c) >= n) {
        a->cur = (uint8_t *)c + n;
        return (void *)c;
    }
    return cs_arena_alloc_slow(a, n);
}
/* Gives back the end of the most recent allocation p of n bytes, keeping its first used bytes
 * (an allocation sized for a worst case); no-op when p was not the last one in the current
 * chunk. */
static inline void arena_shrink_last(cs_arena *a, void *p, size_t n, size_t used)
{
    if ((uint8_t *)p + n == a->cur) a->cur = (uint8_t *)p + used;
}
/* Frees every chunk (and releases their memory). The arena stays usable. */
void cs_arena_reset(cs_arena *a);
void cs_arena_free(cs_arena *a);

/* A large allocation (>= 2 MB: mmap'd, 2 MB aligned, transparent huge pages requested, which
 * removes most TLB misses of big hash tables and arenas); zeroed when zero. Freed with
 * cs_shuffle_big_free. */
void *cs_shuffle_big_alloc(size_t n, bool zero);
/* Frees a cs_shuffle_big_alloc block of n bytes. */
void cs_shuffle_big_free(void *p, size_t n);

#endif /* CSPARK_SHUFFLE_ARENA_H */
