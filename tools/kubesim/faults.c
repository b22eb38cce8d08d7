/* kubesim fault settings (see faults.h): a mutex-protected struct. The decisions themselves (random
 * draws, sleeps) are taken by server.c and watch.c. */
#include "faults.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ks_faults {
    pthread_mutex_t mu;
    ks_faults_cfg cfg;
};

ks_faults *ks_faults_new(void)
{
    ks_faults *f = calloc(1, sizeof *f);
    if (f) {
        pthread_mutex_init(&f->mu, NULL);
        f->cfg.retry_after_s = 1;
    }
    return f;
}

void ks_faults_free(ks_faults *f)
{
    if (!f) return;
    pthread_mutex_destroy(&f->mu);
    free(f);
}

void ks_faults_get(ks_faults *f, ks_faults_cfg *out)
{
    pthread_mutex_lock(&f->mu);
    *out = f->cfg;
    pthread_mutex_unlock(&f->mu);
}

void ks_faults_set(ks_faults *f, const ks_faults_cfg *cfg)
{
    pthread_mutex_lock(&f->mu);
    f->cfg = *cfg;
    pthread_mutex_unlock(&f->mu);
}

static int num(const json_t *v, double lo, double hi, double *out)
{
    if (!json_is_number(v)) return -1;
    double d = json_number_value(v);
    if (d < lo || d > hi) return -1;
    *out = d;
    return 0;
}

int ks_faults_apply_json(ks_faults *f, const json_t *body, int *expire, char *err, size_t errlen)
{
    *expire = 0;
    if (!json_is_object(body)) {
        snprintf(err, errlen, "body must be a JSON object");
        return -1;
    }
    ks_faults_cfg c;
    ks_faults_get(f, &c);
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)body, k, v)
    {
        double d;
        if (!strcmp(k, "errorRate") && !num(v, 0, 1, &d))
            c.error_rate = d;
        else if (!strcmp(k, "throttleRate") && !num(v, 0, 1, &d))
            c.throttle_rate = d;
        else if (!strcmp(k, "latencyMs") && !num(v, 0, 600000, &d))
            c.latency_ms = (int)d;
        else if (!strcmp(k, "retryAfterSeconds") && !num(v, 0, 3600, &d))
            c.retry_after_s = (int)d;
        else if (!strcmp(k, "dropWatchAfterMs") && !num(v, 0, 86400000, &d))
            c.drop_watch_after_ms = (int)d;
        else if (!strcmp(k, "expireVersions") && json_is_boolean(v))
            *expire = json_is_true(v);
        else {
            snprintf(err, errlen,
                     "unknown or out-of-range fault field \"%s\" (expected errorRate 0..1, "
                     "throttleRate 0..1, latencyMs, retryAfterSeconds, dropWatchAfterMs, "
                     "expireVersions bool)",
                     k);
            return -1;
        }
    }
    ks_faults_set(f, &c);
    return 0;
}

json_t *ks_faults_json(ks_faults *f)
{
    ks_faults_cfg c;
    ks_faults_get(f, &c);
    return json_pack("{s:f,s:i,s:f,s:i,s:i}", "errorRate", c.error_rate, "latencyMs", c.latency_ms,
                     "throttleRate", c.throttle_rate, "retryAfterSeconds", c.retry_after_s,
                     "dropWatchAfterMs", c.drop_watch_after_ms);
}
