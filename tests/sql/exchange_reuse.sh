#!/usr/bin/env bash
# exchange_reuse.sh — exchange reuse (Spark's ReuseExchangeAndSubquery and adaptive execution's
# stage cache; src/sql/exchange_reuse.c, src/session/query_adaptive.c) on TPC-H at scale 0.1
# (scripts/sql-testdata.sh), with spark.sql.autoBroadcastJoinThreshold=1m, which gives q21
# scale 1's plan: its l1 and l3 (lineitem under l_receiptdate > l_commitdate, projected to
# l_orderkey, l_suppkey) are one subtree shuffled twice by l_orderkey.
#   - adaptive execution off: EXPLAIN shows Spark's "ReusedExchange [l_orderkey, l_suppkey],
#     Exchange hashpartitioning(l_orderkey, 200), ..." in place of the second exchange, and q02's
#     region broadcast reused as Spark 4.0.1's EXPLAIN shows it ("ReusedExchange [r_regionkey],
#     BroadcastExchange HashedRelationBroadcastMode(...)"), and q07's nation broadcast, whose
#     filter n2 writes with its OR's operands the other way round (Spark canonicalizes both the
#     same); with spark.sql.exchange.reuse=false none is reused;
#   - the queries give Spark 4's answers (tests/sql/golden/tpch-sf0.1/, judged by compare.py)
#     with adaptive execution off and on, and the log shows the reuse each way (adaptive: one
#     map stage read by both of q21's joins, one region broadcast read by both of q02's).
# Usage: exchange_reuse.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"
HERE=$SRC/tests/sql
. "$(dirname "$0")/lib/tpch.sh"
tpch_views
run() { # NAME SQL_FILE CONF...: stdout to $T/NAME.out, the log to $T/NAME.err
    local name=$1 file=$2
    shift 2
    CSPARK_LOG_LEVEL=INFO TZ=UTC timeout 600 "$SQL" --master 'local[2]' \
        --conf spark.ui.enabled=false --conf spark.sql.session.timeZone=UTC \
        --conf spark.sql.autoBroadcastJoinThreshold=1m "$@" \
        -i "$T/views.sql" --output-format golden -f "$file" >"$T/$name.out" 2>"$T/$name.err" ||
        fail "cspark-sql -f $file ($name) failed: $(tail -n 3 "$T/$name.err")"
}
for q in q02 q07 q21; do
    { echo "EXPLAIN"; grep -v '^--' "$HERE/tpch/$q.sql"; } >"$T/explain_$q.sql"
done
NOAQE=(--conf spark.sql.adaptive.enabled=false)
run explain21 "$T/explain_q21.sql" "${NOAQE[@]}"
assert_contains "$T/explain21.out" \
    "+- ReusedExchange [l_orderkey, l_suppkey], Exchange hashpartitioning(l_orderkey, 200), ENSURE_REQUIREMENTS, [plan_id=" \
    "q21's l3 reads l1's exchange"
[ "$(grep -o 'Exchange hashpartitioning(l_orderkey, 200)' "$T/explain21.out" | wc -l)" == 3 ] ||
    fail "q21 should show l1's and l2's exchanges and the reused one"
run explain02 "$T/explain_q02.sql" "${NOAQE[@]}"
assert_contains "$T/explain02.out" \
    "ReusedExchange [r_regionkey], BroadcastExchange HashedRelationBroadcastMode(List(input[0, bigint, " \
    "q02's second region broadcast is the first one's, as Spark's"
run explain07 "$T/explain_q07.sql" "${NOAQE[@]}"
assert_contains "$T/explain07.out" \
    "ReusedExchange [n_nationkey, n_name], BroadcastExchange HashedRelationBroadcastMode(" \
    "q07's n2 broadcast is n1's, its filter's OR operands in the other order (Spark's Canonicalize)"
run explain21_off "$T/explain_q21.sql" "${NOAQE[@]}" --conf spark.sql.exchange.reuse=false
grep -q ReusedExchange "$T/explain21_off.out" && fail "spark.sql.exchange.reuse=false reused"
for q in q02 q07 q21; do
    run "$q" "$HERE/tpch/$q.sql" "${NOAQE[@]}"
    $PY "$HERE/compare.py" "$HERE/golden/tpch-sf0.1/$q.out" "$T/$q.out" ||
        fail "$q with its exchanges reused differs from Spark's answer"
    assert_contains "$T/$q.err" "event=exchange_reused plan_id=" "$q reads a reused exchange"
done
run q21_aqe "$HERE/tpch/q21.sql"
$PY "$HERE/compare.py" "$HERE/golden/tpch-sf0.1/q21.out" "$T/q21_aqe.out" ||
    fail "q21 with adaptive execution and its stage reused differs from Spark's answer"
assert_contains "$T/q21_aqe.err" "event=exchange_reused reused_by=" \
    "adaptive execution reads l1's map stage for l3"
run q02_aqe "$HERE/tpch/q02.sql"
$PY "$HERE/compare.py" "$HERE/golden/tpch-sf0.1/q02.out" "$T/q02_aqe.out" ||
    fail "q02 with adaptive execution and its broadcast reused differs from Spark's answer"
assert_contains "$T/q02_aqe.err" "event=exchange_reused reused_by=" \
    "adaptive execution reads the first region broadcast for the second"
run q21_aqe_off "$HERE/tpch/q21.sql" --conf spark.sql.exchange.reuse=false
grep -q 'event=exchange_reused' "$T/q21_aqe_off.err" && fail "spark.sql.exchange.reuse=false reused"
cmp -s "$T/q21_aqe.out" "$T/q21_aqe_off.out" || fail "q21's rows differ with and without reuse"
echo "PASS: $TEST_NAME"
