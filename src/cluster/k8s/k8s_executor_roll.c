/*
 * k8s_executor_roll.c — executor rolling (see k8s_executor_roll.h): the policies as pure ranking
 * functions, and the roller thread that decommissions the executor they choose once per
 * spark.kubernetes.executor.rollInterval. Started and stopped by the backend glue
 * (k8s_backend.c).
 */
#define _GNU_SOURCE
#include "cluster/k8s/k8s_executor_roll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cluster/k8s/k8s_backend_internal.h"
#include "common/clock.h"
#include "common/conf_entries.h"
#include "common/log.h"
#include "common/sync.h"

static const struct {
    const char *name;
    k8s_roll_policy policy;
} policies[] = {
    {"ID", K8S_ROLL_ID},
    {"ADD_TIME", K8S_ROLL_ADD_TIME},
    {"TOTAL_DURATION", K8S_ROLL_TOTAL_DURATION},
    {"AVERAGE_DURATION", K8S_ROLL_AVERAGE_DURATION},
    {"FAILED_TASKS", K8S_ROLL_FAILED_TASKS},
    {"PEAK_JVM_ONHEAP_MEMORY", K8S_ROLL_PEAK_MEMORY},
    {"TOTAL_SHUFFLE_WRITE", K8S_ROLL_TOTAL_SHUFFLE_WRITE},
    {"ACTIVE_TASKS", K8S_ROLL_ACTIVE_TASKS},
    {"OUTLIER", K8S_ROLL_OUTLIER},
    {"OUTLIER_NO_FALLBACK", K8S_ROLL_OUTLIER_NO_FALLBACK},
};

int cs_k8s_roll_policy_parse(const char *name)
{
    for (size_t i = 0; name && i < sizeof policies / sizeof policies[0]; i++)
        if (strcasecmp(name, policies[i].name) == 0) return (int)policies[i].policy;
    return -1;
}

int cs_k8s_roll_settings_read(const cs_conf *conf, k8s_roll_settings *s, cs_error *err)
{
    memset(s, 0, sizeof *s);
    if (cs_conf_entry_duration_ms(conf, "spark.kubernetes.executor.rollInterval", &s->interval_ms,
                                  err) < 0 ||
        cs_conf_entry_int(conf, "spark.kubernetes.executor.minTasksPerExecutorBeforeRolling",
                          &s->min_tasks, err) < 0)
        return err->code;
    const char *name = cs_conf_entry_string(conf, "spark.kubernetes.executor.rollPolicy");
    int p = cs_k8s_roll_policy_parse(name);
    if (p < 0)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.kubernetes.executor.rollPolicy: '%s' "
                            "(expected one of the policies docs/configuration.md lists)",
                            name ? name : "");
    s->policy = (k8s_roll_policy)p;
    for (size_t i = 0; i < sizeof policies / sizeof policies[0]; i++)
        if (policies[i].policy == s->policy) s->policy_name = policies[i].name;
    return 0;
}

int64_t cs_k8s_roll_next_ms(int64_t start_ms, int64_t interval_ms, int64_t now_ms)
{
    if (interval_ms <= 0) return INT64_MAX;
    if (now_ms < start_ms) return start_ms + interval_ms;
    return start_ms + ((now_ms - start_ms) / interval_ms + 1) * interval_ms;
}

/* ---- the policies ------------------------------------------------------------------------ */

typedef double (*measure_fn)(const coarse_exec_stats *e);

static double total_duration(const coarse_exec_stats *e)
{
    return (double)e->total_duration_ms;
}

/* Spark divides the Longs (totalDuration / totalTasks) before it makes them a Float */
static double average_duration(const coarse_exec_stats *e)
{
    return e->total_tasks > 0 ? (double)(e->total_duration_ms / e->total_tasks) : 0.0;
}

/* AVERAGE_DURATION's sort key: a float division by max(1, tasks) */
static double average_duration_float(const coarse_exec_stats *e)
{
    return (double)e->total_duration_ms / (double)(e->total_tasks > 1 ? e->total_tasks : 1);
}

static double failed_tasks(const coarse_exec_stats *e)
{
    return (double)e->failed_tasks;
}

static double peak_rss(const coarse_exec_stats *e)
{
    return (double)e->peak_rss_bytes;
}

static double shuffle_write(const coarse_exec_stats *e)
{
    return (double)e->total_shuffle_write;
}

static long exec_id_number(const coarse_exec_stats *e)
{
    char *end;
    long v = strtol(e->id, &end, 10);
    return *end ? 0 : v;
}

/* The first candidate with the largest measure (ties: the earliest in execs), or -1. */
static int largest(const coarse_exec_stats *execs, const int *cand, int m, measure_fn f)
{
    int best = -1;
    for (int k = 0; k < m; k++)
        if (best < 0 || f(&execs[cand[k]]) > f(&execs[best])) best = cand[k];
    return best;
}

/* Spark's outliers(): among cand, those with value - mean > 2 standard deviations (population);
 * the largest of them, or -1. */
static int outlier(const coarse_exec_stats *execs, const int *cand, int m, measure_fn f)
{
    if (m == 0) return -1;
    double sum = 0, sq = 0;
    for (int k = 0; k < m; k++)
        sum += f(&execs[cand[k]]);
    double mean = sum / m;
    for (int k = 0; k < m; k++) {
        double d = f(&execs[cand[k]]) - mean;
        sq += d * d;
    }
    double sd = sqrt(sq / m);
    int best = -1;
    for (int k = 0; k < m; k++) {
        double v = f(&execs[cand[k]]);
        if (v - mean > 2 * sd && (best < 0 || v > f(&execs[best]))) best = cand[k];
    }
    return best;
}

static int outliers_of_dimensions(const coarse_exec_stats *execs, const int *cand, int m)
{
    /* the average only over executors that ran tasks, as Spark */
    int *ran = cs_xcalloc((size_t)(m ? m : 1), sizeof *ran);
    int r = 0;
    for (int k = 0; k < m; k++)
        if (execs[cand[k]].total_tasks > 0) ran[r++] = cand[k];
    int best = outlier(execs, ran, r, average_duration);
    free(ran);
    /* Spark's order; its GC-time, off-heap and disk dimensions have no cspark figure */
    static const measure_fn rest[] = {total_duration, failed_tasks, peak_rss, shuffle_write};
    for (size_t i = 0; best < 0 && i < sizeof rest / sizeof rest[0]; i++)
        best = outlier(execs, cand, m, rest[i]);
    return best;
}

int cs_k8s_roll_choose(const coarse_exec_stats *execs, int n, k8s_roll_policy policy,
                       int64_t min_tasks)
{
    int *cand = cs_xcalloc((size_t)(n > 0 ? n : 1), sizeof *cand);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (strcmp(execs[i].id, "driver") != 0 && execs[i].total_tasks >= min_tasks) cand[m++] = i;
    int best = -1;
    switch (policy) {
    case K8S_ROLL_ID:
        for (int k = 0; k < m; k++)
            if (best < 0 || exec_id_number(&execs[cand[k]]) < exec_id_number(&execs[best]))
                best = cand[k];
        break;
    case K8S_ROLL_ADD_TIME:
        for (int k = 0; k < m; k++)
            if (best < 0 || execs[cand[k]].add_time_ms < execs[best].add_time_ms) best = cand[k];
        break;
    case K8S_ROLL_ACTIVE_TASKS:
        for (int k = 0; k < m; k++) {
            const coarse_exec_stats *e = &execs[cand[k]];
            if (best < 0 || e->active_tasks < execs[best].active_tasks ||
                (e->active_tasks == execs[best].active_tasks &&
                 e->add_time_ms < execs[best].add_time_ms))
                best = cand[k];
        }
        break;
    case K8S_ROLL_TOTAL_DURATION:
        best = largest(execs, cand, m, total_duration);
        break;
    case K8S_ROLL_AVERAGE_DURATION:
        best = largest(execs, cand, m, average_duration_float);
        break;
    case K8S_ROLL_FAILED_TASKS:
        best = largest(execs, cand, m, failed_tasks);
        break;
    case K8S_ROLL_PEAK_MEMORY:
        best = largest(execs, cand, m, peak_rss);
        break;
    case K8S_ROLL_TOTAL_SHUFFLE_WRITE:
        best = largest(execs, cand, m, shuffle_write);
        break;
    case K8S_ROLL_OUTLIER:
        best = outliers_of_dimensions(execs, cand, m);
        if (best < 0) best = largest(execs, cand, m, total_duration);
        break;
    case K8S_ROLL_OUTLIER_NO_FALLBACK:
        best = outliers_of_dimensions(execs, cand, m);
        break;
    }
    free(cand);
    return best;
}

/* ---- the roller thread ------------------------------------------------------------------- */

/* One roll: the chosen executor is decommissioned, the target kept. Lock not held. */
static void roll_once(k8s_backend *b)
{
    coarse_exec_stats *execs = NULL;
    int n = cs_coarse_backend_executor_stats(b->coarse, &execs);
    int i = cs_k8s_roll_choose(execs, n, b->roll.policy, b->roll.min_tasks);
    if (i < 0) {
        CS_INFO("k8s", "event=executor_roll action=none executors=%d policy=%s", n,
                b->roll.policy_name);
        free(execs);
        return;
    }
    char reason[128];
    snprintf(reason, sizeof reason, "Rolling via %s at %lld", b->roll.policy_name,
             (long long)cs_now_ms());
    const char *id = execs[i].id;
    CS_INFO("k8s",
            "event=executor_roll action=decommission executor=%s policy=%s executors=%d tasks=%lld "
            "failed=%lld duration_ms=%lld",
            cs_log_value(id), b->roll.policy_name, n, (long long)execs[i].total_tasks,
            (long long)execs[i].failed_tasks, (long long)execs[i].total_duration_ms);
    char *end;
    long num = strtol(id, &end, 10);
    char pod[256] = "";
    pthread_mutex_lock(&b->lock);
    k8s_exec_pod *p = *end ? NULL : cs_k8s_pods_find(&b->pods, (int)num);
    if (p && !p->done) snprintf(pod, sizeof pod, "%s", p->name);
    pthread_mutex_unlock(&b->lock);
    if (pod[0]) cs_k8s_label_decommissioning(b, pod);
    const char *ids[1] = {id};
    cs_coarse_backend_remove_executors(b->coarse, ids, 1, true, reason);
    free(execs);
}

static void *roller_main(void *arg)
{
    k8s_backend *b = arg;
    int64_t start = cs_mono_ms();
    int64_t next = cs_k8s_roll_next_ms(start, b->roll.interval_ms, start);
    pthread_mutex_lock(&b->lock);
    while (!b->roller_stopping) {
        int64_t now = cs_mono_ms();
        if (now < next) {
            cs_cond_wait_ms(&b->cond, &b->lock, next - now);
            continue;
        }
        next = cs_k8s_roll_next_ms(start, b->roll.interval_ms, now);
        pthread_mutex_unlock(&b->lock);
        roll_once(b);
        pthread_mutex_lock(&b->lock);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

int cs_k8s_roll_start(k8s_backend *b)
{
    if (b->roll.interval_ms <= 0 || !b->coarse) return 0;
    CS_INFO("k8s", "event=executor_roll_started interval_ms=%lld policy=%s min_tasks=%lld",
            (long long)b->roll.interval_ms, b->roll.policy_name, (long long)b->roll.min_tasks);
    b->roller_started = pthread_create(&b->roller, NULL, roller_main, b) == 0;
    return b->roller_started ? 0 : CS_EIO;
}

void cs_k8s_roll_stop(k8s_backend *b)
{
    pthread_mutex_lock(&b->lock);
    b->roller_stopping = true;
    pthread_cond_broadcast(&b->cond);
    pthread_mutex_unlock(&b->lock);
    if (!b->roller_started) return;
    pthread_join(b->roller, NULL);
    b->roller_started = false;
}
