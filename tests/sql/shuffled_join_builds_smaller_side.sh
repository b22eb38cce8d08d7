#!/usr/bin/env bash
# shuffled_join_builds_smaller_side.sh — adaptive execution lets a shuffled hash join that stays
# shuffled build the side whose shuffle came out smaller (src/session/adaptive_plan.c): inner, left
# semi and left anti joins, so that TPC-H q04's EXISTS builds its quarter's orders instead of
# the keys of every late lineitem (at scale 10 the lineitem build was 1.7 GB of the executors).
# With broadcasts off (spark.sql.autoBroadcastJoinThreshold=-1) every join of six TPC-H queries
# at scale 0.1 (scripts/sql-testdata.sh) is shuffled; they run on local[2] and must give Spark
# 4's answers (tests/sql/golden/tpch-sf0.1/, judged by compare.py), and the log must show q04's
# semi join building its left side. Usage: shuffled_join_builds_smaller_side.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"
HERE=$SRC/tests/sql
. "$(dirname "$0")/lib/tpch.sh"
tpch_views
for name in q03 q04 q18 q20 q21 q22; do
    CSPARK_LOG_LEVEL=INFO TZ=UTC timeout 600 "$SQL" --master 'local[2]' \
        --conf spark.ui.enabled=false --conf spark.sql.session.timeZone=UTC \
        --conf spark.sql.autoBroadcastJoinThreshold=-1 \
        -i "$T/views.sql" --output-format golden -f "$HERE/tpch/$name.sql" \
        >"$T/$name.out" 2>"$T/$name.err" ||
        fail "cspark-sql -f $name.sql failed: $(tail -n 3 "$T/$name.err")"
    $PY "$HERE/compare.py" "$HERE/golden/tpch-sf0.1/$name.out" "$T/$name.out" ||
        fail "$name with every join shuffled differs from Spark's answer"
    log "$name: $(grep -c 'event=shuffled_join_build' "$T/$name.err") join(s) built the other side"
done
assert_contains "$T/q04.err" "event=shuffled_join_build build=left" \
    "q04's semi join builds its orders, the smaller shuffle"
grep -q 'event=broadcast_join' "$T"/q*.err && fail "a join was broadcast with broadcasts off"
echo "PASS: $TEST_NAME"
