#!/usr/bin/env bash
# cli_time_taken.sh — cspark-sql's line after each statement, as spark-sql's: "Time taken: S
# seconds, Fetched N row(s)" on stderr (no ", Fetched ..." when the statement gave no row), S
# as Spark prints its milliseconds divided by 1000.0 (at least one and at most three fraction
# digits), in every output form including golden (bench/sql reads it as the job-only time), not
# for the statements of -i, none with -S; stdout keeps only the answers.
# Usage: cli_time_taken.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"

echo "CREATE TEMPORARY VIEW v AS SELECT id FROM range(4);" >"$T/init.sql"
cat >"$T/script.sql" <<'SQL'
SELECT count(*) FROM v;
SELECT id FROM v WHERE id > 1 ORDER BY id;
SELECT id FROM v WHERE id > 10;
SQL

# run FORM [-S]: cspark-sql -i init.sql -f script.sql in that output form
run() {
    local form=$1 rc=0
    shift
    timeout 120 "$SQL" --master 'local[2]' --conf spark.ui.enabled=false "$@" -i "$T/init.sql" \
        --output-format "$form" -f "$T/script.sql" >"$T/out" 2>"$T/err" || rc=$?
    [ $rc -eq 0 ] || fail "cspark-sql --output-format $form exited with $rc: $(tail -n 3 "$T/err")"
}

num='[0-9]+\.[0-9]{1,3}'
for form in tsv golden; do
    run $form
    grep '^Time taken' "$T/err" >"$T/lines" || true
    [ "$(wc -l <"$T/lines")" -eq 3 ] || fail "$form: not 3 'Time taken' lines: $(cat "$T/err")"
    sed -n 1p "$T/lines" | grep -Eq "^Time taken: $num seconds, Fetched 1 row\(s\)$" ||
        fail "$form: first line: $(sed -n 1p "$T/lines")"
    sed -n 2p "$T/lines" | grep -Eq "^Time taken: $num seconds, Fetched 2 row\(s\)$" ||
        fail "$form: second line: $(sed -n 2p "$T/lines")"
    sed -n 3p "$T/lines" | grep -Eq "^Time taken: $num seconds$" ||
        fail "$form: a statement without rows: $(sed -n 3p "$T/lines")"
    assert_eq "$(grep -c 'Time taken' "$T/out")" 0 "$form: 'Time taken' on stdout"
done
# the golden answers are whole: three blocks, the rows of each
grep -q '^-- rows 2 ordered$' "$T/out" || fail "golden stdout: $(cat "$T/out")"
assert_eq "$(grep -c '^-- query ' "$T/out")" 3 "golden blocks"
run tsv -S
assert_eq "$(grep -c 'Time taken' "$T/err")" 0 "'Time taken' lines with -S"
assert_eq "$(cat "$T/out")" "$(printf '4\n2\n3')" "the rows with -S"
echo "PASS: $TEST_NAME"
