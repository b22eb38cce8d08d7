#!/usr/bin/env bash
# format_check.sh — every C source and header follows .clang-format (DESIGN.md §7): clang-format
# would change nothing. Fix with `make format`.
# ctest-labels: no-asan (it reads the sources, not the build: the sanitizer pass would repeat it)
set -u
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang-format >/dev/null || { echo "FAIL: format_check: clang-format is not installed"; exit 1; }
cd "$SRC" || exit 1
bad=$(git ls-files -- 'include/*.[ch]' 'src/*.[ch]' 'tools/*.[ch]' 'examples/*.[ch]' 'bench/*.[ch]' 'tests/*.[ch]' |
    while read -r f; do clang-format --dry-run -Werror "$f" >/dev/null 2>&1 || echo "$f"; done)
if [ -n "$bad" ]; then
    echo "FAIL: format_check: not formatted (run make format):" $bad
    exit 1
fi
echo "PASS: format_check ($(git ls-files -- 'include/*.[ch]' 'src/*.[ch]' 'tools/*.[ch]' 'examples/*.[ch]' 'bench/*.[ch]' 'tests/*.[ch]' | wc -l) files)"
