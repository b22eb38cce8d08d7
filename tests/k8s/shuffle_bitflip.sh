#!/usr/bin/env bash
# k8s/shuffle_bitflip.sh — issue 10 item 15 on Kubernetes (kubesim, process kubelet, client mode,
# two executor pods). A shuffle block damaged by one bit is detected by its checksum, its map
# output recomputed, and the result is exact:
#  - on an executor's disk, between two jobs that share the shuffle (testjobs.so
#    bitflip_between_jobs; the executors' local dirs are a hostPath volume named
#    spark-local-dir-1, which the driver reaches);
#  - on the wire between the executor pods (tests/fault/wire_bitflip.c preloaded through
#    spark.executorEnv.LD_PRELOAD damages the first BlockData frame of 64 KiB or more).
# Nothing is left in the namespace after either run.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
"$BUILD/bin/gen_text" -s 17 3000000 >"$T/text.txt"
want=$(awk '{ for (i = 1; i <= NF; i++) { c[$i]++; n++ } } END { print "keys=" length(c) " total=" n }' "$T/text.txt")
"$BUILD/bin/cspark-submit" --master 'local[2]' "$BUILD/examples/wordcount.so" "$T/text.txt" "$T/ref" \
    >"$T/ref.out" 2>/dev/null || { echo "FAIL: k8s_shuffle_bitflip: local[2] reference failed" >&2; exit 1; }
cat "$T"/ref/part-* | sort >"$T/ref.txt"
mkdir -m 777 "$T/exec-local"

cat >"$T/inner.sh" <<INNER
COMMON=(--master "k8s://\$SERVER" --deploy-mode client --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.executor.instances=2 --conf spark.kubernetes.allocation.batch.delay=200ms)

# on disk, between two jobs
timeout 150 "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --name bitflip-disk --conf spark.shuffle.compress=false \
    --conf spark.kubernetes.executor.volumes.hostPath.spark-local-dir-1.mount.path=/var/data/cspark-local \
    --conf spark.kubernetes.executor.volumes.hostPath.spark-local-dir-1.options.path="$T/exec-local" \
    --class bitflip_between_jobs "$BUILD/tests/jobs/testjobs.so" "$T/text.txt" "$T/exec-local" last \
    >"$T/disk.out" 2>"$T/disk.err" || { tail -5 "$T/disk.err" >&2; fail "disk: the job failed"; }
grep -q "bitflip_between_jobs: flipped" "$T/disk.err" || fail "disk: no bit was flipped"
[ "\$(cat "$T/disk.out")" = "$want" ] || fail "disk: counts \$(cat "$T/disk.out"), want $want"
grep -q "checksum mismatch" "$T/disk.err" || fail "disk: the damaged block was not detected"
grep -q 'event=resubmit reason="FetchFailed' "$T/disk.err" || fail "disk: the map output was not recomputed"
expect_nothing_left "after the disk run"

# on the wire between executor pods
timeout 150 "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --name bitflip-wire \
    --conf spark.executorEnv.LD_PRELOAD="$BUILD/tests/wire_bitflip.so" \
    --conf spark.executorEnv.CSPARK_TEST_WIRE_FLIP="$T/flipped" \
    --conf spark.executorEnv.ASAN_OPTIONS=verify_asan_link_order=0 \
    "$BUILD/examples/wordcount.so" "$T/text.txt" "$T/wire" >"$T/wire.out" 2>"$T/wire.err" ||
    { tail -5 "$T/wire.err" >&2; fail "wire: the job failed"; }
[ -e "$T/flipped" ] || fail "wire: no frame was damaged"
grep -q "checksum mismatch" "$T/wire.err" || fail "wire: the damaged block was not detected"
grep -q 'event=resubmit reason="FetchFailed' "$T/wire.err" || fail "wire: the map output was not recomputed"
cmp -s "$T/ref.out" "$T/wire.out" || fail "wire: summary differs from local[2]: \$(head -1 "$T/wire.out")"
cat "$T"/wire/part-* | sort | cmp -s - "$T/ref.txt" || fail "wire: saved counts differ from local[2]"
expect_nothing_left "after the wire run"
echo "inner ok"
INNER
k8s_run_inner 300
echo "PASS k8s_shuffle_bitflip"
