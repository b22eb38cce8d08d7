/*
 * arena.c — chunked bump allocator (see arena.h). Called by value.c, aggmap.c, external_sort.c.
 */
#include "shuffle/arena.h"

#include <stdlib.h>

#define ARENA_MIN_CHUNK (64 * 1024)
#define ARENA_MAX_CHUNK (4u << 20)

struct arena_chunk {
    arena_chunk *next;
    size_t size;
    /* data follows, 16-aligned */
};
#define CHUNK_HDR ((sizeof(arena_chunk) + 15) & ~(size_t)15)

void arena_init(cs_arena *a, cs_task_memory *mem)
{
    a->chunks = NULL;
    a->cur = a->end = NULL;
    a->next_size = ARENA_MIN_CHUNK;
    a->max_size = ARENA_MAX_CHUNK;
    /* chunks stay a small fraction of the budget, so growth does not overshoot it much */
    if (mem && mem->budget > 0 && (int64_t)a->max_size > mem->budget / 16)
        a->max_size = mem->budget / 16 < ARENA_MIN_CHUNK ? ARENA_MIN_CHUNK : (size_t)(mem->budget / 16);
    a->bytes = 0;
    a->mem = mem;
}

void *arena_alloc_slow(cs_arena *a, size_t n)
{
    size_t size = a->next_size;
    if (n + 8 > size / 4) {
        /* big allocation: a chunk of its own, not becoming the current chunk */
        if (n + 8 > size) {
            size_t total = CHUNK_HDR + n + 8;
            arena_chunk *c = malloc(total);
            if (!c) abort();
            c->size = total;
            if (a->chunks) {
                c->next = a->chunks->next;
                a->chunks->next = c;
            } else {
                c->next = NULL;
                a->chunks = c;
            }
            a->bytes += (int64_t)total;
            if (a->mem) task_memory_acquire(a->mem, (int64_t)total);
            uint8_t *p = (uint8_t *)c + CHUNK_HDR;
            return p;
        }
    }
    arena_chunk *c = malloc(CHUNK_HDR + size);
    if (!c) abort();
    c->size = CHUNK_HDR + size;
    c->next = a->chunks;
    a->chunks = c;
    a->bytes += (int64_t)c->size;
    if (a->mem) task_memory_acquire(a->mem, (int64_t)c->size);
    a->cur = (uint8_t *)c + CHUNK_HDR;
    a->end = a->cur + size;
    if (a->next_size < a->max_size) a->next_size *= 2;
    void *p = a->cur; /* 16-aligned */
    a->cur += n;
    return p;
}

void arena_reset(cs_arena *a)
{
    arena_chunk *c = a->chunks;
    while (c) {
        arena_chunk *n = c->next;
        free(c);
        c = n;
    }
    if (a->mem && a->bytes) task_memory_release(a->mem, a->bytes);
    a->chunks = NULL;
    a->cur = a->end = NULL;
    a->bytes = 0;
    a->next_size = ARENA_MIN_CHUNK;
}

void arena_free(cs_arena *a)
{
    arena_reset(a);
}
