/*
 * value.c — cspark_value_set / cspark_value_resize (declared in cspark.h): how reduce functions
 * change the size of an accumulator.
 *
 * A value's `owner` is the cs_arena it lives in (aggregation tables set it); growing allocates
 * new space in that arena (capacity doubles, so repeated appends stay amortised O(1)) and copies;
 * the old space is reclaimed when the arena is reset. A value with owner == NULL is malloc-owned
 * (ptr NULL or from malloc), and is grown with malloc + copy + free, so callers outside an arena
 * (e.g. the executor's reduce/fold actions) can use the same functions and free(v->ptr) at the end.
 * A length above CSPARK_MAX_RECORD_BYTES (the value could never travel as a record) fails the task
 * running on this thread, before anything is narrowed to the value's uint32_t fields.
 */
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/err.h"
#include "records/recio.h"
#include "cspark.h"
#include "common/current_task.h"
#include "shuffle/arena.h"

static void value_check(size_t len, const char *what)
{
    cs_error err;
    if (cs_recio_check_record(0, len, what, &err) == 0) return;
    cspark_task_context *tc = cs_task_current();
    if (tc) cspark_task_fail(tc, "%s", err.msg);
    /* no task to fail on this thread, and no way to return an error: stop here rather than
     * hand back a value shorter than asked for */
    CS_ERROR("value", "event=record_limit error=%s", cs_log_quote(err.msg));
    abort();
}

/* New space of at least `need` bytes (capacity doubles), from the value's arena or malloc.
 * The old buffer is left alone: the caller copies what it needs, then calls value_adopt. */
static uint8_t *value_alloc(const cspark_value *v, uint32_t need, uint32_t *cap)
{
    uint64_t c = v->cap ? (uint64_t)v->cap * 2 : 8;
    if (c < need) c = need;
    if (c > UINT32_MAX) c = UINT32_MAX;
    uint8_t *p;
    if (v->owner) {
        p = arena_alloc8((cs_arena *)v->owner, (size_t)c);
    } else {
        p = cs_xmalloc((size_t)c);
    }
    *cap = (uint32_t)c;
    return p;
}

/* Makes p (from value_alloc) the value's buffer, releasing a malloc-owned old one. */
static void value_adopt(cspark_value *v, uint8_t *p, uint32_t cap)
{
    if (!v->owner) free(v->ptr);
    v->ptr = p;
    v->cap = cap;
}

uint8_t *cspark_value_resize(cspark_value *v, size_t len_in)
{
    value_check(len_in, "cspark_value_resize");
    uint32_t len = (uint32_t)len_in;
    if (len > v->cap || !v->ptr) {
        uint32_t cap;
        uint8_t *p = value_alloc(v, len, &cap);
        if (v->len && v->ptr) memcpy(p, v->ptr, v->len < len ? v->len : len);
        value_adopt(v, p, cap);
    }
    if (len > v->len) memset(v->ptr + v->len, 0, len - v->len);
    v->len = len;
    return v->ptr;
}

void cspark_value_set(cspark_value *v, const void *data, size_t len_in)
{
    value_check(len_in, "cspark_value_set");
    uint32_t len = (uint32_t)len_in;
    if (len > v->cap || !v->ptr) {
        uint32_t cap;
        uint8_t *p =
            value_alloc(v, len, &cap); /* new space first: data may point into the old value */
        if (len) memcpy(p, data, len);
        value_adopt(v, p, cap);
    } else if (len) {
        memmove(v->ptr, data, len);
    }
    v->len = len;
}
