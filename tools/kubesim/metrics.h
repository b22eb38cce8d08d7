/* kubesim request metrics in Prometheus text format: apiserver_request_total{verb,resource,code}
 * and apiserver_request_duration_seconds{verb,resource} histogram. Called by server.c after each
 * request (ks_metrics_observe, thread-safe) and for GET /metrics (ks_metrics_render: new malloc'd
 * string). */
#ifndef KUBESIM_METRICS_H
#define KUBESIM_METRICS_H

typedef struct ks_metrics ks_metrics;

ks_metrics *ks_metrics_new(void);
void ks_metrics_free(ks_metrics *m);
void ks_metrics_observe(ks_metrics *m, const char *verb, const char *resource, int code,
                        double seconds);
char *ks_metrics_render(ks_metrics *m);
/* Watches currently open (gauge apiserver_longrunning_requests). */
void ks_metrics_watch_delta(ks_metrics *m, int delta);

#endif
