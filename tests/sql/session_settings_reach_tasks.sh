#!/usr/bin/env bash
# session_settings_reach_tasks.sh — SET in a cspark-sql session changes how the query's tasks
# evaluate, as in Spark (regression: the tasks read spark.sql.ansi.enabled and
# spark.sql.session.timeZone from the application's conf only, so SET changed nothing but
# constant folding). Expressions over range() rows are computed by the tasks, on local[2] and on
# local-cluster executors (the stage plan carries the session's settings):
#   - spark.sql.ansi.enabled=false: a long sum and int arithmetic that overflow wrap, as Spark's
#     non-ANSI arithmetic; with ANSI on (the default) the same query fails with
#     ARITHMETIC_OVERFLOW;
#   - spark.sql.session.timeZone: hour() and the string form of a timestamp follow the zone SET
#     last (UTC, then Asia/Tokyo, +09:00).
# Usage: session_settings_reach_tasks.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"

OVERFLOW="SELECT sum(id + 9223372036854775800), max(CAST(id + 2147483640 AS INT) + 100) FROM range(10)"
TS="CAST(concat('2024-01-01 0', CAST(id AS STRING), ':00:00Z') AS TIMESTAMP)"
HOURS="SELECT min(hour($TS)), max(CAST($TS AS STRING)) FROM range(2)"

for master in 'local[2]' 'local-cluster[2,1,1024]'; do
    rc=0
    TZ=UTC timeout 300 "$SQL" -S --master "$master" --conf spark.ui.enabled=false \
        --conf spark.sql.session.timeZone=UTC \
        -e "$HOURS; SET spark.sql.ansi.enabled=false; $OVERFLOW; SET spark.sql.session.timeZone=Asia/Tokyo; $HOURS" \
        >"$T/out" 2>"$T/err" || rc=$?
    [ $rc -eq 0 ] || fail "$master: cspark-sql exited $rc: $(tail -3 "$T/err")"
    want=$(printf '0\t2024-01-01 01:00:00\nspark.sql.ansi.enabled\tfalse\n-35\t-2147483547\nspark.sql.session.timeZone\tAsia/Tokyo\n9\t2024-01-01 10:00:00')
    assert_eq "$(cat "$T/out")" "$want" "$master: results after SET"

    # ANSI on (the session's default): the tasks raise Spark's overflow error
    rc=0
    TZ=UTC timeout 300 "$SQL" -S --master "$master" --conf spark.ui.enabled=false -e "$OVERFLOW" \
        >"$T/out" 2>"$T/err" || rc=$?
    [ $rc -eq 1 ] || fail "$master: ANSI overflow: exit status $rc, expected 1"
    grep -q '^\[ARITHMETIC_OVERFLOW\] ' "$T/err" || fail "$master: ANSI overflow: $(tail -1 "$T/err")"
done
echo "PASS: $TEST_NAME"
