#!/usr/bin/env bash
# cache_computed_once.sh — a cached partition is computed once per executor even when two stages
# of one job need it at the same time (issue 20 item 7): tests/jobs/cachejobs.so cached_join
# joins two maps of one cached RDD, so both shuffle-map stages run each cached partition at
# once; an accumulator in the cached RDD's function counts its computations. Before block write
# locks it counted every partition twice (8 for 4 partitions); now the first task computes and
# stores the block while the other waits for it and reads it (Spark's BlockInfoManager):
#   * local[8,2] and local-cluster[1,8,1024] (one executor, so both stages' tasks share it): the
#     count is exactly the number of partitions, the join's result exact;
#   * the first computation fails after computing (its task retried): the waiting task is
#     released by that failure and computes the block itself; the job ends with the exact result
#     and one successful computation per partition, without hanging.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/cachejobs.so
need "$JOBS" "$BIN/cspark-executor"

PARTS=4
expected="computations=$PARTS joined=10000"
for master in 'local[8,2]' 'local-cluster[1,8,1024]'; do
    submit_ok "$master" --class cached_join "$JOBS" "$PARTS"
    assert_eq "$(cat "$T/stdout")" "$expected" "cached_join on $master"
    grep -q "event=block_wait" "$T/stderr" && log "$master: a task of the other stage waited for the block"

    mkdir -p "$T/marker-$master"
    submit_ok "$master" --class cached_join "$JOBS" "$PARTS" "$T/marker-$master"
    assert_eq "$(cat "$T/stdout")" "$expected" "cached_join with a failing writer on $master"
    [ -f "$T/marker-$master/failed-once" ] || fail "the failing computation did not run on $master"
done
echo "PASS: $TEST_NAME"
