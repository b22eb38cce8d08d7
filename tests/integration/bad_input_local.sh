#!/usr/bin/env bash
# bad_input_local.sh — user mistakes get one clear line, a non-zero exit and nothing left behind:
# missing entry symbol, static function, existing output directory, missing or unreadable input.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
mkdir "$T/tmp"
export TMPDIR="$T/tmp" # where the runs' local directories go: must be empty afterwards
JOBS=$BUILD/tests/jobs/testjobs.so
need "$JOBS" "$EX/wordcount.so"

# expect_error NAME PATTERN CMD...: CMD must exit non-zero with PATTERN on its last stderr line
expect_error() {
    local name=$1 pattern=$2
    shift 2
    if "$@" >"$T/out" 2>"$T/err"; then fail "$name: exited 0"; fi
    local last
    last=$(grep -v '^INFO\|^WARN' "$T/err" | tail -1)
    [[ "$last" == *$pattern* ]] || fail "$name: expected '$pattern' in the error, got: $last"
}

expect_error "missing entry" "entry function 'no_such_entry' not found" \
    "$SUBMIT" --master 'local[1]' --class no_such_entry "$JOBS"
# the message names the function from the .so's symbol table, not its address
expect_error "static function" "map: function 'hidden_map' in testjobs.so is not an exported symbol" \
    "$SUBMIT" --master 'local[1]' --class static_fn "$JOBS"
grep -q "rdd=refused" "$T/out" || fail "static function: the transformation was not refused"

printf 'a b\n' >"$T/in.txt"
mkdir "$T/exists"
expect_error "existing output" "Output directory file:$T/exists already exists" \
    "$SUBMIT" --master 'local[1]' "$EX/wordcount.so" "$T/in.txt" "$T/exists"
[ -z "$(ls -A "$T/exists")" ] || fail "existing output: the directory was written into"

expect_error "missing input" "Input path does not exist: file:$T/nope.txt" \
    "$SUBMIT" --master 'local[1]' "$EX/wordcount.so" "$T/nope.txt" "$T/out1"
[ ! -e "$T/out1" ] || fail "missing input: an output directory was left behind"
expect_error "empty glob" "matches 0 files" \
    "$SUBMIT" --master 'local[1]' "$EX/wordcount.so" "$T/*.nothing" "$T/out2"
[ ! -e "$T/out2" ] || fail "empty glob: an output directory was left behind"

# unreadable input: permissions do not stop root, so run as nobody when we can
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
    chmod 711 "$T"
    cp "$T/in.txt" "$T/secret.txt"
    chmod 000 "$T/secret.txt"
    mkdir -m 777 "$T/w"
    expect_error "unreadable input" "cannot read input file $T/secret.txt: Permission denied" \
        setpriv --reuid=65534 --regid=65534 --clear-groups env TMPDIR="$T/w" \
        "$SUBMIT" --master 'local[1]' "$EX/wordcount.so" "$T/secret.txt" "$T/w/out3"
    [ ! -e "$T/w/out3" ] || fail "unreadable input: an output directory was left behind"
elif [ "$(id -u)" -ne 0 ]; then
    cp "$T/in.txt" "$T/secret.txt"
    chmod 000 "$T/secret.txt"
    expect_error "unreadable input" "cannot read input file $T/secret.txt: Permission denied" \
        "$SUBMIT" --master 'local[1]' "$EX/wordcount.so" "$T/secret.txt" "$T/out3"
else
    fail "running as root without setpriv: cannot test unreadable input"
fi

# failed runs leave no local directories behind
left=$(find "$T/tmp" "$T/w" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
assert_eq "0" "$left" "entries left in the runs' TMPDIR"
echo "PASS: $TEST_NAME"
