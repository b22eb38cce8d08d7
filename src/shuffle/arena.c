/*
 * arena.c — chunked bump allocator (see arena.h). Called by value.c, aggmap.c, external_sort.c.
 */
#include "shuffle/arena.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/err.h"

#define HUGE_ALIGN (2u << 20)

void *cs_shuffle_big_alloc(size_t n, bool zero)
{
    if (n >= HUGE_ALIGN) {
        /* mmap'd directly, so that free returns the memory to the system at once (heap
         * fragmentation otherwise keeps freed arena chunks resident); 2 MB aligned for THP */
        size_t len = (n + HUGE_ALIGN - 1) & ~(size_t)(HUGE_ALIGN - 1);
        uint8_t *p = mmap(NULL, len + HUGE_ALIGN, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) abort();
        uintptr_t a = ((uintptr_t)p + HUGE_ALIGN - 1) & ~(uintptr_t)(HUGE_ALIGN - 1);
        size_t head = a - (uintptr_t)p, tail = HUGE_ALIGN - head;
        if (head) munmap(p, head);
        if (tail) munmap((uint8_t *)a + len, tail);
#ifdef MADV_HUGEPAGE
        madvise((void *)a, len, MADV_HUGEPAGE);
#endif
        (void)zero; /* fresh anonymous memory is zeroed */
        return (void *)a;
    }
    void *p = zero ? cs_xcalloc(1, n ? n : 1) : cs_xmalloc(n ? n : 1);
    return p;
}

void cs_shuffle_big_free(void *p, size_t n)
{
    if (!p) return;
    if (n >= HUGE_ALIGN)
        munmap(p, (n + HUGE_ALIGN - 1) & ~(size_t)(HUGE_ALIGN - 1));
    else
        free(p);
}

#define ARENA_MIN_CHUNK (64 * 1024)
#define ARENA_MAX_CHUNK (4u << 20)

struct arena_chunk {
    arena_chunk *next;
    size_t size;
    /* data follows, 16-aligned */
};
#define CHUNK_HDR ((sizeof(arena_chunk) + 15) & ~(size_t)15)

void cs_arena_init(cs_arena *a, cs_task_memory *mem)
{
    a->chunks = NULL;
    a->cur = a->end = NULL;
    a->next_size = ARENA_MIN_CHUNK;
    a->max_size = ARENA_MAX_CHUNK;
    /* chunks stay a small fraction of the budget, so growth does not overshoot it much */
    if (mem && mem->budget > 0 && (int64_t)a->max_size > mem->budget / 16)
        a->max_size =
            mem->budget / 16 < ARENA_MIN_CHUNK ? ARENA_MIN_CHUNK : (size_t)(mem->budget / 16);
    a->bytes = 0;
    a->mem = mem;
}

void *cs_arena_alloc_slow(cs_arena *a, size_t n)
{
    size_t size = a->next_size;
    if (n > size / 4) {
        /* big allocation: a chunk of its own, not becoming the current chunk */
        size_t total = CHUNK_HDR + n;
        arena_chunk *c = cs_shuffle_big_alloc(total, false);
        c->size = total;
        if (a->chunks) {
            c->next = a->chunks->next;
            a->chunks->next = c;
        } else {
            c->next = NULL;
            a->chunks = c;
        }
        a->bytes += (int64_t)total;
        if (a->mem) cs_task_memory_acquire(a->mem, (int64_t)total);
        return (uint8_t *)c + CHUNK_HDR;
    }
    arena_chunk *c = cs_shuffle_big_alloc(size, false);
    c->size = size;
    c->next = a->chunks;
    a->chunks = c;
    a->bytes += (int64_t)c->size;
    if (a->mem) cs_task_memory_acquire(a->mem, (int64_t)c->size);
    a->cur = (uint8_t *)c + CHUNK_HDR;
    a->end = (uint8_t *)c + size;
    if (a->next_size < a->max_size) a->next_size *= 2;
    void *p = a->cur; /* 16-aligned */
    a->cur += n;
    return p;
}

void cs_arena_reset(cs_arena *a)
{
    arena_chunk *c = a->chunks;
    while (c) {
        arena_chunk *n = c->next;
        cs_shuffle_big_free(c, c->size);
        c = n;
    }
    if (a->mem && a->bytes) cs_task_memory_release(a->mem, a->bytes);
    a->chunks = NULL;
    a->cur = a->end = NULL;
    a->bytes = 0;
    a->next_size = ARENA_MIN_CHUNK;
}

void cs_arena_free(cs_arena *a)
{
    cs_arena_reset(a);
}
