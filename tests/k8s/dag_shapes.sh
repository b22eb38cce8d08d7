#!/usr/bin/env bash
# k8s/dag_shapes.sh — executor loss at random points of several DAG shapes on Kubernetes (issue 20
# item 3): 10 client-mode runs of tests/jobs/dagshapes.c's shapes (chain, join_of_joins, unions,
# cached, iterative) with 2 executor pods. In each, a task picked at random among those where a
# function of the job runs pauses (a file in the shared test directory) and a random executor pod is force-deleted
# while it waits, as tests/fault/dag_shapes.sh does with processes. Every run ends within its
# bound with the fault-free local[2] answer and leaves no pod behind. Kubesim only: the 100
# local trials of tests/fault/dag_shapes.sh cover the scheduler; this covers pod deletion.
# k8s-clusters: kubesim
. "$(dirname "$0")/lib/k8s.sh"
k8s_test_init "$@"
JOBS=$BUILD/tests/jobs/dagshapes.so
RUNS=${FAULT_RUNS:-10}
SEED=${FAULT_SEED:-2021}
N=200000
SHAPES="chain join_of_joins unions cached iterative"
points=()
for shape in $SHAPES; do # the fault-free answers, and the tasks where a function runs (to pause in)
    mkdir -p "$T/ran-$shape"
    timeout 120 "$BUILD/bin/cspark-submit" --master 'local[2]' --class "$shape" "$JOBS" $N "$T/ran-$shape" -2 0 \
        >"$T/ref-$shape" 2>"$T/ref-$shape.err" || { tail -5 "$T/ref-$shape.err" >&2; echo "FAIL: $K8S_TEST: $shape reference run failed" >&2; exit 1; }
    points+=("$(cd "$T/ran-$shape" && ls | sed 's/^ran-//' | tr '\n' ',' | sed 's/,$//')")
done

cat >"$T/inner.sh" <<INNER
RANDOM=$SEED
shapes=($SHAPES)
points=(${points[*]})
hits=0
for run in \$(seq 1 $RUNS); do
    i=\$((run % 5))
    shape=\${shapes[\$i]}
    IFS=, read -r -a pts <<<"\${points[\$i]}"
    point=\${pts[\$((RANDOM % \${#pts[@]}))]}
    stage=\${point%-*}
    part=\${point#*-}
    gate=$T/gate-\$run
    mkdir -m 0777 "\$gate"
    err=$T/run-\$run.err
    what="run \$run (\$shape, pause at stage \$stage partition \$part)"
    timeout 240 "$BUILD/bin/cspark-submit" --master "k8s://\$SERVER" --deploy-mode client --name dag-shapes-\$run \
        --conf spark.kubernetes.container.image=cspark:dev --conf spark.executor.instances=2 \
        --conf spark.executor.cores=2 --conf spark.kubernetes.allocation.batch.delay=200ms \
        --conf spark.shuffle.io.retryWait=50ms --conf spark.shuffle.io.maxRetries=1 \
        --class \$shape "$JOBS" $N "\$gate" \$stage \$part >"$T/run-\$run.out" 2>"\$err" &
    SUB=\$!
    for _ in \$(seq 2400); do
        [ -e "\$gate/paused" ] && break
        kill -0 \$SUB 2>/dev/null || break
        sleep 0.1
    done
    victim=none
    if [ -e "\$gate/paused" ]; then
        mapfile -t pods < <(kubectl get pods -l spark-role=executor,spark-app-name=dag-shapes-\$run -o name)
        [ \${#pods[@]} -gt 0 ] || fail "\$what: no executor pod while a task is paused"
        victim=\${pods[\$((RANDOM % \${#pods[@]}))]}
        kubectl delete "\$victim" --grace-period=0 --force >/dev/null 2>&1 || fail "\$what: cannot delete \$victim"
        hits=\$((hits + 1))
    fi
    touch "\$gate/go"
    rc=0
    wait \$SUB || rc=\$?
    [ \$rc -ne 124 ] || { grep -E "event=(submitted|completed|resubmit|resubmit_parent|stalled|executor_lost)" "\$err" | tail -20 >&2; fail "\$what, \$victim: the job hangs"; }
    [ \$rc -eq 0 ] || { tail -20 "\$err" >&2; fail "\$what, \$victim: exit \$rc"; }
    [ "\$(cat "$T/run-\$run.out")" = "\$(cat "$T/ref-\$shape")" ] ||
        fail "\$what, \$victim: got '\$(cat "$T/run-\$run.out")', expected '\$(cat "$T/ref-\$shape")'"
    echo "\$what: victim \$victim, losses \$(grep -c 'scheduler event=executor_lost' "\$err")"
    expect_nothing_left "\$what"
done
[ \$hits -ge \$(($RUNS * 3 / 4)) ] || fail "only \$hits of $RUNS runs lost an executor mid-job"
echo "inner ok"
INNER
k8s_run_inner 900
echo "PASS: $K8S_TEST ($RUNS runs, all exact)"
