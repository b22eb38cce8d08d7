#!/usr/bin/env bash
# record_lengths_over_32_bits.sh — issue 10 item 20: cspark_emit and cspark_emit_reserve cut
# size_t lengths to 32 bits (a 2^40-byte key became an empty one and the job succeeded;
# emit_reserve(4 GiB + 8) returned an 8-byte slot and the job overflowed the heap). Every public
# entry point that takes a record, accumulator or zero-value length now refuses one above
# CSPARK_MAX_RECORD_BYTES (256 MiB) before narrowing it: a task fails naming the limit (and the
# job exits non-zero after the retries), or the transformation/action is refused up front.
# The jobs pass small buffers with huge lengths: nothing may be read or written first. A 1 MiB
# record still works.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/testjobs.so
need "$JOBS"
LIMIT="over the record limit of 268435456 bytes (CSPARK_MAX_RECORD_BYTES, 256 MiB)"

# refused CASE WHAT MASTER: the job exits non-zero; the error names the entry point and the limit
refused() {
    local rc=0
    "$SUBMIT" --master "$3" --conf spark.task.maxFailures=1 --class record_limit "$JOBS" "$1" \
        >"$T/$1.out" 2>"$T/$1.err" || rc=$?
    [ $rc -ne 0 ] || fail "$1: exited 0 ($(cat "$T/$1.out"))"
    grep -q "$2: a record of .* bytes is $LIMIT" "$T/$1.err" ||
        fail "$1: no '$2 ... $LIMIT' in: $(tail -2 "$T/$1.err")"
    grep -q "SIGSEGV\|AddressSanitizer\|SIGBUS" "$T/$1.err" && fail "$1: crashed"
    return 0
}

refused emit cspark_emit 'local[2]'
refused emit_value cspark_emit 'local[2]'
refused reserve cspark_emit_reserve 'local[2]'
refused reserve_sum cspark_emit_reserve 'local[2]'
refused value cspark_value_resize 'local[2]'
refused parallelize parallelize 'local[2]'
refused aggregate_zero "aggregate_by_key zero value" 'local[2]'
refused fold_zero "fold zero value" 'local[2]'
# in an executor process too: the task fails, the executor lives on
refused emit cspark_emit 'local-cluster[1,1,512]'
grep -q "event=executor_lost" "$T/emit.err" && fail "local-cluster: the executor died"

out=$("$SUBMIT" --master 'local[2]' --class record_limit "$JOBS" ok 2>"$T/ok.err") ||
    fail "a 1 MiB record failed: $(tail -2 "$T/ok.err")"
assert_eq "len=1048576
rc=0" "$out" "a 1 MiB record"
echo "PASS record_lengths_over_32_bits"
