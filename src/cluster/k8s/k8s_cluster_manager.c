/*
 * k8s_cluster_manager.c — Spark's KubernetesClusterManager: the `k8s://` row of the cluster
 * manager registry (cluster_manager.h). Application ids are spark-<32 hex>, as Spark on
 * Kubernetes; the backend is k8s_backend.c; the driver waits for
 * spark.scheduler.minRegisteredResourcesRatio (0.8) of the executors wanted, at most
 * spark.scheduler.maxRegisteredResourcesWaitingTime (30s).
 */
#include <string.h>

#include "cluster/k8s/k8s_backend.h"
#include "cluster/k8s/k8s_executor_logs.h"
#include "cluster/k8s/k8s_naming.h"
#include "common/conf_entries.h"
#include "common/log.h"

static bool k8s_can_create(const char *url)
{
    return strncmp(url, "k8s://", 6) == 0;
}

static int k8s_new_app_id(char *out, cs_error *err)
{
    return cs_k8s_new_app_id(out, err);
}

/* Spark: max(total executor cores, 2). */
static int k8s_parallelism(const cs_conf *conf, const cs_master *m, int *out, cs_error *err)
{
    int64_t n, c;
    if (cs_conf_entry_int(conf, "spark.executor.instances", &n, err) < 0 ||
        cs_conf_entry_int(conf, "spark.executor.cores", &c, err) < 0)
        return err->code;
    *out = (int)(n * c > 2 ? n * c : 2);
    return 0;
}

/* Executor pods, authenticated by default as local-cluster. */
static sched_backend *k8s_create(const cluster_env *env, cs_error *err)
{
    return cs_cluster_create_with_secret(env, cs_k8s_backend_new, err);
}

static int k8s_wait_registered(sched_backend *b, cs_error *err)
{
    const cs_conf *conf = cs_k8s_backend_conf(b);
    double ratio;
    int64_t wait_ms;
    if (cs_conf_get_double(conf, "spark.scheduler.minRegisteredResourcesRatio", "0.8", &ratio,
                           err) < 0 ||
        cs_conf_entry_duration_ms(conf, "spark.scheduler.maxRegisteredResourcesWaitingTime",
                                  &wait_ms, err) < 0)
        return err->code;
    int n = cs_k8s_backend_wait_registered(b, ratio, wait_ms);
    CS_INFO("context", "app=%s event=executors_registered registered=%d",
            cs_log_value(cs_conf_get(conf, "spark.app.id")), n);
    return 0;
}

const cluster_manager cs_k8s_manager = {
    .name = "k8s",
    .dynamic_allocation = true,
    .can_create = k8s_can_create,
    .new_app_id = k8s_new_app_id,
    .default_parallelism = k8s_parallelism,
    .create = k8s_create,
    .start = cs_k8s_backend_start,
    .wait_registered = k8s_wait_registered,
    .stopping = cs_k8s_backend_app_stopping,
    .exit_code = cs_k8s_backend_exit_code,
    .fetch_executor_log = cs_k8s_fetch_executor_log,
};
