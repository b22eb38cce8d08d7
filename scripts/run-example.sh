#!/usr/bin/env bash
# run-example.sh — what `make run` does: counts the words of a generated ~20 MB Zipf corpus with
# examples/wordcount.so on local[2] and prints the top words the job reported.
#
# usage: scripts/run-example.sh [BUILD_DIR]     (default: build)
#
# The corpus is generated once into BUILD_DIR/run-data/corpus.txt (bench/gen_text, seed 7, so
# it is the same every time); the counts go to BUILD_DIR/run-data/wordcount-out (replaced on
# each run). The job's log (stderr) is kept in BUILD_DIR/run-data/wordcount.log.
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" 2>/dev/null && pwd) || { echo "run-example: no build directory ${1:-build}" >&2; exit 2; }
SUBMIT=$BUILD/bin/cspark-submit
APP=$BUILD/examples/wordcount.so
GEN=$BUILD/bin/gen_text
for f in "$SUBMIT" "$APP" "$GEN"; do
    [ -e "$f" ] || { echo "run-example: $f is missing; build first (make build)" >&2; exit 2; }
done

DATA=$BUILD/run-data
CORPUS=$DATA/corpus.txt
OUT=$DATA/wordcount-out
mkdir -p "$DATA"
if [ ! -s "$CORPUS" ]; then
    echo "run-example: generating a 20 MB Zipf corpus in $CORPUS" >&2
    "$GEN" -s 7 20000000 >"$CORPUS.tmp"
    mv "$CORPUS.tmp" "$CORPUS"
fi
rm -rf "$OUT"

echo "\$ cspark-submit --master local[2] $APP $CORPUS $OUT" >&2
start=$(date +%s.%N)
if ! "$SUBMIT" --master 'local[2]' "$APP" "$CORPUS" "$OUT" >"$DATA/wordcount.stdout" 2>"$DATA/wordcount.log"; then
    echo "run-example: the word count job failed; last lines of $DATA/wordcount.log:" >&2
    tail -n 20 "$DATA/wordcount.log" >&2
    exit 1
fi
end=$(date +%s.%N)
cat "$DATA/wordcount.stdout"
parts=$(ls "$OUT" | grep -c '^part-' || true)
awk -v s="$start" -v e="$end" -v p="$parts" -v o="$OUT" \
    'BEGIN { printf "run-example: done in %.2f s; %d part files in %s\n", e - s, p, o }' >&2
