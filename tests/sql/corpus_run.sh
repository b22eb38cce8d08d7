#!/usr/bin/env bash
# corpus_run.sh — cspark-sql against Spark 4's answers to the SQL corpus: every
# tests/sql/corpus/*.sql runs in one cspark-sql session of its own (`--output-format golden -f`,
# local[2], session time zone UTC, 4 shuffle partitions as the goldens were recorded, ${DATA}
# the files of scripts/sql-testdata.sh) and known_judge.py compares each statement with
# tests/sql/golden/corpus/. A statement that differs must be listed in corpus_run.known
# (`file:N reason`); a listed one that matches fails the test too, so the list only shrinks.
# Usage: corpus_run.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"
HERE=$SRC/tests/sql
DATA=$BUILD/sql-data
if ! "$SRC/scripts/sql-testdata.sh" "$DATA" files >/dev/null; then
    echo "SKIP: the corpus data files cannot be made (scripts/sql-testdata.sh)"
    exit 77
fi
mkdir -p "$T/out"
for sql in "$HERE"/corpus/*.sql; do
    name=$(basename "$sql" .sql)
    rc=0
    TZ=UTC timeout 600 "$SQL" --master 'local[2]' --conf spark.ui.enabled=false \
        --conf spark.sql.session.timeZone=UTC --conf spark.sql.shuffle.partitions=4 \
        --hivevar "DATA=$DATA/files" --output-format golden -f "$sql" \
        >"$T/out/$name.out" 2>"$T/$name.err" || rc=$?
    if [ $rc -ne 0 ]; then
        log "cspark-sql -f $name.sql exited with $rc; last lines of its stderr:"
        tail -n 5 "$T/$name.err" >&2
    fi
done
[ -z "${CSPARK_SQL_RESULTS:-}" ] || cp "$T"/out/*.out "$CSPARK_SQL_RESULTS"/
$PY "$HERE/known_judge.py" "$HERE/golden/corpus" "$T/out" "$HERE/corpus_run.known" ||
    fail "statements differ from Spark's answers and are not on tests/sql/corpus_run.known"
echo "PASS: $TEST_NAME"
