#!/usr/bin/env bash
# bench/sql/profile.sh — where cspark-sql spends one TPC-H query's time: its CPU time (perf stat
# task-clock, which a busy machine distorts less than wall time), a perf profile with DWARF call
# stacks, and bench/sql/perf_summary.py's areas, self and inclusive percentages. The notes in
# bench/results/sql_profile.md were made with it.
#
#   bench/sql/profile.sh QUERY [SCALE] [-- cspark-sql options...]   e.g. profile.sh 7 1
#
# Data: bench/sql/tpch_data.sh SCALE (default 1). Needs perf (Debian's linux-perf) and a build
# with symbols (RelWithDebInfo). Output in build/bench-sql/profile/qNN*: the perf data, the
# summary (printed too); a run with options is named qNN-<hash of the options>. Extra cspark-sql options after -- (e.g. --conf
# spark.sql.shuffle.partitions=8) go to both runs. Exit: 0; 1 when a step failed (named).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
fail() {
  echo "bench/sql/profile: $*" >&2
  exit 1
}
[ $# -ge 1 ] || fail "usage: $0 QUERY [SCALE] [-- cspark-sql options...]"
[[ "$1" =~ ^[0-9]+$ ]] && [ "$1" -ge 1 ] && [ "$1" -le 22 ] || fail "QUERY must be 1..22 (got '$1')"
Q=$(printf 'q%02d' "$1")
shift
SCALE=1
if [ $# -ge 1 ] && [ "$1" != -- ]; then
  SCALE=$1
  shift
fi
[ $# -ge 1 ] && [ "$1" = -- ] && shift
BUILD=${CSPARK_BUILD:-$SRC/build}
SQL=$BUILD/bin/cspark-sql
[ -x "$SQL" ] || fail "missing $SQL (build first)"
command -v perf >/dev/null || fail "perf is missing (apt-get install linux-perf)"
DATA=$("$SRC/bench/sql/tpch_data.sh" "$SCALE")
OUT=$BUILD/bench-sql/profile
mkdir -p "$OUT"
TAG=$Q
[ $# -eq 0 ] || TAG=$Q-$(echo "$*" | md5sum | cut -c1-8) # a run with options beside the plain one
for t in customer lineitem nation orders part partsupp region supplier; do
  echo "CREATE TEMPORARY VIEW $t USING parquet OPTIONS (path '$DATA/$t.parquet');"
done >"$OUT/views.sql"
run=("$SQL" --master 'local[2]' --conf spark.sql.session.timeZone=UTC "$@" -i "$OUT/views.sql"
  --output-format golden -f "$SRC/tests/sql/tpch/$Q.sql")
Q_OUT=$OUT/$TAG

TZ=UTC perf stat -x, -e task-clock -o "$Q_OUT.stat" -- "${run[@]}" >"$Q_OUT.out" 2>"$Q_OUT.err" ||
  fail "cspark-sql failed on $Q: $(tail -n 2 "$Q_OUT.err")"
cpu=$(grep task-clock "$Q_OUT.stat" | cut -d, -f1)
TZ=UTC perf record -q -F 299 --call-graph dwarf,8192 -o "$Q_OUT.data" -- "${run[@]}" \
  >/dev/null 2>"$Q_OUT.record.err" || fail "perf record failed: $(tail -n 2 "$Q_OUT.record.err")"
perf script -i "$Q_OUT.data" -F ip,sym,dso >"$Q_OUT.script" 2>/dev/null || fail "perf script failed"
{
  echo "$Q at scale $SCALE: $cpu ms of CPU (perf stat task-clock); $(grep '^Time taken' "$Q_OUT.err")"
  /usr/bin/python3 "$SRC/bench/sql/perf_summary.py" "$Q_OUT.script"
} | tee "$Q_OUT.summary"
