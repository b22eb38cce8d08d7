# tests/sql/lib/tpch.sh — the TPC-H tables of the SQL tests that run TPC-H queries at scale 0.1:
# sourced after tests/lib/prelude.sh's lib_init by tests/sql/*.sh.
#   tpch_views          makes the tables once (scripts/sql-testdata.sh, in $BUILD/sql-data; SKIP,
#                       exit 77, when it cannot) and writes $T/views.sql, the -i file registering
#                       each table as a temporary view of its Parquet file; sets DATA
tpch_views() {
    DATA=$BUILD/sql-data
    if ! "$SRC/scripts/sql-testdata.sh" "$DATA" tpch >/dev/null; then
        echo "SKIP: the TPC-H data cannot be made (scripts/sql-testdata.sh)"
        exit 77
    fi
    local t
    for t in customer lineitem nation orders part partsupp region supplier; do
        [ -e "$DATA/tpch-sf0.1/$t.parquet" ] || fail "$DATA/tpch-sf0.1/$t.parquet is missing"
        echo "CREATE TEMPORARY VIEW $t USING parquet OPTIONS (path '$DATA/tpch-sf0.1/$t.parquet');"
    done >"$T/views.sql"
}
