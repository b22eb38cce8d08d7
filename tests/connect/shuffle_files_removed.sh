#!/usr/bin/env bash
# shuffle_files_removed.sh — a finished SQL execution's shuffle files are deleted while the
# driver lives on, as Spark's ContextCleaner removes a shuffle nothing refers to any more (a
# long-lived Connect server used to keep every query's files on its executors' disks until it
# stopped). cspark-connect-server on local-cluster[2,1,1024] (executors in processes of their
# own, told by RemoveShuffle) and on local[2] (the driver's own files), SPARK_LOCAL_DIRS in T:
#   1. 15 rounds of an aggregation and a shuffled join through the PySpark client, answers
#      checked; then, the server still running, no shuffle file is left in the local directory
#      (waited for up to 60 s: the executors delete them when told);
#   2. the same with spark.cleaner.referenceTracking=false (Spark's switch for the cleaner): the
#      files stay, which shows the check above looks where they are written.
# The servers are stopped by the frame's trap whatever happens.
# Usage: shuffle_files_removed.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib/connect.sh"
connect_test_init shuffle_files_removed "$@"
ROUNDS=15

shuffle_files() { find "$T/local-$1" -name 'shuffle_*' 2>/dev/null | wc -l; }

# run NAME MASTER TRACKING: a server with its own local directory, the client's rounds
run() {
  local name=$1 master=$2 tracking=$3 port
  mkdir -p "$T/local-$name"
  port=$(free_port)
  SPARK_LOCAL_DIRS="$T/local-$name" start_cspark "$port" "$T/$name.log" --master "$master" \
    --conf "spark.cleaner.referenceTracking=$tracking"
  timeout 600 "$PY" "$SRC/tests/connect/shuffle_files_removed.py" "$port" "$ROUNDS" \
    >"$T/$name-client.log" 2>&1 || fail "$name: the client failed: $(tail -n 5 "$T/$name-client.log")"
  server_pid=${_connect_pids[${#_connect_pids[@]} - 1]}
  kill -0 "$server_pid" 2>/dev/null || fail "$name: the server is gone"
}

for master in 'local-cluster[2,1,1024]' 'local[2]'; do
  name=$(echo "$master" | tr -c 'a-z0-9\n' '_')
  run "$name" "$master" true
  left=-1
  for _ in $(seq 600); do
    left=$(shuffle_files "$name")
    [ "$left" -eq 0 ] && break
    sleep 0.1
  done
  [ "$left" -eq 0 ] || fail "$master: $left shuffle files left after the queries ended"
  echo "$master: no shuffle file left after $ROUNDS rounds"

  run "$name-kept" "$master" false
  kept=$(shuffle_files "$name-kept")
  # every round writes 3 shuffles (aggregation, and the join's two sides) of 2 or more maps
  [ "$kept" -ge $((ROUNDS * 3 * 2)) ] ||
    fail "$master: with spark.cleaner.referenceTracking=false only $kept shuffle files were kept"
  echo "$master: referenceTracking=false keeps $kept files"
done
echo "PASS shuffle_files_removed"
