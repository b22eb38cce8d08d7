#!/usr/bin/env bash
# Builds the Spark SQL parser fuzzer (clang -fsanitize=fuzzer,address,undefined) against src/sql
# (the lexer, the parser's parts, trees and arena), the SQL error helper, the columnar types and
# builders the literals use and the formats' civil-day conversion, and runs it for ~20 s from a
# seed corpus of statements (the TPC-H queries of tests/unit/sql/tpch_queries.h, DDL, literals of
# every kind, hints, comments).
# $1 = build directory. It runs in the normal CI pass, as the other fuzzers do.
set -euo pipefail
BUILD=${1:?usage: sql_parser.sh BUILD_DIR}
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
command -v clang >/dev/null || { echo "SKIP: sql_parser: clang is required (scripts/install-deps.sh)"; exit 77; }
OUT="$BUILD/fuzz/sql_parser"
rm -rf "$OUT/corpus"
mkdir -p "$OUT/corpus"
S="$SRC/src"
SOURCES=("$S"/sql/sql_lexer.c "$S"/sql/parser_*.c "$S/sql/sql_arena.c" "$S/sql/sql_tree.c"
  "$S/sqlexec/sql_error.c" "$S/columnar/col_type.c" "$S/columnar/col_collation.c" "$S/columnar/col_memory.c"
  "$S/columnar/column.c" "$S/columnar/col_builder.c" "$S/shuffle/memory.c" "$S/common/err.c"
  "$S/formats/text_values.c" "$S/common/log.c" "$S/common/sync.c" "$S/common/strutil.c")
clang -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$S" -I"$SRC/include" "$SRC/tests/fuzz/sql_parser_fuzz.c" "${SOURCES[@]}" -ljansson -lpthread -lm \
  -o "$OUT/sql_parser_fuzz"
# seeds: each TPC-H query (the C string literals of tpch_queries.h, joined per query)
awk '/\/\* Q[0-9]+ \*\// { n++; next } n && /"/ {
       line = $0; sub(/^[^"]*"/, "", line); sub(/"[^"]*$/, "", line); gsub(/\\"/, "\"", line)
       printf "%s", line > (dir "/tpch" n) }' dir="$OUT/corpus" "$SRC/tests/unit/sql/tpch_queries.h"
i=0
while IFS= read -r stmt; do
  i=$((i + 1))
  printf '%s' "$stmt" >"$OUT/corpus/stmt$i"
done <<'SQL'
CREATE OR REPLACE TEMPORARY VIEW v (a, b) AS SELECT 1, 2; DROP VIEW IF EXISTS v
CREATE TABLE t (a INT NOT NULL, b array<struct<x:decimal(10,2)>>) USING parquet OPTIONS ('k' 'v') LOCATION '/p'
INSERT OVERWRITE TABLE t PARTITION (p = 1) SELECT * FROM parquet.`/x` LATERAL VIEW OUTER explode(a) e AS c
SELECT /*+ BROADCAST(t) */ 1L, 1S, 1Y, 1.5D, 1.5F, 1.5BD, 1e3, X'0A', DATE '2020-01-01', TIMESTAMP_NTZ '2020-01-01 10:00:00'
SELECT INTERVAL '1-2' YEAR TO MONTH, INTERVAL 1 DAY 2 HOURS, INTERVAL '1 02:03:04.5' DAY TO SECOND
SELECT a FROM t GROUP BY GROUPING SETS ((a), ()) HAVING count(*) > 1 WINDOW w AS (PARTITION BY a) ORDER BY 1 LIMIT 1 OFFSET 1
SELECT transform(x, e -> e + 1), a[0].b, m['k'], CAST(y AS interval day to second), z::string /* c /* n */ */ -- e
SELECT * FROM a UNION SELECT * FROM b INTERSECT ALL SELECT * FROM c EXCEPT SELECT * FROM d
SET spark.sql.shuffle.partitions = 4; EXPLAIN EXTENDED SELECT 1; SHOW TABLES; DESCRIBE t; CACHE TABLE t; USE db
array<map<string, struct<a: int, b: interval year>>>
SQL
cd "$OUT"
ASAN_OPTIONS=detect_leaks=1 ./sql_parser_fuzz -max_total_time=20 -error_exitcode=1 -max_len=4096 -rss_limit_mb=2048 \
  -malloc_limit_mb=512 -print_final_stats=1 corpus 2>&1 | tail -n 15
# libFuzzer exits non-zero on a crash, leak or abort; pipefail carries it
