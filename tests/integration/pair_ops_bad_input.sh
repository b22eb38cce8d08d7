#!/usr/bin/env bash
# pair_ops_bad_input.sh — the operations of issue 13 refuse bad arguments with one clear line and
# a non-zero exit, leaving nothing behind: sample's fraction, random_split's weights, checkpoint
# without spark.checkpoint.dir or on an object store, tree_aggregate's depth, first of an empty
# RDD, whole_text_files of a missing path, a partition function returning a partition out of
# range, a map_values function calling cspark_emit (entry functions of tests/jobs/pairops.c).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
mkdir "$T/tmp"
export TMPDIR="$T/tmp"
APP=$BUILD/tests/jobs/pairops.so
need "$APP"

# refused CLASS PATTERN [SUBMIT OPTIONS...]: --class CLASS exits non-zero, its error names PATTERN
refused() {
    local class=$1 pattern=$2
    shift 2
    if "$SUBMIT" --master 'local[2]' "$@" --class "$class" "$APP" >"$T/out" 2>"$T/err"; then
        fail "$class: exited 0"
    fi
    local last
    last=$(grep -v '^INFO\|^WARN' "$T/err" | tail -1)
    [[ "$last" == *"$pattern"* ]] || fail "$class: expected '$pattern' in the error, got: $last"
}

refused bad_sample "sample: fraction must be in [0, 1] without replacement, got 1.5"
refused bad_split "random_split: weight 1 must be a number >= 0, got -1"
refused bad_checkpoint "Checkpoint directory has not been set (set spark.checkpoint.dir"
refused bad_checkpoint "spark.checkpoint.dir must be a file system path shared by the driver and the executors (a shared volume on Kubernetes), got 's3a://bucket/ckpt'" \
    --conf spark.checkpoint.dir=s3a://bucket/ckpt
refused bad_depth "tree_aggregate: depth must be at least 1, got 0"
refused empty_first "first of an empty collection"
refused huge_top "top: n must be at most 268435456 (every task keeps n records in memory), got 1099511627776"
"$SUBMIT" --master 'local[2]' --class missing_files "$APP" "$T/none" >"$T/out" 2>"$T/err" &&
    fail "missing_files: exited 0"
grep -q "Input path does not exist: file:$T/none" "$T/err" || fail "missing_files: $(tail -1 "$T/err")"
refused bad_partitioner "partition function out_of_range returned 3 for 3 partitions (expected 0 to 2)"
refused map_values_emit "emits_record called cspark_emit: a map_values function emits with cspark_emit_value"

assert_eq "0" "$(find "$T/tmp" -mindepth 1 | wc -l)" "entries left in the local directories"
echo "PASS: $TEST_NAME"
