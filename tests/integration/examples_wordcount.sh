#!/usr/bin/env bash
# examples_wordcount.sh — examples/wordcount.so against an independent gawk word count.
#
# Corpus: two files in a directory (a 3 MB "messy" Zipf text from bench/gen_text -m — tabs, runs
# of spaces, \v \f, \r\n endings, empty lines, UTF-8 bytes — and a small file whose last line has
# no newline). Checks, for local[1], local[2] and local[3]: the sorted part files equal gawk's
# counts byte for byte, the printed summary and top 10 equal the reference, and all three runs
# produce the same output. Also: a usage error exits non-zero with "usage:".
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
APP=$EX/wordcount.so
need "$APP" "$BIN/gen_text"

mkdir "$T/in"
"$BIN/gen_text" -m -s 11 3000000 >"$T/in/a.txt" || fail "gen_text failed"
printf 'the end\tof  the\r\nfile  without\x0bnewline the' >"$T/in/b.txt"

# Reference: every maximal run of non-whitespace bytes (space \t \n \r \v \f) is a word.
gawk 'BEGIN { RS = "[ \t\n\r\v\f]+" } length($0) > 0 { c[$0]++ }
      END { for (w in c) printf "%s\t%d\n", w, c[w] }' "$T/in/a.txt" "$T/in/b.txt" |
    sort >"$T/ref.txt"
[ -s "$T/ref.txt" ] || fail "empty reference"
distinct=$(wc -l <"$T/ref.txt")
total=$(awk -F'\t' '{ s += $2 } END { print s }' "$T/ref.txt")
{
    echo "$distinct distinct words, $total total"
    sort -t "$(printf '\t')" -k2,2nr -k1,1 "$T/ref.txt" | head -n 10
} >"$T/ref.stdout"

for n in 1 2 3; do
    submit_ok "local[$n]" "$APP" "$T/in" "$T/out$n"
    cat_parts "$T/out$n" >"$T/raw$n.txt"
    sort "$T/raw$n.txt" >"$T/got$n.txt"
    assert_files_eq "$T/got$n.txt" "$T/ref.txt" "local[$n]: word counts differ from gawk"
    assert_files_eq "$T/stdout" "$T/ref.stdout" "local[$n]: summary/top 10 differ"
done
[ "$(count_parts "$T/out2")" -ge 2 ] || fail "local[2] wrote fewer than 2 non-empty parts"

# Usage error.
rc=0
run_submit "local[1]" "$APP" "$T/in" || rc=$?
[ $rc -ne 0 ] || fail "wordcount.so with one argument exited 0"
assert_contains "$T/stderr" "usage: wordcount.so" "usage message"
log "ok ($distinct distinct words, $total total)"
