#!/usr/bin/env bash
# k8s/stop_stuck.sh — issue 10 items 6, 7 and 8 on Kubernetes, with executor tasks that sleep
# 600 s in user code (tests/jobs/stopjobs.so) and ignore being killed:
#  1. client mode, Ctrl-C (SIGINT): the driver is gone within a bounded wait and leaves no pod,
#     ConfigMap or Secret (the task reaper deleted the stuck executors' pods);
#  2. client mode, a double Ctrl-C: the second one hurries the stop but still deletes everything;
#  3. client mode, a job abort (partition 0 fails, spark.task.maxFailures=1): the same;
#  4. client mode, SIGTERM while the driver waits for executors to register (their pods cannot be
#     scheduled, spark.scheduler.maxRegisteredResourcesWaitingTime=600s): acted on at once;
#  5. client mode, the driver SIGKILLed: executors whose driver is gone exit by themselves (their
#     pods end) although their tasks still sleep;
#  6. cluster mode, cspark-submit --kill: the driver pod and everything it made go;
#  7. client mode from a pod (spark.kubernetes.driver.pod.name): the executor pods, ConfigMap and
#     Secret are owned by that pod, and a double Ctrl-C deletes them.
# In 1-3 no executor pod is created once the stop began (the reaper's deletions are not replaced):
# the allocator stops before the context's stop does anything else (issue 21 item 13).
# Each wait is bounded and generous (60 s): a stop that waited for the tasks would take minutes.
# Outcomes only.
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"

cat >"$T/inner.sh" <<INNER
SUBMIT="$BUILD/bin/cspark-submit"
JOBS="$BUILD/tests/jobs/stopjobs.so"
COMMON=(--master "k8s://\$SERVER" --conf spark.kubernetes.container.image=cspark:dev
        --conf spark.executor.instances=2 --conf spark.kubernetes.allocation.batch.delay=200ms)
wait_for() { local n=\$((\$1 * 5)); shift; for _ in \$(seq \$n); do "\$@" && return 0; sleep 0.2; done; return 1; }
started() { [ -e "$T/marks/started-1" ]; }
marks() { rm -rf "$T/marks"; mkdir -p "$T/marks"; chmod 1777 "$T/marks"; }

# client_stop NAME HOW CLASS [OPTIONS]: a client-mode driver in the background; once two tasks run
# on executors, stopped by HOW (INT, INT2: two SIGINTs, abort: the job aborts by itself); it must be
# gone, with the expected status, and nothing of it left
client_stop() {
    local name=\$1 how=\$2 cls=\$3; shift 3
    marks
    "\$SUBMIT" "\${COMMON[@]}" --deploy-mode client --name "\$name" "\$@" --class "\$cls" "\$JOBS" "$T/marks" \
        >"$T/\$name.out" 2>"$T/\$name.err" &
    local pid=\$!
    wait_for 90 started || { kill -9 \$pid; tail -20 "$T/\$name.err" >&2; fail "\$name: the executors' tasks never started"; }
    case \$how in
    INT) kill -INT \$pid ;;
    INT2) kill -INT \$pid; sleep 0.3; kill -INT \$pid ;;
    esac
    timeout 60 tail --pid=\$pid -f /dev/null || { kill -9 \$pid; fail "\$name: the driver still runs 60 s after the stop"; }
    local rc=0; wait \$pid || rc=\$?
    case \$how in
    INT | INT2) [ \$rc -eq 130 ] || { tail -5 "$T/\$name.err" >&2; fail "\$name: exit status \$rc, expected 130"; } ;;
    abort) [ \$rc -eq 1 ] && grep -q "Job aborted" "$T/\$name.err" || fail "\$name: exit status \$rc, expected 1 with the abort" ;;
    esac
    # the task reaper deleted the stuck executors' pods: none was replaced once the application
    # was stopping (issue 21 item 13: the allocator replaced them, 48 new pods for a 200-executor
    # application): no pod is created from the signal, or from the context's first stop line
    # (event=stopping) when the job aborted by itself — the allocator stopped before it, so
    # executors the stop removes are not replaced (a reaper that removes executors at a job's
    # end, before the stop, may see them replaced, as Spark's allocator would)
    local late
    late=\$(sed -n '/event=interrupted\|context.*event=stopping/,\$p' "$T/\$name.err" | grep -o 'event=executor_pod_created executor=[0-9]*')
    grep -q "context.*event=stopping" "$T/\$name.err" || fail "\$name: the driver never logged its stop"
    [ -z "\$late" ] || fail "\$name: executor pods were created while the application stopped: \$(echo \$late)"
    # the allocator is the first thing the context's stop ends, before anything that removes
    # executors
    local order
    order=\$(grep -o "event=allocator_stopped\|context.*event=stopping" "$T/\$name.err" | head -1)
    [ "\$order" = "event=allocator_stopped" ] || fail "\$name: the context's stop began before the allocator stopped"
    expect_nothing_left "\$name"
}

# ---- 1-3
client_stop stop-int INT stuck
client_stop stop-int2 INT2 stuck
grep -q "event=interrupted_again" "$T/stop-int2.err" || fail "stop-int2: the second SIGINT was not taken"
client_stop stop-abort abort abort_stuck --conf spark.task.maxFailures=1

# ---- 4. SIGTERM during the registration wait
marks
"\$SUBMIT" "\${COMMON[@]}" --deploy-mode client --name stop-reg --conf spark.executor.memory=100g \
    --conf spark.scheduler.maxRegisteredResourcesWaitingTime=600s --class stuck "\$JOBS" "$T/marks" \
    >"$T/reg.out" 2>"$T/reg.err" &
pid=\$!
pending() { kubectl get pods -l spark-role=executor -o name | grep -q .; }
wait_for 60 pending || { kill -9 \$pid; fail "stop-reg: no executor pod was requested"; }
kill -TERM \$pid
timeout 60 tail --pid=\$pid -f /dev/null || { kill -9 \$pid; fail "stop-reg: SIGTERM during the registration wait was not acted on within 60 s"; }
rc=0; wait \$pid || rc=\$?
[ \$rc -eq 143 ] || { tail -5 "$T/reg.err" >&2; fail "stop-reg: exit status \$rc, expected 143"; }
grep -q "interrupted by Terminated" "$T/reg.err" || fail "stop-reg: no line says the application was interrupted"
expect_nothing_left "stop-reg"

# ---- 5. the driver SIGKILLed: its executors end by themselves
marks
# (its local directory, which a SIGKILLed driver cannot remove, under the test's directory)
mkdir -p "$T/gone-local"
"\$SUBMIT" "\${COMMON[@]}" --deploy-mode client --name stop-gone --conf spark.local.dir="$T/gone-local" \
    --class stuck "\$JOBS" "$T/marks" >"$T/gone.out" 2>"$T/gone.err" &
pid=\$!
wait_for 90 started || { kill -9 \$pid; fail "stop-gone: the executors' tasks never started"; }
kill -9 \$pid
ended() { ! kubectl get pods -l spark-role=executor -o jsonpath='{.items[*].status.phase}' | grep -qE 'Running|Pending'; }
wait_for 60 ended || fail "stop-gone: executors of a dead driver still run: \$(kubectl get pods -l spark-role=executor)"
# client mode outside a pod: nothing owns these objects, and the driver could not clean up
kubectl delete pods,configmaps,secrets -l spark-role -o name >/dev/null 2>&1
kubectl delete configmaps,secrets -l spark-app-selector >/dev/null 2>&1
expect_nothing_left "stop-gone cleanup"

# ---- 6. cluster mode, --kill
marks
"\$SUBMIT" "\${COMMON[@]}" --deploy-mode cluster --name stop-kill \
    --conf spark.kubernetes.submission.waitAppCompletion=false --class stuck "\$JOBS" "$T/marks" \
    >"$T/kill.out" 2>"$T/kill.err" || fail "stop-kill: submission failed: \$(cat "$T/kill.err")"
wait_for 90 started || fail "stop-kill: the executors' tasks never started: \$(kubectl get pods)"
"\$SUBMIT" --master "k8s://\$SERVER" --kill 'stop-kill-*' >"$T/k.out" 2>"$T/k.err" || fail "--kill failed: \$(cat "$T/k.err")"
empty() { [ -z "\$(objects 2>/dev/null)" ]; }
wait_for 60 empty || fail "stop-kill: 60 s after --kill, left: \$(objects)"
# ---- 7. client mode from a pod (spark.kubernetes.driver.pod.name): what the driver creates is owned
# by that pod, as Spark's, and a double Ctrl-C still deletes it all
kubectl create -f - >/dev/null <<EOF
{"apiVersion":"v1","kind":"Pod","metadata":{"name":"client-host"},
 "spec":{"restartPolicy":"Never","containers":[{"name":"host","image":"cspark:dev","command":["sh","-c","sleep 300"]}]}}
EOF
host_running() { [ "\$(kubectl get pod client-host -o jsonpath='{.status.phase}')" = Running ]; }
wait_for 60 host_running || fail "client-host pod not Running"
uid=\$(kubectl get pod client-host -o jsonpath='{.metadata.uid}')
marks
"\$SUBMIT" "\${COMMON[@]}" --deploy-mode client --name stop-owned --conf spark.kubernetes.driver.pod.name=client-host \
    --class stuck "\$JOBS" "$T/marks" >"$T/owned.out" 2>"$T/owned.err" &
pid=\$!
wait_for 90 started || { kill -9 \$pid; tail -20 "$T/owned.err" >&2; fail "stop-owned: the executors' tasks never started"; }
owned=\$(objects | grep -v -e '^pod/client-host\$' -e '^service/')
echo "\$owned" | grep -q '^configmap/' && echo "\$owned" | grep -q '^secret/' && [ "\$(echo "\$owned" | grep -c '^pod/')" -eq 2 ] ||
    { kill -9 \$pid; fail "stop-owned: expected 2 executor pods, a ConfigMap and a Secret: \$owned"; }
for o in \$owned; do
    [ "\$(kubectl get "\$o" -o jsonpath='{.metadata.ownerReferences[0].uid}')" = "\$uid" ] || { kill -9 \$pid; fail "stop-owned: \$o is not owned by the driver's pod"; }
done
kill -INT \$pid; sleep 0.3; kill -INT \$pid
timeout 60 tail --pid=\$pid -f /dev/null || { kill -9 \$pid; fail "stop-owned: the driver still runs 60 s after a double Ctrl-C"; }
only_host() { [ -z "\$(objects | grep -v -e '^pod/client-host\$' -e '^service/')" ]; }
wait_for 20 only_host || fail "stop-owned: left behind: \$(objects)"
kubectl delete pod client-host --grace-period=0 --force >/dev/null 2>&1
expect_nothing_left "stop-owned"
echo "inner ok"
INNER
k8s_run_inner 420
echo "PASS: $K8S_TEST"
