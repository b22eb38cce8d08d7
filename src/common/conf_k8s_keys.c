/* conf_k8s_keys.c — the table of Spark 4.1's spark.kubernetes.* keys and the refusal of those
 * cspark does not implement (see conf_k8s_keys.h). Called by cs_conf_validate (cspark-submit),
 * the Kubernetes backend (cs_k8s_settings_read) and tools/conf_doc.c.
 *
 * A row without `refused` is implemented: the component named in docs/configuration.md reads
 * it, with Spark's default from its conf_entries.c entry (or the words in dflt_words when the
 * default is computed or absent). Changing a row from refused to implemented is part of the
 * change that implements the key.
 */
#include "common/conf_k8s_keys.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/conf_entries.h"

#define KEY(k, meaning)                                                                            \
    {                                                                                              \
        k, meaning, NULL, NULL                                                                     \
    }
#define KEY_W(k, meaning, words)                                                                   \
    {                                                                                              \
        k, meaning, words, NULL                                                                    \
    }
#define REFUSED(k, meaning, why)                                                                   \
    {                                                                                              \
        k, meaning, NULL, why                                                                      \
    }

#define JVM_STEPS "JVM feature step classes: cspark's feature steps are built in"
#define KERBEROS "Kerberos and Hadoop delegation tokens belong to the JVM's Hadoop client"
static const cs_conf_k8s_key keys[] = {
    /* submission and the API server */
    KEY("spark.kubernetes.namespace", "namespace of the driver and executor pods"),
    KEY_W("spark.kubernetes.context",
          "kubeconfig context cspark-submit (and a client-mode driver) uses",
          "the current context"),
    KEY("spark.kubernetes.driver.master",
        "API server the driver creates executors through; `local`, `local[N]` or `local[*]`: the "
        "tasks run in the driver pod, no executor pod is made (driver-pod-only mode)"),
    KEY("spark.kubernetes.submission.waitAppCompletion",
        "cluster mode: cspark-submit waits for the driver pod to end"),
    KEY("spark.kubernetes.report.interval", "how often cspark-submit reports the driver's phase"),
    KEY("spark.kubernetes.submission.requestTimeout",
        "request timeout (ms) of cspark-submit's API calls"),
    KEY("spark.kubernetes.submission.connectionTimeout",
        "connection timeout (ms) of cspark-submit's API calls"),
    KEY("spark.kubernetes.driver.requestTimeout", "request timeout (ms) of the driver's API calls"),
    KEY("spark.kubernetes.driver.connectionTimeout",
        "connection timeout (ms) of the driver's API calls"),
    KEY("spark.kubernetes.appKillPodDeletionGracePeriod",
        "grace period of the pods `--kill` deletes (none: Kubernetes' 30s)"),
    KEY("spark.kubernetes.file.upload.path",
        "cluster mode: where local files and the application are uploaded for the pods"),
    KEY_W("spark.kubernetes.submitInDriver", "internal: set for a driver running in its pod",
          "set by cspark-submit"),
    REFUSED("spark.kubernetes.driver.resourceNamePrefix",
            "internal: prefix of the resource names, for Spark's tests",
            "internal to Spark's tests; cspark-submit names resources after spark.app.name"),
    REFUSED("spark.kubernetes.resource.type", "internal: java, python or r",
            "internal to spark-submit; a cspark application is a shared object"),
    REFUSED("spark.kubernetes.jars.avoidDownloadSchemes",
            "schemes of jars executors fetch themselves instead of the driver",
            "JVM jars: a cspark application is a shared object"),
    KEY("spark.kubernetes.pyspark.pythonVersion",
        "deprecated: only `3`, which changes nothing (as Spark)"),
    /* images */
    KEY("spark.kubernetes.container.image", "image of the driver and executor containers"),
    KEY_W("spark.kubernetes.driver.container.image", "image of the driver container",
          "spark.kubernetes.container.image"),
    KEY_W("spark.kubernetes.executor.container.image", "image of the executor containers",
          "spark.kubernetes.container.image"),
    KEY("spark.kubernetes.container.image.pullPolicy", "imagePullPolicy of every container"),
    KEY("spark.kubernetes.container.image.pullSecrets",
        "comma-separated imagePullSecrets of every pod"),
    /* credentials */
    KEY("spark.kubernetes.authenticate.submission.caCertFile",
        "CA file cspark-submit trusts for the API server"),
    KEY("spark.kubernetes.authenticate.submission.clientCertFile",
        "client certificate of cspark-submit"),
    KEY("spark.kubernetes.authenticate.submission.clientKeyFile", "client key of cspark-submit"),
    KEY("spark.kubernetes.authenticate.submission.oauthToken", "bearer token of cspark-submit"),
    KEY("spark.kubernetes.authenticate.submission.oauthTokenFile",
        "file holding cspark-submit's bearer token"),
    KEY("spark.kubernetes.authenticate.driver.caCertFile",
        "CA file, on the submitting machine, shipped to the driver pod in a Secret"),
    KEY("spark.kubernetes.authenticate.driver.clientCertFile",
        "client certificate, on the submitting machine, shipped to the driver pod in a Secret"),
    KEY("spark.kubernetes.authenticate.driver.clientKeyFile",
        "client key, on the submitting machine, shipped to the driver pod in a Secret"),
    KEY("spark.kubernetes.authenticate.driver.oauthToken",
        "bearer token shipped to the driver pod in a Secret"),
    KEY("spark.kubernetes.authenticate.driver.oauthTokenFile",
        "file, on the submitting machine, of the bearer token shipped to the driver pod"),
    KEY("spark.kubernetes.authenticate.driver.mounted.caCertFile",
        "CA file, in the driver pod, the driver trusts"),
    KEY("spark.kubernetes.authenticate.driver.mounted.clientCertFile",
        "client certificate, in the driver pod, of the driver"),
    KEY("spark.kubernetes.authenticate.driver.mounted.clientKeyFile",
        "client key, in the driver pod, of the driver"),
    KEY("spark.kubernetes.authenticate.driver.mounted.oauthToken",
        "bearer token of the driver in its pod"),
    KEY("spark.kubernetes.authenticate.driver.mounted.oauthTokenFile",
        "file, in the driver pod, of the driver's bearer token"),
    KEY("spark.kubernetes.authenticate.caCertFile", "client mode: CA file the driver trusts"),
    KEY("spark.kubernetes.authenticate.clientCertFile", "client mode: the driver's certificate"),
    KEY("spark.kubernetes.authenticate.clientKeyFile", "client mode: the driver's client key"),
    KEY("spark.kubernetes.authenticate.oauthToken", "client mode: the driver's bearer token"),
    KEY("spark.kubernetes.authenticate.oauthTokenFile",
        "client mode: file of the driver's bearer token"),
    KEY_W("spark.kubernetes.authenticate.driver.serviceAccountName",
          "service account of the driver pod", "the namespace's `default`"),
    KEY_W("spark.kubernetes.authenticate.executor.serviceAccountName",
          "service account of the executor pods", "the driver's"),
    KEY("spark.kubernetes.trust.certificates",
        "trust the API server's certificate without checking it (token-only submission)"),
    /* the driver pod and its service */
    KEY_W("spark.kubernetes.driver.pod.name",
          "name of the driver pod; in client mode, the owner of the executor pods",
          "`<prefix>-driver` (cluster mode)"),
    KEY("spark.kubernetes.driver.label.", "labels of the driver pod (`{{APP_ID}}` substituted)"),
    KEY("spark.kubernetes.driver.annotation.", "annotations of the driver pod"),
    KEY("spark.kubernetes.driver.service.label.", "labels of the driver's Service"),
    KEY("spark.kubernetes.driver.service.annotation.", "annotations of the driver's Service"),
    KEY("spark.kubernetes.driver.service.deleteOnTermination",
        "the driver deletes its Service when it stops"),
    KEY("spark.kubernetes.driver.service.ipFamilyPolicy", "ipFamilyPolicy of the driver's Service"),
    KEY("spark.kubernetes.driver.service.ipFamilies",
        "comma-separated ipFamilies of the driver's Service"),
    KEY("spark.kubernetes.driver.secrets.", "`<secret>=<path>`: a Secret mounted in the driver"),
    KEY("spark.kubernetes.driver.secretKeyRef.",
        "`<ENV>=<secret>:<key>`: an environment variable of the driver from a Secret"),
    KEY("spark.kubernetes.driver.volumes.",
        "volumes of the driver pod (hostPath, emptyDir, nfs, persistentVolumeClaim)"),
    KEY("spark.kubernetes.driverEnv.", "environment variables of the driver container"),
    KEY_W("spark.kubernetes.driver.request.cores", "cpu request of the driver pod",
          "spark.driver.cores"),
    KEY("spark.kubernetes.driver.limit.cores", "cpu limit of the driver pod"),
    KEY("spark.kubernetes.driver.podTemplateFile", "pod template of the driver"),
    KEY_W("spark.kubernetes.driver.podTemplateContainerName",
          "container of the driver's template that runs the driver", "the first container"),
    KEY("spark.kubernetes.driver.scheduler.name",
        "schedulerName of the driver pod (else spark.kubernetes.scheduler.name)"),
    KEY("spark.kubernetes.driver.node.selector.", "nodeSelector entries of the driver pod"),
    KEY("spark.kubernetes.driver.pod.featureSteps",
        "extra feature steps of the driver pod: Spark's VolcanoFeatureStep and YuniKornFeatureStep "
        "classes run as cspark's own; any other (JVM) class is refused"),
    REFUSED("spark.kubernetes.driver.pod.excludedFeatureSteps",
            "classes of Spark's feature steps not run on the driver pod", JVM_STEPS),
    REFUSED("spark.kubernetes.driver.annotateExitException",
            "annotate the driver pod with the exception that ended the application",
            "the driver pod's termination message holds the error; no annotation is written"),
    /* on-demand claims */
    KEY("spark.kubernetes.driver.ownPersistentVolumeClaim",
        "the driver pod owns the executors' OnDemand claims (else each executor pod)"),
    KEY("spark.kubernetes.driver.reusePersistentVolumeClaim",
        "a new executor takes a free claim of the same class and size"),
    KEY("spark.kubernetes.driver.waitToReusePersistentVolumeClaim",
        "once as many claims as executors exist, new executors wait for a free one"),
    KEY("spark.kubernetes.legacy.useReadWriteOnceAccessMode",
        "OnDemand claims are ReadWriteOnce instead of ReadWriteOncePod"),
    /* executor pods */
    KEY_W("spark.kubernetes.executor.podNamePrefix", "executor pods are named `<prefix>-exec-<id>`",
          "the resource prefix"),
    KEY("spark.kubernetes.executor.label.", "labels of the executor pods"),
    KEY("spark.kubernetes.executor.annotation.", "annotations of the executor pods"),
    KEY("spark.kubernetes.executor.secrets.", "`<secret>=<path>`: a Secret mounted in executors"),
    KEY("spark.kubernetes.executor.secretKeyRef.",
        "`<ENV>=<secret>:<key>`: an environment variable of executors from a Secret"),
    KEY("spark.kubernetes.executor.volumes.", "volumes of the executor pods (and OnDemand claims)"),
    KEY_W("spark.kubernetes.executor.request.cores", "cpu request of each executor pod",
          "spark.executor.cores"),
    KEY("spark.kubernetes.executor.limit.cores", "cpu limit of each executor pod"),
    KEY("spark.kubernetes.executor.podTemplateFile", "pod template of the executors"),
    KEY_W("spark.kubernetes.executor.podTemplateContainerName",
          "container of the executors' template that runs the executor", "the first container"),
    KEY("spark.kubernetes.executor.scheduler.name",
        "schedulerName of the executor pods (else spark.kubernetes.scheduler.name)"),
    KEY("spark.kubernetes.scheduler.name", "schedulerName of every pod"),
    KEY("spark.kubernetes.executor.node.selector.", "nodeSelector entries of the executor pods"),
    KEY("spark.kubernetes.node.selector.", "nodeSelector entries of every pod"),
    KEY("spark.kubernetes.memoryOverheadFactor",
        "legacy overhead factor (spark.{driver,executor}.memoryOverheadFactor win)"),
    KEY("spark.kubernetes.local.dirs.tmpfs", "the local-dir emptyDirs are in memory (tmpfs)"),
    KEY("spark.kubernetes.configMap.maxSize", "largest driver or executor ConfigMap"),
    KEY("spark.kubernetes.executor.disableConfigMap",
        "no executor ConfigMap is created (the application then reaches executors as "
        "`local://` or an upload)"),
    KEY_W("spark.kubernetes.executor.terminationGracePeriodSeconds",
          "terminationGracePeriodSeconds of the executor pods", "Kubernetes' 30s"),
    KEY("spark.kubernetes.executor.decommissionLabel",
        "label put on the pods of executors being removed"),
    KEY("spark.kubernetes.executor.decommissionLabelValue", "its value"),
    KEY("spark.kubernetes.decommission.script",
        "set, with spark.decommission.enabled: the preStop hook of the executor containers runs "
        "this script (an absolute path in the image); unset, no hook (the cspark image has no "
        "decom.sh: a pod's SIGTERM decommissions its executor)"),
    KEY("spark.kubernetes.executor.pod.featureSteps",
        "extra feature steps of executor pods: Spark's VolcanoFeatureStep and YuniKornFeatureStep "
        "classes run as cspark's own; any other (JVM) class is refused"),
    REFUSED("spark.kubernetes.executor.pod.excludedFeatureSteps",
            "classes of Spark's feature steps not run on executor pods", JVM_STEPS),
    KEY("spark.kubernetes.executor.useDriverPodIP",
        "executors reach the driver at its pod IP instead of its Service"),
    /* allocation */
    KEY("spark.kubernetes.allocation.batch.size", "executor pods created per allocation round"),
    KEY("spark.kubernetes.allocation.batch.delay",
        "time between allocation rounds (more than 100ms)"),
    KEY("spark.kubernetes.allocation.executor.timeout",
        "a requested pod not seen this long (at least 5 batch delays) is deleted and requested "
        "again"),
    KEY("spark.kubernetes.allocation.maxPendingPods", "cap on pending and not yet seen pods"),
    KEY("spark.kubernetes.allocation.maxPendingPodsPerRp",
        "the same cap per resource profile (cspark has one)"),
    KEY("spark.kubernetes.allocation.maximum",
        "executor pods an application may create in its life"),
    KEY("spark.kubernetes.allocation.driver.readinessTimeout",
        "the first executors wait this long at most for the driver pod to be Ready"),
    KEY("spark.kubernetes.allocation.pods.allocator",
        "`direct`: the driver creates executor pods; `statefulset`: one StatefulSet whose "
        "replicas follow the executor target (an allocator class is refused)"),
    KEY("spark.kubernetes.dynamicAllocation.deleteGracePeriod",
        "pods of executors removed by dynamic allocation still there after it are deleted"),
    /* snapshots and the lifecycle manager */
    KEY("spark.kubernetes.executor.apiPollingInterval", "period of the full LIST of executor pods"),
    KEY("spark.kubernetes.executor.enableApiPolling", "LIST executor pods periodically"),
    KEY("spark.kubernetes.executor.enableApiWatcher", "watch executor pods"),
    REFUSED("spark.kubernetes.executor.enablePollingWithResourceVersion",
            "LIST with resourceVersion=0 (the API server's cache)",
            "the executor pods are always listed from etcd"),
    KEY("spark.kubernetes.executor.eventProcessingInterval",
        "period of the lifecycle manager's rounds: the executor pods that ended since the "
        "previous round are handled together"),
    REFUSED("spark.kubernetes.executorSnapshotsSubscribersShutdownGracePeriod",
            "how long stopping waits for the snapshot subscribers",
            "stopping waits for the lifecycle manager's round in progress (its API calls are "
            "bounded by spark.kubernetes.driver.requestTimeout), then handles what waits"),
    KEY("spark.kubernetes.executor.checkAllContainers",
        "any container that ends non-zero ends the executor"),
    KEY("spark.kubernetes.executor.deleteOnTermination",
        "ended executor pods are deleted (else labelled spark-exec-inactive)"),
    KEY("spark.kubernetes.executor.missingPodDetectDelta",
        "an executor missing from a full LIST this long after it was seen is removed"),
    KEY("spark.kubernetes.executor.deletedExecutorsCacheTimeout",
        "how long removed executors are remembered (a bare number is seconds)"),
    /* executor rolling */
    KEY("spark.kubernetes.executor.rollInterval",
        "period of decommissioning one executor to replace it (0: off; needs "
        "spark.decommission.enabled=true)"),
    KEY("spark.kubernetes.executor.rollPolicy",
        "which executor is rolled (kubernetes-backend.md#executor-rolling); "
        "PEAK_JVM_ONHEAP_MEMORY ranks by the executor process's peak RSS; TOTAL_GC_TIME, "
        "PEAK_JVM_OFFHEAP_MEMORY and DISK_USED are refused (no such measure in cspark)"),
    KEY("spark.kubernetes.executor.minTasksPerExecutorBeforeRolling",
        "tasks an executor must have run before it may be rolled"),
    /* Kerberos, Hadoop and batch schedulers */
    REFUSED("spark.kubernetes.kerberos.krb5.path", "krb5.conf mounted in the pods", KERBEROS),
    REFUSED("spark.kubernetes.kerberos.krb5.configMapName", "ConfigMap holding krb5.conf",
            KERBEROS),
    REFUSED("spark.kubernetes.kerberos.tokenSecret.name", "Secret holding delegation tokens",
            KERBEROS),
    REFUSED("spark.kubernetes.kerberos.tokenSecret.itemKey", "its item holding the tokens",
            KERBEROS),
    KEY("spark.kubernetes.hadoop.configMapName",
        "ConfigMap of Hadoop configuration files mounted at /opt/hadoop/conf in the driver and "
        "executors, with HADOOP_CONF_DIR set there (for the application's own use: cspark's file "
        "systems read spark.hadoop.* keys)"),
    KEY("spark.kubernetes.scheduler.volcano.podGroupTemplateFile",
        "template of the Volcano PodGroup created for the application (with the driver's "
        "VolcanoFeatureStep)"),
};

/* Values of implemented keys that name a JVM measure cspark has no counterpart of. */
static const struct refused_value {
    const char *key, *value, *why;
} refused_values[] = {
    {"spark.kubernetes.executor.rollPolicy", "TOTAL_GC_TIME",
     "a cspark executor has no garbage collector to measure"},
    {"spark.kubernetes.executor.rollPolicy", "PEAK_JVM_OFFHEAP_MEMORY",
     "a cspark executor has no JVM off-heap memory; PEAK_JVM_ONHEAP_MEMORY ranks by the "
     "process's peak RSS"},
    {"spark.kubernetes.executor.rollPolicy", "DISK_USED",
     "the driver does not track each executor's disk use of cached blocks"},
};

const cs_conf_k8s_key *cs_conf_k8s_keys(int *n)
{
    *n = (int)(sizeof keys / sizeof keys[0]);
    return keys;
}

static bool is_family(const cs_conf_k8s_key *k)
{
    size_t n = strlen(k->key);
    return n > 0 && k->key[n - 1] == '.';
}

const cs_conf_k8s_key *cs_conf_k8s_key_find(const char *key)
{
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const cs_conf_k8s_key *k = &keys[i];
        if (is_family(k) ? strncmp(key, k->key, strlen(k->key)) == 0 && key[strlen(k->key)]
                         : strcmp(key, k->key) == 0)
            return k;
    }
    return NULL;
}

/* value means what the entry's default means (0 for 0s, TRUE for true): it changes nothing. */
static bool same_as_default(const cs_conf_entry *e, const char *value)
{
    if (!e || !e->dflt) return false;
    int64_t a, b;
    double x, y;
    bool p, q;
    switch (e->type) {
    case CS_CONF_BOOL:
        return !cs_conf_parse_bool(e->key, value, &p, NULL) &&
               !cs_conf_parse_bool(e->key, e->dflt, &q, NULL) && p == q;
    case CS_CONF_INT:
    case CS_CONF_PORT:
        return !cs_conf_parse_int(e->key, value, &a, NULL) &&
               !cs_conf_parse_int(e->key, e->dflt, &b, NULL) && a == b;
    case CS_CONF_SIZE:
        return !cs_conf_parse_size(e->key, value, e->unit, &a, NULL) &&
               !cs_conf_parse_size(e->key, e->dflt, e->unit, &b, NULL) && a == b;
    case CS_CONF_DURATION:
        return !cs_conf_parse_duration_ms(e->key, value, e->unit, &a, NULL) &&
               !cs_conf_parse_duration_ms(e->key, e->dflt, e->unit, &b, NULL) && a == b;
    case CS_CONF_DOUBLE:
        return !cs_conf_parse_double(e->key, value, &x, NULL) &&
               !cs_conf_parse_double(e->key, e->dflt, &y, NULL) && x == y;
    case CS_CONF_CHOICE:
    case CS_CONF_STRING:
        break;
    }
    return strcmp(value, e->dflt) == 0;
}

typedef struct check_state {
    cs_error *err;
    int rc;
} check_state;

static void check_one(void *arg, const char *key, const char *value)
{
    check_state *st = arg;
    if (st->rc != CS_OK || strncmp(key, "spark.kubernetes.", 17) != 0) return;
    for (size_t i = 0; i < sizeof refused_values / sizeof refused_values[0]; i++) {
        const struct refused_value *r = &refused_values[i];
        if (strcmp(key, r->key) == 0 && strcasecmp(value, r->value) == 0) {
            st->rc = cs_error_set(st->err, CS_EINVAL,
                                  "%s: '%s' is not supported by cspark (%s); choose another value",
                                  key, r->value, r->why);
            return;
        }
    }
    const cs_conf_k8s_key *k = cs_conf_k8s_key_find(key);
    if (!k || !k->refused) return;
    const cs_conf_entry *e = is_family(k) ? NULL : cs_conf_entry_find(key);
    if (same_as_default(e, value)) return;
    char shown[96];
    snprintf(shown, sizeof shown, "%s", value);
    for (char *p = shown; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    if (e && e->dflt)
        st->rc = cs_error_set(st->err, CS_EINVAL,
                              "%s: '%s' is not supported by cspark (%s); remove it or set Spark's "
                              "default '%s'",
                              key, shown, k->refused, e->dflt);
    else
        st->rc =
            cs_error_set(st->err, CS_EINVAL, "%s: '%s' is not supported by cspark (%s); remove it",
                         key, shown, k->refused);
}

/* spark.kubernetes.allocation.pods.allocator: Spark also takes the name of a JVM class
 * implementing AbstractPodsAllocator; cspark has the two built-in allocators only. */
static int check_allocator(const cs_conf *c, cs_error *err)
{
    const char *v = cs_conf_entry_string(c, "spark.kubernetes.allocation.pods.allocator");
    if (!v || !strcmp(v, "direct") || !strcmp(v, "statefulset")) return CS_OK;
    char shown[96];
    snprintf(shown, sizeof shown, "%s", v);
    for (char *p = shown; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    return cs_error_set(err, CS_EINVAL,
                        "spark.kubernetes.allocation.pods.allocator: '%s' is not supported by "
                        "cspark (allocator classes are JVM classes); use direct or statefulset",
                        shown);
}

/* Executor rolling decommissions executors: Spark's ExecutorRollDriverPlugin does nothing (a
 * warning) without spark.decommission.enabled; cspark refuses the pair instead. */
static int check_rolling(const cs_conf *c, cs_error *err)
{
    int64_t interval = 0;
    bool decom = false;
    if (cs_conf_entry_duration_ms(c, "spark.kubernetes.executor.rollInterval", &interval, err) <
            0 ||
        cs_conf_entry_bool(c, "spark.decommission.enabled", &decom, err) < 0)
        return err->code;
    if (interval > 0 && !decom)
        return cs_error_set(err, CS_EINVAL,
                            "spark.kubernetes.executor.rollInterval: '%s' rolls executors by "
                            "decommissioning them; set spark.decommission.enabled=true, or remove "
                            "it",
                            cs_conf_get(c, "spark.kubernetes.executor.rollInterval"));
    return 0;
}

int cs_conf_k8s_check(const cs_conf *c, cs_error *err)
{
    check_state st = {err, CS_OK};
    cs_conf_foreach(c, check_one, &st);
    if (st.rc == CS_OK) st.rc = check_rolling(c, err);
    if (st.rc == CS_OK) st.rc = check_allocator(c, err);
    return st.rc;
}
