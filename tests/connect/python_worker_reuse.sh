#!/usr/bin/env bash
# python_worker_reuse.sh — spark.python.worker.reuse: tests/connect/python_worker_reuse.py reports
# the worker pid of each task (os.getpid() in a mapInPandas and a pandas_udf) through
# cspark-connect-server. With the key true (Spark's default) the tasks of local[2] share at most 2
# workers, and of local-cluster[2,1,1024] at most 2 (one core an executor), a later job runs in the
# same workers and a worker whose function raised is not reused; with false every task has a
# worker of its own. Idle workers stay while the server runs; after it stops, no Python process it
# started (they inherit a mark in their environment) is left. Servers are stopped by the trap.
# Usage: python_worker_reuse.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init python_worker_reuse "${1:-}"
# pythons NAME: the Python processes (daemons and workers) of the server marked NAME still running
pythons() {
  local n=0 e
  for e in /proc/[0-9]*/environ; do
    tr '\0' '\n' 2>/dev/null <"$e" | grep -qx "CSPARK_PYREUSE_TEST_MARK=$T/$1" || continue
    grep -q 'pyspark' "${e%/environ}/cmdline" 2>/dev/null && n=$((n + 1))
  done
  echo "$n"
}
run() {
  local master=$1 reuse=$2 mode=$3 name=$4 port pid left
  port=$(free_port)
  CSPARK_PYREUSE_TEST_MARK="$T/$name" "$SERVER" --master "$master" --conf spark.ui.enabled=false \
    --conf "spark.connect.grpc.binding.port=$port" --conf "spark.pyspark.python=$PY" \
    --conf "spark.python.worker.reuse=$reuse" >"$T/$name.log" 2>&1 &
  pid=$!
  _connect_pids+=($pid)
  wait_listening cspark-connect-server "$pid" "$port" 60
  timeout 600 "$PY" "$SRC/tests/connect/python_worker_reuse.py" "sc://localhost:$port" "$mode" 2 \
    >"$T/$name-client.log" 2>&1 || fail "$name: $(tail -n 5 "$T/$name-client.log")"
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null
  for _ in $(seq 100); do # the daemons end their workers as they go
    left=$(pythons "$name")
    [ "$left" = 0 ] && break
    sleep 0.1
  done
  [ "$left" = 0 ] || fail "$name: $left Python processes left after the server stopped"
  echo "ok $name: $(tail -n 1 "$T/$name-client.log")"
}
run 'local[2]' true reuse local-reuse
run 'local[2]' false no-reuse local-no-reuse
run 'local-cluster[2,1,1024]' true reuse cluster-reuse
echo "PASS python_worker_reuse"
