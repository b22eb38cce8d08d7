#!/usr/bin/env bash
# shuffle_wire_bitflip.sh — issue 10 item 15 on the wire: a shuffle block damaged between two
# executors (one bit of a block server's BlockData frame, flipped by tests/fault/wire_bitflip.c
# preloaded into the application: the first socket write of 64 KiB or more, once) is detected by
# the reducer's block checksum, reported as a fetch failure and recomputed, so word count in
# local-cluster prints and saves exactly what local[2] does — with and without
# spark.shuffle.compress. (Before the checksums, the same flip gave "84532 distinct words,
# 17592186547240 total", exit 0.)
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SHIM=$BUILD/tests/wire_bitflip.so
need "$SHIM" "$EX/wordcount.so" "$BIN/cspark-executor"
"$BIN/gen_text" -s 41 4000000 >"$T/text.txt"
"$SUBMIT" --master 'local[2]' "$EX/wordcount.so" "$T/text.txt" "$T/ref" >"$T/ref.out" 2>"$T/ref.err" ||
    fail "local[2] reference failed: $(tail -2 "$T/ref.err")"
cat_parts "$T/ref" | sort >"$T/ref.txt"
# a preloaded library comes before the sanitizer runtime in the ASan pass
asan=${ASAN_OPTIONS:-}
[ "${CSPARK_SANITIZE:-0}" = 1 ] && asan="${asan:+$asan:}verify_asan_link_order=0"

for compress in false true; do
    rm -f "$T/flipped"
    env LD_PRELOAD="$SHIM" CSPARK_TEST_WIRE_FLIP="$T/flipped" ASAN_OPTIONS="$asan" \
        "$SUBMIT" --master 'local-cluster[2,1,512]' --conf spark.shuffle.compress=$compress \
        "$EX/wordcount.so" "$T/text.txt" "$T/out-$compress" >"$T/out-$compress.txt" 2>"$T/err-$compress" ||
        fail "compress=$compress: word count failed: $(tail -3 "$T/err-$compress")"
    [ -e "$T/flipped" ] || fail "compress=$compress: no frame of 64 KiB or more was sent (nothing damaged)"
    grep -q "checksum mismatch" "$T/err-$compress" ||
        fail "compress=$compress: the damaged block was not detected"
    grep -q 'event=resubmit reason="FetchFailed' "$T/err-$compress" ||
        fail "compress=$compress: the map output was not recomputed"
    assert_files_eq "$T/ref.out" "$T/out-$compress.txt" "compress=$compress: summary and top 10"
    cat_parts "$T/out-$compress" | sort >"$T/got.txt"
    cmp -s "$T/ref.txt" "$T/got.txt" || fail "compress=$compress: saved counts differ from local[2]"
done
echo "PASS shuffle_wire_bitflip"
