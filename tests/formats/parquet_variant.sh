#!/usr/bin/env bash
# parquet_variant.sh — VARIANT columns in Parquet files as Spark 4 writes and reads them: cspark
# writes a table of variants (top level, in an array, in a struct, and SQL NULLs) and pyarrow
# checks the file holds each variant as Spark 4.0.1's group of two required binaries `value`
# then `metadata`, marked `variant` in the footer's org.apache.spark.sql.parquet.row.metadata
# (what Spark reads a variant by); cspark then reads the files back as variants with the same
# values. pyarrow is installed by scripts/install-pytools.sh (exit 77 = SKIP only when that fails).
# Usage: parquet_variant.sh BUILD_DIR
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
SQL=$BIN/cspark-sql
need "$SQL"
PY=$("$SRC/scripts/install-pytools.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: pyarrow cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
run_sql() { # FILE
    TZ=UTC "$SQL" --master 'local[2]' --conf spark.ui.enabled=false \
        --conf spark.sql.session.timeZone=UTC -f "$1" >"$T/sql.out" 2>"$T/sql.err" || return 1
    grep -v '^Time taken' "$T/sql.out" || true
}
cat >"$T/write.sql" <<SQL
CREATE TABLE cv USING parquet LOCATION '$T/pq' AS SELECT id, parse_json(CASE WHEN id = 1 THEN '{"a":[1,2],"b":"x"}' WHEN id = 2 THEN 'null' ELSE '3.25' END) AS v, CASE WHEN id = 3 THEN NULL ELSE array(parse_json('1'), parse_json('"q"')) END AS av, CASE WHEN id = 4 THEN NULL ELSE named_struct('w', parse_json('[true]')) END AS sv FROM range(1, 5);
SQL
run_sql "$T/write.sql" >/dev/null || fail "cspark-sql cannot write the table: $(tail -3 "$T/sql.err")"
"$PY" - "$T/pq" <<'PY' || fail "the files do not hold variants as Spark 4 writes them (above)"
import glob, json, sys
import pyarrow.parquet as pq
files = sorted(glob.glob(sys.argv[1] + "/*.parquet"))
assert files, "no parquet files"
for f in files:
    pf = pq.ParquetFile(f)
    root = pf.schema_arrow
    meta = json.loads(pf.metadata.metadata[b"org.apache.spark.sql.parquet.row.metadata"])
    types = {x["name"]: x["type"] for x in meta["fields"]}
    assert types["v"] == "variant", types
    assert types["av"] == {"type": "array", "elementType": "variant", "containsNull": False}, types
    assert types["sv"]["fields"][0]["type"] == "variant", types
    cols = {pf.schema.column(i).path: pf.schema.column(i) for i in range(len(pf.schema))}
    for path in ("v.value", "v.metadata", "av.list.element.value", "av.list.element.metadata",
                 "sv.w.value", "sv.w.metadata"):
        c = cols[path]
        assert c.physical_type == "BYTE_ARRAY", (path, c.physical_type)
        assert c.logical_type.type == "NONE", (path, c.logical_type)
    order = [p for p in cols if p.startswith("v.")]
    assert order == ["v.value", "v.metadata"], order
    v = root.field("v").type
    assert [x.name for x in v] == ["value", "metadata"] and not any(x.nullable for x in v), v
PY
cat >"$T/read.sql" <<SQL
SELECT id, v, av, sv, schema_of_variant(v), typeof(v), typeof(av), typeof(sv) FROM parquet.\`$T/pq\` ORDER BY id;
SQL
run_sql "$T/read.sql" >"$T/read.out" || fail "cspark-sql cannot read the table: $(tail -3 "$T/sql.err")"
printf '%s\n' \
    '1	{"a":[1,2],"b":"x"}	[1,"q"]	{"w":[true]}	OBJECT<a: ARRAY<BIGINT>, b: STRING>	variant	array<variant>	struct<w:variant>' \
    '2	null	[1,"q"]	{"w":[true]}	VOID	variant	array<variant>	struct<w:variant>' \
    '3	3.25	NULL	{"w":[true]}	DECIMAL(3,2)	variant	array<variant>	struct<w:variant>' \
    '4	3.25	[1,"q"]	NULL	DECIMAL(3,2)	variant	array<variant>	struct<w:variant>' >"$T/want.out"
diff "$T/want.out" "$T/read.out" >&2 || fail "the variants read back differ (above: want, got)"
echo "PASS: $TEST_NAME"
