#!/usr/bin/env bash
# exported_symbols.sh — libcspark.so exports exactly the functions include/cspark.h declares with
# CSPARK_EXTERN and src/programs/program_mains.h with CS_PROGRAM_MAIN, nothing internal (hidden
# visibility), so no name of the engine can bind to a job's own symbols or the reverse. The check is first run on a small library that exports one
# internal-looking name beside a public one, and must fail there: a check that cannot fail is
# no check.
# Usage: exported_symbols.sh BUILD_DIR
. "$(dirname "$0")/lib/submit.sh" "$@"
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}

# check_exports LIB HEADER...: prints each defined dynamic symbol of LIB that no HEADER declares
# with CSPARK_EXTERN or CS_PROGRAM_MAIN, and each declared one LIB lacks; returns 1 if any.
check_exports() {
    local lib=$1
    shift
    cat "$@" | grep -E '^(CSPARK_EXTERN|CS_PROGRAM_MAIN) ' | grep -o '\bcspark_[a-z0-9_]*(' | tr -d '(' |
        sort -u >"$T/declared"
    nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVWi]$/ { print $3 }' | sed 's/@.*//' | sort -u >"$T/exported"
    local extra missing
    extra=$(comm -13 "$T/declared" "$T/exported")
    missing=$(comm -23 "$T/declared" "$T/exported")
    [ -z "$extra" ] && [ -z "$missing" ] && return 0
    [ -n "$extra" ] && echo "exported but not public API: $(echo $extra)"
    [ -n "$missing" ] && echo "declared but not exported: $(echo $missing)"
    return 1
}

# the check fails on a library exporting an internal name
cat >"$T/fake.h" <<'H'
#define CSPARK_EXTERN __attribute__((visibility("default")))
CSPARK_EXTERN int cspark_answer(void);
H
cat >"$T/fake.c" <<'C'
#include "fake.h"
int conf_get(void) { return 41; }
int cspark_answer(void) { return conf_get() + 1; }
C
cc -shared -fPIC -fvisibility=hidden -o "$T/fake_hidden.so" "$T/fake.c" -I"$T" || fail "cannot build the fixture"
cc -shared -fPIC -o "$T/fake_leaky.so" "$T/fake.c" -I"$T" || fail "cannot build the fixture"
check_exports "$T/fake_hidden.so" "$T/fake.h" >/dev/null || fail "the check refuses a library that exports only its API"
out=$(check_exports "$T/fake_leaky.so" "$T/fake.h") && fail "the check passes a library that exports conf_get"
echo "$out" | grep -q "exported but not public API: conf_get" || fail "the check does not name conf_get: $out"

# libcspark itself
out=$(check_exports "$B/lib/libcspark.so" "$SRC/include/cspark.h" "$SRC/src/programs/program_mains.h") || fail "libcspark.so: $out"
[ "$(wc -l <"$T/exported")" -ge 40 ] || fail "libcspark.so exports only $(wc -l <"$T/exported") symbols"
echo "PASS exported_symbols"
