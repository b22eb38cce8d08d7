#!/usr/bin/env bash
# connect-protos.sh — the Spark Connect protocol's message definitions, from a pinned client
# package, into OUTDIR, ready for protoc-c. The build runs it at configure time (src/CMakeLists.txt)
# and generates the C code from OUTDIR into the build directory; nothing extracted is ever copied
# into the repository. Two sources, the first one installed wins:
#
#   4.1.3  the pyspark-client 4.1.3 package (scripts/install-pyspark-client.sh 4.1): its generated
#          modules (pyspark/sql/connect/proto/*_pb2.py) hold each .proto file's serialized
#          FileDescriptorProto; they and the google/protobuf and google/rpc files they import
#          (from the same install's protobuf and googleapis-common-protos) are written as one
#          FileDescriptorSet, OUTDIR/descriptors.pb, which protoc-c reads with --descriptor_set_in.
#          4.1's protocol is 4.0's plus new messages and fields (ChunkedCachedLocalRelation, ...),
#          so the code generated from it reads 4.0 clients' requests as well.
#   4.0.1  the pyspark 4.0.1 package (scripts/install-spark.sh): its jars/spark-connect_*.jar
#          carries spark/connect/*.proto and the google/protobuf and google/rpc files they and
#          gRPC's rich errors need, extracted as .proto files.
#
# Either way OUTDIR/files.txt lists the .proto names to generate (one a line) and OUTDIR/.protocol
# the protocol's version (4.1.3 or 4.0.1).
#
#   scripts/connect-protos.sh OUTDIR            -> prints OUTDIR on stdout when the files are there
#   scripts/connect-protos.sh --install OUTDIR  -> installs the 4.1.3 package first when missing
#
# Debian 12's protoc-c (1.4.1) predates proto3 `optional` fields; each one is rewritten here into
# the one-field oneof protoc itself makes of it (`oneof _name { type name = n; }`; in a descriptor:
# the field's proto3_optional flag cleared, its synthetic oneof kept as a real one), which has the
# same wire form and gives the C struct a `_name_case` member telling whether the field was sent.
#
# Idempotent: OUTDIR/.source records the file (path, size, time) the definitions came from; when
# it is the same, nothing is rewritten (so the generated code is not rebuilt). Files are written
# into a temporary directory renamed into place. Environment: CSPARK_CONNECT_PROTOCOL (4.0: use
# the 4.0.1 jar even when the 4.1.3 package is installed), CSPARK_CONNECT_JAR (a spark-connect jar
# to read instead), CSPARK_PYSPARK_CLIENT_CACHE (as install-pyspark-client.sh), CSPARK_SPARK_CACHE
# and CSPARK_SPARK_VERSION (as install-spark.sh). Exit: 0 with OUTDIR on stdout; 1 with one line on
# stderr naming what is missing.
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
PROTOCOL=${CSPARK_CONNECT_PROTOCOL:-4.1}
CLIENT_CACHE=${CSPARK_PYSPARK_CLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cspark}
CLIENT41=$CLIENT_CACHE/pyspark-client-4.1.3
if [ -z "$JAR" ] && [ "$PROTOCOL" != 4.0 ]; then
  if [ ! -f "$CLIENT41/.complete" ] && [ "$install" = 1 ]; then
    "$HERE/install-pyspark-client.sh" 4.1 >/dev/null || fail "scripts/install-pyspark-client.sh 4.1 failed"
  fi
  if [ -f "$CLIENT41/.complete" ] && [ -x "$CLIENT41/python3" ]; then
    MARK=$(ls "$CLIENT41"/site/pyspark/sql/connect/proto/relations_pb2.py 2>/dev/null) ||
      fail "$CLIENT41 has no pyspark/sql/connect/proto/relations_pb2.py"
    SOURCE="$MARK $(stat -c '%s %Y' "$MARK")"
    if [ -f "$OUT/.source" ] && [ "$(cat "$OUT/.source")" = "$SOURCE" ] && [ -f "$OUT/descriptors.pb" ]; then
      echo "$OUT"
      exit 0
    fi
    mkdir -p "$(dirname "$OUT")" || fail "cannot create $(dirname "$OUT")"
    TMP=$(mktemp -d "$OUT.XXXXXX") || fail "cannot write next to $OUT"
    trap 'rm -rf "$TMP"' EXIT
    "$CLIENT41/python3" - "$TMP" <<'DESCRIPTORS' || fail "cannot read the descriptors of $CLIENT41"
import importlib, pkgutil, sys
from google.protobuf import descriptor_pb2, descriptor_pool
import pyspark.sql.connect.proto as proto
out = sys.argv[1]
mods = sorted(m.name for m in pkgutil.iter_modules(proto.__path__) if m.name.endswith("_pb2"))
for m in mods:
    importlib.import_module("pyspark.sql.connect.proto." + m)
from google.rpc import error_details_pb2, status_pb2  # noqa: F401 (gRPC's rich errors)
pool = descriptor_pool.Default()
roots = ["spark/connect/%s.proto" % m[: -len("_pb2")] for m in mods]
roots += ["google/rpc/status.proto", "google/rpc/error_details.proto"]
order, seen = [], set()
def visit(name):  # dependencies first, as protoc wants them in a set
    if name in seen:
        return
    seen.add(name)
    fd = pool.FindFileByName(name)
    for dep in fd.dependencies:
        visit(dep.name)
    order.append(fd)
for name in roots:
    visit(name)
def plain_optionals(messages):  # proto3 optional -> its oneof, a real one (same wire form)
    for m in messages:
        for f in m.field:
            if f.proto3_optional:
                f.ClearField("proto3_optional")
        plain_optionals(m.nested_type)
fds = descriptor_pb2.FileDescriptorSet()
for fd in order:
    p = descriptor_pb2.FileDescriptorProto.FromString(fd.serialized_pb)
    plain_optionals(p.message_type)
    fds.file.append(p)
if not any(f.name == "spark/connect/base.proto" for f in fds.file):
    sys.exit("no spark/connect/base.proto among the descriptors")
with open(out + "/descriptors.pb", "wb") as f:
    f.write(fds.SerializeToString())
with open(out + "/files.txt", "w") as f:
    f.write("".join(fd.name + "\n" for fd in order))
DESCRIPTORS
    echo 4.1.3 >"$TMP/.protocol"
    echo "$SOURCE" >"$TMP/.source"
    rm -rf "$OUT"
    mv "$TMP" "$OUT"
    trap - EXIT
    echo "$OUT"
    exit 0
  fi
fi

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
if [ -f "$OUT/.source" ] && [ "$(cat "$OUT/.source")" = "$SOURCE" ] && [ -f "$OUT/files.txt" ]; then
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
(cd "$TMP" && find . -name '*.proto' | sed 's|^\./||' | LC_ALL=C sort) >"$TMP/files.txt"
echo 4.0.1 >"$TMP/.protocol"
echo "$SOURCE" >"$TMP/.source"
rm -rf "$OUT"
mv "$TMP" "$OUT"
trap - EXIT
echo "$OUT"
