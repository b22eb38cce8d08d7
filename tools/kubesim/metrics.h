/* kubesim request metrics in Prometheus text format, with kube-apiserver's names and labels:
 * apiserver_request_total{code,component,dry_run,group,resource,scope,subresource,verb,version},
 * the apiserver_request_duration_seconds histogram (same labels but code, kube-apiserver's
 * buckets) and the apiserver_longrunning_requests gauge of open watches. Verbs are the API
 * server's: GET, LIST, WATCH, POST, PUT, PATCH, DELETE, DELETECOLLECTION; scope is resource (a
 * named object), namespace or cluster. Called by server.c after each request (ks_metrics_observe,
 * thread-safe), by watch.c as watches open and close, and for GET /metrics (ks_metrics_render:
 * new malloc'd string). */
#ifndef KUBESIM_METRICS_H
#define KUBESIM_METRICS_H

typedef struct ks_metrics ks_metrics;

/* One request's labels (strings borrowed during the call). */
typedef struct ks_metric_labels {
    const char *verb, *group, *version, *resource, *subresource, *scope;
    int dry_run;
} ks_metric_labels;

ks_metrics *ks_metrics_new(void);
void ks_metrics_free(ks_metrics *m);
void ks_metrics_observe(ks_metrics *m, const ks_metric_labels *l, int code, double seconds);
char *ks_metrics_render(ks_metrics *m);
/* Watches currently open on a resource (gauge apiserver_longrunning_requests{verb="WATCH"}). */
void ks_metrics_watch_delta(ks_metrics *m, const ks_metric_labels *l, int delta);

#endif
