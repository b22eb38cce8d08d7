#!/usr/bin/env bash
# k8s/shipped_files.sh — files shipped with a cluster-mode application (driver pod + 2 executor
# pods): --files lookup.csv and --archives data.tgz with a 20 MiB application .so (far beyond a
# ConfigMap's 1 MiB) travel through spark.kubernetes.file.upload.path on the tests' S3 server
# (s3a://, credentials enforced) and through a shared file: directory (the test's directory,
# mounted in every pod), and small files without an upload path in the ConfigMaps; every task reads them with cspark_files_get and the driver
# with cspark_files_get_driver, and the output equals local mode's. When the application ends, its
# spark-upload-<uuid> directory is gone. Bad input is one line on stderr, a non-zero exit and
# nothing left behind (no pod, ConfigMap or Secret, no uploaded object): 2 MiB of --files without
# an upload path, a 20 MiB .so without one, a missing --files path, an unreachable upload endpoint,
# an upload path that is not a directory, a .7z archive, and an API server refusing the
# application after the files were uploaded (they are removed again). In client mode, files at
# the driver's own paths, which no pod can read, reach the executors in their ConfigMap or through
# the upload path (removed when the application ends), as Spark's driver file server serves them.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
"$SRC/tools/s3/build.sh" "$BUILD" >/dev/null || { echo "FAIL: $K8S_TEST: cannot build the S3 server" >&2; exit 1; }
mkdir -p "$T/in/inner" "$T/shared"
chmod 1777 "$T/shared"
printf 'alpha,5\nbeta,7\ngamma,30\n' >"$T/in/lookup.csv"
echo "hello from the archive" >"$T/in/inner/hello.txt"
(cd "$T/in" && tar czf data.tgz inner && touch notes.7z)
BIG="$BUILD/tests/jobs/filesjob_big.so"
[ "$(stat -c %s "$BIG")" -gt $((20 * 1024 * 1024)) ] || { echo "FAIL: $K8S_TEST: $BIG is not 20 MiB" >&2; exit 1; }
# the expected output: local mode, same files
"$BUILD/bin/cspark-submit" --master "local[2]" --files "$T/in/lookup.csv" --archives "$T/in/data.tgz" \
    "$BIG" data.tgz 2>/dev/null | grep -E '^(task|driver|pad)' >"$T/want"
grep -v '^pad=' "$T/want" >"$T/want-small"
head -c 2097152 /dev/zero >"$T/in/big.bin"
[ "$(grep -c 'sum=42 archive=hello from the archive' "$T/want")" -eq 4 ] ||
    { echo "FAIL: $K8S_TEST: local mode gave $(cat "$T/want")" >&2; exit 1; }
# client mode: the driver's own copies, in a directory no pod mounts
PRIV=$(mktemp -d)
trap '[ -n "${KEEP_T:-}" ] || rm -rf "$T" "$PRIV"' EXIT
cp "$T/in/lookup.csv" "$T/in/data.tgz" "$PRIV/"
CLOSED=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')

cat >"$T/inner.sh" <<INNER
# the S3 server runs inside the cluster's network, on its loopback, as the pods do
. "$SRC/tests/s3/lib/s3.sh"
trap 's3_server_stop; kill \${PH_PID:-} 2>/dev/null' EXIT
S3_BIND=0.0.0.0 s3_server_start "$BUILD" || fail "cannot start the S3 server"
s3_mb uploads || fail "cannot create bucket uploads"
# pods have network namespaces of their own: they reach the node's addresses, not its loopback
NODE_IP=\$(ip -4 -o addr show scope global | awk '{ sub(/\/.*/, "", \$4); print \$4; exit }')
[ -n "\$NODE_IP" ] || fail "no address pods can reach the S3 server at"
export AWS_ENDPOINT_URL=http://\$NODE_IP:\$S3_PORT
S3=(--conf spark.hadoop.fs.s3a.endpoint=\$AWS_ENDPOINT_URL --conf spark.hadoop.fs.s3a.access.key=\$AWS_ACCESS_KEY_ID
    --conf spark.hadoop.fs.s3a.secret.key=\$AWS_SECRET_ACCESS_KEY --conf spark.hadoop.fs.s3a.path.style.access=true)
RUN=(--master "k8s://\$SERVER" --deploy-mode cluster --conf spark.kubernetes.container.image=cspark:dev
     --conf spark.executor.instances=2 --conf spark.kubernetes.allocation.batch.delay=200ms
     --conf spark.kubernetes.report.interval=200ms)
FILES=(--files "$T/in/lookup.csv" --archives "$T/in/data.tgz")
uploaded() { s3_keys uploads; ls -A "$T/shared"; }

# ok CASE WANT ARGS...: the job's output in the driver pod's log equals local mode's (file WANT)
ok() {
    local case=\$1 want=\$2; shift 2
    timeout 240 "$BUILD/bin/cspark-submit" "\${RUN[@]}" "\$@" >"$T/cluster.out" 2>"$T/cluster.err" ||
        { tail -5 "$T/cluster.err" >&2; fail "\$case: cluster mode failed"; }
    local pod; pod=\$(kubectl get pods -o name | grep -- '-driver\$')
    kubectl logs "\${pod#pod/}" | grep -E '^(task|driver|pad)' >"$T/got"
    cmp -s "$T/got" "\$want" || fail "\$case: output \$(tr '\n' ' ' <"$T/got"), want \$(tr '\n' ' ' <"\$want")"
    [ -z "\$(uploaded)" ] || fail "\$case: uploaded files left after the application ended: \$(uploaded)"
    kubectl delete pods --all >/dev/null
    expect_nothing_left "\$case"
    echo "ok \$case"
}
ok "s3a upload path, 20 MiB .so" "$T/want" "\${S3[@]}" --conf spark.kubernetes.file.upload.path=s3a://uploads/base "\${FILES[@]}" "$BIG" data.tgz
grep -q 'event=uploaded' "$T/cluster.err" || fail "s3a upload path: nothing was uploaded"
ok "shared file: upload path" "$T/want" --conf spark.kubernetes.file.upload.path=file://$T/shared "\${FILES[@]}" "$BIG" data.tgz
grep -q 'event=uploaded' "$T/cluster.err" || fail "file: upload path: nothing was uploaded"
# no upload path: small files travel in the driver's ConfigMap, and from there the executors'
ok "ConfigMap, no upload path" "$T/want-small" "\${FILES[@]}" "$BUILD/tests/jobs/filesjob.so" data.tgz

# client_ok CASE ARGS...: a client-mode run with the files at the driver's own paths gives local
# mode's output, and leaves nothing behind
client_ok() {
    local case=\$1; shift
    timeout 240 "$BUILD/bin/cspark-submit" "\${RUN[@]}" --deploy-mode client \
        --files "$PRIV/lookup.csv" --archives "$PRIV/data.tgz" "\$@" "$BUILD/tests/jobs/filesjob.so" data.tgz \
        >"$T/client.out" 2>"$T/client.err" || { tail -5 "$T/client.err" >&2; fail "\$case: client mode failed"; }
    grep -E '^(task|driver)' "$T/client.out" >"$T/got"
    cmp -s "$T/got" "$T/want-small" || fail "\$case: output \$(tr '\n' ' ' <"$T/got"), want \$(tr '\n' ' ' <"$T/want-small")"
    [ -z "\$(uploaded)" ] || fail "\$case: uploaded files left after the application ended: \$(uploaded)"
    expect_nothing_left "\$case"
    echo "ok \$case"
}
client_ok "client mode, ConfigMap"
client_ok "client mode, s3a upload path" "\${S3[@]}" --conf spark.kubernetes.file.upload.path=s3a://uploads/base
grep -q 'event=uploaded' "$T/client.err" || fail "client mode, s3a upload path: nothing was uploaded"

# refused CASE PATTERN ARGS...: one line matching PATTERN, non-zero exit, nothing created or uploaded
refused() {
    local case=\$1 pat=\$2 rc=0; shift 2
    timeout 120 "$BUILD/bin/cspark-submit" "\${RUN[@]}" "\$@" >"$T/out" 2>"$T/err" || rc=\$?
    [ \$rc -ne 0 ] && [ \$rc -ne 124 ] || fail "\$case: exit status \$rc: \$(cat "$T/err")"
    [ "\$(grep -Evc '^(INFO|WARN) ' "$T/err")" -eq 1 ] || fail "\$case: expected one line on stderr, got: \$(cat "$T/err")"
    grep -Eq -- "\$pat" "$T/err" || fail "\$case: message does not match /\$pat/: \$(cat "$T/err")"
    [ -z "\$(objects)" ] || fail "\$case: left objects: \$(objects)"
    [ -z "\$(uploaded)" ] || fail "\$case: left uploaded files: \$(uploaded)"
    echo "ok \$case: \$(grep -Ev '^(INFO|WARN) ' "$T/err")"
}
refused "2 MiB --files, no upload path" '^cspark-submit: config map .* \+ --files/--archives \(2097152 bytes\).* exceeds spark.kubernetes.configMap.maxSize .*set spark.kubernetes.file.upload.path' \
    --files "$T/in/big.bin" "$BUILD/tests/jobs/filesjob.so"
refused "20 MiB .so, no upload path" '^cspark-submit: config map .* exceeds spark.kubernetes.configMap.maxSize .*set spark.kubernetes.file.upload.path' \
    "$BIG"
refused "missing --files path" "^cspark-submit: spark.files: $T/in/nope.csv: No such file or directory" \
    "\${S3[@]}" --conf spark.kubernetes.file.upload.path=s3a://uploads/base --files "$T/in/nope.csv" "$BIG"
refused "unreachable upload endpoint" "^cspark-submit: spark.kubernetes.file.upload.path.*cannot reach the S3 endpoint http://127.0.0.1:$CLOSED" \
    "\${S3[@]}" --conf spark.hadoop.fs.s3a.endpoint=http://127.0.0.1:$CLOSED --conf spark.hadoop.fs.s3a.retry.limit=1 \
    --conf spark.kubernetes.file.upload.path=s3a://uploads/base "\${FILES[@]}" "$BIG"
refused "upload path not a directory" "^cspark-submit: spark.kubernetes.file.upload.path: $T/in/lookup.csv is not a directory" \
    --conf spark.kubernetes.file.upload.path=$T/in/lookup.csv "\${FILES[@]}" "$BIG"
refused "7z archive" "^cspark-submit: spark.archives: cannot unpack '$T/in/notes.7z': only .zip, .jar, .tar, .tar.gz and .tgz" \
    "\${S3[@]}" --conf spark.kubernetes.file.upload.path=s3a://uploads/base --archives "$T/in/notes.7z" "$BIG"
# files already uploaded when the API server refuses the application: removed again
refused "missing namespace after the upload" '^cspark-submit: .*namespace "nope" does not exist' \
    "\${S3[@]}" --conf spark.kubernetes.file.upload.path=s3a://uploads/base --conf spark.kubernetes.namespace=nope "\${FILES[@]}" "$BIG"
echo "inner ok"
INNER
k8s_run_inner 600
echo "PASS $K8S_TEST"
