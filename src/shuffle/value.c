/*
 * value.c — cspark_value_set / cspark_value_resize (declared in cspark.h): how reduce functions
 * change the size of an accumulator.
 *
 * A value's `owner` is the cs_arena it lives in (aggregation tables set it); growing allocates
 * new space in that arena (capacity doubles, so repeated appends stay amortised O(1)) and copies;
 * the old space is reclaimed when the arena is reset. A value with owner == NULL is malloc-owned
 * (ptr NULL or from malloc), and is grown with malloc + copy + free, so callers outside an arena
 * (e.g. the executor's reduce/fold actions) can use the same functions and free(v->ptr) at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "cspark.h"
#include "shuffle/arena.h"

static uint8_t *value_grow(cspark_value *v, uint32_t need)
{
    uint64_t c = v->cap ? (uint64_t)v->cap * 2 : 8;
    if (c < need) c = need;
    if (c > UINT32_MAX) c = UINT32_MAX;
    uint8_t *p;
    if (v->owner) {
        p = arena_alloc8((cs_arena *)v->owner, (size_t)c);
    } else {
        p = malloc((size_t)c);
        if (!p) abort();
    }
    if (v->len && v->ptr) memcpy(p, v->ptr, v->len);
    if (!v->owner) free(v->ptr);
    v->ptr = p;
    v->cap = (uint32_t)c;
    return p;
}

uint8_t *cspark_value_resize(cspark_value *v, uint32_t len)
{
    if (len > v->cap || !v->ptr) value_grow(v, len);
    if (len > v->len) memset(v->ptr + v->len, 0, len - v->len);
    v->len = len;
    return v->ptr;
}

void cspark_value_set(cspark_value *v, const void *data, uint32_t len)
{
    if (len > v->cap || !v->ptr) {
        /* new space first: data may point into the old value */
        uint64_t c = v->cap ? (uint64_t)v->cap * 2 : 8;
        if (c < len) c = len;
        if (c > UINT32_MAX) c = UINT32_MAX;
        uint8_t *p;
        if (v->owner) {
            p = arena_alloc8((cs_arena *)v->owner, (size_t)c);
        } else {
            p = malloc((size_t)c);
            if (!p) abort();
        }
        if (len) memcpy(p, data, len);
        if (!v->owner) free(v->ptr);
        v->ptr = p;
        v->cap = (uint32_t)c;
    } else if (len) {
        memmove(v->ptr, data, len);
    }
    v->len = len;
}
