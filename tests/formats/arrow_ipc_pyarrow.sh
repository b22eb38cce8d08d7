#!/usr/bin/env bash
# arrow_ipc_pyarrow.sh — cspark's Arrow IPC streams against pyarrow's, both ways, for every type
# (src/formats/arrow_ipc*.c; the sample is tests/formats/ipc_sample.h on the C side and
# arrow_ipc_pyarrow.py's on pyarrow's: every Spark type, nested ones, nulls, extremes, a
# dictionary-encoded string column). Installs the pinned pyarrow first (scripts/install-pytools.sh:
# a cache dir, once; exit 77 = SKIP only when that fails).
#   cspark -> pyarrow   the C tool writes 3 batches; pyarrow's reading of them dumps exactly as
#                       the C side's dump of what it wrote (schema as Spark types, values bit for bit)
#   cspark -> pyarrow, bodies compressed with lz4 and with zstd: the same dump, a smaller file
#   cspark -> pyarrow -> cspark   pyarrow writes what it read again; the C tool reads that and
#                       finds exactly the batches it generated (cs_col_batch_equal)
#   pyarrow -> cspark   pyarrow writes 4 batches (one empty, a dictionary delta, a replacement);
#                       the C tool's dump of them equals pyarrow's
#   pyarrow -> cspark, bodies compressed with lz4 and with zstd: the same dump
#   pyarrow -> cspark -> pyarrow  the C tool copies that stream; pyarrow finds the same schema
#                       and values in the copy
#   a large batch (20,000 rows) both ways, and an empty stream (schema, no batch)
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
TOOL=$BUILD/tests/formats/arrow_ipc_tool
PYSIDE=$SRC/tests/formats/arrow_ipc_pyarrow.py
need "$TOOL"
PY=$("$SRC/scripts/install-pytools.sh" 2>"$T/install.err") || {
    echo "SKIP: $TEST_NAME: pyarrow cannot be installed here: $(tail -1 "$T/install.err")" >&2
    exit 77
}
py() { "$PY" "$PYSIDE" "$@"; }

# cspark -> pyarrow
"$TOOL" write "$T/c.arrows" 3 50 >"$T/c.dump" || fail "the C tool cannot write a stream"
py dump "$T/c.arrows" >"$T/c.py.dump" || fail "pyarrow cannot read cspark's stream"
diff -u "$T/c.dump" "$T/c.py.dump" | head -20 >&2 || true
cmp -s "$T/c.dump" "$T/c.py.dump" || fail "pyarrow reads other values than cspark wrote"
[ "$(wc -l <"$T/c.dump")" -eq 154 ] || fail "expected 153 rows and a schema line in the dump"

# cspark -> pyarrow with compressed bodies
for codec in lz4 zstd; do
    "$TOOL" write "$T/c.$codec.arrows" 3 50 "$codec" | cmp -s - "$T/c.dump" || fail "the $codec stream dumps differently"
    [ "$(stat -c %s "$T/c.$codec.arrows")" -lt "$(stat -c %s "$T/c.arrows")" ] || fail "$codec did not compress"
    py dump "$T/c.$codec.arrows" | cmp -s - "$T/c.dump" || fail "pyarrow reads cspark's $codec stream differently"
done

# cspark -> pyarrow -> cspark
py rewrite "$T/c.arrows" "$T/c.py.arrows" || fail "pyarrow cannot write cspark's batches again"
"$TOOL" check "$T/c.py.arrows" 3 50 || fail "cspark reads pyarrow's copy of its batches differently"

# pyarrow -> cspark
py write "$T/p.arrows" >"$T/p.dump" || fail "pyarrow cannot write the sample"
"$TOOL" dump "$T/p.arrows" >"$T/p.c.dump" || fail "cspark cannot read pyarrow's stream"
diff -u "$T/p.dump" "$T/p.c.dump" | head -20 >&2 || true
cmp -s "$T/p.dump" "$T/p.c.dump" || fail "cspark reads other values than pyarrow wrote"

# pyarrow -> cspark with compressed bodies (LZ4 frames, zstd)
for codec in lz4 zstd; do
    py write "$T/p.$codec.arrows" "$codec" >"$T/p.$codec.dump" || fail "pyarrow cannot write $codec"
    cmp -s "$T/p.$codec.arrows" "$T/p.arrows" && fail "pyarrow did not compress with $codec"
    "$TOOL" dump "$T/p.$codec.arrows" | cmp -s - "$T/p.dump" || fail "cspark reads $codec bodies differently"
done

# pyarrow -> cspark -> pyarrow
"$TOOL" copy "$T/p.arrows" "$T/p.c.arrows" || fail "cspark cannot write pyarrow's batches again"
py equal "$T/p.arrows" "$T/p.c.arrows" >/dev/null || fail "pyarrow reads cspark's copy differently"

# one large batch both ways; a stream with no batch
"$TOOL" write "$T/big.arrows" 1 20000 >"$T/big.dump" || fail "cannot write a large batch"
py dump "$T/big.arrows" | cmp -s - "$T/big.dump" || fail "a 20,000-row batch reads differently"
"$TOOL" write "$T/none.arrows" 0 0 >/dev/null || fail "cannot write an empty stream"
"$PY" -c 'import sys, pyarrow as pa
t = pa.ipc.open_stream(open(sys.argv[1], "rb")).read_all()
assert t.num_rows == 0 and t.num_columns == 19, t' "$T/none.arrows" || fail "pyarrow misreads an empty stream"
echo "PASS: $TEST_NAME"
