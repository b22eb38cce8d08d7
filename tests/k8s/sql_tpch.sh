#!/usr/bin/env bash
# k8s/sql_tpch.sh — Spark SQL on Kubernetes: the 22 TPC-H queries at scale 0.1 (the Parquet files
# of scripts/sql-testdata.sh, read by every pod from the tests' S3 server as s3a:// paths) run as
# one SQL file submitted as a cluster-mode application (`cspark-submit --deploy-mode cluster
# tpch.sql --output-format golden`: the file travels in the driver's ConfigMap — in a second,
# smaller application through spark.kubernetes.file.upload.path on S3 — the driver pod
# runs its statements as cspark-sql -f and prints the results to its log) with
# spark.executor.instances=3; every answer equals Spark 4's golden (tests/sql/golden/tpch-sf0.1,
# judged by known_judge.py against tests/sql/tpch_sf01.known), the event log shows tasks on each
# of the 3 executors, and once the driver pod is deleted nothing of the application is left; a
# SQL application whose statement fails ends its driver pod with exit code 1, the statement's
# error in the termination message cspark-submit prints, no later statement run. Then
# cspark-sql in client mode (`--master k8s://...`, the driver here, 2 executor pods) answers two
# of the queries as Spark does and leaves nothing behind; a Ctrl-C while its query's tasks run on
# the pods cancels the query (SPARK_JOB_CANCELLED), ends cspark-sql with 130 and leaves no pod
# (the seconds from the signal to the exit are printed, not judged). A few statements are refused
# as Spark's CLI refuses them: cspark-sql with --deploy-mode cluster, an option after the SQL file
# that is not cspark-sql's, a SQL file that does not exist — one line each, nothing created.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
DATA=$BUILD/sql-data
"$SRC/scripts/sql-testdata.sh" "$DATA" tpch >/dev/null ||
    { echo "SKIP: $K8S_TEST: the TPC-H data cannot be made (scripts/sql-testdata.sh)" >&2; exit 77; }
"$SRC/tools/s3/build.sh" "$BUILD" >/dev/null || { echo "FAIL: $K8S_TEST: cannot build the S3 server" >&2; exit 1; }
TABLES="customer lineitem nation orders part partsupp region supplier"
# the application: the tables as views over s3a:// paths, then the 22 queries
for t in $TABLES; do
    echo "CREATE TEMPORARY VIEW $t AS SELECT * FROM parquet.\`s3a://tpch/$t.parquet\`;"
done >"$T/views.sql"
{
    cat "$T/views.sql"
    for q in "$SRC"/tests/sql/tpch/q*.sql; do # each ends with its ';'
        cat "$q"
        echo
    done
} >"$T/tpch.sql"
NVIEWS=$(echo $TABLES | wc -w)
# split.py OUT NSKIP DIR NAME...: the golden blocks of OUT after the first NSKIP, one per NAME into
# DIR/NAME.out, numbered 1 as a file of one statement
cat >"$T/split.py" <<'PY'
import re, sys
out, skip, d, names = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
blocks, cur = [], None
for line in open(out, encoding="utf-8"):
    m = re.match(r"-- query (\d+) (.*)", line)
    if m:
        cur = ["-- query 1 " + m.group(2) + "\n"]
        blocks.append(cur)
    elif cur is not None:
        cur.append(line)
blocks = blocks[skip:]
if len(blocks) != len(names):
    sys.exit("split.py: %d result blocks after the views, want %d" % (len(blocks), len(names)))
for name, b in zip(names, blocks):
    open("%s/%s.out" % (d, name), "w", encoding="utf-8").write("".join(b))
PY
QUERIES=$(cd "$SRC/tests/sql/tpch" && ls q*.sql | sed 's/\.sql$//' | tr '\n' ' ')
mkdir -p "$T/cluster-out" "$T/client-out" "$T/client-golden" "$T/events"
chmod 1777 "$T/events"
cp "$SRC/tests/sql/golden/tpch-sf0.1/q01.out" "$SRC/tests/sql/golden/tpch-sf0.1/q18.out" "$T/client-golden/"
# a small application for the upload path: the views and q06
mkdir -p "$T/upload-out" "$T/upload-golden"
cp "$SRC/tests/sql/golden/tpch-sf0.1/q06.out" "$T/upload-golden/"
cat "$T/views.sql" "$SRC/tests/sql/tpch/q06.sql" >"$T/q06app.sql"
printf 'SELECT 1;\nSELECT * FROM nope;\nSELECT 2;\n' >"$T/bad.sql"
JUDGE="/usr/bin/python3 $SRC/tests/sql/known_judge.py"

cat >"$T/inner.sh" <<INNER
# the S3 server runs inside the cluster's network, as the pods do
. "$SRC/tests/s3/lib/s3.sh"
trap 's3_server_stop; kill \${PH_PID:-} 2>/dev/null' EXIT
S3_BIND=0.0.0.0 s3_server_start "$BUILD" || fail "cannot start the S3 server"
s3_mb tpch && s3_mb uploads || fail "cannot create the buckets"
for t in $TABLES; do s3_put "$DATA/tpch-sf0.1/\$t.parquet" "tpch/\$t.parquet" || fail "cannot upload \$t"; done
# pods have network namespaces of their own: they reach the node's addresses, not its loopback
NODE_IP=\$(ip -4 -o addr show scope global | awk '{ sub(/\/.*/, "", \$4); print \$4; exit }')
[ -n "\$NODE_IP" ] || fail "no address pods can reach the S3 server at"
COMMON=(--master "k8s://\$SERVER" --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.kubernetes.allocation.batch.delay=200ms --conf spark.kubernetes.report.interval=1s
        --conf spark.hadoop.fs.s3a.endpoint=http://\$NODE_IP:\$S3_PORT
        --conf spark.hadoop.fs.s3a.access.key=\$AWS_ACCESS_KEY_ID
        --conf spark.hadoop.fs.s3a.secret.key=\$AWS_SECRET_ACCESS_KEY
        --conf spark.hadoop.fs.s3a.path.style.access=true
        --conf spark.sql.session.timeZone=UTC --conf spark.kubernetes.driverEnv.TZ=UTC
        --conf spark.executorEnv.TZ=UTC
        --conf spark.sql.shuffle.partitions=6)

step "the 22 queries as a cluster-mode SQL application, 3 executor pods"
timeout 600 "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --deploy-mode cluster --name tpch-sql \
    --conf spark.executor.instances=3 --conf spark.eventLog.enabled=true --conf spark.eventLog.dir=file://$T/events \
    --conf spark.eventLog.compress=false --conf spark.eventLog.rolling.enabled=false \
    "$T/tpch.sql" --output-format golden -S >"$T/cluster.out" 2>"$T/cluster.err" ||
    { tail -15 "$T/cluster.err" >&2; fail "the SQL application failed"; }
pod=\$(kubectl get pods -o name | grep -- '-driver\$') || fail "no driver pod after the application"
kubectl logs "\${pod#pod/}" >"$T/driver.log" || fail "cannot read the driver's log"
/usr/bin/python3 "$T/split.py" "$T/driver.log" $NVIEWS "$T/cluster-out" $QUERIES ||
    { tail -20 "$T/driver.log" >&2; fail "the driver's log does not hold the 22 results"; }
$JUDGE "$SRC/tests/sql/golden/tpch-sf0.1" "$T/cluster-out" "$SRC/tests/sql/tpch_sf01.known" >"$T/judge.txt" ||
    { tail -30 "$T/judge.txt" >&2; fail "cluster mode: answers differ from Spark's"; }
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
kubectl delete pods --all >/dev/null
expect_nothing_left "after the cluster-mode SQL application"
echo "ok cluster mode: 22 queries equal Spark's, tasks on executors \$execs"

step "a SQL file shipped through spark.kubernetes.file.upload.path (s3a://)"
timeout 300 "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --deploy-mode cluster --conf spark.executor.instances=1 \
    --conf spark.kubernetes.file.upload.path=s3a://uploads/base "$T/q06app.sql" --output-format golden -S \
    >"$T/upload.out" 2>"$T/upload.err" || { tail -15 "$T/upload.err" >&2; fail "the uploaded SQL application failed"; }
grep -q 'event=uploaded' "$T/upload.err" || fail "upload path: the SQL file was not uploaded"
pod=\$(kubectl get pods -o name | grep -- '-driver\$') || fail "no driver pod after the uploaded application"
kubectl logs "\${pod#pod/}" >"$T/driver-upload.log" || fail "cannot read the driver's log"
/usr/bin/python3 "$T/split.py" "$T/driver-upload.log" $NVIEWS "$T/upload-out" q06 ||
    { tail -20 "$T/driver-upload.log" >&2; fail "upload path: the driver's log does not hold q06's result"; }
$JUDGE "$T/upload-golden" "$T/upload-out" /dev/null >"$T/judge-upload.txt" ||
    { tail -30 "$T/judge-upload.txt" >&2; fail "upload path: q06 differs from Spark's"; }
[ -z "\$(s3_keys uploads)" ] || fail "upload path: uploaded files left after the application: \$(s3_keys uploads)"
kubectl delete pods --all >/dev/null
expect_nothing_left "after the uploaded SQL application"
echo "ok upload path"

step "a SQL application whose statement fails"
rc=0
timeout 300 "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --deploy-mode cluster --conf spark.executor.instances=1 \
    "$T/bad.sql" >"$T/bad.out" 2>"$T/bad.err" || rc=\$?
[ \$rc -eq 1 ] || fail "failing SQL application: cspark-submit exited with \$rc, want 1"
grep -q '^cspark-submit: driver pod .*-driver failed with exit code 1' "$T/bad.err" ||
    fail "failing SQL application: no failed driver reported: \$(tail -3 "$T/bad.err")"
grep -q '^\[TABLE_OR_VIEW_NOT_FOUND\] The table or view .nope. cannot be found' "$T/bad.err" ||
    fail "failing SQL application: the statement's error is not in the termination message: \$(tail -3 "$T/bad.err")"
pod=\$(kubectl get pods -o name | grep -- '-driver\$') || fail "no driver pod after the failing application"
kubectl logs "\${pod#pod/}" >"$T/driver-bad.log"
grep -qx 2 "$T/driver-bad.log" && fail "failing SQL application: a statement after the failing one ran"
kubectl delete pods --all >/dev/null
expect_nothing_left "after the failing SQL application"
echo "ok failing statement"

step "cspark-sql in client mode, 2 executor pods"
timeout 300 "$BUILD/bin/cspark-sql" "\${COMMON[@]}" --conf spark.executor.instances=2 \
    -i "$T/views.sql" --output-format golden -S \
    -e "\$(cat "$SRC/tests/sql/tpch/q01.sql" "$SRC/tests/sql/tpch/q18.sql")" >"$T/client.txt" 2>"$T/client.err" ||
    { tail -15 "$T/client.err" >&2; fail "cspark-sql in client mode failed"; }
/usr/bin/python3 "$T/split.py" "$T/client.txt" 0 "$T/client-out" q01 q18 || fail "client mode: \$(cat "$T/client.txt" | head -5)"
$JUDGE "$T/client-golden" "$T/client-out" /dev/null >"$T/judge-client.txt" ||
    { tail -30 "$T/judge-client.txt" >&2; fail "client mode: answers differ from Spark's"; }
expect_nothing_left "after cspark-sql in client mode"
echo "ok client mode"

step "Ctrl-C to cspark-sql in client mode while its query runs on the executor pods"
PORT=\$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$BUILD/bin/cspark-sql" "\${COMMON[@]}" --conf spark.executor.instances=2 --conf spark.ui.port=\$PORT \
    -e 'SELECT sum(id % 7) FROM range(0, 10000000000000, 1, 4)' >"$T/long.out" 2>"$T/long.err" &
LONG_PID=\$!
running() {
    local app
    app=\$(curl -sf --max-time 5 "http://127.0.0.1:\$PORT/api/v1/applications" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])') || return 1
    curl -sf --max-time 5 "http://127.0.0.1:\$PORT/api/v1/applications/\$app/jobs?status=running" |
        /usr/bin/python3 -c 'import json,sys; sys.exit(0 if any(j["numActiveTasks"] > 0 for j in json.load(sys.stdin)) else 1)'
}
wait_until 180 "the long query's tasks to run on the executor pods" running ||
    { kill -9 \$LONG_PID; tail -5 "$T/long.err" >&2; fail "the long query never ran"; }
t0=\$(date +%s.%N)
kill -INT \$LONG_PID
rc=0
wait_until 120 "cspark-sql to end after Ctrl-C" eval '! kill -0 \$LONG_PID' || { kill -9 \$LONG_PID; fail "cspark-sql did not end after Ctrl-C"; }
wait \$LONG_PID || rc=\$?
t1=\$(date +%s.%N)
[ \$rc -eq 130 ] || fail "cspark-sql after Ctrl-C: exit status \$rc, want 130: \$(tail -3 "$T/long.err")"
grep -q '^\[SPARK_JOB_CANCELLED\] Job [0-9]* cancelled as part of cancellation of all jobs' "$T/long.err" ||
    fail "no SPARK_JOB_CANCELLED error after Ctrl-C: \$(tail -3 "$T/long.err")"
expect_nothing_left "after Ctrl-C to cspark-sql in client mode"
echo "ok Ctrl-C: cspark-sql exited with 130 \$(awk -v a=\$t0 -v b=\$t1 'BEGIN { printf "%.2f", b - a }') s after the signal, its executor pods deleted"

step "refusals"
# refused CASE PATTERN COMMAND...: one line matching PATTERN, a non-zero exit, nothing created
refused() {
    local case=\$1 pat=\$2 rc=0; shift 2
    timeout 120 "\$@" >"$T/out" 2>"$T/err" || rc=\$?
    [ \$rc -ne 0 ] && [ \$rc -ne 124 ] || fail "\$case: exit status \$rc: \$(cat "$T/err")"
    [ "\$(grep -c . "$T/err")" -eq 1 ] || fail "\$case: expected one line on stderr, got: \$(cat "$T/err")"
    grep -Eq -- "\$pat" "$T/err" || fail "\$case: message does not match /\$pat/: \$(cat "$T/err")"
    [ -z "\$(objects)" ] || fail "\$case: left objects: \$(objects)"
    echo "ok \$case: \$(cat "$T/err")"
}
refused "cspark-sql in cluster mode" '^cspark-sql: cluster deploy mode is not applicable to the Spark SQL shell' \
    "$BUILD/bin/cspark-sql" "\${COMMON[@]}" --deploy-mode cluster -e 'SELECT 1'
refused "a submit option after the SQL file" "^cspark-submit: unexpected argument '--foo' after the SQL file" \
    "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --deploy-mode cluster "$T/tpch.sql" --foo
refused "-e after the SQL file" '^cspark-submit: -e cannot follow the SQL file' \
    "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --deploy-mode cluster "$T/tpch.sql" -e 'SELECT 1'
refused "a missing SQL file" "^cspark-submit: .*$T/nope.sql" \
    "$BUILD/bin/cspark-submit" "\${COMMON[@]}" --deploy-mode cluster "$T/nope.sql"
echo "inner ok"
INNER
k8s_run_inner 900
echo "PASS $K8S_TEST"
