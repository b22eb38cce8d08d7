/*
 * k8s_failures.c — the executor failures counted toward spark.executor.maxNumFailures, with
 * spark.executor.failuresValidityInterval (see k8s_failures.h). The times are kept oldest first:
 * failures are recorded at the snapshot times, which do not go back.
 */
#include "cluster/k8s/k8s_failures.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

int cs_k8s_failures_count(k8s_failures *f, int64_t now_ms)
{
    if (f->validity_ms <= 0) return f->n;
    int old = 0;
    while (old < f->n && f->at_ms[old] < now_ms - f->validity_ms)
        old++;
    if (old > 0) {
        memmove(f->at_ms, f->at_ms + old, (size_t)(f->n - old) * sizeof *f->at_ms);
        f->n -= old;
    }
    return f->n;
}

int cs_k8s_failures_add(k8s_failures *f, int64_t now_ms)
{
    cs_k8s_failures_count(f, now_ms);
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 8;
        f->at_ms = cs_xrealloc(f->at_ms, (size_t)f->cap * sizeof *f->at_ms);
    }
    /* a later time never comes first: keep the order if a caller's times tie or step back */
    int i = f->n;
    while (i > 0 && f->at_ms[i - 1] > now_ms) {
        f->at_ms[i] = f->at_ms[i - 1];
        i--;
    }
    f->at_ms[i] = now_ms;
    f->n++;
    return f->n;
}

void cs_k8s_failures_free(k8s_failures *f)
{
    free(f->at_ms);
    f->at_ms = NULL;
    f->n = f->cap = 0;
}
