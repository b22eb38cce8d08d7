/* kubesim fault injection for /api requests: error rate (500 InternalError), latency, throttling
 * (429 TooManyRequests with Retry-After), dropped watch connections and forced resourceVersion
 * expiry. Set by flags at start (main.c) and at runtime through the admin endpoint /kubesim/faults
 * (server.c): POST/PUT /kubesim/faults
 * {"errorRate":0.1,"latencyMs":50,"throttleRate":0.05,"retryAfterSeconds":1,
 *                              "dropWatchAfterMs":2000,"expireVersions":true}   (fields merged; 0
 * disables) GET /kubesim/faults       current settings;   DELETE /kubesim/faults   clears all
 * dropWatchAfterMs cuts every watch (open or new) once it is that old. "expireVersions":true is
 * one-shot: every resourceVersion up to now becomes too old (410 Gone). Thread-safe; values are
 * copied out. */
#ifndef KUBESIM_FAULTS_H
#define KUBESIM_FAULTS_H

#include <jansson.h>

typedef struct ks_faults_cfg {
    double error_rate, throttle_rate;
    int latency_ms, retry_after_s, drop_watch_after_ms;
} ks_faults_cfg;

typedef struct ks_faults ks_faults;

ks_faults *ks_faults_new(void);
void ks_faults_free(ks_faults *f);
void ks_faults_get(ks_faults *f, ks_faults_cfg *out);
void ks_faults_set(ks_faults *f, const ks_faults_cfg *cfg);
/* Merges a JSON body into the settings; returns 0, -1 on a bad field (message in err).
 * *expire is set to 1 when the body asks for forced expiry. */
int ks_faults_apply_json(ks_faults *f, const json_t *body, int *expire, char *err, size_t errlen);
/* New JSON object of the current settings. */
json_t *ks_faults_json(ks_faults *f);

#endif
