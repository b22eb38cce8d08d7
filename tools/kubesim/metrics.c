/* kubesim metrics (see metrics.h): arrays of series under one mutex, each keyed by its rendered
 * label set. */
#include "metrics.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* kube-apiserver's buckets for apiserver_request_duration_seconds */
static const double BUCKETS[] = {0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2,
                                 3,     4,     5,    6,   8,   10,  15,  20,  30,  45,   60};
#define NB ((int)(sizeof BUCKETS / sizeof BUCKETS[0]))

typedef struct series {
    char labels[320]; /* rendered, without code (counters add it) */
    int code;
    unsigned long long n; /* counter, or gauge value */
    unsigned long long buckets[NB];
    double sum;
} series;

typedef struct series_set {
    series *v;
    int n, cap;
} series_set;

struct ks_metrics {
    pthread_mutex_t mu;
    series_set total, duration, watches;
};

ks_metrics *ks_metrics_new(void)
{
    ks_metrics *m = calloc(1, sizeof *m);
    if (m) pthread_mutex_init(&m->mu, NULL);
    return m;
}

void ks_metrics_free(ks_metrics *m)
{
    if (!m) return;
    free(m->total.v);
    free(m->duration.v);
    free(m->watches.v);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

/* The labels in kube-apiserver's (alphabetical) order, code apart. */
static void render_labels(const ks_metric_labels *l, char *out, size_t len)
{
    snprintf(out, len,
             "component=\"apiserver\",dry_run=\"%s\",group=\"%s\",resource=\"%s\",scope=\"%s\","
             "subresource=\"%s\",verb=\"%s\",version=\"%s\"",
             l->dry_run ? "All" : "", l->group ? l->group : "", l->resource ? l->resource : "",
             l->scope ? l->scope : "", l->subresource ? l->subresource : "", l->verb ? l->verb : "",
             l->version ? l->version : "v1");
}

static series *find(series_set *s, const char *labels, int code)
{
    for (int i = 0; i < s->n; i++)
        if (s->v[i].code == code && !strcmp(s->v[i].labels, labels)) return &s->v[i];
    if (s->n == s->cap) {
        int nc = s->cap ? s->cap * 2 : 32;
        series *n = realloc(s->v, (size_t)nc * sizeof *n);
        if (!n) return NULL;
        s->v = n;
        s->cap = nc;
    }
    series *x = &s->v[s->n++];
    memset(x, 0, sizeof *x);
    snprintf(x->labels, sizeof x->labels, "%s", labels);
    x->code = code;
    return x;
}

void ks_metrics_observe(ks_metrics *m, const ks_metric_labels *l, int code, double seconds)
{
    char labels[320];
    render_labels(l, labels, sizeof labels);
    pthread_mutex_lock(&m->mu);
    series *c = find(&m->total, labels, code);
    if (c) c->n++;
    series *h = find(&m->duration, labels, 0);
    if (h) {
        for (int b = 0; b < NB; b++)
            if (seconds <= BUCKETS[b]) h->buckets[b]++;
        h->n++;
        h->sum += seconds;
    }
    pthread_mutex_unlock(&m->mu);
}

void ks_metrics_watch_delta(ks_metrics *m, const ks_metric_labels *l, int delta)
{
    ks_metric_labels w = *l;
    w.verb = "WATCH";
    w.dry_run = 0;
    char labels[320];
    render_labels(&w, labels, sizeof labels);
    pthread_mutex_lock(&m->mu);
    series *g = find(&m->watches, labels, 0);
    if (g) g->n += (unsigned long long)(long long)delta;
    pthread_mutex_unlock(&m->mu);
}

char *ks_metrics_render(ks_metrics *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    pthread_mutex_lock(&m->mu);
    fprintf(f, "# HELP apiserver_request_total [STABLE] Counter of apiserver requests broken out "
               "for each verb, dry run value, group, version, resource, scope, component, and "
               "HTTP response code.\n# TYPE apiserver_request_total counter\n");
    for (int i = 0; i < m->total.n; i++) {
        series *c = &m->total.v[i];
        fprintf(f, "apiserver_request_total{code=\"%d\",%s} %llu\n", c->code, c->labels, c->n);
    }
    fprintf(f, "# HELP apiserver_request_duration_seconds [STABLE] Response latency distribution "
               "in seconds for each verb, dry run value, group, version, resource, subresource, "
               "scope and component.\n# TYPE apiserver_request_duration_seconds histogram\n");
    for (int i = 0; i < m->duration.n; i++) {
        series *h = &m->duration.v[i];
        for (int b = 0; b < NB; b++)
            fprintf(f, "apiserver_request_duration_seconds_bucket{%s,le=\"%g\"} %llu\n", h->labels,
                    BUCKETS[b], h->buckets[b]);
        fprintf(f, "apiserver_request_duration_seconds_bucket{%s,le=\"+Inf\"} %llu\n", h->labels,
                h->n);
        fprintf(f, "apiserver_request_duration_seconds_sum{%s} %.6f\n", h->labels, h->sum);
        fprintf(f, "apiserver_request_duration_seconds_count{%s} %llu\n", h->labels, h->n);
    }
    fprintf(f, "# HELP apiserver_longrunning_requests [STABLE] Gauge of all active long-running "
               "apiserver requests broken out by verb, group, version, resource, scope and "
               "component. Not all requests are tracked this way.\n"
               "# TYPE apiserver_longrunning_requests gauge\n");
    for (int i = 0; i < m->watches.n; i++)
        fprintf(f, "apiserver_longrunning_requests{%s} %lld\n", m->watches.v[i].labels,
                (long long)m->watches.v[i].n);
    pthread_mutex_unlock(&m->mu);
    fclose(f);
    return buf;
}
