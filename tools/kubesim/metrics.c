/* kubesim metrics (see metrics.h): a small array of series under one mutex. */
#include "metrics.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const double BUCKETS[] = {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                 0.5,   1,     2.5,  5,     10,   60};
#define NB ((int)(sizeof BUCKETS / sizeof BUCKETS[0]))

typedef struct counter {
    char verb[16], resource[48];
    int code;
    unsigned long long n;
} counter;

typedef struct hist {
    char verb[16], resource[48];
    unsigned long long buckets[NB], count;
    double sum;
} hist;

struct ks_metrics {
    pthread_mutex_t mu;
    counter *c;
    int nc, capc;
    hist *h;
    int nh, caph;
    long watches;
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
    free(m->c);
    free(m->h);
    pthread_mutex_destroy(&m->mu);
    free(m);
}

void ks_metrics_watch_delta(ks_metrics *m, int delta)
{
    pthread_mutex_lock(&m->mu);
    m->watches += delta;
    pthread_mutex_unlock(&m->mu);
}

void ks_metrics_observe(ks_metrics *m, const char *verb, const char *resource, int code,
                        double seconds)
{
    pthread_mutex_lock(&m->mu);
    counter *c = NULL;
    for (int i = 0; i < m->nc; i++)
        if (m->c[i].code == code && !strcmp(m->c[i].verb, verb) &&
            !strcmp(m->c[i].resource, resource)) {
            c = &m->c[i];
            break;
        }
    if (!c) {
        if (m->nc == m->capc) {
            int nc = m->capc ? m->capc * 2 : 32;
            counter *n = realloc(m->c, (size_t)nc * sizeof *n);
            if (!n) goto hist;
            m->c = n;
            m->capc = nc;
        }
        c = &m->c[m->nc++];
        memset(c, 0, sizeof *c);
        snprintf(c->verb, sizeof c->verb, "%s", verb);
        snprintf(c->resource, sizeof c->resource, "%s", resource);
        c->code = code;
    }
    c->n++;
hist:;
    hist *h = NULL;
    for (int i = 0; i < m->nh; i++)
        if (!strcmp(m->h[i].verb, verb) && !strcmp(m->h[i].resource, resource)) {
            h = &m->h[i];
            break;
        }
    if (!h) {
        if (m->nh == m->caph) {
            int nc = m->caph ? m->caph * 2 : 32;
            hist *n = realloc(m->h, (size_t)nc * sizeof *n);
            if (!n) goto out;
            m->h = n;
            m->caph = nc;
        }
        h = &m->h[m->nh++];
        memset(h, 0, sizeof *h);
        snprintf(h->verb, sizeof h->verb, "%s", verb);
        snprintf(h->resource, sizeof h->resource, "%s", resource);
    }
    for (int b = 0; b < NB; b++)
        if (seconds <= BUCKETS[b]) h->buckets[b]++;
    h->count++;
    h->sum += seconds;
out:
    pthread_mutex_unlock(&m->mu);
}

char *ks_metrics_render(ks_metrics *m)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    pthread_mutex_lock(&m->mu);
    fprintf(
        f, "# HELP apiserver_request_total Counter of apiserver requests broken out for each verb, "
           "resource and HTTP response code.\n# TYPE apiserver_request_total counter\n");
    for (int i = 0; i < m->nc; i++)
        fprintf(f, "apiserver_request_total{verb=\"%s\",resource=\"%s\",code=\"%d\"} %llu\n",
                m->c[i].verb, m->c[i].resource, m->c[i].code, m->c[i].n);
    fprintf(f, "# HELP apiserver_request_duration_seconds Response latency distribution in seconds "
               "for each "
               "verb and resource.\n# TYPE apiserver_request_duration_seconds histogram\n");
    for (int i = 0; i < m->nh; i++) {
        hist *h = &m->h[i];
        for (int b = 0; b < NB; b++)
            fprintf(f,
                    "apiserver_request_duration_seconds_bucket{verb=\"%s\",resource=\"%s\",le=\"%"
                    "g\"} %llu\n",
                    h->verb, h->resource, BUCKETS[b], h->buckets[b]);
        fprintf(f,
                "apiserver_request_duration_seconds_bucket{verb=\"%s\",resource=\"%s\",le=\"+Inf\"}"
                " %llu\n",
                h->verb, h->resource, h->count);
        fprintf(f, "apiserver_request_duration_seconds_sum{verb=\"%s\",resource=\"%s\"} %.6f\n",
                h->verb, h->resource, h->sum);
        fprintf(f, "apiserver_request_duration_seconds_count{verb=\"%s\",resource=\"%s\"} %llu\n",
                h->verb, h->resource, h->count);
    }
    fprintf(f,
            "# HELP apiserver_longrunning_requests Gauge of all active long-running apiserver "
            "requests.\n"
            "# TYPE apiserver_longrunning_requests "
            "gauge\napiserver_longrunning_requests{verb=\"WATCH\"} %ld\n",
            m->watches);
    pthread_mutex_unlock(&m->mu);
    fclose(f);
    return buf;
}
