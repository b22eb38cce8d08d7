#!/usr/bin/env bash
# Builds the event-log replay fuzzer (clang -fsanitize=fuzzer,address,undefined) against
# src/history/event_replay.c and the UI status store it feeds (src/ui/app_status*.c and what they
# use), and runs it for ~20 s from a seed corpus of small Spark event logs. $1 = build directory.
# It runs in the normal CI pass, as the other fuzzers do. A malloc over 64 MiB is a failure
# (-malloc_limit_mb): replay must take memory in proportion to its input (issue 21, item 6).
set -euo pipefail
BUILD=${1:?usage: event_replay.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang >/dev/null || { echo "SKIP: event_replay: clang is required (scripts/install-deps.sh)"; exit 77; }
OUT="$BUILD/fuzz/event_replay"
mkdir -p "$OUT/corpus"
S="$SRC/src"
SOURCES=("$S/history/event_replay.c" "$S/ui/app_status.c" "$S/ui/app_status_accums.c"
  "$S/ui/app_status_query.c" "$S/ui/app_status_storage.c" "$S/ui/app_status_sql.c" "$S/common/conf.c" "$S/common/conf_entries.c"
  "$S/common/conf_k8s_keys.c" "$S/common/resource_conf.c" "$S/common/master.c" "$S/common/err.c"
  "$S/common/log.c" "$S/common/strutil.c" "$S/common/hmap.c" "$S/common/sync.c"
  "$S/sched/locality.c")
# replay opens a log file through sched/event_log_reader.c (rolled and compressed logs, any file
# system); the fuzzer replays from memory, so that opener is a stub here rather than all of src/fs.
cat >"$OUT/log_reader_stub.c" <<'STUB'
#include <stdio.h>
#include "sched/event_log_reader.h"
FILE *cs_event_log_open_read(const char *path, cs_error *err)
{
    FILE *f = fopen(path, "r");
    if (!f) cs_error_set(err, CS_EIO, "cannot open %s", path);
    return f;
}
STUB
clang -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$S" -I"$SRC/include" $(pkg-config --cflags jansson) "$SRC/tests/fuzz/event_replay_fuzz.c" \
  "${SOURCES[@]}" "$OUT/log_reader_stub.c" $(pkg-config --libs jansson) -lpthread -lm -o "$OUT/event_replay_fuzz"
# seeds: one application with a job, stages, tasks (a failed and a killed one), a cached block,
# accumulators and executors; a log cut in the middle of a line; a task index far beyond the
# stage's task count
cat >"$OUT/corpus/app" <<'LOG'
{"Event":"SparkListenerLogStart","Spark Version":"4.1.0"}
{"Event":"SparkListenerApplicationStart","App Name":"fz","App ID":"app-1","Timestamp":1790000000000,"User":"u"}
{"Event":"SparkListenerEnvironmentUpdate","Spark Properties":{"spark.master":"local[2]","spark.ui.view.acls":"bob"}}
{"Event":"SparkListenerExecutorAdded","Timestamp":1790000000010,"Executor ID":"1","Executor Info":{"Host":"h","Total Cores":2}}
{"Event":"SparkListenerJobStart","Job ID":0,"Submission Time":1790000000100,"Stage Infos":[{"Stage ID":0,"Number of Tasks":2,"Stage Name":"map","Parent IDs":[]},{"Stage ID":1,"Number of Tasks":2,"Stage Name":"count","Parent IDs":[0]}],"Stage IDs":[0,1],"Properties":{"spark.job.description":"d"}}
{"Event":"SparkListenerStageSubmitted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"map","Number of Tasks":2,"Submission Time":1790000000110,"Parent IDs":[],"RDD Info":[{"RDD ID":3,"Name":"r","Parent IDs":[2],"Number of Partitions":2,"Storage Level":{"Use Disk":false,"Use Memory":true}}],"Accumulables":[]}}
{"Event":"SparkListenerTaskStart","Stage ID":0,"Stage Attempt ID":0,"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":1790000000120,"Executor ID":"1","Host":"h","Locality":"PROCESS_LOCAL","Speculative":false}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ShuffleMapTask","Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":0,"Index":0,"Attempt":0,"Launch Time":1790000000120,"Executor ID":"1","Host":"h","Locality":"PROCESS_LOCAL","Speculative":false,"Finish Time":1790000000130,"Accumulables":[{"ID":7,"Name":"acc","Update":"1","Value":"1"}]},"Task Metrics":{"Executor Run Time":5,"Updated Blocks":[{"Block ID":"rdd_3_0","Status":{"Storage Level":{"Use Disk":false,"Use Memory":true},"Memory Size":10,"Disk Size":0}}]}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ShuffleMapTask","Task End Reason":{"Reason":"ExceptionFailure","Description":"boom"},"Task Info":{"Task ID":1,"Index":1,"Attempt":0,"Executor ID":"1","Host":"h","Finish Time":1790000000140},"Task Metrics":{}}
{"Event":"SparkListenerTaskEnd","Stage ID":0,"Stage Attempt ID":0,"Task Type":"ShuffleMapTask","Task End Reason":{"Reason":"TaskKilled","Kill Reason":"stop"},"Task Info":{"Task ID":2,"Index":1,"Attempt":1,"Executor ID":"1","Host":"h","Finish Time":1790000000150},"Task Metrics":{}}
{"Event":"SparkListenerStageCompleted","Stage Info":{"Stage ID":0,"Stage Attempt ID":0,"Stage Name":"map","Number of Tasks":2,"Completion Time":1790000000160,"Accumulables":[{"ID":7,"Name":"acc","Value":"1"}]}}
{"Event":"SparkListenerBlockUpdated","Block Updated Info":{"Block Manager ID":{"Executor ID":"1","Host":"h","Port":7079},"Block ID":"rdd_3_1","Storage Level":{"Use Disk":true,"Use Memory":false},"Memory Size":0,"Disk Size":5}}
{"Event":"SparkListenerUnpersistRDD","RDD ID":3}
{"Event":"SparkListenerJobEnd","Job ID":0,"Completion Time":1790000000200,"Job Result":{"Result":"JobFailed","Exception":{"Message":"x"}}}
{"Event":"SparkListenerExecutorRemoved","Timestamp":1790000000300,"Executor ID":"1","Removed Reason":"gone"}
{"Event":"SparkListenerApplicationEnd","Timestamp":1790000000400}
LOG
head -c 900 "$OUT/corpus/app" >"$OUT/corpus/cut"
printf '%s\n' '{"Event":"SparkListenerTaskEnd","Stage ID":5,"Stage Attempt ID":0,"Task End Reason":{"Reason":"Success"},"Task Info":{"Task ID":9,"Index":2147483647,"Attempt":0,"Executor ID":"1","Host":"h"},"Task Metrics":{}}' >"$OUT/corpus/index"
cd "$OUT"
ASAN_OPTIONS=detect_leaks=1 ./event_replay_fuzz -max_total_time=20 -error_exitcode=1 -max_len=16384 -rss_limit_mb=2048 \
  -malloc_limit_mb=64 -print_final_stats=1 corpus 2>&1 | tail -n 15
# libFuzzer exits non-zero on a crash, leak or abort; pipefail carries it
