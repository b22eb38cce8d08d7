#!/usr/bin/env bash
# k8s/python_cluster.sh — a PySpark program as a cluster-mode application on Kubernetes
# (`cspark-submit --deploy-mode cluster job.py`, Spark 4's spark.api.mode=connect): the program
# (tests/k8s/python_job/job.py, unchanged PySpark) and its --py-files module travel in the
# driver's ConfigMap (then, in a second run, through a file: spark.kubernetes.file.upload.path
# every pod shares: removed when the application ends; in a third, from the tests' S3 server as
# an s3a:// --py-files entry, which the driver pod and the executor pods fetch themselves); the
# driver pod serves Spark Connect on its loopback and runs the program
# with the image's python3 and PySpark client; spark.executor.instances=3 executor pods run its
# join, groupBy and Python UDF (whose workers import the --py-files module there). The program
# checks its answers in plain Python and prints them to the driver's log; its exit status is
# cspark-submit's (0, then 3), the event log shows tasks on the 3 executors, and once the
# driver pod is deleted nothing of the application is left. Bad input: a .py that does not
# exist and a --py-files entry that does not exist are one line each with nothing created; an
# interpreter the image does not have (spark.pyspark.python) fails the driver pod with that one
# line as its termination message, cspark-submit exits 1 and no executor pod is made.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
JOB=$SRC/tests/k8s/python_job
mkdir -p "$T/job" "$T/events" "$T/shared"
cp "$JOB/job.py" "$JOB/bonus.py" "$T/job/" # shipped from here: no pod reads the source tree
chmod 1777 "$T/events" "$T/shared"

"$SRC/tools/s3/build.sh" "$BUILD" >/dev/null || { echo "FAIL: $K8S_TEST: cannot build the S3 server" >&2; exit 1; }

cat >"$T/inner.sh" <<INNER
# the tests' S3 server, inside the cluster's network; pods reach it at the node's address
. "$SRC/tests/s3/lib/s3.sh"
trap 's3_server_stop; kill \${PH_PID:-} 2>/dev/null' EXIT
S3_BIND=0.0.0.0 s3_server_start "$BUILD" || fail "cannot start the S3 server"
NODE_IP=\$(ip -4 -o addr show scope global | awk '{ sub(/\/.*/, "", \$4); print \$4; exit }')
[ -n "\$NODE_IP" ] || fail "no address pods can reach the S3 server at"
export AWS_ENDPOINT_URL=http://\$NODE_IP:\$S3_PORT
S3=(--conf spark.hadoop.fs.s3a.endpoint=\$AWS_ENDPOINT_URL --conf spark.hadoop.fs.s3a.access.key=\$AWS_ACCESS_KEY_ID
    --conf spark.hadoop.fs.s3a.secret.key=\$AWS_SECRET_ACCESS_KEY --conf spark.hadoop.fs.s3a.path.style.access=true)
RUN=(--master "k8s://\$SERVER" --deploy-mode cluster --conf spark.kubernetes.container.image=cspark:dev
     --conf spark.kubernetes.allocation.batch.delay=200ms --conf spark.kubernetes.report.interval=1s
     --conf spark.sql.shuffle.partitions=6)

step "job.py in cluster mode, 3 executor pods"
timeout 480 "$BUILD/bin/cspark-submit" "\${RUN[@]}" --name pyspark-job --conf spark.executor.instances=3 \
    --conf spark.eventLog.enabled=true --conf spark.eventLog.dir=file://$T/events \
    --conf spark.eventLog.compress=false --conf spark.eventLog.rolling.enabled=false \
    --py-files "$T/job/bonus.py" "$T/job/job.py" 20000 0 >"$T/cluster.out" 2>"$T/cluster.err" ||
    { tail -15 "$T/cluster.err" >&2; fail "the PySpark application failed"; }
pod=\$(kubectl get pods -o name | grep -- '-driver\$') || fail "no driver pod after the application"
kubectl logs "\${pod#pod/}" >"$T/driver.log" || fail "cannot read the driver's log"
grep '^job: ' "$T/driver.log" >&2
grep -qx 'job: ok' "$T/driver.log" || { tail -20 "$T/driver.log" >&2; fail "the program's answers are wrong or missing"; }
ev=\$(ls "$T"/events/* 2>/dev/null | head -1)
[ -n "\$ev" ] || fail "no event log in $T/events"
execs=\$(/usr/bin/python3 -c '
import json, sys
ids = set()
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("Event") == "SparkListenerTaskEnd":
        ids.add(e["Task Info"]["Executor ID"])
print(" ".join(sorted(ids)))' "\$ev")
[ "\$execs" = "1 2 3" ] || fail "tasks ran on executors '\$execs', want 1 2 3"
nexec=\$(pod_history | /usr/bin/python3 -c '
import json, sys
print(len([p for p in json.load(sys.stdin)["pods"] if "-exec-" in p["name"]]))') || fail "no pod history"
[ "\$nexec" -eq 3 ] || fail "\$nexec executor pods were made, want 3"
kubectl delete pods --all >/dev/null
expect_nothing_left "after the PySpark application"
echo "ok cluster mode: answers right, tasks on executors \$execs (\$nexec executor pods)"

step "the program and its --py-files through a file: spark.kubernetes.file.upload.path"
timeout 300 "$BUILD/bin/cspark-submit" "\${RUN[@]}" --conf spark.executor.instances=1 \
    --conf spark.kubernetes.file.upload.path=file://$T/shared \
    --py-files "$T/job/bonus.py" "$T/job/job.py" 1000 0 >"$T/upload.out" 2>"$T/upload.err" ||
    { tail -5 "$T/upload.err" >&2; fail "the uploaded PySpark application failed"; }
grep -q 'event=uploaded' "$T/upload.err" || fail "upload path: nothing was uploaded"
pod=\$(kubectl get pods -o name | grep -- '-driver\$') || fail "no driver pod after the uploaded application"
kubectl logs "\${pod#pod/}" | grep -qx 'job: ok' || fail "upload path: the program's answers are wrong or missing"
[ -z "\$(ls -A "$T/shared")" ] || fail "upload path: uploaded files left: \$(ls -A "$T/shared")"
kubectl delete pods --all >/dev/null
expect_nothing_left "after the uploaded application"
echo "ok upload path"

step "the --py-files module from s3a://: the driver pod and the executor pod fetch it"
s3_mb pyfiles || fail "cannot create bucket pyfiles"
s3_put "$T/job/bonus.py" pyfiles/lib/bonus.py || fail "cannot put bonus.py"
timeout 300 "$BUILD/bin/cspark-submit" "\${RUN[@]}" "\${S3[@]}" --conf spark.executor.instances=1 \
    --py-files s3a://pyfiles/lib/bonus.py "$T/job/job.py" 1000 0 >"$T/s3.out" 2>"$T/s3.err" ||
    { tail -5 "$T/s3.err" >&2; fail "the PySpark application with s3a:// --py-files failed"; }
pod=\$(kubectl get pods -o name | grep -- '-driver\$') || fail "no driver pod after the s3a:// application"
kubectl logs "\${pod#pod/}" | grep -qx 'job: ok' || fail "s3a:// --py-files: the program's answers are wrong or missing"
kubectl delete pods --all >/dev/null
expect_nothing_left "after the s3a:// application"
echo "ok s3a:// --py-files"

step "the program's exit status is cspark-submit's"
rc=0
timeout 300 "$BUILD/bin/cspark-submit" "\${RUN[@]}" --conf spark.executor.instances=1 \
    --py-files "$T/job/bonus.py" "$T/job/job.py" 100 3 >"$T/status.out" 2>"$T/status.err" || rc=\$?
[ \$rc -eq 3 ] || { tail -5 "$T/status.err" >&2; fail "program exiting 3: cspark-submit exited \$rc"; }
pod=\$(kubectl get pods -o name | grep -- '-driver\$') || fail "no driver pod after the application exiting 3"
kubectl logs "\${pod#pod/}" | grep -qx 'job: ok' || fail "exit status 3: the program did not run to its end"
kubectl delete pods --all >/dev/null
expect_nothing_left "after the application exiting 3"
echo "ok exit status 3"

step "refusals"
# refused CASE PATTERN ARGS...: one line matching PATTERN, a non-zero exit, nothing created
refused() {
    local case=\$1 pat=\$2 rc=0; shift 2
    timeout 120 "$BUILD/bin/cspark-submit" "\${RUN[@]}" "\$@" >"$T/out" 2>"$T/err" || rc=\$?
    [ \$rc -eq 1 ] || fail "\$case: exit status \$rc, want 1: \$(cat "$T/err")"
    [ "\$(grep -c . "$T/err")" -eq 1 ] || fail "\$case: expected one line on stderr, got: \$(cat "$T/err")"
    grep -Eq -- "\$pat" "$T/err" || fail "\$case: message does not match /\$pat/: \$(cat "$T/err")"
    [ -z "\$(objects)" ] || fail "\$case: left objects: \$(objects)"
    echo "ok \$case: \$(cat "$T/err")"
}
refused "a missing program" "^cspark-submit: cannot read the Python application $T/job/nope.py: No such file" \
    "$T/job/nope.py"
refused "a missing --py-files entry" "^cspark-submit: spark.submit.pyFiles entry '$T/job/gone.py' cannot be read" \
    --py-files "$T/job/gone.py" "$T/job/job.py" 10 0

step "an interpreter the image does not have"
rc=0
timeout 300 "$BUILD/bin/cspark-submit" "\${RUN[@]}" --conf spark.executor.instances=1 \
    --conf spark.pyspark.python=/usr/bin/python2.7 "$T/job/job.py" 10 0 >"$T/nopy.out" 2>"$T/nopy.err" || rc=\$?
[ \$rc -eq 1 ] || fail "no interpreter: cspark-submit exited \$rc, want 1: \$(tail -3 "$T/nopy.err")"
grep -q "^cspark-submit: driver pod .*-driver failed with exit code 1" "$T/nopy.err" ||
    fail "no interpreter: no failed driver reported: \$(tail -3 "$T/nopy.err")"
msg=\$(sed -n '/its termination message:/,\$p' "$T/nopy.err" | tail -n +2)
[ "\$(echo "\$msg" | grep -c .)" -eq 1 ] || fail "no interpreter: the termination message is not one line: \$msg"
echo "\$msg" | grep -q "^cspark-submit: no Python interpreter '/usr/bin/python2.7' (from spark.pyspark.python)" ||
    fail "no interpreter: termination message: \$msg"
kubectl get pods -o name | grep -q -- '-exec-' && fail "no interpreter: executor pods were made"
kubectl delete pods --all >/dev/null
expect_nothing_left "after the driver without an interpreter"
echo "ok no interpreter: \$msg"
echo "inner ok"
INNER
k8s_run_inner 900
echo "PASS $K8S_TEST"
