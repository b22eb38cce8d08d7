#!/usr/bin/env bash
# layering.sh — the folders of src/ form the one-way stack written in docs/architecture.md (the
# table between "layering: begin" and "layering: end"): every #include "dir/file.h" under src/
# must name the file's own folder, or a folder (or a single header) its row allows; every folder
# of src/ must have a row. It also checks that no file under src/ is longer than 1,000 lines. Before
# looking at the tree, the checker proves it bites: it must reject a few includes that go up the
# stack or across siblings. $1 = build directory (unused: the check reads the sources).
# ctest-labels: no-asan (it reads the sources, not the build: the sanitizer pass would repeat it)
set -euo pipefail
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
fail() { echo "FAIL: layering: $*" >&2; exit 1; }
DOC="$SRC/docs/architecture.md"
[ -f "$DOC" ] || fail "$DOC is missing"

# "folder allowed allowed ..." per row of the stack table
RULES=$(awk '/<!-- layering: begin -->/ { on = 1; next } /<!-- layering: end -->/ { on = 0 }
    on && /^\| `/ {
        n = split($0, cell, "|")
        folder = cell[2]; gsub(/[` ]/, "", folder)
        line = folder
        m = split(cell[3], tok, "`")
        for (i = 2; i <= m; i += 2) line = line " " tok[i]
        print line
    }' "$DOC")
[ -n "$RULES" ] || fail "no stack table between the layering markers in docs/architecture.md"

# check: reads "file<TAB>include" lines (file relative to src/), prints one line per violation
check() {
    awk -v rules="$RULES" '
        BEGIN {
            n = split(rules, rows, "\n")
            for (i = 1; i <= n; i++) {
                k = split(rows[i], f, " ")
                known[f[1]] = 1
                for (j = 2; j <= k; j++) allow[f[1] SUBSEP f[j]] = 1
            }
        }
        {
            file = $1; inc = $2
            dir = file; sub(/\/[^\/]*$/, "", dir)
            if (!(dir in known)) { print file ": folder " dir " has no row in the stack"; next }
            if (inc == "cspark.h") next
            if (inc == "cspark.pb-c.h") {
                if (!((dir SUBSEP "proto") in allow))
                    print file ": includes the wire schema, which " dir " may not"
                next
            }
            idir = inc; if (idir !~ /\//) next; sub(/\/[^\/]*$/, "", idir)
            if (idir == dir || (dir SUBSEP idir) in allow || (dir SUBSEP inc) in allow) next
            print file ": includes \"" inc "\": " idir " is not below " dir " in the stack"
        }'
}

# the checker bites: upward, across siblings, into a backend, and an unknown folder
selftest=$(printf '%s\t%s\n' \
    "plan/rdd.c" "api/context.h" \
    "sched/dag_scheduler.c" "exec/task.h" \
    "exec/executor.c" "sched/listener.h" \
    "api/context.c" "cluster/k8s/k8s_backend.h" \
    "cluster/k8s/k8s_backend.c" "cluster/local/local_backend.h" \
    "common/conf.c" "shuffle/shuffle.h" \
    "newfolder/x.c" "common/err.h" \
    "sched/dag_scheduler.c" "plan/task.h" \
    "api/context.c" "cluster/cluster_manager.h" | check)
[ "$(echo "$selftest" | grep -c .)" -eq 7 ] ||
    fail "the checker does not reject the bad includes of its self-test: $selftest"
grep -q 'plan/rdd.c: includes "api/context.h": api is not below plan' <<<"$selftest" ||
    fail "the checker's message for an upward include is wrong: $selftest"

# the tree
cd "$SRC/src"
pairs=$(find . -name '*.[ch]' | sed 's|^\./||' | sort | while read -r f; do
    grep -o '^#include "[^"]*"' "$f" | sed 's/^#include "\(.*\)"$/\1/' | while read -r inc; do
        printf '%s\t%s\n' "$f" "$inc"
    done
done)
[ -n "$pairs" ] || fail "no include found under src/"
for d in $(find . -mindepth 1 -type d | sed 's|^\./||'); do
    ls "$d"/*.[ch] >/dev/null 2>&1 || continue
    echo "$RULES" | awk -v d="$d" '$1 == d { found = 1 } END { exit !found }' ||
        fail "folder src/$d has no row in the stack of docs/architecture.md"
done
bad=$(echo "$pairs" | check)
[ -z "$bad" ] || fail "includes against the stack of docs/architecture.md:
$bad"

# one module per file: nothing under src/ longer than 1,000 lines
over=$(find . -name '*.[ch]' -exec wc -l {} + | awk '$2 != "total" && $1 > 1000 { printf " src/%s (%d lines)", substr($2, 3), $1 }')
[ -z "$over" ] || fail "files over 1,000 lines:$over"
echo "PASS: layering ($(echo "$pairs" | wc -l) includes in $(find . -name '*.[ch]' | wc -l) files, $(echo "$RULES" | wc -l) folders)"
