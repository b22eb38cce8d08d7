#!/usr/bin/env bash
# local_cluster_results.sh — task results above spark.task.maxDirectResultSize are kept by the
# executor and fetched by the driver (the answer is the same as in local mode), and
# spark.driver.maxResultSize fails the job with Spark's message.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/testjobs.so
need "$BIN/cspark-executor" "$JOBS"
want="records=200000 sum=59999700000"

out=$(timeout 120 "$SUBMIT" --master 'local[2]' --class big_collect "$JOBS" 2>"$T/err0") || fail "local run failed"
assert_eq "$want" "$out" "local result"
out=$(timeout 120 "$SUBMIT" --master 'local-cluster[2,1,1024]' --class big_collect "$JOBS" 2>"$T/err1") ||
    fail "local-cluster run failed: $(tail -3 "$T/err1")"
assert_eq "$want" "$out" "local-cluster result through indirect results"
[ "$(grep -c 'event=indirect_result' "$T/err1")" -eq 2 ] || fail "the two 1.8 MB results were not fetched indirectly"
# the same with everything inline
out=$(timeout 120 "$SUBMIT" --master 'local-cluster[2,1,1024]' --conf spark.task.maxDirectResultSize=64m \
    --class big_collect "$JOBS" 2>"$T/err2") || fail "inline run failed"
assert_eq "$want" "$out" "local-cluster result inline"
grep -q 'event=indirect_result' "$T/err2" && fail "results under maxDirectResultSize were fetched indirectly"

rc=0
timeout 120 "$SUBMIT" --master 'local-cluster[2,1,1024]' --conf spark.driver.maxResultSize=1m \
    --class big_collect "$JOBS" >/dev/null 2>"$T/err3" || rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] || fail "maxResultSize: exit $rc"
last=$(tail -1 "$T/err3")
case "$last" in
*"Total size of serialized results of 1 tasks ("*" MiB) is bigger than spark.driver.maxResultSize (1.0 MiB)"*) ;;
*) fail "maxResultSize: unexpected error: $last" ;;
esac
# many stages (PageRank, 40 iterations: ~43 stage attempts, one shuffle per iteration since its
# joins read links and ranks narrowly) cross the executors' and driver's plan caches (32 plans):
# plans are evicted and re-sent while the answer stays the same
"$BIN/gen_graph" -s 5 500 3000 >"$T/graph.txt"
timeout 120 "$SUBMIT" --master 'local[2]' "$EX/pagerank.so" "$T/graph.txt" 40 "$T/pr-local" >/dev/null 2>"$T/pr0" || fail "local pagerank failed"
timeout 120 "$SUBMIT" --master 'local-cluster[2,1,1024]' "$EX/pagerank.so" "$T/graph.txt" 40 "$T/pr-cluster" >/dev/null 2>"$T/pr1" ||
    fail "local-cluster pagerank failed: $(tail -3 "$T/pr1")"
[ "$(grep -c 'event=submitted' "$T/pr1")" -gt 40 ] || fail "pagerank ran fewer stages than the caches hold"
assert_eq "$(cat "$T"/pr-cluster/part-* | sort | md5sum)" "$(cat "$T"/pr-local/part-* | sort | md5sum)" "40-iteration pagerank"
echo "PASS: $TEST_NAME"
