#!/usr/bin/env bash
# k8s/user_symbols.sh — the job of tests/jobs/user_symbols.c, whose functions are named like
# libcspark's former internals (master_parse, conf_get, batch_init, rdd_free, task_run), gives
# the right answer in cluster mode on kubesim (driver pod + 2 executor pods), as in local and
# local-cluster mode (tests/integration/user_symbols.sh).
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
awk 'BEGIN { split("alpha beta gamma", w, " "); for (v = 0; v < 1000; v++) s[w[v % 3 + 1]] += 3 * v + 1;
             print "master_parse=56 rdd_free=1"; for (k in s) print k, s[k] }' | sort >"$T/want"
cat >"$T/inner.sh" <<INNER
timeout 180 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode cluster --name symbols \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=2 \
    --conf spark.kubernetes.allocation.batch.delay=200ms --conf spark.kubernetes.report.interval=200ms \
    "$BUILD/tests/jobs/user_symbols.so" 1000 >"$T/cluster.out" 2>"$T/cluster.err" ||
    { tail -5 "$T/cluster.err" >&2; fail "cluster mode failed"; }
pod=\$(kubectl get pods -o name | grep -- '-driver\$')
kubectl logs "\${pod#pod/}" | grep -E '^(master_parse=|alpha |beta |gamma )' | sort >"$T/got"
cmp -s "$T/got" "$T/want" || fail "cluster-mode output \$(tr '\n' ' ' <"$T/got"), want \$(tr '\n' ' ' <"$T/want")"
kubectl delete pods --all >/dev/null
expect_nothing_left "after the job"
echo "inner ok"
INNER
k8s_run_inner 240
echo "PASS k8s_user_symbols"
