#!/usr/bin/env bash
# k8s/faults_api.sh — word count in cluster mode (3 executor pods) on a faulty kubesim: 10% of API
# requests fail with 500, 10% are throttled (429, Retry-After 1 s), every watch is cut after 2 s,
# and every resourceVersion is expired again and again while the job runs (watches resume, then
# re-list after 410), with the periodic full LIST every 2 s. The output equals local mode's; only
# the driver pod remains; no executor id was ever used by two pods.
# k8s-clusters: kubesim (fault injection through /kubesim/faults: the real API server has none)
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
"$BUILD/bin/gen_text" -s 7 300000 >"$T/text.txt"
"$BUILD/bin/cspark-submit" --master 'local[2]' "$BUILD/examples/wordcount.so" "$T/text.txt" "$T/ref" >/dev/null 2>"$T/ref.err"
cat "$T"/ref/part-* | sort >"$T/ref.txt"

cat >"$T/inner.sh" <<INNER
TOKEN=\$(kubectl config view --raw -o jsonpath='{.users[0].user.token}')
faults() { curl -sk -H "Authorization: Bearer \$TOKEN" -X POST "\$SERVER/kubesim/faults" -d "\$1" >/dev/null; }
faults '{"errorRate":0.1,"throttleRate":0.1,"retryAfterSeconds":1,"dropWatchAfterMs":2000}' || fail "cannot set faults"
curl -sk -H "Authorization: Bearer \$TOKEN" "\$SERVER/kubesim/faults" | grep -q '"errorRate": *0.1' || fail "faults not in effect"
( while :; do sleep 1.5; faults '{"expireVersions":true}' || true; done ) &
EXPIRER=\$!
rc=0
timeout 80 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode cluster --name faults-api \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=3 \
    --conf spark.kubernetes.allocation.batch.delay=200ms --conf spark.kubernetes.report.interval=500ms \
    --conf spark.kubernetes.executor.apiPollingInterval=2s --conf spark.kubernetes.executor.missingPodDetectDelta=5s \
    --conf cspark.kubernetes.client.maxAttempts=10 \
    "$BUILD/examples/wordcount.so" "$T/text.txt" "$T/out" >"$T/submit.out" 2>"$T/submit.err" || rc=\$?
kill \$EXPIRER 2>/dev/null; wait \$EXPIRER 2>/dev/null
# the job above makes only ~25 API requests, so it may by chance meet no 500 or no 429: probe the
# same faults with 300 more requests (a miss is then ~1e-13 likely) before checking /metrics
curl -sk -o /dev/null -H "Authorization: Bearer \$TOKEN" \$(for i in \$(seq 300); do printf '%s ' "\$SERVER/api/v1/namespaces/default/configmaps?probe=\$i"; done) || true
curl -sk -H "Authorization: Bearer \$TOKEN" -X DELETE "\$SERVER/kubesim/faults" >/dev/null
[ \$rc -eq 0 ] || { tail -20 "$T/submit.err" >&2; fail "cspark-submit exited \$rc"; }
cat "$T"/out/part-* | sort | cmp -s - "$T/ref.txt" || fail "output differs from local[2]"
drv=\$(kubectl get pods -l spark-role=driver -o name)
kubectl logs "\${drv#pod/}" >"$T/driver.log" 2>&1
grep -q "event=executor_registered executor=3" "$T/driver.log" || fail "driver log lacks 3 executors"
for _ in \$(seq 100); do [ "\$(kubectl get pods -o name)" = "\$drv" ] && break; sleep 0.2; done
[ "\$(kubectl get pods -o name)" = "\$drv" ] || fail "expected only the driver pod, got: \$(kubectl get pods -o name)"
left=\$(objects | grep -v "^pod/")
[ -z "\$left" ] || fail "left behind: \$left"
kubectl get --raw /kubesim/pod-history >"$T/hist.json"
/usr/bin/python3 - "$T/hist.json" <<'PY' || fail "duplicate executor pods in the pod history"
import collections, json, sys
names = [p["name"] for p in json.load(open(sys.argv[1]))["pods"] if "-exec-" in p["name"]]
dups = [n for n, c in collections.Counter(names).items() if c > 1]
print("executor pods:", len(names), "duplicates:", dups)
sys.exit(1 if dups or not names else 0)
PY
# the faults were really served: 500s and 429s (to the job and the probes)
m=\$(curl -sk "\$SERVER/metrics")
echo "\$m" | grep -q 'code="500"' && echo "\$m" | grep -q 'code="429"' || fail "no injected faults were served"
echo "inner ok"
INNER
k8s_run_inner 88
echo "PASS: $K8S_TEST"
