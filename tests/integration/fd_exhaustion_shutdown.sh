#!/usr/bin/env bash
# fd_exhaustion_shutdown.sh — a task that leaks every file descriptor (issue 10 item 23) fails
# cleanly, and the shutdown after it does not abort with "libgcc_s.so.1 must be installed for
# pthread_cancel to work": pthread_cancel loads libgcc_s with dlopen to unwind, which fails
# without a free descriptor. libcspark therefore never calls pthread_cancel (checked on its
# imports, which holds whatever libraries the build happens to link), and the job ends with
# one line naming the task's error and nothing left behind.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
mkdir "$T/tmp"
export TMPDIR="$T/tmp"
JOBS=$BUILD/tests/jobs/badjobs.so
LIB=$BUILD/lib/libcspark.so
need "$JOBS" "$LIB"
command -v nm >/dev/null || fail "nm (binutils) is needed"
imports=$(nm -D --undefined-only "$LIB") || fail "nm failed on $LIB"
grep -q "pthread_" <<<"$imports$(nm "$BUILD/lib/libcspark.so" 2>/dev/null)" ||
    grep -q "pthread_" <<<"$(nm -D "$LIB")" || fail "nm shows no pthread symbol at all: check broken"
grep -qw "pthread_cancel" <<<"$imports" && fail "libcspark imports pthread_cancel"

SUBMIT_OPTS=(--conf spark.ui.enabled=false --class fd_exhaustion)
for m in 'local[1]' 'local-cluster[1,1,256]'; do
    rc=0
    (ulimit -n 96 && run_submit "$m" "$JOBS") || rc=$?
    assert_eq "$rc" 1 "$m: exit status"
    grep -q "libgcc_s\|Aborted\|SIGABRT" "$T/stderr" && fail "$m: shutdown aborted: $(tail -3 "$T/stderr")"
    tail -1 "$T/stderr" | grep -q "^cspark-submit: Job aborted due to stage failure: .*leak_fds: out of file descriptors" ||
        fail "$m: last line: $(tail -1 "$T/stderr")"
    left=$(find "$T/tmp" -mindepth 1 | head -3)
    [ -z "$left" ] || fail "$m: left behind: $left"
done
echo "PASS: $TEST_NAME"
