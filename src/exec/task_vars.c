/*
 * task_vars.c — a task attempt's broadcast pins and accumulator values (see task_vars.h), and
 * the task-side functions of cspark.h that use them. Lookups are a scan of the few entries the
 * attempt touched (the last one first), so a per-record add costs no allocation.
 */
#define _GNU_SOURCE
#include "exec/task_vars.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broadcast/broadcast_store.h"
#include "exec/task_context.h"
#include "plan/fn_ref.h"

typedef struct task_acc {
    int64_t id;
    int kind;
    int64_t l;
    double d;
    cspark_value v;         /* custom: this attempt's value (malloc-owned) */
    cspark_reduce_fn merge; /* custom */
} task_acc;

struct task_vars {
    task_acc *accs;
    int num_accs, cap_accs, last_acc;
    broadcast_entry **pins;
    int num_pins, cap_pins;
};

/* A custom accumulator's definition, decoded once per process. */
typedef struct acc_def {
    cspark_reduce_fn merge;
    uint8_t *zero;
    size_t zero_len;
} acc_def;

static struct task_vars *vars_of(cspark_task_context *tc)
{
    if (!tc->vars) tc->vars = cs_xcalloc(1, sizeof *tc->vars);
    return tc->vars;
}

void cs_task_vars_finish(cspark_task_context *tc, task_result *out, bool ok)
{
    struct task_vars *v = tc->vars;
    if (!v) return;
    tc->vars = NULL;
    for (int i = 0; i < v->num_accs; i++) {
        task_acc *a = &v->accs[i];
        if (ok && out) {
            uint8_t key[8], val[8];
            cspark_i64_encode(a->id, key);
            if (a->kind == CS_TASK_ACC_LONG) {
                cspark_i64_encode(a->l, val);
                cs_batch_append_record(&out->accum_updates, key, 8, val, 8);
            } else if (a->kind == CS_TASK_ACC_DOUBLE) {
                cspark_f64_encode(a->d, val);
                cs_batch_append_record(&out->accum_updates, key, 8, val, 8);
            } else {
                cs_batch_append_record(&out->accum_updates, key, 8, a->v.ptr, a->v.len);
            }
        }
        free(a->v.ptr);
    }
    for (int i = 0; i < v->num_pins; i++)
        cs_broadcast_store_release(tc->env->broadcasts, v->pins[i]);
    free(v->accs);
    free(v->pins);
    free(v);
}

/* ---- broadcast values ---------------------------------------------------------------------- */

/* The attempt's pinned entry of broadcast id, acquiring it on first use (fails the task). */
static broadcast_entry *pinned(cspark_task_context *tc, int64_t id)
{
    struct task_vars *v = vars_of(tc);
    for (int i = 0; i < v->num_pins; i++)
        if (cs_broadcast_entry_id(v->pins[i]) == id) return v->pins[i];
    if (!tc->env || !tc->env->broadcasts)
        cspark_task_fail(tc, "broadcast %lld: this process holds no broadcast values",
                         (long long)id);
    if (id < 0) cspark_task_fail(tc, "broadcast handle %lld was never created", (long long)id);
    cs_error err;
    cs_error_clear(&err);
    broadcast_entry *e = NULL;
    if (cs_broadcast_store_acquire(tc->env->broadcasts, id, &e, &err) < 0)
        cspark_task_fail(tc, "cannot read broadcast %lld: %s", (long long)id, err.msg);
    if (v->num_pins == v->cap_pins) {
        v->cap_pins = v->cap_pins ? v->cap_pins * 2 : 4;
        v->pins = cs_xrealloc(v->pins, (size_t)v->cap_pins * sizeof *v->pins);
    }
    v->pins[v->num_pins++] = e;
    return e;
}

const void *cspark_broadcast_value(cspark_task_context *tc, cspark_broadcast_var b, size_t *len)
{
    broadcast_entry *e = pinned(tc, b.id);
    return cs_broadcast_entry_data(e, len);
}

const void *cspark_broadcast_decoded(cspark_task_context *tc, cspark_broadcast_var b,
                                     cspark_broadcast_decode_fn decode,
                                     cspark_broadcast_free_fn free_fn)
{
    if (!decode) cspark_task_fail(tc, "cspark_broadcast_decoded: no decode function");
    broadcast_entry *e = pinned(tc, b.id);
    void *out = NULL;
    cs_error err;
    cs_error_clear(&err);
    if (cs_broadcast_entry_decoded(tc->env->broadcasts, e, (broadcast_decode_fn)decode,
                                   (broadcast_decoded_free_fn)free_fn, &out, &err) < 0)
        cspark_task_fail(tc, "%s", err.msg);
    return out;
}

int cs_task_vars_broadcast_derived(cspark_task_context *tc, int64_t id, const char *key,
                                   broadcast_derive_fn derive, void *arg,
                                   broadcast_decoded_free_fn free_fn, void **out, cs_error *err)
{
    broadcast_entry *e = pinned(tc, id);
    return cs_broadcast_entry_derived(tc->env->broadcasts, e, key, derive, arg, free_fn, out, err);
}

/* ---- accumulators -------------------------------------------------------------------------- */

uint8_t *cs_task_vars_acc_def_encode(const char *merge_name, const void *zero, size_t zero_len,
                                     size_t *len)
{
    uint32_t n = (uint32_t)strlen(merge_name);
    *len = 4 + n + zero_len;
    uint8_t *p = cs_xmalloc(*len);
    memcpy(p, &n, 4);
    memcpy(p + 4, merge_name, n);
    if (zero_len) memcpy(p + 4 + n, zero, zero_len);
    return p;
}

static void *acc_def_decode(const void *data, size_t len, char **error)
{
    const uint8_t *p = data;
    uint32_t n;
    if (len < 4 || (memcpy(&n, p, 4), n > len - 4)) {
        *error = cs_xstrdup("malformed custom accumulator definition");
        return NULL;
    }
    char *name = cs_xstrndup((const char *)p + 4, n);
    fn_ref ref;
    cs_error err;
    cs_error_clear(&err);
    if (cs_fn_ref_resolve(&ref, name, NULL, NULL, 0, &err) < 0) {
        if (asprintf(error, "custom accumulator merge function: %s", err.msg) < 0) *error = NULL;
        free(name);
        return NULL;
    }
    free(name);
    acc_def *d = cs_xcalloc(1, sizeof *d);
    d->merge = (cspark_reduce_fn)ref.ptr;
    d->zero_len = len - 4 - n;
    d->zero = cs_xmalloc(d->zero_len ? d->zero_len : 1);
    memcpy(d->zero, p + 4 + n, d->zero_len);
    cs_fn_ref_free(&ref);
    return d;
}

static void acc_def_free(void *p)
{
    acc_def *d = p;
    free(d->zero);
    free(d);
}

static const char *kind_name(int kind)
{
    return kind == CS_TASK_ACC_LONG     ? "long"
           : kind == CS_TASK_ACC_DOUBLE ? "double"
           : kind == CS_TASK_ACC_CUSTOM ? "custom"
                                        : "unknown";
}

/* This attempt's value of acc (created at zero on first use); fails the task on a wrong kind. */
static task_acc *task_acc_of(cspark_task_context *tc, cspark_accumulator acc, int kind)
{
    struct task_vars *v = vars_of(tc);
    if (v->last_acc < v->num_accs && v->accs[v->last_acc].id == acc.id)
        return &v->accs[v->last_acc];
    for (int i = 0; i < v->num_accs; i++)
        if (v->accs[i].id == acc.id) {
            v->last_acc = i;
            return &v->accs[i];
        }
    if (acc.id <= 0)
        cspark_task_fail(tc, "accumulator handle %lld was never created", (long long)acc.id);
    if (acc.kind != kind)
        cspark_task_fail(tc, "accumulator %lld is a %s accumulator: cannot add a %s value",
                         (long long)acc.id, kind_name(acc.kind), kind_name(kind));
    acc_def *def = NULL;
    if (kind == CS_TASK_ACC_CUSTOM) {
        cspark_broadcast_var b = {acc.def};
        def = (acc_def *)cspark_broadcast_decoded(tc, b, acc_def_decode, acc_def_free);
    }
    if (v->num_accs == v->cap_accs) {
        v->cap_accs = v->cap_accs ? v->cap_accs * 2 : 4;
        v->accs = cs_xrealloc(v->accs, (size_t)v->cap_accs * sizeof *v->accs);
    }
    task_acc *a = &v->accs[v->num_accs];
    memset(a, 0, sizeof *a);
    a->id = acc.id;
    a->kind = kind;
    if (def) {
        a->merge = def->merge;
        cspark_value_set(&a->v, def->zero, def->zero_len);
    }
    v->last_acc = v->num_accs++;
    return a;
}

void cspark_long_accumulator_add(cspark_task_context *tc, cspark_accumulator acc, int64_t v)
{
    task_acc *a = task_acc_of(tc, acc, CS_TASK_ACC_LONG);
    a->l = (int64_t)((uint64_t)a->l + (uint64_t)v);
}

void cspark_double_accumulator_add(cspark_task_context *tc, cspark_accumulator acc, double v)
{
    task_acc *a = task_acc_of(tc, acc, CS_TASK_ACC_DOUBLE);
    a->d += v;
}

void cspark_accumulator_add(cspark_task_context *tc, cspark_accumulator acc, const void *value,
                            size_t len)
{
    task_acc *a = task_acc_of(tc, acc, CS_TASK_ACC_CUSTOM);
    cspark_slice s = {value, (uint32_t)len};
    a->merge(&a->v, s, tc);
}
