/*
 * emitter.c — what user functions call to emit records (cspark_emit, cspark_emit_value,
 * cspark_emit_key, cspark_emit_reserve in cspark.h) into the batch of the iterator that called
 * them (emitter.h). Every record is checked against the record limit; a full batch is handed on
 * through on_full (map_partitions keeps or spills it) before more space is given.
 */
#include "exec/emitter.h"

#include <string.h>

#include "records/recio.h"
#include "exec/task_context.h"

/* Lengths are size_t in the API and uint32_t in a batch: a record over CSPARK_MAX_RECORD_BYTES
 * fails the task here, before anything is narrowed or copied. */
static void emit_check(cspark_emitter *e, size_t key_len, size_t value_len, const char *what)
{
    cs_error err;
    if (cs_recio_check_record(key_len, value_len, what, &err) < 0)
        cspark_task_fail(e->tc, "%s", err.msg);
}

static void emit_refuse_mode(cspark_emitter *e, const char *call)
{
    cspark_task_fail(e->tc, "%s called %s: a %s function emits with %s", e->fn_name, call,
                     e->mode == EMIT_VALUES ? "map_values" : "key_by/sort_by",
                     e->mode == EMIT_VALUES ? "cspark_emit_value" : "cspark_emit_key");
}

void cspark_emit(cspark_emitter *e, const void *key, size_t key_len, const void *value,
                 size_t value_len)
{
    if (__builtin_expect(e->mode != EMIT_ANY, 0)) emit_refuse_mode(e, "cspark_emit");
    emit_check(e, key_len, value_len, "cspark_emit");
    cs_batch_append_record(e->out, key, (uint32_t)key_len, value, (uint32_t)value_len);
    if (e->on_full && batch_full(e->out)) e->on_full(e);
}

/* Room for one record (checked against the record limit, a full batch handed on first). */
static uint8_t *emit_space(cspark_emitter *e, size_t key_len, size_t value_len, const char *what)
{
    emit_check(e, key_len, value_len, what);
    if (e->on_full && batch_full(e->out)) e->on_full(e);
    return batch_append(e->out, (uint32_t)key_len, (uint32_t)value_len);
}

void cspark_emit_value(cspark_emitter *e, const void *value, size_t value_len)
{
    if (!e->in || e->mode == EMIT_KEYS)
        cspark_task_fail(e->tc,
                         "%s called cspark_emit_value where no input record is at hand "
                         "(it is for per-record functions such as map and map_values)",
                         e->fn_name ? e->fn_name : "a function");
    const cspark_slice k = e->in->key;
    uint8_t *p = emit_space(e, k.len, value_len, "cspark_emit_value");
    memcpy(p, k.ptr, k.len);
    if (value_len) memcpy(p + k.len, value, value_len);
}

void cspark_emit_key(cspark_emitter *e, const void *key, size_t key_len)
{
    if (!e->in || e->mode == EMIT_VALUES)
        cspark_task_fail(e->tc,
                         "%s called cspark_emit_key where no input record is at hand "
                         "(it is for per-record functions such as map and key_by)",
                         e->fn_name ? e->fn_name : "a function");
    const cspark_record *in = e->in;
    if (e->mode == EMIT_KEYS) { /* value = pair(key, value) of the input */
        size_t vlen = 4 + (size_t)in->key.len + 1 + in->value.len;
        uint8_t *p = emit_space(e, key_len, vlen, "cspark_emit_key");
        if (key_len) memcpy(p, key, key_len);
        uint8_t *v = p + key_len;
        memcpy(v, &in->key.len, 4);
        memcpy(v + 4, in->key.ptr, in->key.len);
        v[4 + in->key.len] = 1;
        memcpy(v + 5 + in->key.len, in->value.ptr, in->value.len);
        return;
    }
    uint8_t *p = emit_space(e, key_len, in->value.len, "cspark_emit_key");
    if (key_len) memcpy(p, key, key_len);
    memcpy(p + key_len, in->value.ptr, in->value.len);
}

static __attribute__((noinline)) uint8_t *emit_reserve_slow(cspark_emitter *e, size_t key_len,
                                                            size_t value_len, uint8_t **value_out)
{
    if (e->mode != EMIT_ANY) emit_refuse_mode(e, "cspark_emit_reserve");
    emit_check(e, key_len, value_len, "cspark_emit_reserve");
    /* A full batch is handed on before reserving, so the returned space stays valid. */
    if (e->on_full && batch_full(e->out)) e->on_full(e);
    uint8_t *p = batch_append(e->out, (uint32_t)key_len, (uint32_t)value_len);
    if (value_out) *value_out = p + key_len;
    return p;
}

uint8_t *cspark_emit_reserve(cspark_emitter *e, size_t key_len, size_t value_len,
                             uint8_t **value_out)
{
    /* Runs once per emitted record (a flat_map's words): the common case (room in the batch,
     * which is not full or has no hand-on) has no call and saves no registers. A sum of lengths
     * that wraps around or passes the record limit takes the slow path, which fails the task. */
    cs_batch *b = e->out;
    size_t kv;
    bool wraps = __builtin_add_overflow(key_len, value_len, &kv);
    size_t need = b->len + kv;
    if (__builtin_expect(!wraps && kv <= CSPARK_MAX_RECORD_BYTES && e->mode == EMIT_ANY &&
                             b->data && need <= b->cap && b->n < b->rcap &&
                             (!e->on_full || !batch_full(b)),
                         1)) {
        cs_rec *r = &b->recs[b->n++];
        r->off = b->len;
        r->klen = (uint32_t)key_len;
        r->vlen = (uint32_t)value_len;
        uint8_t *p = b->data + b->len;
        b->len = need;
        if (value_out) *value_out = p + key_len;
        return p;
    }
    return emit_reserve_slow(e, key_len, value_len, value_out);
}
