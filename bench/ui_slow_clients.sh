#!/usr/bin/env bash
# bench/ui_slow_clients.sh — how fast the UI server answers /metrics/prometheus while 1,000 slow
# clients (half-sent requests, answers never read) hold connections: runs the regression test
# tests/unit/ui/test_ui_slow_clients.c (which asserts only a generous bound) BENCH_REPS times
# (default 5) and reports the median and worst answer time. Not part of CI.
#
# usage: bench/ui_slow_clients.sh [BUILD_DIR]      (default: build)
# Saves a Markdown table to bench/results/ui_slow_clients.md.
set -uo pipefail
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "ui_slow_clients: no build dir ${1:-build}" >&2; exit 2; }
BIN=$BUILD/tests/ui_test_ui_slow_clients
[ -x "$BIN" ] || { echo "ui_slow_clients: build $BIN first (cmake --build $BUILD --target ui_test_ui_slow_clients)" >&2; exit 2; }
REPS=${BENCH_REPS:-5}
OUT=$SRC/bench/results/ui_slow_clients.md
ms=()
for _ in $(seq "$REPS"); do
    line=$("$BIN" 2>&1 | grep -o 'status 200 in [0-9]* ms with [0-9]* slow clients') ||
        { echo "ui_slow_clients: a run failed" >&2; exit 1; }
    ms+=("$(echo "$line" | awk '{print $4}')")
done
sorted=$(printf '%s\n' "${ms[@]}" | sort -n)
median=$(echo "$sorted" | sed -n "$(( (REPS + 1) / 2 ))p")
worst=$(echo "$sorted" | tail -1)
{
    echo "# UI under 1,000 slow clients ($(date -u +%Y-%m-%d), $(nproc) cores)"
    echo
    echo "| figure | value |"
    echo "|---|---|"
    echo "| /metrics/prometheus answer, median of $REPS | ${median} ms |"
    echo "| /metrics/prometheus answer, worst | ${worst} ms |"
    echo "| acceptance bound (issue 21) | 1000 ms |"
} | tee "$OUT"
