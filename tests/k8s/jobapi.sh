#!/usr/bin/env bash
# k8s/jobapi.sh — the job API of issue 13 on Kubernetes (kubesim, and the real control plane as
# k8s_jobapi_real): examples/weblog.so (client mode: top, count_by_value, its "malformed lines"
# accumulator equal to the count of malformed lines the generator wrote) and examples/invindex.so
# (cluster mode: whole_text_files) give the same output as local[2], and tests/jobs/pairops.so
# (client mode, 2 executor pods, spark.checkpoint.dir on the volume the pods share) agrees with
# the Python reference of tests/integration/pair_ops.py; nothing is left behind.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
PY=/usr/bin/python3
mkdir "$T/log" "$T/docs" "$T/pairs"
# an access log with malformed lines, documents for the index, the pair operations' input
awk 'BEGIN { srand(41); for (i = 0; i < 20000; i++) {
        if (i % 97 == 0) { print "malformed line " i; continue }
        h = int(rand() * 50); p = int(rand() * rand() * 300); s = (i % 13 == 0) ? 404 : 200
        printf "10.1.0.%d - - [10/Oct/2026:13:55:36 -0700] \"GET /p/%d HTTP/1.1\" %d %d\n", h, p, s, int(rand() * 9000)
    } }' >"$T/log/access.log"
"$BUILD/bin/gen_text" -s 35 400000 | split -l 200 - "$T/docs/doc"
$PY "$SRC/tests/integration/pair_ops.py" gen "$T/pairs"
L="$BUILD/bin/cspark-submit --master local[2]"
$L "$BUILD/examples/weblog.so" "$T/log" >"$T/weblog-ref.txt" 2>/dev/null
$L "$BUILD/examples/invindex.so" "$T/docs" "$T/inv-ref" >"$T/inv-ref.stdout" 2>/dev/null
[ -s "$T/weblog-ref.txt" ] && [ -f "$T/inv-ref/_SUCCESS" ] || { echo "FAIL: $K8S_TEST: local references failed" >&2; exit 1; }
# weblog on Kubernetes must equal this output, whose malformed count is the generator's
grep -qx "malformed $(grep -c '^malformed line' "$T/log/access.log")" "$T/weblog-ref.txt" ||
    { echo "FAIL: $K8S_TEST: weblog's malformed-lines accumulator: $(grep '^malformed' "$T/weblog-ref.txt")" >&2; exit 1; }

cat >"$T/inner.sh" <<INNER
SUBMIT="$BUILD/bin/cspark-submit"
COMMON=(--master "k8s://\$SERVER" --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.executor.instances=2 --conf spark.kubernetes.allocation.batch.delay=200ms
        --conf spark.kubernetes.report.interval=200ms)
timeout 240 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode client "$BUILD/examples/weblog.so" "$T/log" \
    >"$T/weblog.txt" 2>"$T/weblog.err" || { tail -5 "$T/weblog.err" >&2; fail "weblog in client mode failed"; }
cmp -s "$T/weblog.txt" "$T/weblog-ref.txt" || fail "weblog on Kubernetes differs from local[2]: \$(diff "$T/weblog.txt" "$T/weblog-ref.txt" | head -5)"
expect_nothing_left "after weblog"

timeout 240 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster "$BUILD/examples/invindex.so" "$T/docs" "$T/inv-k8s" \
    >/dev/null 2>"$T/inv.err" || { tail -5 "$T/inv.err" >&2; fail "invindex in cluster mode failed"; }
[ "\$(cat "$T"/inv-k8s/part-* | sort | md5sum)" = "\$(cat "$T"/inv-ref/part-* | sort | md5sum)" ] || fail "invindex on Kubernetes differs from local[2]"
kubectl delete pods --all >/dev/null

mkdir "$T/pairs/out"
timeout 300 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode client --conf spark.checkpoint.dir="$T/ckpt" \
    "$BUILD/tests/jobs/pairops.so" "$T/pairs/a.tsv" "$T/pairs/b.tsv" "$T/pairs/docs" "$T/pairs/out" \
    >/dev/null 2>"$T/pairs.err" || { tail -5 "$T/pairs.err" >&2; fail "pairops in client mode failed"; }
$PY "$SRC/tests/integration/pair_ops.py" check "$T/pairs" "$T/pairs/out" >"$T/pairs.check" ||
    fail "pair operations on Kubernetes differ from the reference: \$(head -5 "$T/pairs.check")"
grep -q "event=executor_registered executor=2" "$T/pairs.err" || fail "pairops ran without 2 executor pods"
expect_nothing_left "after pairops"
echo "inner ok"
INNER
k8s_run_inner 600
echo "PASS: $K8S_TEST"
