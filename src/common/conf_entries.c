/* conf_entries.c — the table of typed configuration keys and their checks (see conf_entries.h).
 *
 * Bounds follow Spark's checkValue where Spark has one (positive batch size and delays, memory
 * fractions, spark.rpc.message.maxSize up to 2047 MiB, overhead factors above 0) and otherwise
 * the values that make sense for cspark: a count of executors or cores is an int, a port fits in
 * 16 bits, a timeout that drives a timer is positive, executor memory is at least 32 MiB, and
 * spark.default.parallelism is capped at 1,000,000 partitions (a plan far beyond that exhausts
 * the driver's memory before a task runs). Called by cspark-submit (src/submit/submit_conf.c).
 */
#include "common/conf_entries.h"

#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/conf_k8s_keys.h"
#include "common/resource_conf.h"
#include "common/strutil.h"

#define IMAX ((double)INT_MAX)
#define NOMAX 9.0e18 /* no upper bound (beyond any int64 a getter returns) */

/* Each kind of entry, without a default (the key is optional, or its reader computes the value
 * when unset) and, with a _D suffix, with Spark's default d (the only default of the key: call
 * sites read it through the cs_conf_entry_* accessors, never with a default of their own). */
#define BOOL_D(k, d)                                                                               \
    {                                                                                              \
        k, CS_CONF_BOOL, 0, 0, 0, false, false, NULL, false, d, NULL                               \
    }
#define INT_D(k, lo, hi, d)                                                                        \
    {                                                                                              \
        k, CS_CONF_INT, 0, lo, hi, false, false, NULL, false, d, NULL                              \
    }
#define PORT_D(k, d)                                                                               \
    {                                                                                              \
        k, CS_CONF_PORT, 0, 0, 65535, false, false, NULL, false, d, NULL                           \
    }
#define SIZE_D(k, unit, lo, hi, d)                                                                 \
    {                                                                                              \
        k, CS_CONF_SIZE, unit, lo, hi, false, false, NULL, false, d, NULL                          \
    }
#define SIZE_POS_D(k, unit, d)                                                                     \
    {                                                                                              \
        k, CS_CONF_SIZE, unit, 0, NOMAX, true, false, NULL, false, d, NULL                         \
    }
#define DUR_POS_D(k, unit, d)                                                                      \
    {                                                                                              \
        k, CS_CONF_DURATION, unit, 0, NOMAX, true, false, NULL, false, d, NULL                     \
    }
#define DUR_NONNEG_D(k, unit, d)                                                                   \
    {                                                                                              \
        k, CS_CONF_DURATION, unit, 0, NOMAX, false, false, NULL, false, d, NULL                    \
    }
/* a duration >= 0 whose default is another key's value (Spark's fallbackConf) */
#define DUR_NONNEG_FALLBACK(k, unit, other)                                                        \
    {                                                                                              \
        k, CS_CONF_DURATION, unit, 0, NOMAX, false, false, NULL, false, NULL, other                \
    }
/* a duration >= 0, or -1 (Spark's "never") */
#define DUR_OR_NEVER_D(k, unit, d)                                                                 \
    {                                                                                              \
        k, CS_CONF_DURATION, unit, -1, NOMAX, false, false, NULL, false, d, NULL                   \
    }
#define DOUBLE_D(k, lo, hi, lo_open, hi_open, d)                                                   \
    {                                                                                              \
        k, CS_CONF_DOUBLE, 0, lo, hi, lo_open, hi_open, NULL, false, d, NULL                       \
    }
#define CHOICE_D(k, list, nocase, d)                                                               \
    {                                                                                              \
        k, CS_CONF_CHOICE, 0, 0, 0, false, false, list, nocase, d, NULL                            \
    }
#define STRING_D(k, d)                                                                             \
    {                                                                                              \
        k, CS_CONF_STRING, 0, 0, 0, false, false, NULL, false, d, NULL                             \
    }
/* a credential (cs_conf_entry.secret), given to pods in environment variable env (or NULL) */
#define SECRET(k, env)                                                                             \
    {                                                                                              \
        k, CS_CONF_STRING, 0, 0, 0, false, false, NULL, false, NULL, NULL, true, env               \
    }
#define BOOL(k) BOOL_D(k, NULL)
#define STRING(k) STRING_D(k, NULL)
#define INT(k, lo, hi) INT_D(k, lo, hi, NULL)
#define PORT(k) PORT_D(k, NULL)
#define SIZE(k, unit, lo, hi) SIZE_D(k, unit, lo, hi, NULL)
#define SIZE_POS(k, unit) SIZE_POS_D(k, unit, NULL)
#define DUR_POS(k, unit) DUR_POS_D(k, unit, NULL)
#define DUR_NONNEG(k, unit) DUR_NONNEG_D(k, unit, NULL)
#define DUR_OR_NEVER(k, unit) DUR_OR_NEVER_D(k, unit, NULL)
#define DOUBLE(k, lo, hi, lo_open, hi_open) DOUBLE_D(k, lo, hi, lo_open, hi_open, NULL)
#define CHOICE(k, list, nocase) CHOICE_D(k, list, nocase, NULL)

static const cs_conf_entry entries[] = {
    /* application */
    STRING_D("spark.master", "local[*]"), /* parsed by cs_master_parse (common/master.h) */
    STRING_D("spark.kubernetes.namespace", "default"), /* checked by the pod builders */
    CHOICE_D("spark.submit.deployMode", "client|cluster", false, "client"),
    INT("spark.default.parallelism", 1, 1000000),
    /* resources */
    SIZE("spark.driver.memory", CS_MiB, 32 * CS_MiB, NOMAX),
    SIZE("spark.executor.memory", CS_MiB, 32 * CS_MiB, NOMAX),
    SIZE("spark.driver.memoryOverhead", CS_MiB, 0, NOMAX),
    SIZE("spark.executor.memoryOverhead", CS_MiB, 0, NOMAX),
    DOUBLE("spark.driver.memoryOverheadFactor", 0, NOMAX, true, false),
    DOUBLE("spark.executor.memoryOverheadFactor", 0, NOMAX, true, false),
    DOUBLE("spark.kubernetes.memoryOverheadFactor", 0, NOMAX, true, false),
    INT("spark.driver.cores", 1, IMAX),
    INT_D("spark.executor.cores", 1, IMAX, "1"),
    INT("spark.cores.max", 1, IMAX),
    INT_D("spark.task.cpus", 1, IMAX, "1"),
    INT_D("spark.executor.instances", 0, IMAX, "2"),
    BOOL("spark.memory.offHeap.enabled"),
    SIZE("spark.memory.offHeap.size", CS_BYTE, 0, NOMAX),
    DOUBLE_D("spark.memory.fraction", 0, 1, true, false, "0.6"),
    DOUBLE("spark.memory.storageFraction", 0, 1, false, true),
    /* scheduling */
    INT("spark.task.maxFailures", 1, IMAX),
    INT("spark.stage.maxConsecutiveAttempts", 1, IMAX),
    INT("spark.executor.maxNumFailures", 1, IMAX),
    BOOL("spark.task.reaper.enabled"),
    DUR_OR_NEVER("spark.task.reaper.killTimeout", CS_MS), /* cspark's default 2s: shutdown.h */
    SIZE_D("spark.driver.maxResultSize", CS_BYTE, 0, NOMAX, "1g"),
    SIZE_POS("spark.task.maxDirectResultSize", CS_BYTE),
    DUR_NONNEG_D("spark.scheduler.maxRegisteredResourcesWaitingTime", CS_MS, "30s"),
    DOUBLE("spark.scheduler.minRegisteredResourcesRatio", 0, 1, false, false),
    DUR_NONNEG_D("spark.locality.wait", CS_MS, "3s"),
    DUR_NONNEG_FALLBACK("spark.locality.wait.process", CS_MS, "spark.locality.wait"),
    DUR_NONNEG_FALLBACK("spark.locality.wait.node", CS_MS, "spark.locality.wait"),
    DUR_NONNEG_FALLBACK("spark.locality.wait.rack", CS_MS, "spark.locality.wait"),
    INT("spark.scheduler.listenerbus.eventqueue.capacity", 1, IMAX),
    CHOICE_D("spark.scheduler.mode", "FIFO|FAIR", true, "FIFO"),
    STRING("spark.scheduler.allocation.file"), /* refused: pools take Spark's defaults */
    DUR_POS_D("spark.barrier.sync.timeout", CS_SEC, "365d"),
    DUR_POS_D("spark.scheduler.barrier.maxConcurrentTasksCheck.interval", CS_SEC, "15s"),
    INT_D("spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures", 1, IMAX, "40"),
    /* network */
    DUR_POS_D("spark.network.timeout", CS_SEC, "120s"),
    DUR_POS_D("spark.executor.heartbeatInterval", CS_MS, "10s"),
    PORT_D("spark.driver.port", "0"),
    PORT("spark.blockManager.port"),
    PORT("spark.driver.blockManager.port"),
    PORT_D("spark.ui.port", "4040"),
    SIZE_D("spark.rpc.message.maxSize", CS_MiB, 1 * CS_MiB, 2047 * CS_MiB, "128"),
    BOOL_D("spark.authenticate", "false"),
    DUR_POS("spark.network.auth.rpcTimeout", CS_SEC),
    DUR_POS("spark.shuffle.sasl.timeout", CS_SEC),
    INT("cspark.rpc.maxUnauthenticatedConnections", 1, 65536),
    /* shuffle */
    BOOL_D("spark.shuffle.compress", "true"),
    BOOL("spark.rdd.compress"),
    BOOL("spark.shuffle.spill.compress"),
    BOOL("spark.shuffle.checksum.enabled"),
    CHOICE("spark.shuffle.checksum.algorithm", "ADLER32|CRC32|CRC32C|XXH3", true),
    /* Spark's two local-disk implementations; the Kubernetes one recovers shuffle files from a
     * reused volume (src/exec/shuffle_recovery.h) */
    CHOICE_D("spark.shuffle.sort.io.plugin.class",
             "org.apache.spark.shuffle.sort.io.LocalDiskShuffleDataIO|"
             "org.apache.spark.shuffle.KubernetesLocalDiskShuffleDataIO",
             false, "org.apache.spark.shuffle.sort.io.LocalDiskShuffleDataIO"),
    SIZE_POS("spark.reducer.maxSizeInFlight", CS_MiB),
    SIZE_POS("spark.broadcast.blockSize", CS_KiB),
    INT("spark.shuffle.io.maxRetries", 0, IMAX),
    /* a finished SQL execution's shuffles and lineage are freed (session/query_lineage.h) */
    BOOL_D("spark.cleaner.referenceTracking", "true"),
    INT("spark.shuffle.minNumPartitionsToHighlyCompress", 1, IMAX),
    SIZE_POS("spark.shuffle.accurateBlockThreshold", CS_BYTE),
    DOUBLE("spark.shuffle.accurateBlockSkewedFactor", -NOMAX, NOMAX, false, false),
    INT("spark.shuffle.maxAccurateSkewedBlockNumber", 1, IMAX),
    DUR_NONNEG("spark.shuffle.io.retryWait", CS_SEC),
    DUR_POS("spark.shuffle.io.connectionTimeout", CS_SEC),
    /* event log and console */
    BOOL("spark.eventLog.enabled"),
    BOOL("spark.eventLog.overwrite"),
    BOOL("spark.eventLog.logBlockUpdates.enabled"),
    SIZE("spark.eventLog.buffer.kb", CS_KiB, CS_KiB, NOMAX),
    BOOL("spark.ui.enabled"),
    BOOL("spark.ui.killEnabled"),
    BOOL("spark.acls.enable"),
    BOOL("spark.ui.acls.enable"),
    BOOL("spark.history.ui.acls.enable"),
    BOOL("spark.ssl.enabled"), /* true refused by src/ui/ui_access.c: the UI is plain HTTP */
    BOOL("spark.ssl.ui.enabled"),
    BOOL("spark.ssl.historyServer.enabled"),
    STRING_D("spark.user.groups.mapping", /* only the default (src/ui/ui_access.c) */
             "org.apache.spark.security.ShellBasedGroupsMappingProvider"),
    PORT("spark.history.ui.port"),
    DUR_POS("spark.history.fs.update.interval", CS_SEC),
    INT("spark.history.retainedApplications", 1, IMAX),
    BOOL("spark.history.fs.cleaner.enabled"),
    DUR_POS("spark.history.fs.cleaner.interval", CS_SEC),
    DUR_POS("spark.history.fs.cleaner.maxAge", CS_SEC),
    INT("spark.history.fs.cleaner.maxNum", 0, IMAX),
    INT_D("spark.port.maxRetries", 0, 65535, "16"),
    INT("spark.ui.retainedJobs", 1, 100000000),
    INT("spark.ui.retainedStages", 1, 100000000),
    INT("spark.ui.retainedTasks", 1, 100000000),
    INT("spark.ui.retainedDeadExecutors", 1, 100000000),
    INT("spark.sql.ui.retainedExecutions", 1, 100000000),
    BOOL("spark.ui.showConsoleProgress"),
    DUR_POS("spark.ui.consoleProgress.update.interval", CS_MS),
    /* dynamic allocation and decommissioning */
    BOOL_D("spark.dynamicAllocation.enabled", "false"),
    INT("spark.dynamicAllocation.minExecutors", 0, IMAX),
    INT_D("spark.dynamicAllocation.maxExecutors", 0, IMAX, "2147483647"),
    INT("spark.dynamicAllocation.initialExecutors", 0, IMAX),
    DOUBLE("spark.dynamicAllocation.executorAllocationRatio", 0, 1, true, false),
    DUR_POS("spark.dynamicAllocation.schedulerBacklogTimeout", CS_SEC),
    DUR_POS("spark.dynamicAllocation.sustainedSchedulerBacklogTimeout", CS_SEC),
    DUR_NONNEG_D("spark.dynamicAllocation.executorIdleTimeout", CS_SEC, "60s"),
    DUR_NONNEG("spark.dynamicAllocation.cachedExecutorIdleTimeout", CS_SEC),
    BOOL("spark.dynamicAllocation.shuffleTracking.enabled"),
    DUR_NONNEG("spark.dynamicAllocation.shuffleTracking.timeout", CS_MS),
    BOOL_D("spark.decommission.enabled", "false"),
    BOOL_D("spark.storage.decommission.enabled", "false"),
    BOOL_D("spark.storage.decommission.shuffleBlocks.enabled", "true"),
    BOOL_D("spark.storage.decommission.rddBlocks.enabled", "true"),
    STRING("spark.storage.decommission.fallbackStorage.path"), /* exec/fallback_storage.c */
    BOOL_D("spark.storage.decommission.fallbackStorage.cleanUp", "false"),
    /* storage (src/fs): Hadoop's keys through spark.hadoop.*, as Spark passes them; the s3a
     * options may also be set per bucket (spark.hadoop.fs.s3a.bucket.NAME.*), checked when the
     * bucket is first used */
    BOOL("spark.hadoop.mapreduce.output.fileoutputformat.compress"),
    SIZE_POS("cspark.archives.maxUnpackedBytes", CS_BYTE), /* default 10g (shipped_files.c) */
    INT("spark.hadoop.fs.s3a.connection.maximum", 1, IMAX),
    BOOL("spark.hadoop.fs.s3a.connection.ssl.enabled"),
    BOOL("spark.hadoop.fs.s3a.path.style.access"),
    INT("spark.hadoop.fs.s3a.retry.limit", 0, IMAX),
    DUR_NONNEG("spark.hadoop.fs.s3a.retry.interval", CS_MS),
    DUR_NONNEG("spark.hadoop.fs.s3a.connection.establish.timeout", CS_MS),
    DUR_NONNEG("spark.hadoop.fs.s3a.connection.timeout", CS_MS),
    DUR_NONNEG("spark.hadoop.fs.s3a.connection.request.timeout", CS_MS),
    SIZE("spark.hadoop.fs.s3a.multipart.size", CS_BYTE, 5 * CS_MiB, NOMAX),
    SIZE("spark.hadoop.fs.s3a.prefetch.block.size", CS_BYTE, 64 * CS_KiB, NOMAX),
    INT("spark.hadoop.fs.s3a.prefetch.block.count", 1, IMAX),
    BOOL("spark.eventLog.compress"),
    CHOICE("spark.eventLog.compression.codec", "zstd", true), /* lz4: see event_log.c */
    BOOL("spark.eventLog.rolling.enabled"),
    SIZE_POS("spark.eventLog.rolling.maxFileSize", CS_BYTE), /* at least 10m (event_log.c) */
    /* the Kubernetes backend's failure count (cluster/k8s/k8s_failures.h) */
    DUR_NONNEG("spark.executor.failuresValidityInterval", CS_MS),
    /* Kubernetes: Spark 4.1's defaults. Every spark.kubernetes.* key of Spark is also in
     * k8s_keys below (documented, or refused); these are the ones with a type. */
    CHOICE_D("spark.kubernetes.container.image.pullPolicy", "Always|Never|IfNotPresent", false,
             "IfNotPresent"),
    CHOICE_D("spark.kubernetes.driver.service.ipFamilyPolicy",
             "SingleStack|PreferDualStack|RequireDualStack", false, "SingleStack"),
    STRING_D("spark.kubernetes.driver.service.ipFamilies", "IPv4"),
    STRING_D("spark.kubernetes.driver.master", "https://kubernetes.default.svc"),
    STRING_D("spark.kubernetes.allocation.pods.allocator", "direct"),
    INT_D("spark.kubernetes.allocation.batch.size", 1, IMAX, "10"),
    DUR_POS_D("spark.kubernetes.allocation.batch.delay", CS_MS, "1s"),
    DUR_POS_D("spark.kubernetes.allocation.driver.readinessTimeout", CS_SEC, "1s"),
    DUR_POS_D("spark.kubernetes.allocation.executor.timeout", CS_MS, "600s"),
    INT_D("spark.kubernetes.allocation.maxPendingPods", 1, IMAX, "2147483647"),
    INT_D("spark.kubernetes.allocation.maxPendingPodsPerRp", 1, IMAX, "2147483647"),
    INT_D("spark.kubernetes.allocation.maximum", 1, IMAX, "2147483647"),
    DUR_NONNEG("spark.kubernetes.appKillPodDeletionGracePeriod", CS_SEC),
    INT_D("spark.kubernetes.submission.requestTimeout", 0, IMAX, "10000"),
    INT_D("spark.kubernetes.submission.connectionTimeout", 0, IMAX, "10000"),
    INT_D("spark.kubernetes.driver.requestTimeout", 0, IMAX, "10000"),
    INT_D("spark.kubernetes.driver.connectionTimeout", 0, IMAX, "10000"),
    CHOICE("spark.kubernetes.pyspark.pythonVersion", "3", false),
    SIZE_POS_D("spark.kubernetes.configMap.maxSize", CS_BYTE, "1048576"),
    STRING_D("spark.kubernetes.decommission.script", "/opt/decom.sh"),
    BOOL_D("spark.kubernetes.driver.annotateExitException", "false"),
    BOOL_D("spark.kubernetes.driver.ownPersistentVolumeClaim", "true"),
    BOOL_D("spark.kubernetes.driver.reusePersistentVolumeClaim", "true"),
    BOOL_D("spark.kubernetes.driver.service.deleteOnTermination", "true"),
    BOOL_D("spark.kubernetes.driver.waitToReusePersistentVolumeClaim", "false"),
    DUR_NONNEG_D("spark.kubernetes.dynamicAllocation.deleteGracePeriod", CS_MS, "5s"),
    DUR_POS_D("spark.kubernetes.executor.apiPollingInterval", CS_MS, "30s"),
    BOOL_D("spark.kubernetes.executor.checkAllContainers", "true"),
    BOOL_D("spark.kubernetes.executor.deleteOnTermination", "true"),
    DUR_NONNEG_D("spark.kubernetes.executor.deletedExecutorsCacheTimeout", CS_SEC, "180"),
    BOOL_D("spark.kubernetes.executor.disableConfigMap", "false"),
    BOOL_D("spark.kubernetes.executor.enableApiPolling", "true"),
    BOOL_D("spark.kubernetes.executor.enableApiWatcher", "true"),
    BOOL_D("spark.kubernetes.executor.enablePollingWithResourceVersion", "false"),
    DUR_POS_D("spark.kubernetes.executor.eventProcessingInterval", CS_MS, "1s"),
    INT_D("spark.kubernetes.executor.minTasksPerExecutorBeforeRolling", 0, IMAX, "0"),
    DUR_POS_D("spark.kubernetes.executor.missingPodDetectDelta", CS_MS, "30s"),
    DUR_NONNEG_D("spark.kubernetes.executor.rollInterval", CS_SEC, "0s"),
    CHOICE_D("spark.kubernetes.executor.rollPolicy",
             "ID|ADD_TIME|TOTAL_GC_TIME|TOTAL_DURATION|AVERAGE_DURATION|FAILED_TASKS|"
             "PEAK_JVM_ONHEAP_MEMORY|PEAK_JVM_OFFHEAP_MEMORY|TOTAL_SHUFFLE_WRITE|DISK_USED|"
             "ACTIVE_TASKS|OUTLIER|OUTLIER_NO_FALLBACK",
             true, "OUTLIER"),
    DUR_NONNEG("spark.kubernetes.executor.terminationGracePeriodSeconds", CS_SEC),
    BOOL_D("spark.kubernetes.executor.useDriverPodIP", "false"),
    DUR_NONNEG_D("spark.kubernetes.executorSnapshotsSubscribersShutdownGracePeriod", CS_SEC, "20s"),
    BOOL_D("spark.kubernetes.legacy.useReadWriteOnceAccessMode", "false"),
    BOOL_D("spark.kubernetes.local.dirs.tmpfs", "false"),
    DUR_POS_D("spark.kubernetes.report.interval", CS_MS, "1s"),
    BOOL_D("spark.kubernetes.submission.waitAppCompletion", "true"),
    BOOL_D("spark.kubernetes.trust.certificates", "false"),
    DOUBLE("cspark.kubernetes.allocation.maxCreateRate", 0, NOMAX, true, false),
    DOUBLE("cspark.kubernetes.client.qps", 0, NOMAX, true, false),
    INT("cspark.kubernetes.client.burst", 1, IMAX),
    INT("cspark.kubernetes.client.maxAttempts", 1, IMAX),
    BOOL("cspark.kubernetes.dryRun"),
    CHOICE("cspark.kubernetes.fieldValidation", "Strict|Warn|Ignore", false),
    /* data sources (datasource/file_index.c, api/datasource_api.c) */
    SIZE_POS_D("spark.sql.files.maxPartitionBytes", CS_BYTE, "128m"),
    SIZE_D("spark.sql.files.openCostInBytes", CS_BYTE, 0, NOMAX, "4m"),
    INT("spark.sql.files.minPartitionNum", 1, 1000000),
    BOOL_D("spark.sql.sources.partitionColumnTypeInference.enabled", "true"),
    BOOL_D("spark.sql.ansi.enabled", "true"),
    /* Spark Connect server (src/connect, programs/connect_main.c): Spark's port and limits; the
     * address defaults to loopback (Spark's binds every interface) so that a server needs a
     * token only when it is asked to listen beyond this host */
    PORT_D("spark.connect.grpc.binding.port", "15002"),
    STRING_D("spark.connect.grpc.binding.address", "127.0.0.1"),
    SIZE_D("spark.connect.grpc.maxInboundMessageSize", CS_BYTE, 1024, 2047 * CS_MiB, "128m"),
    SIZE_D("spark.connect.grpc.arrow.maxBatchSize", CS_BYTE, 1024, 2047 * CS_MiB, "4m"),
    SECRET("spark.connect.authenticate.token", "SPARK_CONNECT_AUTHENTICATE_TOKEN"),
    /* its sessions (connect/connect_sessions.c), as Spark 4's SparkConnectSessionManager: idle
     * sessions closed after the timeout (-1: never), looked for every interval; the ids of the
     * last closed ones refused as SESSION_CLOSED */
    DUR_OR_NEVER_D("spark.connect.session.manager.defaultSessionTimeout", CS_MS, "60m"),
    DUR_POS_D("spark.connect.session.manager.maintenanceInterval", CS_MS, "30s"),
    INT_D("spark.connect.session.manager.closedSessionsTombstonesSize", 0, IMAX, "1000"),
    /* TLS for cspark-connect-server (connect/grpc_tls.c; Spark's server has no such keys: clients
     * connect with sc://host:port/;use_ssl=true): the PEM certificate chain and private key */
    BOOL_D("spark.cspark.connect.tls.enabled", "false"),
    STRING("spark.cspark.connect.tls.certFile"),
    STRING("spark.cspark.connect.tls.keyFile"),
    /* Python UDFs (sqlexec/python_worker.c): the interpreter of the workers (else the
     * PYSPARK_PYTHON environment variable, else python3), as Spark's */
    STRING("spark.pyspark.python"),
    /* an executor keeps the Python workers of finished tasks for its next tasks
     * (sqlexec/python_worker_factory.c), as Spark's */
    BOOL_D("spark.python.worker.reuse", "true"),
    /* a crashed Python worker's faulthandler traceback in the task's error (python_worker.c) */
    BOOL_D("spark.python.worker.faulthandler.enabled", "false"),
    /* --py-files of a Python application (programs/python_submit.c): put on its PYTHONPATH */
    STRING("spark.submit.pyFiles"),
};

/* Defaults that differ where the executors run apart from the driver (cs_conf_scope): still one
 * per key and scope, here. Spark's KubernetesConf and feature steps give the driver pod its RPC
 * port 7078 and block manager port 7079, and executor pods 7079 (DEFAULT_DRIVER_PORT,
 * DEFAULT_BLOCKMANAGER_PORT); cspark authenticates executors by default wherever they are
 * processes of their own (docs/distributed.md), where Spark's default is false. */
static const struct {
    const char *key;
    unsigned scopes; /* cs_conf_scope bits */
    const char *dflt;
} scoped_defaults[] = {
    {"spark.authenticate", CS_CONF_IN_CLUSTER, "true"},
    {"spark.driver.port", CS_CONF_IN_DRIVER_POD, "7078"},
    {"spark.driver.blockManager.port", CS_CONF_IN_DRIVER_POD, "7079"},
    {"spark.blockManager.port", CS_CONF_IN_EXECUTOR_POD, "7079"},
};

const char *cs_conf_entry_default_in(const char *key, cs_conf_scope scope)
{
    for (size_t i = 0; i < sizeof scoped_defaults / sizeof scoped_defaults[0]; i++)
        if ((scoped_defaults[i].scopes & (unsigned)scope) && !strcmp(scoped_defaults[i].key, key))
            return scoped_defaults[i].dflt;
    const cs_conf_entry *e = cs_conf_entry_find(key);
    return e ? e->dflt : NULL;
}

void cs_conf_entry_set_defaults_in(cs_conf *c, cs_conf_scope scope)
{
    for (size_t i = 0; i < sizeof scoped_defaults / sizeof scoped_defaults[0]; i++)
        if (scoped_defaults[i].scopes & (unsigned)scope)
            cs_conf_set_if_missing(c, scoped_defaults[i].key, scoped_defaults[i].dflt);
}

int cs_conf_entry_int_in(const cs_conf *c, const char *key, cs_conf_scope scope, int64_t *out,
                         cs_error *err)
{
    const cs_conf_entry *e = cs_conf_entry_find(key);
    if (!e || (e->type != CS_CONF_INT && e->type != CS_CONF_PORT))
        return cs_error_set(err, CS_EINVAL, "%s has no int configuration entry (conf_entries.c)",
                            key);
    return cs_conf_get_int(c, key, cs_conf_entry_default_in(key, scope), out, err);
}

bool cs_conf_entry_is_secret(const char *key)
{
    const cs_conf_entry *e = key ? cs_conf_entry_find(key) : NULL;
    return e && e->secret;
}

const cs_conf_entry *cs_conf_entries(int *n)
{
    *n = (int)(sizeof entries / sizeof entries[0]);
    return entries;
}

const cs_conf_entry *cs_conf_entry_find(const char *key)
{
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
        if (strcmp(entries[i].key, key) == 0) return &entries[i];
    return NULL;
}

/* The entry of key, which must be of one of the types given (the accessors are only called with
 * keys of the table: tests/integration/conf_entries.sh checks it), NULL with err set otherwise. */
static const cs_conf_entry *entry_of(const char *key, cs_conf_type a, cs_conf_type b, cs_error *err)
{
    const cs_conf_entry *e = cs_conf_entry_find(key);
    if (e && (e->type == a || e->type == b)) return e;
    cs_error_set(err, CS_EINVAL, "%s has no configuration entry of that type (conf_entries.c)",
                 key);
    return NULL;
}

int cs_conf_entry_int(const cs_conf *c, const char *key, int64_t *out, cs_error *err)
{
    const cs_conf_entry *e = entry_of(key, CS_CONF_INT, CS_CONF_PORT, err);
    return e ? cs_conf_get_int(c, key, e->dflt, out, err) : CS_EINVAL;
}

int cs_conf_entry_bool(const cs_conf *c, const char *key, bool *out, cs_error *err)
{
    const cs_conf_entry *e = entry_of(key, CS_CONF_BOOL, CS_CONF_BOOL, err);
    return e ? cs_conf_get_bool(c, key, e->dflt, out, err) : CS_EINVAL;
}

int cs_conf_entry_double(const cs_conf *c, const char *key, double *out, cs_error *err)
{
    const cs_conf_entry *e = entry_of(key, CS_CONF_DOUBLE, CS_CONF_DOUBLE, err);
    return e ? cs_conf_get_double(c, key, e->dflt, out, err) : CS_EINVAL;
}

int cs_conf_entry_size(const cs_conf *c, const char *key, int64_t *out_bytes, cs_error *err)
{
    const cs_conf_entry *e = entry_of(key, CS_CONF_SIZE, CS_CONF_SIZE, err);
    return e ? cs_conf_get_size(c, key, e->dflt, e->unit, out_bytes, err) : CS_EINVAL;
}

const char *cs_conf_entry_string(const cs_conf *c, const char *key)
{
    const cs_conf_entry *e = cs_conf_entry_find(key);
    if (!e || (e->type != CS_CONF_CHOICE && e->type != CS_CONF_STRING)) return NULL;
    const char *v = cs_conf_get(c, key);
    return v ? v : e->dflt;
}

int cs_conf_entry_duration_ms(const cs_conf *c, const char *key, int64_t *out_ms, cs_error *err)
{
    const cs_conf_entry *e = entry_of(key, CS_CONF_DURATION, CS_CONF_DURATION, err);
    if (!e) return CS_EINVAL;
    if (e->fallback && !cs_conf_contains(c, key))
        return cs_conf_entry_duration_ms(c, e->fallback, out_ms, err);
    return cs_conf_get_duration_ms(c, key, e->dflt, e->unit, out_ms, err);
}

/* "512m", "2g", "1536k", "100b": the largest binary unit that divides the byte count. */
static void format_size(char *buf, size_t cap, double bytes)
{
    static const struct {
        const char *suffix;
        int64_t mult;
    } units[] = {{"t", CS_TiB}, {"g", CS_GiB}, {"m", CS_MiB}, {"k", CS_KiB}};
    int64_t b = (int64_t)bytes;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (b >= units[i].mult && b % units[i].mult == 0) {
            snprintf(buf, cap, "%" PRId64 "%s", b / units[i].mult, units[i].suffix);
            return;
        }
    }
    snprintf(buf, cap, "%" PRId64 "b", b);
}

static void format_duration(char *buf, size_t cap, double ms)
{
    int64_t v = (int64_t)ms;
    if (v % 1000 == 0)
        snprintf(buf, cap, "%" PRId64 "s", v / 1000);
    else
        snprintf(buf, cap, "%" PRId64 "ms", v);
}

/* "(expected ...)" for a value out of the entry's range. */
static void describe_range(const cs_conf_entry *e, char *buf, size_t cap)
{
    char lo[32], hi[32];
    bool bounded = e->max < NOMAX && !(e->type == CS_CONF_INT && e->max >= IMAX);
    switch (e->type) {
    case CS_CONF_INT:
        if (!bounded && e->min == 1)
            snprintf(buf, cap, "a positive integer");
        else if (!bounded && e->min == 0)
            snprintf(buf, cap, "a non-negative integer");
        else if (!bounded)
            snprintf(buf, cap, "an integer of at least %.0f", e->min);
        else
            snprintf(buf, cap, "an integer between %.0f and %.0f", e->min, e->max);
        return;
    case CS_CONF_PORT:
        snprintf(buf, cap, "a port number between 0 and 65535");
        return;
    case CS_CONF_SIZE:
        format_size(lo, sizeof lo, e->min);
        format_size(hi, sizeof hi, e->max);
        if (e->min == 0 && e->min_open && !bounded)
            snprintf(buf, cap, "a positive size such as 512m or 2g");
        else if (!bounded)
            snprintf(buf, cap, "a size of at least %s", lo);
        else
            snprintf(buf, cap, "a size between %s and %s", lo, hi);
        return;
    case CS_CONF_DURATION:
        format_duration(lo, sizeof lo, e->min);
        if (e->min == 0 && e->min_open)
            snprintf(buf, cap, "a positive duration such as 10s or 500ms");
        else if (e->min == 0)
            snprintf(buf, cap, "a duration of 0 or more such as 0s, 10s or 500ms");
        else
            snprintf(buf, cap, "a duration of at least %s", lo);
        return;
    case CS_CONF_DOUBLE:
        if (!bounded)
            snprintf(buf, cap, "a number %s %g", e->min_open ? "greater than" : "of at least",
                     e->min);
        else
            snprintf(buf, cap, "a number in %c%g, %g%c", e->min_open ? '(' : '[', e->min, e->max,
                     e->max_open ? ')' : ']');
        return;
    case CS_CONF_BOOL:
    case CS_CONF_CHOICE:
    case CS_CONF_STRING:
        break;
    }
    buf[0] = '\0';
}

static bool in_range(const cs_conf_entry *e, double v)
{
    if (e->min_open ? v <= e->min : v < e->min) return false;
    if (e->max_open ? v >= e->max : v > e->max) return false;
    return true;
}

/* "client or cluster", "Always, Never or IfNotPresent" from "a|b|c". */
static int check_choice(const cs_conf_entry *e, const char *value, cs_error *err)
{
    char list[256];
    snprintf(list, sizeof list, "%s", e->choices);
    const char *names[16];
    int n = 0;
    for (char *save = NULL, *tok = strtok_r(list, "|", &save); tok && n < 16;
         tok = strtok_r(NULL, "|", &save))
        names[n++] = tok;
    for (int i = 0; i < n; i++) {
        if (e->nocase ? strcasecmp(value, names[i]) == 0 : strcmp(value, names[i]) == 0)
            return CS_OK;
    }
    int shown = n;
    char expected[256] = "";
    size_t len = 0;
    for (int i = 0; i < shown; i++) {
        const char *sep = i == 0 ? "" : (i == shown - 1 ? " or " : ", ");
        len += (size_t)snprintf(expected + len, sizeof expected - len, "%s%s", sep, names[i]);
        if (len >= sizeof expected) break;
    }
    char value_shown[96]; /* one line: a control byte is not echoed */
    snprintf(value_shown, sizeof value_shown, "%s", value);
    for (char *p = value_shown; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    return cs_error_set(err, CS_EINVAL, "invalid value for %s: '%s' (expected %s)", e->key,
                        value_shown, expected);
}

int cs_conf_entry_check(const cs_conf_entry *e, const char *value, cs_error *err)
{
    int64_t i64;
    double d;
    bool b;
    int rc;
    switch (e->type) {
    case CS_CONF_BOOL:
        return cs_conf_parse_bool(e->key, value, &b, err);
    case CS_CONF_CHOICE:
        return check_choice(e, value, err);
    case CS_CONF_INT:
    case CS_CONF_PORT:
        if ((rc = cs_conf_parse_int(e->key, value, &i64, err)) != CS_OK) return rc;
        d = (double)i64;
        break;
    case CS_CONF_SIZE:
        if ((rc = cs_conf_parse_size(e->key, value, e->unit, &i64, err)) != CS_OK) return rc;
        d = (double)i64;
        break;
    case CS_CONF_DURATION:
        if ((rc = cs_conf_parse_duration_ms(e->key, value, e->unit, &i64, err)) != CS_OK) return rc;
        d = (double)i64;
        break;
    case CS_CONF_DOUBLE:
        if ((rc = cs_conf_parse_double(e->key, value, &d, err)) != CS_OK) return rc;
        break;
    default:
        return CS_OK;
    }
    if (in_range(e, d)) return CS_OK;
    char expected[128];
    describe_range(e, expected, sizeof expected);
    return cs_error_set(err, CS_EINVAL, "invalid value for %s: '%s' (expected %s)", e->key, value,
                        expected);
}

static bool app_id_char(char ch, bool edge)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           (!edge && (ch == '-' || ch == '_' || ch == '.'));
}

int cs_conf_check_app_id(const char *id, cs_error *err)
{
    size_t n = id ? strlen(id) : 0;
    bool ok = n >= 1 && n <= 63 && !strstr(id, "..");
    for (size_t i = 0; ok && i < n; i++)
        ok = app_id_char(id[i], i == 0 || i == n - 1);
    if (ok) return CS_OK;
    char shown[96];
    cs_str_copy(shown, sizeof shown, id ? id : "");
    for (char *p = shown; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f) *p = '?';
    return cs_error_set(err, CS_EINVAL,
                        "invalid value for spark.app.id: '%s' (expected 1 to 63 letters, digits, "
                        "'-', '_' or '.', beginning and ending with a letter or digit)",
                        shown);
}

int cs_conf_validate(const cs_conf *c, cs_error *err)
{
    int rc;
    const char *app_id = cs_conf_get(c, "spark.app.id");
    if (app_id && (rc = cs_conf_check_app_id(app_id, err)) != CS_OK) return rc;
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        const char *v = cs_conf_get(c, entries[i].key);
        if (v && (rc = cs_conf_entry_check(&entries[i], v, err)) != CS_OK) return rc;
    }
    if ((rc = cs_conf_k8s_check(c, err)) != CS_OK) return rc;
    if ((rc = cs_resource_conf_check(c, err)) != CS_OK) return rc;
    /* As SparkConf.validateSettings: the heartbeat must be shorter than the network timeout. */
    int64_t hb = 0, to = 0;
    cs_conf_entry_duration_ms(c, "spark.executor.heartbeatInterval", &hb, NULL);
    cs_conf_entry_duration_ms(c, "spark.network.timeout", &to, NULL);
    if (to <= hb)
        return cs_error_set(err, CS_EINVAL,
                            "the value of spark.network.timeout=%" PRId64
                            "ms must be greater than the value of "
                            "spark.executor.heartbeatInterval=%" PRId64 "ms",
                            to, hb);
    return CS_OK;
}
