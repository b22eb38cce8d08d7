#!/usr/bin/env bash
# examples_sort.sh — examples/sort.so: the output is globally sorted by the first 10 bytes and a
# permutation of the input.
#
# Input: 50,000 gensort-like records (bench/gen_records), plus lines shorter than 10 bytes, an
# empty line and records sharing a key with different tails. For local[1], local[2], local[3]:
# the part files read in name order have non-decreasing keys (LC_ALL=C sort -c on the keys),
# the multiset of lines equals the input's (sorted md5 and line count), and the key sequence is
# the same for all three runs (lines with equal keys may come in any order).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
APP=$EX/sort.so
need "$APP" "$BIN/gen_records"

"$BIN/gen_records" -s 5 50000 >"$T/in.txt" || fail "gen_records failed"
{
    printf 'short\n\nzz\n~~~~~~~~~~~~~~~last\n          spaces key\n'
    head -n 3 "$T/in.txt" | sed 's/$/ and a different tail/'
    printf 'abc\n'
} >>"$T/in.txt"
lines=$(wc -l <"$T/in.txt")
want=$(sort "$T/in.txt" | md5sum)

for n in 1 2 3; do
    submit_ok "local[$n]" "$APP" "$T/in.txt" "$T/out$n"
    cat_parts "$T/out$n" >"$T/got$n.txt"
    assert_eq "$(wc -l <"$T/got$n.txt")" "$lines" "local[$n]: line count"
    assert_eq "$(sort "$T/got$n.txt" | md5sum)" "$want" "local[$n]: output is not a permutation of the input"
    cut -c1-10 "$T/got$n.txt" >"$T/keys$n.txt"
    sort -c "$T/keys$n.txt" 2>"$T/sortc.err" || fail "local[$n]: keys not sorted: $(cat "$T/sortc.err")"
done
[ "$(count_parts "$T/out2")" -ge 2 ] || fail "local[2] wrote fewer than 2 non-empty parts"
assert_files_eq "$T/keys1.txt" "$T/keys2.txt" "key order local[1] vs local[2]"
assert_files_eq "$T/keys1.txt" "$T/keys3.txt" "key order local[1] vs local[3]"
log "ok ($lines lines)"
