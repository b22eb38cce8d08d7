#!/usr/bin/env bash
# shuffle_cleanup_message.sh — after a large job (or Ctrl-C) the driver spent tens of seconds
# deleting shuffle files without a word (issue 20 item 13): the process looked hung. It now says
# first, in one log line, how many files it deletes and where; a small job's stop stays quiet.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
need "$EX/shufflebench.so" "$EX/pi.so"
mkdir "$T/tmp"
export TMPDIR="$T/tmp"
SUBMIT_OPTS=(--conf spark.ui.enabled=false)

# 600 map tasks write a data and an index file each: 1,200 files
submit_ok 'local[2]' "$EX/shufflebench.so" 2 600
line=$(grep "event=deleting_local_files" "$T/stderr") || fail "no word of the deletion: $(tail -3 "$T/stderr")"
[[ "$line" =~ files=([0-9]+)\ dir=\"$T/tmp/cspark-[^\"]*\":\ deleting\ the\ shuffle ]] ||
    fail "unexpected line: $line"
[ "${BASH_REMATCH[1]}" -ge 1200 ] || fail "counted ${BASH_REMATCH[1]} files, expected at least 1200"
[ -z "$(find "$T/tmp" -mindepth 1 | head -3)" ] || fail "left behind: $(find "$T/tmp" -mindepth 1 | head -3)"

submit_ok 'local[2]' "$EX/pi.so" 4
grep -q "event=deleting_local_files" "$T/stderr" && fail "a small job announced its cleanup"
echo "PASS: $TEST_NAME"
