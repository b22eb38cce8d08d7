/*
 * accumulators.c — the driver's side of accumulators (cspark.h: cspark_long_accumulator,
 * cspark_double_accumulator, cspark_custom_accumulator and their values). The registry that
 * merges task updates under the scheduler's rules is src/sched/accumulators.c; tasks add through
 * src/exec/task_vars.c. A custom accumulator's merge function is named, as every function a task
 * calls, and travels to executors with its zero in an internal broadcast (the handle's `def`).
 */
#include <stdlib.h>
#include <string.h>

#include "api/context.h"
#include "records/batch.h"
#include "exec/task_context.h"
#include "exec/task_vars.h"
#include "plan/fn_ref.h"
#include "sched/accumulators.h"

/* A custom accumulator's merge function on the driver. */
typedef struct custom_merge {
    fn_ref fn;
    struct custom_merge *next; /* the context's list, freed at stop */
} custom_merge;

static int merge_custom(void *arg, cspark_value *acc, const uint8_t *update, size_t len,
                        char **error)
{
    custom_merge *m = arg;
    cs_batch one;
    cs_batch_init(&one);
    cs_batch_append_record(&one, NULL, 0, update, (uint32_t)len);
    bool has = true;
    int rc = cs_task_context_fold(&m->fn, &one, 1, acc, &has, error);
    cs_batch_free(&one);
    return rc;
}

static cspark_accumulator make(cspark_context *sc, int kind, const char *name, cs_acc_merge_fn fn,
                               void *arg, const void *zero, size_t zero_len, int64_t def)
{
    cspark_accumulator a = {.id = -1, .kind = kind, .def = def};
    a.id = cs_acc_register(sc->accums, (cs_acc_kind)kind, name, zero, zero_len, fn, arg);
    return a;
}

cspark_accumulator cspark_long_accumulator(cspark_context *sc, const char *name)
{
    cspark_accumulator none = {.id = -1};
    return sc ? make(sc, CS_TASK_ACC_LONG, name, NULL, NULL, NULL, 0, -1) : none;
}

cspark_accumulator cspark_double_accumulator(cspark_context *sc, const char *name)
{
    cspark_accumulator none = {.id = -1};
    return sc ? make(sc, CS_TASK_ACC_DOUBLE, name, NULL, NULL, NULL, 0, -1) : none;
}

cspark_accumulator cspark_custom_accumulator(cspark_context *sc, const char *name,
                                             cspark_reduce_fn merge, const void *zero,
                                             size_t zero_len)
{
    cspark_accumulator none = {.id = -1};
    if (!sc) return none;
    cs_error err;
    cs_error_clear(&err);
    custom_merge *m = cs_xcalloc(1, sizeof *m);
    if (!merge || (!zero && zero_len) ||
        cs_fn_ref_init(&m->fn, (void *)merge, NULL, 0, "custom accumulator merge", &err) < 0) {
        if (!err.msg[0])
            cs_error_set(&err, CS_EINVAL,
                         "cspark_custom_accumulator: a merge function and a zero are required");
        free(m);
        cs_context_fail(sc, &err);
        return none;
    }
    size_t len;
    uint8_t *def = cs_task_vars_acc_def_encode(m->fn.name, zero, zero_len, &len);
    cspark_broadcast_var b = cspark_broadcast(sc, def, len);
    free(def);
    if (b.id < 0) {
        cs_fn_ref_free(&m->fn);
        free(m);
        return none;
    }
    pthread_mutex_lock(&sc->lock);
    m->next = sc->custom_merges;
    sc->custom_merges = m;
    pthread_mutex_unlock(&sc->lock);
    return make(sc, CS_TASK_ACC_CUSTOM, name, merge_custom, m, zero, zero_len, b.id);
}

void cs_context_custom_merges_free(cspark_context *sc)
{
    custom_merge *m = sc->custom_merges;
    while (m) {
        custom_merge *next = m->next;
        cs_fn_ref_free(&m->fn);
        free(m);
        m = next;
    }
    sc->custom_merges = NULL;
}

/* The value's bytes if acc is of this kind (malloc'd), else NULL. */
static uint8_t *value_of(cspark_context *sc, cspark_accumulator acc, int kind, size_t *len)
{
    uint8_t *v = NULL;
    cs_acc_kind k;
    if (!sc || acc.id <= 0 || cs_acc_value(sc->accums, acc.id, &v, len, &k) < 0) return NULL;
    if ((int)k != kind) {
        free(v);
        return NULL;
    }
    return v;
}

/* A long or double accumulator's 8 encoded bytes (the zero encoding when acc is not one). */
static void value8(cspark_context *sc, cspark_accumulator acc, int kind, uint8_t out[8])
{
    size_t len;
    uint8_t *v = value_of(sc, acc, kind, &len);
    if (v && len == 8)
        memcpy(out, v, 8);
    else if (kind == CS_TASK_ACC_LONG)
        cspark_i64_encode(0, out);
    else
        cspark_f64_encode(0.0, out);
    free(v);
}

int64_t cspark_long_accumulator_value(cspark_context *sc, cspark_accumulator acc)
{
    uint8_t v[8];
    value8(sc, acc, CS_TASK_ACC_LONG, v);
    return cspark_i64_decode(v);
}

double cspark_double_accumulator_value(cspark_context *sc, cspark_accumulator acc)
{
    uint8_t v[8];
    value8(sc, acc, CS_TASK_ACC_DOUBLE, v);
    return cspark_f64_decode(v);
}

int cspark_accumulator_value(cspark_context *sc, cspark_accumulator acc, void **out, size_t *len)
{
    uint8_t *v = value_of(sc, acc, CS_TASK_ACC_CUSTOM, len);
    if (!v) return CS_ENOTFOUND;
    *out = v;
    return 0;
}
