/*
 * k8s_settings.c — reads the Kubernetes backend's settings (see k8s_settings.h for every key and
 * its rule). Called once by cs_k8s_backend_new.
 */
#include "cluster/k8s/k8s_settings.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster/cluster_manager.h"
#include "common/conf_entries.h"
#include "common/conf_k8s_keys.h"
#include "common/localaddr.h"

static int read_allocator(const cs_conf *c, k8s_settings *s, cs_error *err)
{
    int64_t v;
    if (cs_conf_entry_int(c, "spark.executor.instances", &v, err) < 0) return err->code;
    s->executor_instances = (int)(v < 0 ? 0 : v);
    if (cs_conf_entry_int(c, "spark.executor.cores", &v, err) < 0) return err->code;
    s->cores = (int)(v < 1 ? 1 : v);
    if (cs_conf_entry_int(c, "spark.kubernetes.allocation.batch.size", &v, err) < 0)
        return err->code;
    s->batch_size = (int)v;
    if (cs_conf_entry_duration_ms(c, "spark.kubernetes.allocation.batch.delay", &s->batch_delay_ms,
                                  err) < 0)
        return err->code;
    if (s->batch_delay_ms <= 100)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.kubernetes.allocation.batch.delay: '%s' (must "
                            "be greater than 100ms)",
                            cs_conf_get(c, "spark.kubernetes.allocation.batch.delay"));
    if (cs_conf_entry_duration_ms(c, "spark.kubernetes.allocation.driver.readinessTimeout",
                                  &s->driver_readiness_timeout_ms, err) < 0)
        return err->code;
    const char *allocator = cs_conf_entry_string(c, "spark.kubernetes.allocation.pods.allocator");
    s->statefulset = allocator && !strcmp(allocator, "statefulset"); /* others: refused */
    if (cs_conf_entry_duration_ms(c, "spark.kubernetes.allocation.executor.timeout",
                                  &s->executor_timeout_ms, err) < 0)
        return err->code;
    if (s->executor_timeout_ms < 5 * s->batch_delay_ms)
        s->executor_timeout_ms = 5 * s->batch_delay_ms;
    /* one resource profile: its cap (Spark 4.1's maxPendingPodsPerRp) bounds the total too */
    int64_t per_rp;
    if (cs_conf_entry_int(c, "spark.kubernetes.allocation.maxPendingPods", &s->max_pending, err) <
            0 ||
        cs_conf_entry_int(c, "spark.kubernetes.allocation.maxPendingPodsPerRp", &per_rp, err) < 0 ||
        cs_conf_entry_int(c, "spark.kubernetes.allocation.maximum", &s->allocation_maximum, err) <
            0)
        return err->code;
    if (per_rp < s->max_pending) s->max_pending = per_rp;
    if (cs_conf_get_double(c, "cspark.kubernetes.allocation.maxCreateRate", "50",
                           &s->max_create_rate, err) < 0)
        return err->code;
    if (cs_conf_entry_duration_ms(c, "spark.dynamicAllocation.executorIdleTimeout",
                                  &s->idle_timeout_ms, err) < 0 ||
        cs_conf_entry_duration_ms(c, "spark.kubernetes.dynamicAllocation.deleteGracePeriod",
                                  &s->delete_grace_ms, err) < 0)
        return err->code;
    const char *label = cs_conf_get(c, "spark.kubernetes.executor.decommissionLabel");
    const char *value = cs_conf_get(c, "spark.kubernetes.executor.decommissionLabelValue");
    s->decom_label = label && *label ? cs_xstrdup(label) : NULL;
    s->decom_label_value = value ? cs_xstrdup(value) : NULL;
    return 0;
}

/* Spark reuses claims only when the driver owns them (ExecutorPodsAllocator.getReusablePVCs). */
static int read_claims(const cs_conf *c, k8s_settings *s, cs_error *err)
{
    bool dynamic = false;
    if (cs_conf_entry_bool(c, "spark.kubernetes.driver.ownPersistentVolumeClaim", &s->own_pvc,
                           err) < 0 ||
        cs_conf_entry_bool(c, "spark.kubernetes.driver.reusePersistentVolumeClaim", &s->reuse_pvc,
                           err) < 0 ||
        cs_conf_entry_bool(c, "spark.kubernetes.driver.waitToReusePersistentVolumeClaim",
                           &s->wait_to_reuse_pvc, err) < 0 ||
        cs_conf_entry_bool(c, "spark.dynamicAllocation.enabled", &dynamic, err) < 0)
        return err->code;
    s->max_pvcs = s->executor_instances;
    if (dynamic &&
        cs_conf_entry_int(c, "spark.dynamicAllocation.maxExecutors", &s->max_pvcs, err) < 0)
        return err->code;
    return 0;
}

static int read_sources(const cs_conf *c, k8s_settings *s, cs_error *err)
{
    if (cs_conf_entry_duration_ms(c, "spark.kubernetes.executor.apiPollingInterval",
                                  &s->poll_interval_ms, err) < 0)
        return err->code;
    if (s->poll_interval_ms < 1)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.kubernetes.executor.apiPollingInterval: '%s' "
                            "(must be positive)",
                            cs_conf_get(c, "spark.kubernetes.executor.apiPollingInterval"));
    if (cs_conf_entry_bool(c, "spark.kubernetes.executor.enableApiPolling", &s->enable_polling,
                           err) < 0 ||
        cs_conf_entry_bool(c, "spark.kubernetes.executor.enableApiWatcher", &s->enable_watcher,
                           err) < 0)
        return err->code;
    return 0;
}

static int read_lifecycle(const cs_conf *c, k8s_settings *s, cs_error *err)
{
    /* Spark: max(3, 2 × the executors wanted), with dynamic allocation 2 × maxExecutors */
    bool dynamic = false;
    int64_t wanted = s->executor_instances;
    if (cs_conf_entry_bool(c, "spark.dynamicAllocation.enabled", &dynamic, err) < 0 ||
        (dynamic && cs_conf_entry_int(c, "spark.dynamicAllocation.maxExecutors", &wanted, err) < 0))
        return err->code;
    if (cs_cluster_max_executor_failures(c, wanted, &s->max_failures, err) < 0) return err->code;
    s->failures_validity_ms = 0;
    if (cs_conf_contains(c, "spark.executor.failuresValidityInterval") &&
        cs_conf_entry_duration_ms(c, "spark.executor.failuresValidityInterval",
                                  &s->failures_validity_ms, err) < 0)
        return err->code;
    if (cs_conf_entry_bool(c, "spark.kubernetes.executor.deleteOnTermination",
                           &s->delete_on_termination, err) < 0 ||
        cs_conf_entry_bool(c, "spark.kubernetes.executor.checkAllContainers",
                           &s->check_all_containers, err) < 0)
        return err->code;
    if (cs_conf_entry_duration_ms(c, "spark.kubernetes.executor.missingPodDetectDelta",
                                  &s->missing_delta_ms, err) < 0 ||
        cs_conf_entry_duration_ms(c, "spark.kubernetes.executor.deletedExecutorsCacheTimeout",
                                  &s->deleted_cache_ms, err) < 0 ||
        cs_conf_entry_duration_ms(c, "spark.kubernetes.executor.eventProcessingInterval",
                                  &s->event_interval_ms, err) < 0)
        return err->code;
    if (s->event_interval_ms < 1)
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.kubernetes.executor.eventProcessingInterval: "
                            "'%s' (must be positive)",
                            cs_conf_get(c, "spark.kubernetes.executor.eventProcessingInterval"));
    return 0;
}

static int read_driver(const cs_conf *c, k8s_settings *s, cs_error *err)
{
    if (cs_conf_entry_bool(c, "spark.kubernetes.driver.service.deleteOnTermination",
                           &s->delete_service, err) < 0 ||
        cs_conf_entry_bool(c, "spark.kubernetes.executor.disableConfigMap",
                           &s->disable_exec_configmap, err) < 0 ||
        cs_conf_entry_bool(c, "spark.kubernetes.executor.useDriverPodIP", &s->use_driver_pod_ip,
                           err) < 0)
        return err->code;
    s->in_driver_pod = cs_conf_get(c, "spark.kubernetes.submitInDriver") != NULL;
    /* in the driver pod: spark.kubernetes.driver.master, else the pod's in-cluster configuration
     * (KUBERNETES_SERVICE_HOST/PORT and the service account), which is what Spark's default
     * https://kubernetes.default.svc names */
    s->api_master =
        cs_conf_get(c, s->in_driver_pod ? "spark.kubernetes.driver.master" : "spark.master");
    s->driver_pod_name = cs_conf_get(c, "spark.kubernetes.driver.pod.name");
    s->driver_host = cs_conf_get(c, "spark.driver.host");
    s->bind_host = cs_conf_get(c, "spark.driver.bindAddress");
    if (!s->driver_host) { /* as Spark: this host's address, reachable from executors elsewhere */
        cs_local_address(s->local_host, sizeof s->local_host);
        s->driver_host = s->local_host;
    }
    if (!s->bind_host) s->bind_host = s->in_driver_pod ? cs_wildcard_address() : s->driver_host;
    if (cs_conf_entry_int(c, "spark.driver.port", &s->driver_port, err) < 0) return err->code;
    return 0;
}

int cs_k8s_settings_read(const cs_conf *conf, k8s_settings *s, cs_error *err)
{
    memset(s, 0, sizeof *s);
    /* a driver started without cspark-submit (the job API, client mode) refuses them too */
    if (cs_conf_k8s_check(conf, err) < 0) return err->code;
    if (read_allocator(conf, s, err) < 0 || read_claims(conf, s, err) < 0 ||
        read_lifecycle(conf, s, err) < 0 || read_sources(conf, s, err) < 0 ||
        read_driver(conf, s, err) < 0) {
        cs_k8s_settings_free(s);
        return err->code;
    }
    return 0;
}

void cs_k8s_settings_free(k8s_settings *s)
{
    free(s->decom_label);
    free(s->decom_label_value);
    s->decom_label = s->decom_label_value = NULL;
}
