#!/usr/bin/env bash
# exchange_held_batches.sh — the map side of a SQL exchange holds its input batches and gathers
# each reduce partition's rows from them once (src/plan/kinds/sql_exec.c); with few reduce
# partitions the held batches reach their bound (batch rows times the partitions) every few
# batches, so every partition is gathered and the batches let go again and again. Four
# shuffle-heavy TPC-H queries at scale 0.1 (the tables of scripts/sql-testdata.sh) run on
# local[2] with spark.sql.shuffle.partitions=2 and must give Spark 4's answers
# (tests/sql/golden/tpch-sf0.1/, judged by compare.py). Usage: exchange_held_batches.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"
HERE=$SRC/tests/sql
. "$(dirname "$0")/lib/tpch.sh"
tpch_views
for name in q05 q07 q18 q21; do
    TZ=UTC timeout 600 "$SQL" --master 'local[2]' --conf spark.ui.enabled=false \
        --conf spark.sql.session.timeZone=UTC --conf spark.sql.shuffle.partitions=2 \
        -i "$T/views.sql" --output-format golden -f "$HERE/tpch/$name.sql" \
        >"$T/$name.out" 2>"$T/$name.err" ||
        fail "cspark-sql -f $name.sql failed: $(tail -n 3 "$T/$name.err")"
    $PY "$HERE/compare.py" "$HERE/golden/tpch-sf0.1/$name.out" "$T/$name.out" ||
        fail "$name with 2 shuffle partitions differs from Spark's answer"
done
echo "PASS: $TEST_NAME"
