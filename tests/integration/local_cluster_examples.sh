#!/usr/bin/env bash
# local_cluster_examples.sh — every example gives the same output in local[2] and in
# local-cluster[2,1,1024] (separate executor processes, network shuffle, authentication on),
# after sorting where the order is free; no executor process outlives the driver.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
mkdir "$T/tmp"
export TMPDIR="$T/tmp" # the driver's local dir, and the executors' under it, live here
need "$BIN/cspark-executor" "$BIN/gen_text" "$BIN/gen_records" "$BIN/gen_graph"
LC='local-cluster[2,1,1024]'

"$BIN/gen_text" -s 11 3000000 >"$T/text.txt"
"$BIN/gen_records" -s 12 50000 >"$T/records.txt"
"$BIN/gen_graph" -s 13 2000 10000 >"$T/graph.txt"
awk 'NR % 3 == 0 { print $1 "\t" NR } NR > 3000 { exit }' "$T/text.txt" | tr ' ' '_' >"$T/left.tsv"
awk 'NR % 5 == 0 { print $1 "\tr" NR } NR > 3000 { exit }' "$T/text.txt" | tr ' ' '_' >"$T/right.tsv"

# run NAME SORT ARGS...: runs the example in both masters and compares
compare() {
    local name=$1 sortit=$2
    shift 2
    local args_l=() args_c=() a
    for a in "$@"; do args_l+=("${a//@OUT@/$T/$name-local}"); args_c+=("${a//@OUT@/$T/$name-cluster}"); done
    submit_ok 'local[2]' "$EX/$name.so" "${args_l[@]}"
    cp "$T/stdout" "$T/$name-local.stdout"
    submit_ok "$LC" "$EX/$name.so" "${args_c[@]}"
    cp "$T/stdout" "$T/$name-cluster.stdout"
    grep -q "event=executor_registered executor=1" "$T/stderr" || fail "$name: no executor registered in local-cluster"
    if [ -d "$T/$name-local" ]; then
        if [ "$sortit" = sort ]; then
            cat_parts "$T/$name-local" | sort >"$T/$name-local.out"
            cat_parts "$T/$name-cluster" | sort >"$T/$name-cluster.out"
        else
            cat_parts "$T/$name-local" >"$T/$name-local.out"
            cat_parts "$T/$name-cluster" >"$T/$name-cluster.out"
        fi
        [ -s "$T/$name-local.out" ] || fail "$name: empty output"
        assert_files_eq "$T/$name-cluster.out" "$T/$name-local.out" "$name output"
    fi
    assert_files_eq "$T/$name-cluster.stdout" "$T/$name-local.stdout" "$name stdout"
}

compare pi keep 4
compare wordcount sort "$T/text.txt" @OUT@
compare join sort "$T/left.tsv" "$T/right.tsv" @OUT@
compare pagerank sort "$T/graph.txt" 3 @OUT@
# sort: parts read in order are globally sorted; equal keys may come in any order
submit_ok 'local[2]' "$EX/sort.so" "$T/records.txt" "$T/sort-local"
submit_ok "$LC" "$EX/sort.so" "$T/records.txt" "$T/sort-cluster"
cat_parts "$T/sort-cluster" | cut -c1-10 | sort -c || fail "sort: local-cluster output not globally sorted"
assert_eq "$(cat_parts "$T/sort-cluster" | sort | md5sum)" "$(cat_parts "$T/sort-local" | sort | md5sum)" "sort output"

# no executor outlives its driver, and nothing is left in the local directories
left=$(pgrep -f "cspark-executor --driver-url" | while read -r p; do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -q "^SPARK_LOCAL_DIRS=$T/tmp" && echo "$p"; done | wc -l)
assert_eq "0" "$left" "executor processes left running"
assert_eq "0" "$(find "$T/tmp" -mindepth 1 | wc -l)" "entries left in the local directories"
echo "PASS: $TEST_NAME"
