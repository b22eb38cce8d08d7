#!/usr/bin/env bash
# connect-protos.sh — extracts the Spark Connect protocol's .proto files from the pinned PySpark
# package (the one scripts/install-spark.sh installs: its jars/spark-connect_*.jar carries
# spark/connect/*.proto and the google/protobuf and google/rpc files they and gRPC's rich errors
# need) into OUTDIR, ready for protoc-c. The build runs it at configure time (src/CMakeLists.txt)
# and generates the C code from OUTDIR into the build directory; nothing extracted is ever copied
# into the repository.
#
#   scripts/connect-protos.sh OUTDIR            -> prints OUTDIR on stdout when the files are there
#   scripts/connect-protos.sh --install OUTDIR  -> installs the pinned package first when missing
#
# Debian 12's protoc-c (1.4.1) predates proto3 `optional` fields; each one is rewritten here into
# the one-field oneof protoc itself makes of it (`oneof _name { type name = n; }`), which has the
# same wire form and gives the C struct a `_name_case` member telling whether the field was sent.
#
# Idempotent: OUTDIR/.source records the jar (path, size, time) the files came from; when it is
# the same jar, nothing is rewritten (so the generated code is not rebuilt). Files are written into
# a temporary directory renamed into place. Environment: CSPARK_CONNECT_JAR (a spark-connect jar
# to read instead of the pinned package's), CSPARK_SPARK_CACHE and CSPARK_SPARK_VERSION (as
# install-spark.sh). Exit: 0 with OUTDIR on stdout; 1 with one line on stderr naming what is
# missing.
set -euo pipefail

fail() {
  echo "connect-protos: $*" >&2
  exit 1
}

install=0
[ "${1:-}" = --install ] && { install=1; shift; }
[ $# -eq 1 ] || fail "usage: connect-protos.sh [--install] OUTDIR"
OUT=$1
HERE=$(cd "$(dirname "$0")" && pwd)

JAR=${CSPARK_CONNECT_JAR:-}
if [ -z "$JAR" ]; then
  VERSION=${CSPARK_SPARK_VERSION:-4.0.1}
  CACHE=${CSPARK_SPARK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cspark}
  HOME_DIR=$CACHE/spark-$VERSION/pyspark
  if [ ! -f "$CACHE/spark-$VERSION/.complete" ]; then
    [ "$install" = 1 ] || fail "pyspark $VERSION is not installed under $CACHE (run scripts/install-spark.sh)"
    HOME_DIR=$("$HERE/install-spark.sh") || fail "scripts/install-spark.sh failed"
  fi
  JAR=$(ls "$HOME_DIR"/jars/spark-connect_*.jar 2>/dev/null | head -n 1) || true
  [ -n "$JAR" ] || fail "no jars/spark-connect_*.jar in $HOME_DIR"
fi
[ -f "$JAR" ] || fail "$JAR: no such file (CSPARK_CONNECT_JAR names a spark-connect jar)"

SOURCE="$JAR $(stat -c '%s %Y' "$JAR")"
if [ -f "$OUT/.source" ] && [ "$(cat "$OUT/.source")" = "$SOURCE" ] && [ -f "$OUT/spark/connect/base.proto" ]; then
  echo "$OUT"
  exit 0
fi

PY=python3
[ -x /usr/bin/python3 ] && PY=/usr/bin/python3
mkdir -p "$(dirname "$OUT")" || fail "cannot create $(dirname "$OUT")"
TMP=$(mktemp -d "$OUT.XXXXXX") || fail "cannot write next to $OUT"
trap 'rm -rf "$TMP"' EXIT
"$PY" - "$JAR" "$TMP" <<'EXTRACT' || fail "cannot read the .proto files of $JAR"
import re, sys, zipfile
jar, out = sys.argv[1], sys.argv[2]
want = re.compile(r"^(spark/connect/[a-z_]+\.proto|google/protobuf/(any|duration)\.proto"
                  r"|google/rpc/(status|error_details)\.proto)$")
# proto3 `optional T name = N [opts];` -> `oneof _name { T name = N [opts]; }` (same wire form)
optional = re.compile(r"^(\s*)optional\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)\s*(\[[^\]]*\])?\s*;")
found = 0
with zipfile.ZipFile(jar) as z:
    for name in z.namelist():
        if not want.match(name):
            continue
        text = z.read(name).decode("utf-8")
        if name.startswith("spark/connect/"):
            lines = []
            for line in text.split("\n"):
                m = optional.match(line)
                if m:
                    ind, typ, field, num, opts = m.groups()
                    line = "%soneof _%s { %s %s = %s%s; }" % (ind, field, typ, field, num,
                                                              " " + opts if opts else "")
                lines.append(line)
            text = "\n".join(lines)
        path = out + "/" + name
        import os
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        found += 1
if found < 6:
    sys.exit("only %d of the expected .proto files found" % found)
EXTRACT
[ -f "$TMP/spark/connect/base.proto" ] || fail "$JAR has no spark/connect/base.proto"
echo "$SOURCE" >"$TMP/.source"
rm -rf "$OUT"
mv "$TMP" "$OUT"
trap - EXIT
echo "$OUT"
