#!/usr/bin/env bash
# sql_view_over_path_leak.sh — `CREATE TEMPORARY VIEW v USING fmt OPTIONS (path ...)` and
# `CREATE TABLE t USING fmt LOCATION ...` kept their statement's arena alive for ever: the
# session thought the catalog borrowed the declared schema from it, but the catalog copies what it
# keeps, so nothing ever freed the arena and LeakSanitizer ended `cspark-sql -i views.sql` with
# status 1 in the sanitizer build. Both statements now leave the arena to be freed; the views
# answer queries as before (this test runs in both passes: the sanitizer's is the one that caught it).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"
printf 'a,b\n1,x\n2,y\n3,z\n' >"$T/t.csv"
cat >"$T/views.sql" <<SQL
CREATE TEMPORARY VIEW v USING csv OPTIONS (path '$T/t.csv', header 'true');
CREATE TABLE t (a INT, b STRING) USING csv OPTIONS (header 'true') LOCATION '$T/t.csv';
SQL
rc=0
"$SQL" --master 'local[1]' --conf spark.ui.enabled=false -S -i "$T/views.sql" \
    -e "SELECT count(*), sum(t.a) FROM v JOIN t ON v.b = t.b" >"$T/out" 2>"$T/err" || rc=$?
[ $rc -eq 0 ] || fail "cspark-sql exited with $rc: $(tail -n 5 "$T/err")"
assert_eq "$(cat "$T/out")" "$(printf '3\t6')" "the views' join"
echo "PASS: $TEST_NAME"
