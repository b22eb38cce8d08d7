#!/usr/bin/env bash
# make_run_scope.sh — `make run` installs and builds only what the word count it runs needs: the
# Makefile's recipe for it (make -n, in a scratch build directory) asks scripts/install-deps.sh for
# the core package set alone and builds named CMake targets, never CMake's `all`, the control plane,
# the image, kubesim or the browser tools; the core set holds no Chromium, Prometheus, Node, npm,
# mmdebstrap or skopeo; and in CMake's dependency graph those targets do not pull in the control
# plane, the image or kubesim. Before the split, `make run` depended on `make build` (every
# package, CMake's `all`: 9 minutes on a fresh machine).
# $1 = build directory (unused: the test reads the Makefile and configures a scratch directory).
# ctest-labels: no-asan (it reads the sources, not the build: the sanitizer pass would repeat it)
set -euo pipefail
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
fail() { echo "FAIL: make_run_scope: $*" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# 1. the recipe: make -n prints every command `make run` would run (nothing is built)
make -n -C "$SRC" run BUILD="$T/build" >"$T/recipe" 2>&1 || fail "make -n run failed: $(tail -3 "$T/recipe")"
grep -q 'install-deps.sh' "$T/recipe" || fail "make run does not install its packages: $(cat "$T/recipe")"
grep 'install-deps.sh' "$T/recipe" | grep -vqE 'install-deps\.sh core$' &&
    fail "make run asks for more than the core package set: $(grep install-deps.sh "$T/recipe")"
grep -q 'run-example.sh' "$T/recipe" || fail "make run no longer runs scripts/run-example.sh"
builds=$(grep -E 'cmake --build' "$T/recipe" || true)
[ -n "$builds" ] || fail "make run builds nothing: $(cat "$T/recipe")"
while read -r line; do
    case "$line" in
    *--target*) ;;
    *) fail "make run builds CMake's all (control plane, image, tests): $line" ;;
    esac
    for t in all image k8s_control_plane kubesim core; do
        echo " ${line#*--target} " | grep -qE " $t( |$)" && fail "make run builds the target $t: $line"
    done
done <<<"$builds"
grep -qE 'k8s-up|scripts/image|npm|playwright' "$T/recipe" &&
    fail "make run builds the control plane, the image or the browser tools: $(grep -E 'k8s-up|scripts/image|npm|playwright' "$T/recipe")"

# 2. the core package set
core=$(bash "$SRC/scripts/install-deps.sh" --list core) || fail "install-deps.sh --list core failed"
for p in chromium prometheus nodejs npm mmdebstrap skopeo golang-go clang; do
    grep -qx "$p" <<<"$core" && fail "the core package set holds $p"
done
grep -qx cmake <<<"$core" || fail "the core package set lacks cmake: $core"

# 3. what those targets pull in: CMake's dependency graph of a scratch configuration (custom targets
#    included), closed over from the run targets, holds no control plane, image or kubesim
targets=$(sed -n 's/^RUN_TARGETS *:= *//p' "$SRC/Makefile")
[ -n "$targets" ] || fail "no RUN_TARGETS in the Makefile"
mkdir -p "$T/cfg"
echo 'set(GRAPHVIZ_CUSTOM_TARGETS TRUE)' >"$T/cfg/CMakeGraphVizOptions.cmake"
cmake -S "$SRC" -B "$T/cfg" -DCSPARK_K8S_CONTROL_PLANE=ON -DCSPARK_IMAGE=ON --graphviz="$T/cfg/deps.dot" \
    >"$T/cfg.log" 2>&1 || fail "cmake configure failed: $(tail -3 "$T/cfg.log")"
closure() { # closure TARGET... — the targets and everything they depend on, one a line
    awk -v roots="$*" '
        match($0, /\/\/ [^ ]+ -> [^ ]+$/) { split(substr($0, RSTART + 3), e, " -> "); dep[e[1]] = dep[e[1]] " " e[2] }
        END {
            n = split(roots, todo, " ")
            for (i = 1; i <= n; i++) seen[todo[i]] = 1
            while (n > 0) {
                t = todo[n--]; print t
                m = split(dep[t], d, " ")
                for (k = 1; k <= m; k++) if (!(d[k] in seen)) { seen[d[k]] = 1; todo[++n] = d[k] }
            }
        }' "$T/cfg/deps.dot"
}
closure image | grep -qx cspark || fail "the dependency graph reads wrong: image does not depend on cspark"
# shellcheck disable=SC2086 # the target list splits into words
pulled=$(closure $targets)
for t in image k8s_control_plane kubesim; do
    grep -qx "$t" <<<"$pulled" && fail "the run targets ($targets) depend on $t"
done
echo "PASS: make_run_scope"
