#!/usr/bin/env bash
# cli_errors.sh — cspark-sql's answer to bad input, as spark-sql's: a syntax error, an unknown
# table, column or function, a missing path and an error raised by a task each give one line
# "[ERROR_CLASS] message" on stderr, exit status 1 with -e and with -f, and no row of the
# failing statement on stdout (the statements before it print theirs; none after it runs).
# The session goes on after a failed query; a query runs on local-cluster executors and posts
# Spark's SQL execution events. Golden output cuts scripts as the corpus format does. Also the
# CLI's own usage errors, and the commands' rows (SET, SHOW, DESCRIBE) in spark-sql's
# tab-separated form. Usage: cli_errors.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"

# run_sql ARGS...: cspark-sql -S --master local[2] ARGS, stdout in $T/out, stderr in $T/err.
run_sql() {
    local rc=0
    timeout 120 "$SQL" -S --master 'local[2]' --conf spark.ui.enabled=false "$@" \
        >"$T/out" 2>"$T/err" || rc=$?
    return $rc
}

# expect_error CLASS SQL: -e SQL fails with exit 1, stderr's one line starts with [CLASS], no
# stdout.
expect_error() {
    local class=$1 sql=$2 rc=0
    run_sql -e "$sql" || rc=$?
    [ $rc -eq 1 ] || fail "'$sql': exit status $rc, expected 1 (stderr: $(head -c 300 "$T/err"))"
    [ ! -s "$T/out" ] || fail "'$sql': stdout is not empty: $(head -c 200 "$T/out")"
    [ "$(wc -l <"$T/err")" -eq 1 ] || fail "'$sql': stderr is not one line: $(cat "$T/err")"
    grep -q "^\[$class\] " "$T/err" || fail "'$sql': stderr is not [$class] ...: $(cat "$T/err")"
}

expect_error PARSE_SYNTAX_ERROR "SELEC 1"
expect_error PARSE_SYNTAX_ERROR "SELECT 1 +"
expect_error TABLE_OR_VIEW_NOT_FOUND "SELECT * FROM no_such_table"
expect_error TABLE_OR_VIEW_NOT_FOUND "DESCRIBE no_such_table"
expect_error UNRESOLVED_COLUMN.WITH_SUGGESTION \
    "SELECT nope FROM VALUES (1, 2) AS t(a, b)"
expect_error UNRESOLVED_ROUTINE "SELECT no_such_function(1)"
expect_error PATH_NOT_FOUND "SELECT * FROM parquet.\`$T/no/such/file.parquet\`"
expect_error PATH_NOT_FOUND "CREATE TABLE t USING parquet LOCATION '$T/missing'"

# errors raised by tasks: the task's Spark error, not the job's wrapping
expect_error DIVIDE_BY_ZERO "SELECT id / 0 FROM range(3)"
expect_error CAST_INVALID_INPUT "SELECT CAST(concat(CAST(id AS STRING), 'x') AS INT) FROM range(2)"
# a failing query leaves the session usable: the next statement of the prompt runs
printf 'SELECT id / 0 FROM range(2);\nSELECT count(*) FROM range(5);\n' |
    timeout 120 "$SQL" -S --master 'local[2]' --conf spark.ui.enabled=false >"$T/out" 2>"$T/err" ||
    fail "the prompt exited with $?: $(cat "$T/err")"
assert_eq "$(cat "$T/out")" "5" "the statement after a failed one"
grep -q '^\[DIVIDE_BY_ZERO\] ' "$T/err" || fail "prompt stderr: $(cat "$T/err")"

# a query's stages on local-cluster executors (shuffle, broadcast join), and its SQL execution
# events in the event log
mkdir -p "$T/events"
rc=0
run_sql --master 'local-cluster[2,1,1024]' --conf spark.eventLog.enabled=true \
    --conf "spark.eventLog.dir=$T/events" --conf spark.eventLog.compress=false \
    --conf spark.eventLog.rolling.enabled=false \
    -e "SELECT id % 3 AS k, count(*) FROM range(100) GROUP BY id % 3 ORDER BY k;
        SELECT a.id FROM range(5) a JOIN range(3) b ON a.id = b.id ORDER BY a.id" || rc=$?
[ $rc -eq 0 ] || fail "local-cluster query exited with $rc: $(tail -n 5 "$T/err")"
assert_eq "$(cat "$T/out")" "$(printf '0\t34\n1\t33\n2\t33\n0\n1\n2')" "local-cluster rows"
log=$(ls "$T"/events/* | head -1)
[ "$(grep -c 'SparkListenerSQLExecutionStart' "$log")" -eq 2 ] || fail "no 2 SQLExecutionStart in $log"
[ "$(grep -c 'SparkListenerSQLExecutionEnd' "$log")" -eq 2 ] || fail "no 2 SQLExecutionEnd in $log"
grep -q '"spark.sql.execution.id":"1"' "$log" || fail "no job of execution 1 in $log"

# -f: the statements before the failing one print their rows; the failing one and those after
# it print nothing
cat >"$T/script.sql" <<'EOF'
SET spark.sql.shuffle.partitions=3;
-- a comment between statements; the next one fails
SELECT nope FROM VALUES (1) AS t(a);
SET spark.sql.shuffle.partitions=5;
EOF
rc=0
run_sql -f "$T/script.sql" || rc=$?
assert_eq "$rc" 1 "cspark-sql -f with a failing statement"
assert_eq "$(cat "$T/out")" "$(printf 'spark.sql.shuffle.partitions\t3')" "-f stdout"
grep -q '^\[UNRESOLVED_COLUMN.WITH_SUGGESTION\] ' "$T/err" || fail "-f stderr: $(cat "$T/err")"

# golden output cuts a script as the corpus format does: a quote left open by a bad statement
# ends with its line, so the statements after it still run (regression: every statement after
# `SELECT 'unterminated;` was swallowed into one string)
printf "SELECT 'unterminated;\nSELECT 1 AS a;\n-- a comment\nSELECT 'x;y' AS b;\n" >"$T/open_quote.sql"
run_sql --output-format golden -f "$T/open_quote.sql" ||
    fail "golden -f with an open quote exited with $?: $(cat "$T/err")"
assert_eq "$(grep -c '^-- query ' "$T/out")" 3 "statements of the open-quote script"
grep -q '^\[PARSE_SYNTAX_ERROR\] 42601$' "$T/out" || fail "no parse error block: $(cat "$T/out")"
grep -q '^"x;y"$' "$T/out" || fail "no row of the third statement: $(cat "$T/out")"

# commands in spark-sql's form: tab-separated, no header
run_sql -e "SET spark.sql.shuffle.partitions=7; SET spark.sql.shuffle.partitions;
    CREATE TEMPORARY VIEW v AS SELECT 1 AS a, 'x' AS b; SHOW TABLES; DESCRIBE v;
    SHOW COLUMNS IN v; SHOW DATABASES; RESET; SET spark.sql.shuffle.partitions" ||
    fail "commands failed: $(cat "$T/err")"
printf 'spark.sql.shuffle.partitions\t7\nspark.sql.shuffle.partitions\t7\n\tv\ttrue\na\tint\tNULL\nb\tstring\tNULL\na\nb\ndefault\nspark.sql.shuffle.partitions\t200\n' \
    >"$T/expected"
assert_files_eq "$T/out" "$T/expected" "the commands' rows"

# a malformed value of a known key is refused, naming the key
expect_error INVALID_CONF_VALUE.TYPE_MISMATCH "SET spark.sql.shuffle.partitions=many"
assert_contains "$T/err" "spark.sql.shuffle.partitions" "the bad SET's message"

# the CLI's usage errors: one line, exit 1
rc=0
"$SQL" -e "SELECT 1" -f "$T/script.sql" >"$T/out" 2>"$T/err" || rc=$?
assert_eq "$rc" 1 "-e with -f"
assert_contains "$T/err" "-e and -f cannot be used together"
rc=0
"$SQL" --output-format csv -e "SELECT 1" >"$T/out" 2>"$T/err" || rc=$?
assert_eq "$rc" 1 "a bad --output-format"
assert_contains "$T/err" "expected tsv, table or golden"
rc=0
"$SQL" --master 'local[2]' -S -f "$T/no_such.sql" >"$T/out" 2>"$T/err" || rc=$?
assert_eq "$rc" 1 "-f of a missing file"
assert_contains "$T/err" "cannot read $T/no_such.sql"
echo "PASS: $TEST_NAME"
