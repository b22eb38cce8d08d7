#!/usr/bin/env bash
# local_sql_error_fails_at_once.sh — a deterministic SQL error (DIVIDE_BY_ZERO raised by a task)
# fails the query at the first attempt on local[2], as Spark's local mode runs a task once
# (regression: cspark retried it spark.task.maxFailures = 4 times before failing); local[2,3]
# asks for 3 attempts and gets them. The attempts are counted from the scheduler's
# event=task_failed log lines.
# Usage: local_sql_error_fails_at_once.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"

QUERY="SELECT sum(id DIV (id - id)) FROM range(1)"
for case in 'local[2] 1' 'local[2,3] 3'; do
    set -- $case
    rc=0
    CSPARK_LOG_LEVEL=warn timeout 300 "$SQL" -S --master "$1" --conf spark.ui.enabled=false \
        -e "$QUERY" >"$T/out" 2>"$T/err" || rc=$?
    [ $rc -eq 1 ] || fail "$1: exit status $rc, expected 1"
    grep -q '^\[DIVIDE_BY_ZERO\] ' "$T/err" || fail "$1: no DIVIDE_BY_ZERO line in: $(tail -2 "$T/err")"
    assert_eq "$(grep -c 'event=task_failed' "$T/err")" "$2" "$1: attempts of the failing task"
done
echo "PASS: $TEST_NAME"
