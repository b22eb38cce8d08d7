#!/usr/bin/env bash
# prelude.sh — the one prelude of cspark's script tests (tests/<suite>/*.sh): the name of the test,
# failing, temp dirs removed on exit, the build's paths, running cspark-submit and assertions.
# The suites' own helpers build on it and source it first: tests/integration/lib/submit.sh (the
# command-line tests), tests/fault/lib/fault.sh (fault injection), tests/k8s/lib/k8s.sh (the
# Kubernetes end-to-end frame).
#
# A test sources it and calls lib_init with its arguments:
#     . "$(dirname "$0")/../lib/prelude.sh"
#     lib_init "$@"              # $1 = build dir; sets BUILD SRC BIN EX SUBMIT T (temp dir)
# Helpers: make_tmp (a temp dir removed on exit), run_submit / submit_ok (run cspark-submit),
# cat_parts (a save_as_text_file output in part order), cat_event_log (an event log's lines),
# fail, assert_eq, assert_files_eq, assert_contains. Every failure prints "FAIL: <test>: <why>" and exits 1.
# CTest also registers this file as a test (lib/prelude): run directly, it checks its own
# helpers and exits 0.

TEST_NAME=$(basename "${0%.sh}")
# Apache Spark's JVMs in the tests (tests/spark, tests/sql: spark-submit's driver and its launcher):
# each run is a minute of small jobs, where the C2 compiler and the parallel collector's threads
# cost more CPU than they save (spark/sql_parser_errors: 27 s of CPU -> 14 s). Only Spark's scripts
# read these two (cspark-submit does not); a value of the caller's own is kept.
export SPARK_SUBMIT_OPTS=${SPARK_SUBMIT_OPTS-"-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}
export SPARK_LAUNCHER_OPTS=${SPARK_LAUNCHER_OPTS-"-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}
_LIB_TMPDIRS=()

_lib_cleanup() {
    local d
    for d in "${_LIB_TMPDIRS[@]}"; do
        [ -n "$d" ] && rm -rf -- "$d"
    done
}
trap _lib_cleanup EXIT
trap 'exit 130' INT TERM

fail() {
    echo "FAIL: $TEST_NAME: $*" >&2
    exit 1
}

log() { echo "$TEST_NAME: $*" >&2; }

# make_tmp: prints a new temp dir, deleted when the test exits. Call it in the main shell
# (not inside $(...)) through lib_init, or as: make_tmp VAR.
make_tmp() {
    local d
    d=$(mktemp -d "${TMPDIR:-/tmp}/cspark-$TEST_NAME.XXXXXX") || fail "mktemp failed"
    _LIB_TMPDIRS+=("$d")
    if [ $# -ge 1 ]; then printf -v "$1" '%s' "$d"; else echo "$d"; fi
}

# lib_init BUILD_DIR: checks the build and sets BUILD SRC BIN EX SUBMIT and T (a temp dir).
lib_init() {
    [ $# -ge 1 ] || fail "usage: $0 BUILD_DIR"
    BUILD=$(cd "$1" 2>/dev/null && pwd) || fail "no build directory $1"
    SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
    BIN=$BUILD/bin
    EX=$BUILD/examples
    SUBMIT=$BIN/cspark-submit
    PY=/usr/bin/python3
    export LC_ALL=C
    [ -x "$SUBMIT" ] || fail "cspark-submit not built ($SUBMIT)"
    make_tmp T
}

# cat_event_log LOG...: the event logs' lines, one JSON event a line, whatever their layout: a
# file or a rolled eventlog_v2_* directory, zstd-compressed or not (Spark 4's defaults, rolled and
# compressed, are cspark's), read as the history server reads them (tests/tools/cat_event_log.c).
cat_event_log() {
    "$BUILD/tests/cat_event_log" "$@"
}

# need FILE...: fails unless each file exists.
need() {
    local f
    for f in "$@"; do [ -e "$f" ] || fail "missing $f (not built?)"; done
}

# history_port OUT: the port a cspark-history whose output goes to OUT logged that it serves on
# (waits up to 60 s); empty if it never did. OUT must be new or emptied before the server is
# started, or a previous server's port may be read before the new one truncates it.
history_port() {
    local i p
    for i in $(seq 1 300); do
        p=$(grep -o "history dir=[^ ]* port=[0-9]*" "$1" | head -1 | grep -o '[0-9]*$')
        [ -n "$p" ] && { echo "$p"; return 0; }
        sleep 0.2
    done
}

# run_submit MASTER APP.so ARGS...: runs cspark-submit --master MASTER APP.so ARGS with stdout
# in $T/stdout and stderr in $T/stderr; returns its exit status. Extra submit options go in the
# array SUBMIT_OPTS.
SUBMIT_OPTS=()
run_submit() {
    local master=$1
    shift
    local rc=0
    timeout "${SUBMIT_TIMEOUT:-120}" "$SUBMIT" --master "$master" "${SUBMIT_OPTS[@]}" "$@" \
        >"$T/stdout" 2>"$T/stderr" || rc=$?
    return $rc
}

# submit_ok MASTER APP.so ARGS...: as run_submit, failing the test when the job fails.
submit_ok() {
    local rc=0
    run_submit "$@" || rc=$?
    if [ $rc -ne 0 ]; then
        echo "--- stderr (last 20 lines) of: cspark-submit --master $*" >&2
        tail -n 20 "$T/stderr" >&2
        fail "cspark-submit --master $1 $(basename "$2") exited with $rc"
    fi
}

# cat_parts DIR: the part-* files of a saved RDD concatenated in name order; fails when the
# directory lacks _SUCCESS or part files.
cat_parts() {
    local dir=$1
    [ -f "$dir/_SUCCESS" ] || fail "$dir/_SUCCESS missing"
    local parts=("$dir"/part-*)
    [ -e "${parts[0]}" ] || fail "no part files in $dir"
    cat "${parts[@]}"
}

# count_parts DIR: the number of non-empty part files.
count_parts() {
    local n=0 f
    for f in "$1"/part-*; do [ -s "$f" ] && n=$((n + 1)); done
    echo $n
}

assert_eq() {
    [ "$1" == "$2" ] || fail "${3:-values differ}: got '$1', expected '$2'"
}

# assert_files_eq GOT EXPECTED MSG: byte-for-byte equal, else shows the first differences.
assert_files_eq() {
    if ! cmp -s "$1" "$2"; then
        echo "--- first differences (< got, > expected):" >&2
        diff "$1" "$2" | head -n 10 >&2
        fail "${3:-files differ}: $1 vs $2"
    fi
}

# assert_contains FILE STRING MSG
assert_contains() {
    grep -qF -- "$2" "$1" || fail "${3:-missing text}: '$2' not in $1"
}

if [ "${BASH_SOURCE[0]}" == "$0" ]; then
    # Run directly (CTest): check the helpers themselves.
    make_tmp D
    [ -d "$D" ] || fail "make_tmp"
    assert_eq "a b" "a b" "assert_eq"
    printf 'x\n' >"$D/a" && printf 'x\n' >"$D/b" && assert_files_eq "$D/a" "$D/b"
    mkdir "$D/out" && printf '1\n' >"$D/out/part-00001" && printf '0\n' >"$D/out/part-00000"
    : >"$D/out/_SUCCESS"
    [ "$(cat_parts "$D/out" | tr -d '\n')" == "01" ] || fail "cat_parts order"
    [ "$(count_parts "$D/out")" == 2 ] || fail "count_parts"
    (assert_eq 1 2 "expected failure" 2>/dev/null) && fail "assert_eq accepted 1 == 2"
    (assert_files_eq "$D/a" "$D/out/part-00001" 2>/dev/null) && fail "assert_files_eq accepted different files"
    echo "prelude.sh: helpers ok"
    exit 0
fi
