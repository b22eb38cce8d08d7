#!/usr/bin/env bash
# k8s/submit_kill.sh — cspark-submit --status / --kill on kubesim (process kubelet, image cspark:dev):
# `namespace:name` and globs, no namespace = the kubeconfig context's, only spark-role=driver pods match,
# no match = one clear line and exit 1, spark.kubernetes.appKillPodDeletionGracePeriod, and killing a
# real cluster-mode application (driver + executor pod) leaves nothing of it behind (ownerReferences);
# deleting a driver pod with grace 0 (its process SIGKILLed, no cleanup) leaves nothing either: the
# garbage collector removes what the driver owns.
# Fails when --kill/--status are missing. Bounded waits only, each on the clock and named (wait_until).
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"

cat >"$T/inner.sh" <<INNER
SUBMIT="$BUILD/bin/cspark-submit"
M=(--master "k8s://\$SERVER")
pod() { # pod NS NAME ROLE: a sleeping pod with Spark's role label that ignores SIGTERM (so only a
    # deletion with grace 0 removes it at once; the default grace would keep it 30 s)
    kubectl create -f - >/dev/null <<EOF
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"\$2","namespace":"\$1","labels":{"spark-role":"\$3","spark-app-selector":"spark-\$2"}},
 "spec":{"restartPolicy":"Never","terminationGracePeriodSeconds":30,"containers":[{"name":"spark-kubernetes-driver","image":"cspark:dev","command":["sh","-c","trap '' TERM; sleep 300"]}]}}
EOF
}

step "fixtures: two drivers and an executor in namespace spark"
kubectl create namespace spark >/dev/null || fail "cannot create namespace"
pod spark spark-pi-1-driver driver; pod spark spark-pi-2-driver driver; pod spark spark-pi-3-exec-1 executor
pod spark other-driver driver
running() { [ "\$(kubectl get pods -n spark --field-selector=status.phase=Running -o name | grep -c .)" -eq 4 ]; }
wait_until 120 "the 4 fixture pods to be Running" running || fail "fixture pods not Running: \$(kubectl get pods -n spark)"

step "--status with namespace and glob"
"\$SUBMIT" "\${M[@]}" --status 'spark:spark-pi*' >"$T/st.out" 2>"$T/st.err" || fail "--status failed: \$(cat "$T/st.err")"
[ "\$(grep -c 'Application status (driver):' "$T/st.out")" -eq 2 ] || fail "--status glob: expected 2 pods: \$(cat "$T/st.out")"
grep -q 'pod name: spark-pi-1-driver' "$T/st.out" && grep -q 'pod name: spark-pi-2-driver' "$T/st.out" ||
    fail "--status lacks the matching drivers"
! grep -q 'exec-1\|other-driver' "$T/st.out" || fail "--status matched a non-driver or non-matching pod"
grep -q 'namespace: spark' "$T/st.out" && grep -q 'phase: Running' "$T/st.out" && grep -q 'start time: ' "$T/st.out" &&
    grep -q 'container state: running' "$T/st.out" || fail "--status lacks namespace/phase/start time/container state: \$(cat "$T/st.out")"

# no match: an executor name (only drivers match), a missing pattern, a pod in another namespace
for id in spark:spark-pi-3-exec-1 'spark:nothing*' spark-pi-1-driver; do
    rc=0; "\$SUBMIT" "\${M[@]}" --status "\$id" >"$T/nm.out" 2>"$T/nm.err" || rc=\$?
    [ \$rc -eq 1 ] && [ "\$(wc -l <"$T/nm.err")" -eq 1 ] && grep -q 'no driver pod' "$T/nm.err" ||
        fail "--status \$id: expected one line and exit 1, got \$rc: \$(cat "$T/nm.err")"
done
rc=0; "\$SUBMIT" "\${M[@]}" --kill 'spark:nothing*' >/dev/null 2>"$T/nk.err" || rc=\$?
[ \$rc -eq 1 ] && grep -q 'no driver pod' "$T/nk.err" || fail "--kill without match: \$rc \$(cat "$T/nk.err")"
# malformed id and a master that is not Kubernetes
rc=0; "\$SUBMIT" "\${M[@]}" --kill ':x' >/dev/null 2>"$T/bad.err" || rc=\$?
[ \$rc -eq 1 ] && grep -q 'invalid submission id' "$T/bad.err" || fail "malformed id: \$rc \$(cat "$T/bad.err")"
rc=0; "\$SUBMIT" --master 'local[2]' --kill 'spark:x' >/dev/null 2>"$T/loc.err" || rc=\$?
[ \$rc -eq 1 ] && grep -q 'needs a Kubernetes master' "$T/loc.err" || fail "local master: \$rc \$(cat "$T/loc.err")"

step "--kill with the glob and grace 0"
# both drivers go at once, the executor and the other driver stay
"\$SUBMIT" "\${M[@]}" --conf spark.kubernetes.appKillPodDeletionGracePeriod=0 --kill 'spark:spark-pi*' \
    >"$T/k.out" 2>"$T/k.err" || fail "--kill failed: \$(cat "$T/k.err")"
[ "\$(grep -c '^Deleting driver pod spark:spark-pi-[12]-driver' "$T/k.out")" -eq 2 ] || fail "--kill output: \$(cat "$T/k.out")"
gone() { [ "\$(kubectl get pods -n spark -o name | sort | tr '\n' ' ')" = "pod/other-driver pod/spark-pi-3-exec-1 " ]; }
wait_until 60 "the two killed driver pods to be gone" gone || fail "after --kill expected other-driver and the executor only: \$(kubectl get pods -n spark -o name)"
# grace 0 really was used (the pods ignore SIGTERM: with the default 30 s they would still be there)
pod_history | /usr/bin/python3 -c '
import json, sys
for p in json.load(sys.stdin)["pods"]:
    if p["name"] in ("spark-pi-1-driver", "spark-pi-2-driver"):
        assert p.get("deletedMs") and p["deletedMs"] - p["deletionRequestedMs"] < 5000, p
' || fail "grace 0 not honoured"
kubectl delete pods -n spark --all --grace-period=0 --force >/dev/null 2>&1

step "a cluster-mode application killed by name without namespace"
"\$SUBMIT" "\${M[@]}" --deploy-mode cluster --name 'Kill Me' --class slow \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=1 \
    --conf spark.kubernetes.submission.waitAppCompletion=false --conf spark.kubernetes.allocation.batch.delay=200ms \
    "$BUILD/tests/jobs/testjobs.so" 60000 >"$T/sub.out" 2>"$T/sub.err" || fail "submission failed: \$(cat "$T/sub.err")"
DRIVER=\$(kubectl get pods -l spark-role=driver -o jsonpath='{.items[0].metadata.name}')
case "\$DRIVER" in kill-me-*-driver) ;; *) fail "unexpected driver pod name '\$DRIVER'" ;; esac
has_exec() { kubectl get pods -l spark-role=executor --field-selector=status.phase=Running -o name | grep -q .; }
wait_until 180 "the application's executor pod to be Running" has_exec || fail "the application's executor pod did not start: \$(kubectl get pods)"
"\$SUBMIT" "\${M[@]}" --status "\$DRIVER" >"$T/st2.out" 2>"$T/st2.err" || fail "--status \$DRIVER: \$(cat "$T/st2.err")"
grep -q "pod name: \$DRIVER" "$T/st2.out" && grep -q 'namespace: default' "$T/st2.out" && grep -q 'phase: Running' "$T/st2.out" ||
    fail "--status of the running driver: \$(cat "$T/st2.out")"
"\$SUBMIT" "\${M[@]}" --kill 'kill-me-*' >"$T/k2.out" 2>"$T/k2.err" || fail "--kill kill-me-*: \$(cat "$T/k2.err")"
grep -q "^Deleting driver pod default:\$DRIVER (application spark-" "$T/k2.out" || fail "--kill output: \$(cat "$T/k2.out")"
empty() { [ -z "\$(objects 2>/dev/null)" ]; }
wait_until 120 "the killed application's objects to be gone" empty || fail "after killing the driver, left behind: \$(objects)"

step "the garbage collector removes an application whose driver cannot clean up"
# the garbage collector, not cspark, removes it: every
# object it made is owned by the driver pod, which is removed at once (grace 0: SIGKILL)
"\$SUBMIT" "\${M[@]}" --deploy-mode cluster --name gc-me --class slow \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=2 \
    --conf spark.kubernetes.submission.waitAppCompletion=false --conf spark.kubernetes.allocation.batch.delay=200ms \
    "$BUILD/tests/jobs/testjobs.so" 60000 >"$T/gc.out" 2>"$T/gc.err" || fail "submission failed: \$(cat "$T/gc.err")"
DRIVER=\$(kubectl get pods -l spark-role=driver -o jsonpath='{.items[0].metadata.name}')
two_exec() { [ "\$(kubectl get pods -l spark-role=executor --field-selector=status.phase=Running -o name | grep -c .)" -eq 2 ]; }
wait_until 180 "the application's 2 executor pods to be Running" two_exec || fail "the executors did not start: \$(kubectl get pods)"
uid=\$(kubectl get pod "\$DRIVER" -o jsonpath='{.metadata.uid}')
owned=\$(objects | grep -v "^pod/\$DRIVER\$")
[ "\$(echo "\$owned" | grep -c '^pod/')" -eq 2 ] && echo "\$owned" | grep -q '^configmap/' && echo "\$owned" | grep -q '^secret/' &&
    echo "\$owned" | grep -q '^service/' || fail "expected executor pods, a ConfigMap, a Secret and a Service: \$owned"
for o in \$owned; do
    [ "\$(kubectl get "\$o" -o jsonpath='{.metadata.ownerReferences[0].uid}')" = "\$uid" ] || fail "\$o is not owned by the driver pod"
done
kubectl delete pod "\$DRIVER" --grace-period=0 --force >/dev/null 2>&1
wait_until 120 "the garbage collector to remove what the driver owned" empty || fail "after deleting the driver pod (grace 0), the garbage collector left: \$(objects)"
echo "inner ok"
INNER
k8s_run_inner 300
echo "PASS: $K8S_TEST"
