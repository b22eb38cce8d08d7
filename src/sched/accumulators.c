/*
 * accumulators.c — the driver's accumulators (see accumulators.h): an array of registered
 * accumulators indexed by id - 1, their values as bytes, and the small list of (stage attempt,
 * accumulator) pairs updated by running stages. Called by the DAG scheduler (merges, stage ends)
 * and by src/api/accumulators.c (registration, values).
 */
#define _GNU_SOURCE
#include "sched/accumulators.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"

typedef struct acc {
    cs_acc_kind kind;
    char *name;
    cspark_value value; /* ptr malloc'd (cap = allocated bytes); owner unused */
    cs_acc_merge_fn merge;
    void *merge_arg;
} acc;

typedef struct stage_touch {
    int stage_id, attempt;
    int64_t id;
} stage_touch;

struct acc_registry {
    pthread_mutex_t mu;
    acc *accs;
    int64_t num, cap;
    stage_touch *touched;
    int num_touched, cap_touched;
};

acc_registry *cs_acc_registry_new(void)
{
    acc_registry *r = cs_xcalloc(1, sizeof *r);
    pthread_mutex_init(&r->mu, NULL);
    return r;
}

void cs_acc_registry_free(acc_registry *r)
{
    if (!r) return;
    for (int64_t i = 0; i < r->num; i++) {
        free(r->accs[i].name);
        free(r->accs[i].value.ptr);
    }
    free(r->accs);
    free(r->touched);
    pthread_mutex_destroy(&r->mu);
    free(r);
}

static void set_bytes(cspark_value *v, const void *p, size_t n)
{
    if (n > v->cap) {
        v->ptr = cs_xrealloc(v->ptr, n);
        v->cap = (uint32_t)n;
    }
    if (n) memcpy(v->ptr, p, n);
    v->len = (uint32_t)n;
}

int64_t cs_acc_register(acc_registry *r, cs_acc_kind kind, const char *name, const void *zero,
                        size_t zero_len, cs_acc_merge_fn merge, void *merge_arg)
{
    pthread_mutex_lock(&r->mu);
    if (r->num == r->cap) {
        r->cap = r->cap ? r->cap * 2 : 8;
        r->accs = cs_xrealloc(r->accs, (size_t)r->cap * sizeof *r->accs);
    }
    acc *a = &r->accs[r->num];
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->name = name && *name ? cs_xstrdup(name) : NULL;
    a->merge = merge;
    a->merge_arg = merge_arg;
    uint8_t z[8];
    if (kind == CS_ACC_LONG) {
        cspark_i64_encode(0, z);
        set_bytes(&a->value, z, 8);
    } else if (kind == CS_ACC_DOUBLE) {
        cspark_f64_encode(0.0, z);
        set_bytes(&a->value, z, 8);
    } else {
        set_bytes(&a->value, zero, zero_len);
    }
    int64_t id = ++r->num;
    pthread_mutex_unlock(&r->mu);
    return id;
}

int cs_acc_value(acc_registry *r, int64_t id, uint8_t **out, size_t *len, cs_acc_kind *kind)
{
    pthread_mutex_lock(&r->mu);
    if (id < 1 || id > r->num) {
        pthread_mutex_unlock(&r->mu);
        return CS_ENOTFOUND;
    }
    acc *a = &r->accs[id - 1];
    *out = cs_xmalloc(a->value.len ? a->value.len : 1);
    memcpy(*out, a->value.ptr, a->value.len);
    *len = a->value.len;
    if (kind) *kind = a->kind;
    pthread_mutex_unlock(&r->mu);
    return 0;
}

/* Java's Double.toString, as Spark writes a DoubleAccumulator's value: the shortest digits that
 * read back; plain notation ("2.5", "100.0") for 1e-3 <= |d| < 1e7, else "2.49975E7". */
static void java_double(double d, char *out, size_t cap)
{
    if (isnan(d)) {
        snprintf(out, cap, "NaN");
        return;
    }
    if (isinf(d)) {
        snprintf(out, cap, d > 0 ? "Infinity" : "-Infinity");
        return;
    }
    if (d == 0) {
        snprintf(out, cap, signbit(d) ? "-0.0" : "0.0");
        return;
    }
    char e[64];
    int prec = 0;
    for (; prec < 17; prec++) { /* shortest mantissa digits that read back */
        snprintf(e, sizeof e, "%.*e", prec, d);
        if (strtod(e, NULL) == d) break;
    }
    char *ep = strchr(e, 'e');
    int exp10 = atoi(ep + 1);
    *ep = 0;
    char digits[32];
    size_t nd = 0;
    bool neg = e[0] == '-';
    for (char *p = e; *p; p++)
        if (*p >= '0' && *p <= '9') digits[nd++] = *p;
    digits[nd] = 0;
    double a = fabs(d);
    size_t o = 0;
    if (neg) out[o++] = '-';
    if (a >= 1e-3 && a < 1e7) {
        if (exp10 >= 0) { /* integer part: digits[0..exp10], padded with zeros */
            for (int i = 0; i <= exp10; i++)
                out[o++] = (size_t)i < nd ? digits[i] : '0';
            out[o++] = '.';
            if ((size_t)exp10 + 1 >= nd)
                out[o++] = '0';
            else
                for (size_t i = (size_t)exp10 + 1; i < nd; i++)
                    out[o++] = digits[i];
        } else {
            out[o++] = '0';
            out[o++] = '.';
            for (int i = 0; i < -exp10 - 1; i++)
                out[o++] = '0';
            for (size_t i = 0; i < nd; i++)
                out[o++] = digits[i];
        }
        out[o] = 0;
    } else {
        out[o++] = digits[0];
        out[o++] = '.';
        if (nd == 1) out[o++] = '0';
        for (size_t i = 1; i < nd; i++)
            out[o++] = digits[i];
        snprintf(out + o, cap - o, "E%d", exp10);
    }
}

void cs_acc_format(cs_acc_kind kind, const uint8_t *v, size_t len, char *out, size_t cap)
{
    if ((kind == CS_ACC_LONG || kind == CS_ACC_DOUBLE) && len != 8) {
        snprintf(out, cap, "?");
    } else if (kind == CS_ACC_LONG) {
        snprintf(out, cap, "%lld", (long long)cspark_i64_decode(v));
    } else if (kind == CS_ACC_DOUBLE) {
        java_double(cspark_f64_decode(v), out, cap);
    } else {
        /* user bytes: shown as text when they are printable, else as hex */
        bool text = true;
        for (size_t i = 0; i < len; i++)
            text &= v[i] >= 0x20 && v[i] < 0x7f;
        if (text) {
            snprintf(out, cap, "%.*s", (int)(len < cap ? len : cap - 1), (const char *)v);
        } else {
            size_t o = 0;
            o += (size_t)snprintf(out, cap, "0x");
            for (size_t i = 0; i < len && o + 3 < cap; i++)
                o += (size_t)snprintf(out + o, cap - o, "%02x", v[i]);
        }
    }
}

/* Folds update into a (lock held). */
static int merge_one(acc *a, const uint8_t *u, size_t n, char **error)
{
    if (a->kind == CS_ACC_LONG || a->kind == CS_ACC_DOUBLE) {
        if (n != 8) {
            *error = cs_xstrdup("update is not 8 bytes");
            return CS_EPROTO;
        }
        uint8_t out[8];
        if (a->kind == CS_ACC_LONG)
            cspark_i64_encode((int64_t)((uint64_t)cspark_i64_decode(a->value.ptr) +
                                        (uint64_t)cspark_i64_decode(u)),
                              out);
        else
            cspark_f64_encode(cspark_f64_decode(a->value.ptr) + cspark_f64_decode(u), out);
        memcpy(a->value.ptr, out, 8);
        return 0;
    }
    return a->merge(a->merge_arg, &a->value, u, n, error);
}

static void info_fill(cs_accumulable *info, int64_t id, const acc *a, const uint8_t *u, size_t n)
{
    char buf[1024];
    info->id = id;
    info->name = cs_xstrdup(a->name);
    info->update = NULL;
    if (u) {
        cs_acc_format(a->kind, u, n, buf, sizeof buf);
        info->update = cs_xstrdup(buf);
    }
    cs_acc_format(a->kind, a->value.ptr, a->value.len, buf, sizeof buf);
    info->value = cs_xstrdup(buf);
}

static void touch(acc_registry *r, int stage_id, int attempt, int64_t id)
{
    for (int i = 0; i < r->num_touched; i++)
        if (r->touched[i].stage_id == stage_id && r->touched[i].attempt == attempt &&
            r->touched[i].id == id)
            return;
    if (r->num_touched == r->cap_touched) {
        r->cap_touched = r->cap_touched ? r->cap_touched * 2 : 16;
        r->touched = cs_xrealloc(r->touched, (size_t)r->cap_touched * sizeof *r->touched);
    }
    r->touched[r->num_touched++] = (stage_touch){stage_id, attempt, id};
}

int cs_acc_merge_updates(acc_registry *r, const cs_batch *updates, int stage_id, int attempt,
                         cs_accumulable **infos, int *num_infos, char **error)
{
    if (infos) {
        *infos = NULL;
        *num_infos = 0;
    }
    *error = NULL;
    if (!r || !updates || updates->n == 0) return 0;
    pthread_mutex_lock(&r->mu);
    for (size_t i = 0; i < updates->n; i++) {
        cspark_record rec = batch_get(updates, i);
        int64_t id = rec.key.len == 8 ? cspark_i64_decode(rec.key.ptr) : 0;
        if (id < 1 || id > r->num) continue;
        acc *a = &r->accs[id - 1];
        char *why = NULL;
        if (merge_one(a, rec.value.ptr, rec.value.len, &why) < 0) {
            CS_ERROR("accumulators", "accumulator=%lld name=%s event=merge_failed error=%s",
                     (long long)id, cs_log_quote(a->name ? a->name : ""),
                     cs_log_quote(why ? why : ""));
            if (!*error &&
                asprintf(error, "accumulator %lld%s%s%s could not merge a task's update: %s",
                         (long long)id, a->name ? " (" : "", a->name ? a->name : "",
                         a->name ? ")" : "", why ? why : "merge failed") < 0)
                *error = NULL;
            free(why);
            continue;
        }
        if (!a->name) continue;
        touch(r, stage_id, attempt, id);
        if (infos) {
            *infos = cs_xrealloc(*infos, (size_t)(*num_infos + 1) * sizeof **infos);
            info_fill(&(*infos)[(*num_infos)++], id, a, rec.value.ptr, rec.value.len);
        }
    }
    pthread_mutex_unlock(&r->mu);
    return *error ? CS_ETASK : 0;
}

void cs_acc_stage_done(acc_registry *r, int stage_id, int attempt, cs_accumulable **infos,
                       int *num_infos)
{
    *infos = NULL;
    *num_infos = 0;
    if (!r) return;
    pthread_mutex_lock(&r->mu);
    for (int i = 0; i < r->num_touched;) {
        stage_touch t = r->touched[i];
        if (t.stage_id != stage_id || t.attempt != attempt) {
            i++;
            continue;
        }
        *infos = cs_xrealloc(*infos, (size_t)(*num_infos + 1) * sizeof **infos);
        info_fill(&(*infos)[(*num_infos)++], t.id, &r->accs[t.id - 1], NULL, 0);
        r->touched[i] = r->touched[--r->num_touched];
    }
    pthread_mutex_unlock(&r->mu);
}

void cs_accumulables_free(cs_accumulable *infos, int n)
{
    for (int i = 0; i < n; i++) {
        free((char *)infos[i].name);
        free((char *)infos[i].update);
        free((char *)infos[i].value);
    }
    free(infos);
}
