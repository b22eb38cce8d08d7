#!/usr/bin/env bash
# dag_shapes.sh — executor loss at random points of several DAG shapes (issue 20 item 3): chains,
# joins of joins, unions, cached parents and an iterative join loop (tests/jobs/dagshapes.c), run
# in local-cluster[2,2,1024]. In each trial the test picks at random a task (stage, partition) where
# a function of the job runs (recorded by a fault-free run); that task pauses (it writes a file and waits for one), and a random executor is
# SIGKILLed while it waits, so every kill lands mid-job at a point of the DAG the seed chose —
# through files, not timing. Every trial must end within its bound with the fault-free local[2]
# answer, byte for byte: tasks re-run, lost map outputs computed again (those of finished stages
# too), never a hang, never a wrong result. FAULT_RUNS trials in all (default 100, spread over
# the shapes; 20 in the sanitizer build), seeded by FAULT_SEED so that a failure can be replayed.
. "$(dirname "$0")/../lib/prelude.sh"
. "$(dirname "$0")/lib/fault.sh"
lib_init "$@"
JOBS=$BUILD/tests/jobs/dagshapes.so
need "$BIN/cspark-executor" "$JOBS"
default_runs=100
[ "${CSPARK_SANITIZE:-0}" = 1 ] && default_runs=20 # CTest says which build this is
RUNS=${FAULT_RUNS:-$default_runs}
SEED=${FAULT_SEED:-2020}
RANDOM=$SEED
N=200000
LC='local-cluster[2,2,1024]'
OPTS=(--conf spark.shuffle.io.retryWait=50ms --conf spark.shuffle.io.maxRetries=1)
SHAPES=(chain join_of_joins unions cached iterative)
declare -A REF POINTS

for shape in "${SHAPES[@]}"; do
    submit_ok 'local[2]' --class "$shape" "$JOBS" $N
    REF[$shape]=$(cat "$T/stdout")
    case ${REF[$shape]} in "shape=$shape records="*) ;; *) fail "$shape: reference printed '${REF[$shape]}'" ;; esac
    # the tasks of a fault-free run on the cluster where a function of the job runs: the trials
    # pause in one of them
    mkdir -p "$T/ran-$shape"
    submit_ok "$LC" "${OPTS[@]}" --class "$shape" "$JOBS" $N "$T/ran-$shape" -2 0
    assert_eq "$(cat "$T/stdout")" "${REF[$shape]}" "$shape: fault-free local-cluster result"
    POINTS[$shape]=$(cd "$T/ran-$shape" && ls | sed 's/^ran-//' | sort -t- -k1,1n -k2,2n | tr '\n' ' ')
    [ -n "${POINTS[$shape]}" ] || fail "$shape: no task ran a function of the job"
    log "$shape: ${REF[$shape]}, functions run in (stage-partition) ${POINTS[$shape]}"
done

hits=0
for run in $(seq 1 "$RUNS"); do
    shape=${SHAPES[$((run % ${#SHAPES[@]}))]}
    read -r -a points <<<"${POINTS[$shape]}"
    point=${points[$((RANDOM % ${#points[@]}))]}
    stage=${point%-*}
    part=${point#*-}
    gate=$T/gate-$run
    mkdir -p "$gate"
    out=$T/run-$run
    what="run $run ($shape, pause at stage $stage partition $part, seed $SEED)"
    "$SUBMIT" --master "$LC" "${OPTS[@]}" --class "$shape" "$JOBS" $N "$gate" $stage $part \
        >"$out.out" 2>"$out.err" &
    pid=$!
    # the chosen task pauses, or the job ends (no function of the job runs in that task)
    for _ in $(seq 6000); do
        [ -e "$gate/paused" ] && break
        kill -0 $pid 2>/dev/null || break
        sleep 0.05
    done
    victim=none
    if [ -e "$gate/paused" ]; then
        mapfile -t execs < <(executor_pids $pid)
        [ ${#execs[@]} -gt 0 ] || fail "$what: no executor process while a task is paused"
        victim=${execs[$((RANDOM % ${#execs[@]}))]}
        kill -9 "$victim"
        hits=$((hits + 1))
    fi
    touch "$gate/go"
    if ! timeout 300 tail --pid=$pid -f /dev/null; then
        grep -E "event=(submitted|completed|resubmit|resubmit_parent|stalled|executor_lost)" "$out.err" | tail -20 >&2
        fail "$what, victim $victim: the job hangs"
    fi
    rc=0
    wait $pid || rc=$?
    [ $rc -eq 0 ] || { tail -20 "$out.err" >&2; fail "$what, victim $victim: exit $rc"; }
    assert_eq "$(cat "$out.out")" "${REF[$shape]}" "$what, victim $victim: result"
    log "$what: victim $victim, losses $(grep -c 'scheduler event=executor_lost' "$out.err")"
    rm -rf "$out.out" "$out.err" "$gate"
done
# every chosen task runs a function of the job, so each trial pauses and kills (a task whose
# stage was skipped, its outputs already there, cannot): the kills must mostly happen
[ $hits -ge $((RUNS * 3 / 4)) ] || fail "only $hits of $RUNS runs lost an executor mid-job"
echo "PASS: $TEST_NAME ($RUNS runs over ${#SHAPES[@]} shapes, $hits with an executor killed mid-job, all exact)"
