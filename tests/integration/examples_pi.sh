#!/usr/bin/env bash
# examples_pi.sh — examples/pi.so: the estimate is within 0.01 of pi, equals a Python
# recomputation of the same deterministic points, and is the same for local[1], local[2] and
# local[3]; a bad argument is a usage error.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
APP=$EX/pi.so
need "$APP"

want=$("$PY" - <<'PYEOF'
M = (1 << 64) - 1
def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & M
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & M
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & M
    return x ^ (x >> 31)
def unit(h):
    return (h >> 11) * 2.0 ** -52 - 1.0
slices = 4
n = 100000 * slices
count = 0
for i in range(1, n):
    x, y = unit(splitmix64(2 * i)), unit(splitmix64(2 * i + 1))
    if x * x + y * y <= 1.0:
        count += 1
print("Pi is roughly %.5f" % (4.0 * count / (n - 1)))
PYEOF
) || fail "python reference failed"

for n in 1 2 3; do
    submit_ok "local[$n]" "$APP" 4
    got=$(grep '^Pi is roughly ' "$T/stdout") || fail "local[$n]: no 'Pi is roughly' line"
    assert_eq "$got" "$want" "local[$n]"
done
awk -v v="${want#Pi is roughly }" 'BEGIN { d = v - 3.14159265358979; exit !(d < 0.01 && d > -0.01) }' ||
    fail "estimate $want is not within 0.01 of pi"

submit_ok "local[2]" "$APP"
grep -q '^Pi is roughly 3\.1' "$T/stdout" || fail "default slices: $(cat "$T/stdout")"

rc=0
run_submit "local[1]" "$APP" abc || rc=$?
[ $rc -ne 0 ] || fail "pi.so abc exited 0"
assert_contains "$T/stderr" "usage: pi.so" "usage message"
log "ok ($want)"
