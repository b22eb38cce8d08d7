#!/usr/bin/env bash
# bench/kmeans_cache.sh — what caching buys k-means (issue 13): examples/kmeans.so over 500,000
# points, 10 iterations, on local-cluster[2,1,1024], with the parsed points cached (MEMORY_ONLY)
# and without (NONE); not part of CI.
#
# usage: bench/kmeans_cache.sh [BUILD_DIR]      (default: build)
#
# Reports, from kmeans.so's own per-iteration timings and from the event log of each run:
#   * iteration 1 (reads and parses the file, stores the blocks) against the median of
#     iterations 2-10 (read the blocks), in wall time and in the tasks' CPU time (Executor CPU
#     Time summed over the iteration's tasks: less sensitive to other load on the machine), and
#     the ratio (target: >= 5x), and against the slowest of iterations 2-10 (the target is for
#     each of them);
#   * input bytes read per iteration (Input Metrics): with the cache, iteration 1 reads the file
#     once and the others read nothing (job 0, take(K) for the initial centroids, reads the head
#     of one split);
#   * the same run without the cache, for comparison;
#   * both runs' centroids, which must be equal (and equal to bench/kmeans_ref.py's when
#     BENCH_KMEANS_REF=1, a minute of Python).
# Sizes: BENCH_KMEANS_POINTS (500000), BENCH_KMEANS_K (8), BENCH_KMEANS_DIMS (3),
# BENCH_KMEANS_ITERS (10). Data under BENCH_DATA (default bench/data). Exits 1 when a run fails
# or the centroids differ, 0 otherwise (ratios are reported, not enforced: load moves them).
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "kmeans_cache: no build dir ${1:-build}" >&2; exit 2; }
SUBMIT=$BUILD/bin/cspark-submit
APP=$BUILD/examples/kmeans.so
DATA=${BENCH_DATA:-$SRC/bench/data}
POINTS=${BENCH_KMEANS_POINTS:-500000}
K=${BENCH_KMEANS_K:-8}
DIMS=${BENCH_KMEANS_DIMS:-3}
ITERS=${BENCH_KMEANS_ITERS:-10}
MASTER='local-cluster[2,1,1024]'
PY=/usr/bin/python3
for f in "$SUBMIT" "$APP" "$BUILD/bin/cspark-executor"; do
    [ -e "$f" ] || { echo "kmeans_cache: missing $f (build first)" >&2; exit 2; }
done
mkdir -p "$DATA"
IN=$DATA/points-$POINTS-$K-$DIMS.txt
if [ ! -s "$IN" ]; then
    echo "kmeans_cache: generating $IN" >&2
    "$PY" "$SRC/bench/gen_points.py" "$POINTS" "$K" "$DIMS" 13 >"$IN.tmp" && mv "$IN.tmp" "$IN" || exit 1
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# run LEVEL: kmeans.so with an event log; centroids in $T/LEVEL.out, timings in $T/LEVEL.err
run() {
    mkdir -p "$T/ev-$1"
    "$SUBMIT" --master "$MASTER" --conf spark.eventLog.enabled=true --conf "spark.eventLog.dir=file:$T/ev-$1" \
        "$APP" "$IN" "$K" "$ITERS" "$1" >"$T/$1.out" 2>"$T/$1.err" ||
        { tail -5 "$T/$1.err" >&2; echo "kmeans_cache: the $1 run failed" >&2; exit 1; }
    # the log is rolled and zstd-compressed (the defaults): its lines, for the summary below
    "$BUILD/tests/cat_event_log" "$T/ev-$1"/* >"$T/ev-$1.json" ||
        { echo "kmeans_cache: cannot read the $1 event log" >&2; exit 1; }
}
run MEMORY_ONLY
run NONE
cmp -s "$T/MEMORY_ONLY.out" "$T/NONE.out" || { echo "kmeans_cache: centroids differ with and without the cache" >&2; exit 1; }
if [ "${BENCH_KMEANS_REF:-0}" = 1 ]; then
    "$PY" "$SRC/bench/kmeans_ref.py" "$IN" "$K" "$ITERS" >"$T/ref.out"
    cmp -s "$T/MEMORY_ONLY.out" "$T/ref.out" || { echo "kmeans_cache: centroids differ from the reference" >&2; exit 1; }
fi

"$PY" - "$T" "$ITERS" "$(stat -c %s "$IN")" "$POINTS" "$K" "$DIMS" <<'PYEOF'
import json, re, statistics, sys
t, iters, size, points, k, dims = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]

def load(level):
    wall = {int(m.group(1)): float(m.group(2)) for m in
            re.finditer(r"kmeans: iteration (\d+) took ([\d.]+) ms", open(f"{t}/{level}.err").read())}
    stage_job, cpu, read = {}, {}, {}
    for line in open(f"{t}/ev-{level}.json"):
        e = json.loads(line)
        if e["Event"] == "SparkListenerJobStart":
            for s in e["Stage IDs"]:
                stage_job[s] = e["Job ID"]
        elif e["Event"] == "SparkListenerTaskEnd":
            j, m = stage_job[e["Stage ID"]], e["Task Metrics"]
            cpu[j] = cpu.get(j, 0) + m["Executor CPU Time"] / 1e6
            read[j] = read.get(j, 0) + m["Input Metrics"]["Bytes Read"]
    # job 0 is take(K); job i is iteration i
    return wall, {i: cpu.get(i, 0) for i in range(1, iters + 1)}, {i: read.get(i, 0) for i in range(0, iters + 1)}

print(f"k-means: {points} points, K={k}, {dims} dimensions, {iters} iterations, local-cluster[2,1,1024]")
print(f"input file: {size} bytes")
rows = {}
for level in ("MEMORY_ONLY", "NONE"):
    wall, cpu, read = load(level)
    later_wall = statistics.median(wall[i] for i in range(2, iters + 1))
    later_cpu = statistics.median(cpu[i] for i in range(2, iters + 1))
    rows[level] = (wall[1], later_wall, cpu[1], later_cpu)
    print(f"\n{level}")
    print(f"  iteration 1: {wall[1]:.1f} ms wall, {cpu[1]:.0f} ms task CPU; input read {read[1]} bytes")
    print(f"  iterations 2-{iters} (median): {later_wall:.1f} ms wall, {later_cpu:.0f} ms task CPU; "
          f"input read {sum(read[i] for i in range(2, iters + 1))} bytes in all")
    print(f"  iteration 1 / later: {wall[1] / max(later_wall, 0.1):.1f}x wall, {cpu[1] / max(later_cpu, 0.001):.1f}x CPU (target >= 5x with the cache)")
    worst_wall = max(wall[i] for i in range(2, iters + 1))
    worst_cpu = max(cpu[i] for i in range(2, iters + 1))
    print(f"  iteration 1 / slowest of 2-{iters}: {wall[1] / max(worst_wall, 0.1):.1f}x wall ({worst_wall:.1f} ms), "
          f"{cpu[1] / max(worst_cpu, 0.001):.1f}x CPU ({worst_cpu:.0f} ms)")
    print(f"  input read by every job (take(K) included): {sum(read.values())} bytes = "
          f"{sum(read.values()) / size:.3f} x the file")
c, n = rows["MEMORY_ONLY"], rows["NONE"]
print(f"\ncached iteration vs uncached iteration (medians of 2-{iters}): {n[1] / max(c[1], 0.1):.1f}x wall, {n[3] / max(c[3], 0.001):.1f}x CPU")
PYEOF
