#!/usr/bin/env bash
# bad_input_table.sh — runs every row of bad_input_table.txt (master URLs, sizes, durations,
# ports, counts, other values, application files, input and output paths, properties files and
# odd bytes; issue 10's acceptance asks for at least 100): each cspark-submit run must exit 1,
# print exactly one line that is not a log line — "cspark-submit: ..." containing the row's
# expectation — and leave nothing behind: the run's TMPDIR stays empty, no output directory
# appears, and no process started by the run survives it.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
TABLE=$SRC/tests/integration/bad_input_table.txt
APP=$BUILD/tests/jobs/badjobs.so
need "$APP" "$EX/wordcount.so" "$TABLE"

# fixtures the rows name
mkdir -p "$T/tmp" "$T/appdir" "$T/exists" "$T/conf"
export TMPDIR="$T/tmp" SPARK_CONF_DIR="$T/conf"
unset MASTER SPARK_EXECUTOR_MEMORY SPARK_DRIVER_MEMORY SPARK_EXECUTOR_CORES CSPARK_LOG_LEVEL
printf 'a b\nc\n' >"$T/in.txt"
printf 'plain\n' >"$T/plain.txt"
: >"$T/empty.so"
printf 'int main(void) { return 0; }\n' >"$T/text.so"
head -c 40 "$EX/wordcount.so" >"$T/trunc40.so"
head -c 4096 "$EX/wordcount.so" >"$T/trunc4k.so"
size=$(stat -c %s "$EX/wordcount.so")
head -c $((size - 100)) "$EX/wordcount.so" >"$T/trunc-late.so"
mkfifo "$T/fifo.so" "$T/in.fifo" "$T/props.fifo"
ln -s loop2.so "$T/loop1.so" && ln -s loop1.so "$T/loop2.so"
printf 'spark.executor.memory = 4x\n' >"$T/bad.properties"
printf 'a=\\u12\n' >"$T/esc.properties"
printf 'spark.master local[x]\n' >"$T/master.properties"
cd "$T" || fail "cd $T"

# the processes alive now; any new one with our TMPDIR in its environment is a leftover
leftover_processes() {
    local f
    for f in $(grep -lsF "TMPDIR=$T/tmp" /proc/[0-9]*/environ 2>/dev/null); do
        f=${f#/proc/}
        f=${f%/environ}
        [ "$f" = "$$" ] || [ "$f" = "$BASHPID" ] || echo "$f $(tr '\0' ' ' <"/proc/$f/cmdline" 2>/dev/null | cut -c1-80)"
    done
}

rows=0 failed=0
row_fail() {
    echo "FAIL: $TEST_NAME: $name: $*" >&2
    failed=$((failed + 1))
}
while IFS= read -r line || [ -n "$line" ]; do
    [[ -z "${line// /}" || "$line" == \#* ]] && continue
    name=${line%% | *}
    rest=${line#* | }
    expect=${rest%% | *}
    argtext=${rest#* | }
    expect=${expect//'$T'/$T}
    expect=${expect//'$SUBMIT'/$SUBMIT}
    eval "args=($argtext)" || { row_fail "cannot parse its arguments"; continue; }
    rows=$((rows + 1))
    rm -rf "$T/out"
    rc=0
    timeout 60 "$SUBMIT" --conf spark.ui.enabled=false "${args[@]}" >"$T/stdout" 2>"$T/stderr" </dev/null || rc=$?
    [ "$rc" -eq 1 ] || row_fail "exit status $rc (want 1): $(tail -2 "$T/stderr")"
    errors=$(grep -avE '^(DEBUG|INFO|WARN) [0-9]{4}-' "$T/stderr")
    if [ "$(printf '%s' "$errors" | grep -c '')" -ne 1 ]; then
        row_fail "want exactly one error line, got: $errors"
    elif [[ "$errors" != "cspark-submit: "* || "$errors" != *"$expect"* ]]; then
        row_fail "want 'cspark-submit: ...$expect...', got: $errors"
    fi
    LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f]' "$T/stderr" && row_fail "control bytes on stderr"
    [ -e "$T/out" ] && row_fail "an output directory was left: $(ls -A "$T/out" | head -3)"
    [ -z "$(ls -A "$T/exists")" ] || row_fail "the existing output directory was written into"
    left=$(find "$T/tmp" -mindepth 1 -maxdepth 1 | head -3)
    [ -z "$left" ] || { row_fail "left in TMPDIR: $left"; rm -rf "${T:?}/tmp/"*; }
    procs=$(leftover_processes)
    [ -z "$procs" ] || row_fail "processes left: $procs"
done <"$TABLE"
[ "$rows" -ge 100 ] || fail "the table has $rows rows (at least 100 wanted)"
[ "$failed" -eq 0 ] || fail "$failed of $rows rows failed"
echo "PASS: $TEST_NAME ($rows rows)"
