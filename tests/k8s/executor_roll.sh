#!/usr/bin/env bash
# k8s/executor_roll.sh — executor rolling (spark.kubernetes.executor.rollInterval,
# spark.kubernetes.executor.rollPolicy, spark.kubernetes.executor.minTasksPerExecutorBeforeRolling;
# Spark's ExecutorRollPlugin) through decommissioning: client
# mode, 2 one-core executors, rollInterval=3s with policy ID, jobs with a shuffle one after the
# other (tests/jobs/rolljobs.c) until three executors were rolled and replaced:
#  - the driver decommissioned executors 1, 2 and 3 in that order (ID: the smallest live id
#    first), each once, with Spark's reason "Rolling via ID at <ms>" (event log
#    SparkListenerExecutorRemoved), and never counted one as lost;
#  - each rolled executor was replaced (the target stays 2): executors 3, 4 and 5 registered;
#  - every job gave the exact result, every stage ran one attempt (the rolled executors' map
#    outputs moved to the others, none recomputed), each rolled pod exited 0 (not a failure);
#  - each rolled executor's pod was labelled with spark.kubernetes.executor.decommissionLabel=
#    decommissionLabelValue (roll-decom=yes) before it went (seen by a label-selected pod watch);
#  - nothing is left in the namespace.
# The choice of each policy on given figures is tested in tests/unit/k8s/test_k8s_executor_roll.c.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
mkdir -p "$T/ev"

cat >"$T/inner.sh" <<INNER
step "submit: rolling every 3s while jobs run"
# the pods that get the decommission label: a watch selecting it (started before any pod exists)
kubectl get pods -l roll-decom=yes --watch -o name >"$T/decom-watch" 2>&1 &
watch_pid=\$!
timeout 240 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode client --name roll \
    --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=2 \
    --conf spark.kubernetes.allocation.batch.delay=200ms \
    --conf spark.decommission.enabled=true --conf spark.storage.decommission.enabled=true \
    --conf spark.kubernetes.executor.rollInterval=3s --conf spark.kubernetes.executor.rollPolicy=ID \
    --conf spark.kubernetes.executor.minTasksPerExecutorBeforeRolling=1 \
    --conf spark.kubernetes.executor.decommissionLabel=roll-decom \
    --conf spark.kubernetes.executor.decommissionLabelValue=yes \
    --conf spark.eventLog.enabled=true --conf spark.eventLog.dir="$T/ev" \
    --class rolling_rounds "$BUILD/tests/jobs/rolljobs.so" 200 40 "$T/stop" >"$T/out" 2>"$T/err" &
sub=\$!
step "wait for three executors rolled and replaced"
wait_until 200 "executor 5 registered (executors 1, 2 and 3 rolled)" \
    grep -q "event=executor_registered executor=5 " "$T/err" ||
    { touch "$T/stop"; wait \$sub; tail -30 "$T/err" >&2; fail "executors were not rolled and replaced"; }
touch "$T/stop"
rc=0
wait \$sub || rc=\$?
[ \$rc -eq 0 ] || { tail -30 "$T/err" >&2; fail "the application failed (exit \$rc)"; }
rounds=\$(sed -n 's/^rounds=\([0-9]*\) exact=\([0-9]*\)\$/\1 \2/p' "$T/out")
set -- \$rounds
[ -n "\${1:-}" ] && [ "\$1" -ge 1 ] && [ "\$1" = "\$2" ] || fail "not every job gave the exact result: \$(cat "$T/out")"
grep -q "driver event=executor_lost" "$T/err" && fail "an executor was counted as lost: \$(grep 'event=executor_lost' "$T/err")"
"$BUILD/tests/cat_event_log" "$T"/ev/* >"$T/ev.json" || fail "cannot read the event log"
/usr/bin/python3 - "$T/ev.json" <<'PY' || fail "event log: see above"
import json, re, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
rolled = [(e["Executor ID"], e.get("Removed Reason", "")) for e in evs
          if e["Event"] == "SparkListenerExecutorRemoved"]
ids = [i for i, why in rolled if re.search(r"Rolling via ID at [0-9]+", why)]
added = [e["Executor ID"] for e in evs if e["Event"] == "SparkListenerExecutorAdded"]
if ids[:3] != ["1", "2", "3"] or len(set(ids)) != len(ids):
    sys.exit("rolled executors %s (removed: %s), expected 1, 2, 3 first, each once" % (ids, rolled))
other = [r for r in rolled if r[0] not in ids]
if any("Rolling" not in why for i, why in other if i in ("1", "2", "3")):
    sys.exit("an executor was removed otherwise: %s" % other)
if not {"3", "4", "5"} <= set(added):
    sys.exit("rolled executors not replaced: added %s" % added)
print("rolled=%s added=%s" % (ids, added))
PY
/usr/bin/python3 $SRC/tests/k8s/lib/eventlog_check.py attempts "$T/ev.json" || fail "a stage ran again"
step "rolled pods exited 0"
# the driver's own account (a pod watch started with the test may come after the first pods went)
for i in 1 2 3; do
    grep -q "event=executor_pod_ended executor=\$i .*failed=false .*exited with exit code 0 " "$T/err" ||
        fail "rolled executor \$i: \$(grep "event=executor_pod_ended executor=\$i " "$T/err")"
done
step "rolled pods were labelled roll-decom=yes"
labelled() { for i in 1 2 3; do grep -q -- "-exec-\$i\$" "$T/decom-watch" || return 1; done; }
wait_until 30 "the decommission label on the pods of executors 1, 2 and 3" labelled ||
    fail "rolled pods without the decommission label; the watch saw: \$(cat "$T/decom-watch")"
kill \$watch_pid 2>/dev/null
expect_nothing_left roll
echo "inner ok"
INNER
k8s_run_inner 280
echo "PASS: $K8S_TEST"
