#!/usr/bin/env bash
# k8s/submit.sh — cspark-submit against kubesim (API server + process kubelet, image cspark:dev
# mapped to this build): word count in cluster mode (driver pod + 3 executor pods) and in client
# mode gives the same output as local[2] (sort, join, pagerank too; k-means with cached points and
# broadcast centroids in client mode gives the reference's centroids and its count of malformed
# lines, from the accumulator); afterwards only the completed driver pod remains; a
# dry run prints the manifests and creates nothing; bad input is refused clearly with nothing
# created.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
"$BUILD/bin/gen_text" -s 31 2000000 >"$T/text.txt"
"$BUILD/bin/cspark-submit" --master 'local[2]' "$BUILD/examples/wordcount.so" "$T/text.txt" "$T/ref" >/dev/null 2>"$T/ref.err"
cat "$T"/ref/part-* | sort >"$T/ref.txt"
# sort, join and pagerank references
"$BUILD/bin/gen_records" -s 32 30000 >"$T/records.txt"
"$BUILD/bin/gen_graph" -s 33 300 2000 >"$T/graph.txt"
awk 'NR % 3 == 0 { print $1 "\t" NR } NR > 2000 { exit }' "$T/text.txt" >"$T/left.tsv"
awk 'NR % 5 == 0 { print $1 "\tr" NR } NR > 2000 { exit }' "$T/text.txt" >"$T/right.tsv"
L="$BUILD/bin/cspark-submit --master local[2]"
$L "$BUILD/examples/sort.so" "$T/records.txt" "$T/sort-ref" >/dev/null 2>&1
$L "$BUILD/examples/join.so" "$T/left.tsv" "$T/right.tsv" "$T/join-ref" >/dev/null 2>&1
$L "$BUILD/examples/pagerank.so" "$T/graph.txt" 3 "$T/pr-ref" >/dev/null 2>&1
# k-means with its points cached on the executor pods (blocks served by their block servers)
/usr/bin/python3 "$SRC/bench/gen_points.py" 20000 4 3 9 25 >"$T/points.txt"
/usr/bin/python3 "$SRC/bench/kmeans_ref.py" "$T/points.txt" 4 5 >"$T/kmeans-ref.txt"
grep -qx "malformed 25" "$T/kmeans-ref.txt" || { echo "FAIL: $K8S_TEST: kmeans reference: $(head -2 "$T/kmeans-ref.txt")" >&2; exit 1; }

cat >"$T/inner.sh" <<INNER
SUBMIT="$BUILD/bin/cspark-submit"
COMMON=(--master "k8s://\$SERVER" --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.executor.instances=3 --conf spark.kubernetes.allocation.batch.delay=200ms
        --conf spark.kubernetes.report.interval=200ms)
nothing_left() { # what the application left in the namespace, besides completed driver pods
    objects 2>/dev/null | grep -v '^pod/.*-driver\$' || true
}

# cluster mode
timeout 180 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster --name 'Word_Count' \
    "$BUILD/examples/wordcount.so" "$T/text.txt" "$T/cluster" >"$T/cluster.out" 2>"$T/cluster.err" ||
    { tail -5 "$T/cluster.err" >&2; fail "cluster mode failed"; }
cat "$T"/cluster/part-* | sort | cmp -s - "$T/ref.txt" || fail "cluster-mode output differs from local[2]"
grep -q "phase=Succeeded exit_code=0" "$T/cluster.err" || fail "no final driver phase reported"
pods=\$(kubectl get pods -o name)
[ "\$(echo "\$pods" | grep -c .)" -eq 1 ] && echo "\$pods" | grep -q '^pod/word-count-.*-driver\$' ||
    fail "after cluster mode, expected only the driver pod, got: \$pods"
[ -z "\$(nothing_left)" ] || fail "left behind after cluster mode: \$(nothing_left)"
log=\$(kubectl logs "\${pods#pod/}")
echo "\$log" | grep -q "event=executor_registered executor=3" || fail "driver log lacks 3 executors"
kubectl delete pods --all >/dev/null

# sort, join and pagerank in cluster mode: the same output as local[2]
for job in "sort $T/records.txt" "join $T/left.tsv $T/right.tsv" "pagerank $T/graph.txt 3"; do
    set -- \$job
    name=\$1
    shift
    timeout 180 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster "$BUILD/examples/\$name.so" "\$@" "$T/\$name-k8s" \
        >/dev/null 2>"$T/\$name.err" || { tail -5 "$T/\$name.err" >&2; fail "\$name in cluster mode failed"; }
    kubectl delete pods --all >/dev/null
done
cat "$T"/sort-k8s/part-* | cut -c1-10 | LC_ALL=C sort -c || fail "cluster-mode sort is not globally sorted"
[ "\$(cat "$T"/sort-k8s/part-* | sort | md5sum)" = "\$(cat "$T"/sort-ref/part-* | sort | md5sum)" ] || fail "cluster-mode sort differs"
[ "\$(cat "$T"/join-k8s/part-* | sort | md5sum)" = "\$(cat "$T"/join-ref/part-* | sort | md5sum)" ] || fail "cluster-mode join differs"
[ "\$(cat "$T"/pr-ref/part-* | sort | md5sum)" = "\$(cat "$T"/pagerank-k8s/part-* | sort | md5sum)" ] || fail "cluster-mode pagerank differs"
[ -z "\$(nothing_left)" ] || fail "left behind after the cluster-mode jobs: \$(nothing_left)"

# client mode: the driver is this process
timeout 180 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode client "$BUILD/examples/wordcount.so" \
    "$T/text.txt" "$T/client" >"$T/client.out" 2>"$T/client.err" || { tail -5 "$T/client.err" >&2; fail "client mode failed"; }
cat "$T"/client/part-* | sort | cmp -s - "$T/ref.txt" || fail "client-mode output differs from local[2]"
expect_nothing_left "after client mode"

# k-means in client mode with the parsed points cached on the executors: the reference centroids
timeout 180 "\$SUBMIT" "\${COMMON[@]}" --deploy-mode client --conf spark.default.parallelism=6 \
    "$BUILD/examples/kmeans.so" "$T/points.txt" 4 5 MEMORY_ONLY >"$T/kmeans.out" 2>"$T/kmeans.err" ||
    { tail -5 "$T/kmeans.err" >&2; fail "kmeans in client mode failed"; }
cmp -s "$T/kmeans.out" "$T/kmeans-ref.txt" ||
    fail "client-mode kmeans differs from the reference (points, malformed-line accumulator, centroids): \$(diff "$T/kmeans.out" "$T/kmeans-ref.txt" | head -5)"
expect_nothing_left "after kmeans"

# client mode interrupted: SIGTERM to cspark-submit removes its executor pods before it exits
"\$SUBMIT" "\${COMMON[@]}" --deploy-mode client --class slow "$BUILD/tests/jobs/testjobs.so" 1000 \
    >/dev/null 2>"$T/term.err" &
pid=\$!
for _ in \$(seq 400); do grep -q "event=executors_registered" "$T/term.err" && break; sleep 0.05; done
kill -TERM \$pid
rc=0
wait \$pid || rc=\$?
[ \$rc -eq 143 ] || fail "client mode after SIGTERM: exit \$rc, want 143"
expect_nothing_left "after SIGTERM" # executor pods may still be terminating (graceful deletion)

# dry run: YAML for Secret, ConfigMap, Pod and Service; nothing created
"\$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster --conf cspark.kubernetes.dryRun=true \
    "$BUILD/examples/wordcount.so" in out >"$T/dry.yaml" 2>"$T/dry.err" || fail "dry run failed: \$(cat "$T/dry.err")"
for kind in Secret ConfigMap Pod Service; do grep -q "^kind: \$kind\$" "$T/dry.yaml" || fail "dry run lacks a \$kind"; done
[ -z "\$(objects)" ] || fail "the dry run created objects"

# bad input: one clear line, nothing created
rc=0
"\$SUBMIT" --master "k8s://\$SERVER" --deploy-mode cluster "$BUILD/examples/wordcount.so" a b >/dev/null 2>"$T/noimg.err" || rc=\$?
[ \$rc -ne 0 ] && grep -q "spark.kubernetes.container.image" "$T/noimg.err" || fail "missing image not refused clearly: \$(cat "$T/noimg.err")"
rc=0
"\$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster --conf spark.kubernetes.namespace=nope \
    "$BUILD/examples/wordcount.so" a b >/dev/null 2>"$T/nons.err" || rc=\$?
[ \$rc -ne 0 ] && grep -q 'namespace "nope" does not exist' "$T/nons.err" || fail "missing namespace not refused clearly: \$(cat "$T/nons.err")"
[ -z "\$(objects)" ] || fail "bad input left objects behind"
echo "inner ok"
INNER
k8s_run_inner 500
echo "PASS: $K8S_TEST"
