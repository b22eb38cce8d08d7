#!/usr/bin/env bash
# bench/instructions.sh — instructions executed (valgrind --tool=callgrind, whole process) by two
# fixed workloads, the guard against a refactoring that slows the engine down: a change that
# keeps behaviour must keep both counts within 2 % (issue 22's bar). Instruction counts do not
# depend on the machine's load, so two builds measured on a busy machine compare fairly.
#
#   bench/instructions.sh [BUILD_DIR] [BASE_BUILD_DIR]
#
#   word count 20 MB     examples/wordcount.so, local[1], over bench/data/text-20m (gen_text -s 1)
#   20,000 empty tasks   examples/emptytasks.so 20000, local[1]
# With BASE_BUILD_DIR, each workload is counted under both builds and the change is printed in
# percent (a build of the commit before the change, e.g. `git worktree add` + cmake). Prints a
# Markdown table; exit 0, or 1 when a count is more than 2 % above the base's.
set -uo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd) || { echo "instructions: no build dir ${1:-build}" >&2; exit 2; }
BASE=
if [ $# -ge 2 ]; then
    BASE=$(cd "$2" && pwd) || { echo "instructions: no base build dir $2" >&2; exit 2; }
fi
command -v valgrind >/dev/null || { echo "instructions: valgrind is not installed (apt-get install valgrind)" >&2; exit 2; }
DATA=${BENCH_DATA:-$SRC/bench/data}
TEXT=$DATA/text-20m
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$DATA"
[ -s "$TEXT" ] || "$BUILD/bin/gen_text" -s 1 20000000 >"$TEXT" || { echo "instructions: gen_text failed" >&2; exit 2; }

# count BUILD NAME ARGS...: the instructions callgrind counted for cspark-submit ARGS under BUILD
count() {
    local b=$1 name=$2
    shift 2
    rm -rf "$TMP/out"
    local out="$TMP/$name.$(basename "$b").cg"
    valgrind --tool=callgrind --trace-children=no --callgrind-out-file="$out" \
        "$b/bin/cspark-submit" --master 'local[1]' --conf spark.ui.enabled=false "$@" \
        >"$TMP/stdout" 2>"$TMP/stderr" || { tail -5 "$TMP/stderr" >&2; echo "instructions: $name failed under $b" >&2; return 1; }
    grep -m1 '^summary:' "$out" | awk '{ print $2 }'
}

echo "| workload | instructions | base | change |"
echo "|---|---:|---:|---:|"
worst=0
for w in wordcount emptytasks; do
    case $w in
    wordcount) args=("examples/wordcount.so" "$TEXT" "$TMP/out") label="word count 20 MB, local[1]" ;;
    emptytasks) args=("examples/emptytasks.so" 20000) label="20,000 empty tasks, local[1]" ;;
    esac
    now=$(count "$BUILD" "$w" "$BUILD/${args[0]}" "${args[@]:1}") || exit 2
    if [ -n "$BASE" ]; then
        was=$(count "$BASE" "$w" "$BASE/${args[0]}" "${args[@]:1}") || exit 2
        pct=$(awk -v a="$now" -v b="$was" 'BEGIN { printf "%+.2f %%", (a - b) * 100 / b }')
        awk -v a="$now" -v b="$was" 'BEGIN { exit !(a > b * 1.02) }' && worst=1
        printf '| %s | %s | %s | %s |\n' "$label" "$now" "$was" "$pct"
    else
        printf '| %s | %s | | |\n' "$label" "$now"
    fi
done
exit $worst
