#!/usr/bin/env bash
# examples_join.sh — examples/join.so against a Python inner join.
#
# Inputs: "key<TAB>value" files with keys on one side only, keys repeated on both sides (m x n
# pairs), values holding TABs, an empty key, and lines without a TAB (skipped). For local[1],
# local[2] and local[3] the sorted output equals the reference byte for byte.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
APP=$EX/join.so
need "$APP"

"$PY" - "$T/left.txt" "$T/right.txt" "$T/ref.txt" <<'PYEOF' || fail "reference generation failed"
import random, sys
left_path, right_path, ref_path = sys.argv[1:4]
rnd = random.Random(1234)
def lines_for(side, nkeys, n):
    out = []
    for i in range(n):
        k = "k%d" % rnd.randrange(nkeys)
        v = "%s%d" % (side, i)
        if i % 97 == 0:
            v += "\twith\ttabs"
        out.append("%s\t%s" % (k, v))
    out += ["no tab on this line", "", "\t%s-empty-key" % side, "shared\t%s-x" % side,
            "shared\t%s-y" % side]
    rnd.shuffle(out)
    return out
left = lines_for("L", 3000, 20000)
right = lines_for("R", 6000, 8000)
for path, ls in ((left_path, left), (right_path, right)):
    with open(path, "w") as f:
        f.write("\n".join(ls) + "\n")
def parse(ls):
    d = {}
    for l in ls:
        if "\t" not in l:
            continue
        k, v = l.split("\t", 1)
        d.setdefault(k, []).append(v)
    return d
L, R = parse(left), parse(right)
out = ["%s\t%s\t%s" % (k, a, b) for k in L if k in R for a in L[k] for b in R[k]]
out = sorted(o.encode() for o in out)
with open(ref_path, "wb") as f:
    f.write(b"".join(o + b"\n" for o in out))
PYEOF
[ -s "$T/ref.txt" ] || fail "empty reference"

for n in 1 2 3; do
    submit_ok "local[$n]" "$APP" "$T/left.txt" "$T/right.txt" "$T/out$n"
    cat_parts "$T/out$n" >"$T/raw$n.txt"
    sort "$T/raw$n.txt" >"$T/got$n.txt"
    assert_files_eq "$T/got$n.txt" "$T/ref.txt" "local[$n]: join differs from the reference"
done
log "ok ($(wc -l <"$T/ref.txt") joined lines)"
