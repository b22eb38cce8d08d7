#!/usr/bin/env bash
# pair_ops.sh — the operations of issue 13 (map_values ... whole_text_files, top, take_ordered,
# count_by_key, collect_as_map, sample, random_split, zip_with_index, the tuple and list
# encodings) against a reference computed in Python (pair_ops.py, which also reproduces the
# sample draws), in local[2,4] and in local-cluster[2,1,1024] (executor processes, network
# shuffle). The job's functions fail the first attempt of partition 1, so the results are those
# of retried tasks too; on local-cluster an executor also dies mid-job (SIGKILL from inside a
# task). Bad arguments: pair_ops_bad_input.sh.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
APP=$BUILD/tests/jobs/pairops.so
need "$APP" "$BIN/cspark-executor"
mkdir "$T/tmp"
export TMPDIR="$T/tmp"
$PY "$SRC/tests/integration/pair_ops.py" gen "$T" || fail "cannot generate the input"

for master in 'local[2,4]' 'local-cluster[2,1,1024]'; do
    out="$T/out-${master%%[*}"
    mkdir "$out"
    SUBMIT_OPTS=(--conf "spark.checkpoint.dir=$T/ckpt")
    # on local-cluster, the executor of the first task of partition 2 that parses a.tsv kills
    # itself: the job must still give the reference's results
    [[ "$master" == local-cluster* ]] && touch "$out/kill-executor"
    submit_ok "$master" "$APP" "$T/a.tsv" "$T/b.tsv" "$T/docs" "$out"
    if [[ "$master" == local-cluster* ]]; then
        [ ! -e "$out/kill-executor" ] || fail "$master: no executor was killed"
        grep -q "event=executor_lost" "$T/stderr" || fail "$master: the driver saw no executor lost"
    fi
    ls "$T"/ckpt/*/rdd-*/part-00001 >/dev/null 2>&1 || fail "$master: no checkpoint files"
    ls -a "$T"/ckpt/*/rdd-*/ | grep -q '^\.part' && fail "$master: attempt files left in the checkpoint"
    grep -q "planned failure of the first attempt of partition 1" "$T/stderr" ||
        fail "$master: no task was retried"
    $PY "$SRC/tests/integration/pair_ops.py" check "$T" "$out" >"$T/check" ||
        { cat "$T/check" >&2; fail "$master: results differ from the reference"; }
    log "$master: $(cat "$T/check")"
done
assert_eq "0" "$(find "$T/tmp" -mindepth 1 | wc -l)" "entries left in the local directories"
echo "PASS: $TEST_NAME"
