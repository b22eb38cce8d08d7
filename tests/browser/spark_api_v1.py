"""spark_api_v1.py — the JSON schema of Spark 4's REST API (org.apache.spark.status.api.v1,
core/src/main/scala/org/apache/spark/status/api/v1/api.scala), written down field by field with
the type Spark's Jackson writer gives each one, and a checker for cspark's /api/v1 responses.

Types: int and long are JSON integers, double a JSON number, date Spark's
"yyyy-MM-dd'T'HH:mm:ss.SSS'GMT'" string, ("opt", T) an Option (absent when None, as Spark's
writer leaves None out), ("seq", T) an array, ("map", T) an object with string keys,
("pair",) a (String, String) tuple (a two-string array), ("enum", {...}) a string from the set, a
class name another object. A response passes when every field Spark declares is there with its
type (Options may be absent) and no field Spark does not declare is there.
Used by tests/browser/rest_check.py.
"""
import re

DATE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}GMT$")

EXECUTOR_METRIC_TYPES = [
    "JVMHeapMemory", "JVMOffHeapMemory", "OnHeapExecutionMemory", "OffHeapExecutionMemory",
    "OnHeapStorageMemory", "OffHeapStorageMemory", "OnHeapUnifiedMemory", "OffHeapUnifiedMemory",
    "DirectPoolMemory", "MappedPoolMemory", "ProcessTreeJVMVMemory", "ProcessTreeJVMRSSMemory",
    "ProcessTreePythonVMemory", "ProcessTreePythonRSSMemory", "ProcessTreeOtherVMemory",
    "ProcessTreeOtherRSSMemory", "MinorGCCount", "MinorGCTime", "MajorGCCount", "MajorGCTime",
    "TotalGCTime", "ConcurrentGCCount", "ConcurrentGCTime",
]

JOB_STATUS = ("enum", {"RUNNING", "SUCCEEDED", "FAILED", "UNKNOWN"})
STAGE_STATUS = ("enum", {"ACTIVE", "COMPLETE", "FAILED", "PENDING", "SKIPPED"})
DOUBLES = ("seq", "double")

SCHEMA = {
    "ApplicationInfo": {
        "id": "string", "name": "string", "coresGranted": ("opt", "int"),
        "maxCores": ("opt", "int"), "coresPerExecutor": ("opt", "int"),
        "memoryPerExecutorMB": ("opt", "int"), "attempts": ("seq", "ApplicationAttemptInfo"),
    },
    "ApplicationAttemptInfo": {
        "attemptId": ("opt", "string"), "startTime": "date", "endTime": "date",
        "lastUpdated": "date", "duration": "long", "sparkUser": "string", "completed": "boolean",
        "appSparkVersion": "string",
        # getters Spark's writer includes (@JsonIgnoreProperties(allowGetters = true))
        "startTimeEpoch": "long", "endTimeEpoch": "long", "lastUpdatedEpoch": "long",
    },
    "JobData": {
        "jobId": "int", "name": "string", "description": ("opt", "string"),
        "submissionTime": ("opt", "date"), "completionTime": ("opt", "date"),
        "stageIds": ("seq", "int"), "jobGroup": ("opt", "string"), "jobTags": ("seq", "string"),
        "status": JOB_STATUS, "numTasks": "int", "numActiveTasks": "int",
        "numCompletedTasks": "int", "numSkippedTasks": "int", "numFailedTasks": "int",
        "numKilledTasks": "int", "numCompletedIndices": "int", "numActiveStages": "int",
        "numCompletedStages": "int", "numSkippedStages": "int", "numFailedStages": "int",
        "killedTasksSummary": ("map", "int"),
    },
    "StageData": {
        "status": STAGE_STATUS, "stageId": "int", "attemptId": "int", "numTasks": "int",
        "numActiveTasks": "int", "numCompleteTasks": "int", "numFailedTasks": "int",
        "numKilledTasks": "int", "numCompletedIndices": "int",
        "submissionTime": ("opt", "date"), "firstTaskLaunchedTime": ("opt", "date"),
        "completionTime": ("opt", "date"), "failureReason": ("opt", "string"),
        "executorDeserializeTime": "long", "executorDeserializeCpuTime": "long",
        "executorRunTime": "long", "executorCpuTime": "long", "resultSize": "long",
        "jvmGcTime": "long", "resultSerializationTime": "long", "memoryBytesSpilled": "long",
        "diskBytesSpilled": "long", "peakExecutionMemory": "long",
        "peakOnHeapExecutionMemory": "long", "peakOffHeapExecutionMemory": "long",
        "inputBytes": "long", "inputRecords": "long", "outputBytes": "long",
        "outputRecords": "long", "shuffleRemoteBlocksFetched": "long",
        "shuffleLocalBlocksFetched": "long", "shuffleFetchWaitTime": "long",
        "shuffleRemoteBytesRead": "long", "shuffleRemoteBytesReadToDisk": "long",
        "shuffleLocalBytesRead": "long", "shuffleReadBytes": "long", "shuffleReadRecords": "long",
        "shuffleCorruptMergedBlockChunks": "long", "shuffleMergedFetchFallbackCount": "long",
        "shuffleMergedRemoteBlocksFetched": "long", "shuffleMergedLocalBlocksFetched": "long",
        "shuffleMergedRemoteChunksFetched": "long", "shuffleMergedLocalChunksFetched": "long",
        "shuffleMergedRemoteBytesRead": "long", "shuffleMergedLocalBytesRead": "long",
        "shuffleRemoteReqsDuration": "long", "shuffleMergedRemoteReqsDuration": "long",
        "shuffleWriteBytes": "long", "shuffleWriteTime": "long", "shuffleWriteRecords": "long",
        "name": "string", "description": ("opt", "string"), "details": "string",
        "schedulingPool": "string", "rddIds": ("seq", "int"),
        "accumulatorUpdates": ("seq", "AccumulableInfo"),
        "tasks": ("opt", ("map", "TaskData")),
        "executorSummary": ("opt", ("map", "ExecutorStageSummary")),
        "speculationSummary": ("opt", "SpeculationStageSummary"),
        "killedTasksSummary": ("map", "int"), "resourceProfileId": "int",
        "peakExecutorMetrics": ("opt", "ExecutorMetrics"),
        "taskMetricsDistributions": ("opt", "TaskMetricDistributions"),
        "executorMetricsDistributions": ("opt", "object"),
        "isShufflePushEnabled": "boolean", "shuffleMergersCount": "int",
    },
    "SpeculationStageSummary": {
        "numTasks": "int", "numActiveTasks": "int", "numCompletedTasks": "int",
        "numFailedTasks": "int", "numKilledTasks": "int",
    },
    "TaskData": {
        "taskId": "long", "index": "int", "attempt": "int", "partitionId": "int",
        "launchTime": "date", "resultFetchStart": ("opt", "date"), "duration": ("opt", "long"),
        "executorId": "string", "host": "string",
        "status": ("enum", {"RUNNING", "SUCCESS", "FAILED", "KILLED"}),
        "taskLocality": ("enum", {"PROCESS_LOCAL", "NODE_LOCAL", "NO_PREF", "RACK_LOCAL", "ANY"}),
        "speculative": "boolean", "accumulatorUpdates": ("seq", "AccumulableInfo"),
        "errorMessage": ("opt", "string"), "taskMetrics": ("opt", "TaskMetrics"),
        "executorLogs": ("map", "string"), "schedulerDelay": "long", "gettingResultTime": "long",
    },
    "TaskMetrics": {
        "executorDeserializeTime": "long", "executorDeserializeCpuTime": "long",
        "executorRunTime": "long", "executorCpuTime": "long", "resultSize": "long",
        "jvmGcTime": "long", "resultSerializationTime": "long", "memoryBytesSpilled": "long",
        "diskBytesSpilled": "long", "peakExecutionMemory": "long",
        "peakOnHeapExecutionMemory": "long", "peakOffHeapExecutionMemory": "long",
        "inputMetrics": "InputMetrics", "outputMetrics": "OutputMetrics",
        "shuffleReadMetrics": "ShuffleReadMetrics", "shuffleWriteMetrics": "ShuffleWriteMetrics",
    },
    "InputMetrics": {"bytesRead": "long", "recordsRead": "long"},
    "OutputMetrics": {"bytesWritten": "long", "recordsWritten": "long"},
    "ShufflePushReadMetrics": {
        "corruptMergedBlockChunks": "long", "mergedFetchFallbackCount": "long",
        "remoteMergedBlocksFetched": "long", "localMergedBlocksFetched": "long",
        "remoteMergedChunksFetched": "long", "localMergedChunksFetched": "long",
        "remoteMergedBytesRead": "long", "localMergedBytesRead": "long",
        "remoteMergedReqsDuration": "long",
    },
    "ShuffleReadMetrics": {
        "remoteBlocksFetched": "long", "localBlocksFetched": "long", "fetchWaitTime": "long",
        "remoteBytesRead": "long", "remoteBytesReadToDisk": "long", "localBytesRead": "long",
        "recordsRead": "long", "remoteReqsDuration": "long",
        "shufflePushReadMetrics": "ShufflePushReadMetrics",
    },
    "ShuffleWriteMetrics": {"bytesWritten": "long", "writeTime": "long", "recordsWritten": "long"},
    "ExecutorStageSummary": {
        "taskTime": "long", "failedTasks": "int", "succeededTasks": "int", "killedTasks": "int",
        "inputBytes": "long", "inputRecords": "long", "outputBytes": "long",
        "outputRecords": "long", "shuffleRead": "long", "shuffleReadRecords": "long",
        "shuffleWrite": "long", "shuffleWriteRecords": "long", "memoryBytesSpilled": "long",
        "diskBytesSpilled": "long", "isBlacklistedForStage": "boolean",
        "peakMemoryMetrics": ("opt", "ExecutorMetrics"), "isExcludedForStage": "boolean",
    },
    "ExecutorSummary": {
        "id": "string", "hostPort": "string", "isActive": "boolean", "rddBlocks": "int",
        "memoryUsed": "long", "diskUsed": "long", "totalCores": "int", "maxTasks": "int",
        "activeTasks": "int", "failedTasks": "int", "completedTasks": "int", "totalTasks": "int",
        "totalDuration": "long", "totalGCTime": "long", "totalInputBytes": "long",
        "totalShuffleRead": "long", "totalShuffleWrite": "long", "isBlacklisted": "boolean",
        "maxMemory": "long", "addTime": "date", "removeTime": ("opt", "date"),
        "removeReason": ("opt", "string"), "executorLogs": ("map", "string"),
        "memoryMetrics": ("opt", "MemoryMetrics"), "blacklistedInStages": ("seq", "int"),
        "peakMemoryMetrics": ("opt", "ExecutorMetrics"), "attributes": ("map", "string"),
        "resources": ("map", "object"), "resourceProfileId": "int", "isExcluded": "boolean",
        "excludedInStages": ("seq", "int"),
    },
    "MemoryMetrics": {
        "usedOnHeapStorageMemory": "long", "usedOffHeapStorageMemory": "long",
        "totalOnHeapStorageMemory": "long", "totalOffHeapStorageMemory": "long",
    },
    "TaskMetricDistributions": {
        "quantiles": DOUBLES, "duration": DOUBLES, "executorDeserializeTime": DOUBLES,
        "executorDeserializeCpuTime": DOUBLES, "executorRunTime": DOUBLES,
        "executorCpuTime": DOUBLES, "resultSize": DOUBLES, "jvmGcTime": DOUBLES,
        "resultSerializationTime": DOUBLES, "gettingResultTime": DOUBLES,
        "schedulerDelay": DOUBLES, "peakExecutionMemory": DOUBLES,
        "peakOnHeapExecutionMemory": DOUBLES, "peakOffHeapExecutionMemory": DOUBLES,
        "memoryBytesSpilled": DOUBLES, "diskBytesSpilled": DOUBLES,
        "inputMetrics": "InputMetricDistributions",
        "outputMetrics": "OutputMetricDistributions",
        "shuffleReadMetrics": "ShuffleReadMetricDistributions",
        "shuffleWriteMetrics": "ShuffleWriteMetricDistributions",
    },
    "InputMetricDistributions": {"bytesRead": DOUBLES, "recordsRead": DOUBLES},
    "OutputMetricDistributions": {"bytesWritten": DOUBLES, "recordsWritten": DOUBLES},
    "ShufflePushReadMetricDistributions": {
        "corruptMergedBlockChunks": DOUBLES, "mergedFetchFallbackCount": DOUBLES,
        "remoteMergedBlocksFetched": DOUBLES, "localMergedBlocksFetched": DOUBLES,
        "remoteMergedChunksFetched": DOUBLES, "localMergedChunksFetched": DOUBLES,
        "remoteMergedBytesRead": DOUBLES, "localMergedBytesRead": DOUBLES,
        "remoteMergedReqsDuration": DOUBLES,
    },
    "ShuffleReadMetricDistributions": {
        "readBytes": DOUBLES, "readRecords": DOUBLES, "remoteBlocksFetched": DOUBLES,
        "localBlocksFetched": DOUBLES, "fetchWaitTime": DOUBLES, "remoteBytesRead": DOUBLES,
        "remoteBytesReadToDisk": DOUBLES, "totalBlocksFetched": DOUBLES,
        "remoteReqsDuration": DOUBLES,
        "shufflePushReadMetricsDist": "ShufflePushReadMetricDistributions",
    },
    "ShuffleWriteMetricDistributions": {
        "writeBytes": DOUBLES, "writeRecords": DOUBLES, "writeTime": DOUBLES,
    },
    "AccumulableInfo": {
        "id": "long", "name": "string", "update": ("opt", "string"), "value": "string",
    },
    "VersionInfo": {"spark": "string"},
    "ApplicationEnvironmentInfo": {
        "runtime": "RuntimeInfo", "sparkProperties": ("seq", ("pair",)),
        "hadoopProperties": ("seq", ("pair",)), "systemProperties": ("seq", ("pair",)),
        "metricsProperties": ("seq", ("pair",)), "classpathEntries": ("seq", ("pair",)),
        "resourceProfiles": ("seq", "ResourceProfileInfo"),
    },
    "RuntimeInfo": {"javaVersion": "string", "javaHome": "string", "scalaVersion": "string"},
    "ResourceProfileInfo": {
        "id": "int", "executorResources": ("map", "object"), "taskResources": ("map", "object"),
    },
    # org.apache.spark.status.api.v1.sql (Spark 4.0's SqlResource)
    "ExecutionData": {
        "id": "long", "status": ("enum", {"RUNNING", "COMPLETED", "FAILED"}),
        "description": "string", "planDescription": "string", "submissionTime": "date",
        "duration": "long", "runningJobIds": ("seq", "int"), "successJobIds": ("seq", "int"),
        "failedJobIds": ("seq", "int"), "nodes": ("seq", "Node"),
        "edges": ("seq", "SparkPlanGraphEdge"),
    },
    "Node": {
        "nodeId": "long", "nodeName": "string", "wholeStageCodegenId": ("opt", "long"),
        "metrics": ("seq", "Metric"),
    },
    "Metric": {"name": "string", "value": "string"},
    "SparkPlanGraphEdge": {"fromId": "long", "toId": "long"},
    "RDDStorageInfo": {
        "id": "int", "name": "string", "numPartitions": "int", "numCachedPartitions": "int",
        "storageLevel": "string", "memoryUsed": "long", "diskUsed": "long",
        "dataDistribution": ("opt", ("seq", "object")), "partitions": ("opt", ("seq", "object")),
    },
}


def check(value, typ, path, errors):
    """Appends to errors every way value is not of Spark type typ (path names the field)."""
    if isinstance(typ, tuple):
        kind = typ[0]
        if kind == "opt":
            if value is not None:
                check(value, typ[1], path, errors)
            return
        if kind == "seq":
            if not isinstance(value, list):
                errors.append(f"{path}: expected an array, got {type(value).__name__}")
                return
            for i, v in enumerate(value):
                check(v, typ[1], f"{path}[{i}]", errors)
            return
        if kind == "map":
            if not isinstance(value, dict):
                errors.append(f"{path}: expected an object, got {type(value).__name__}")
                return
            for k, v in value.items():
                check(v, typ[1], f"{path}.{k}", errors)
            return
        if kind == "pair":
            if not (isinstance(value, list) and len(value) == 2 and
                    all(isinstance(x, str) for x in value)):
                errors.append(f"{path}: expected a (String, String) pair, got {value!r}")
            return
        if kind == "enum":
            if value not in typ[1]:
                errors.append(f"{path}: {value!r} is not one of {sorted(typ[1])}")
            return
        raise ValueError(typ)
    if typ in ("int", "long"):
        if not isinstance(value, int) or isinstance(value, bool):
            errors.append(f"{path}: expected an integer, got {value!r}")
        elif typ == "int" and not -2**31 <= value < 2**31:
            errors.append(f"{path}: {value} does not fit an Int")
    elif typ == "double":
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            errors.append(f"{path}: expected a number, got {value!r}")
    elif typ == "string":
        if not isinstance(value, str):
            errors.append(f"{path}: expected a string, got {value!r}")
    elif typ == "boolean":
        if not isinstance(value, bool):
            errors.append(f"{path}: expected a boolean, got {value!r}")
    elif typ == "date":
        if not isinstance(value, str) or not DATE.match(value):
            errors.append(f"{path}: expected a date like 2026-01-01T00:00:00.000GMT, got {value!r}")
    elif typ == "object":
        if not isinstance(value, dict):
            errors.append(f"{path}: expected an object, got {value!r}")
    elif typ == "ExecutorMetrics":
        if not isinstance(value, dict):
            errors.append(f"{path}: expected an object, got {value!r}")
            return
        if set(value) != set(EXECUTOR_METRIC_TYPES):
            errors.append(f"{path}: keys {sorted(set(value) ^ set(EXECUTOR_METRIC_TYPES))} "
                          "differ from ExecutorMetricType's")
        for k, v in value.items():
            check(v, "long", f"{path}.{k}", errors)
    else:
        fields = SCHEMA[typ]
        if not isinstance(value, dict):
            errors.append(f"{path}: expected a {typ} object, got {value!r}")
            return
        for name in value:
            if name not in fields:
                errors.append(f"{path}.{name}: {typ} has no such field in Spark")
        for name, ftyp in fields.items():
            if name not in value:
                if not (isinstance(ftyp, tuple) and ftyp[0] == "opt"):
                    errors.append(f"{path}.{name}: missing ({typ} requires it)")
                continue
            check(value[name], ftyp, f"{path}.{name}", errors)
