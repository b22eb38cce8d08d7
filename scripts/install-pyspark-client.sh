#!/usr/bin/env bash
# install-pyspark-client.sh — installs a pinned PySpark Spark Connect client with the Python
# packages its Connect client imports, plus h2 (raw HTTP/2 for the malformed-request tests), into a
# cache directory outside the source tree, and prints the path of a python3 that imports them (a
# wrapper setting PYTHONPATH). Two clients are pinned:
#   4.0 (default): the pyspark package of scripts/install-spark.sh (pyspark 4.0.1, reused as it is)
#       with grpcio, grpcio-status, googleapis-common-protos, protobuf, pandas, numpy, pyarrow and
#       py4j (which pyspark imports at its top);
#   4.1: the pyspark-client 4.1.3 package (the Connect client alone) with the newer grpcio,
#       protobuf (its generated modules need protobuf 6.33), googleapis-common-protos, zstandard
#       and pyyaml it requires;
#   image: what the image carries (deploy/Dockerfile copies DEST/site to /opt/spark/python): the
#       pyspark-client 4.0.1 package (the 4.0 client without Spark's jars) with the 4.0 pins,
#       less the tests' h2. Its wheels are for the interpreter that installs them: the build
#       machine's Debian python3, of the same Debian suite as the image's.
#
# Used by tests/connect/*.sh, by the CMake target `image`, and by scripts/connect-protos.sh,
# which reads the Spark Connect protocol's descriptors from the 4.1 package's generated modules at
# configure time; the product never links it (the image carries the `image` install for Python
# applications).
#
#   scripts/install-pyspark-client.sh [4.0|4.1|image]  -> prints e.g. ~/.cache/cspark/pyspark-client-4.0.1/python3
#
# Idempotent: a complete install (marked by .complete) is reused as it is; an install is made in a
# temporary directory and renamed into place. Every package is pinned (and installed without
# resolving further dependencies, so the set is exactly the list below). Environment:
# CSPARK_PYSPARK_CLIENT_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/cspark), PYTHON (default:
# Debian's /usr/bin/python3, else python3; the wheels must match the interpreter, so the wrapper
# records it). Exit: 0 with the path; 1 with one line on stderr naming what failed.
set -euo pipefail

# what Python UDF workers import besides pyspark (pandas and Arrow batches)
RUNTIME=(
  pandas==2.2.3 numpy==2.1.3 pyarrow==18.1.0 python-dateutil==2.9.0.post0 pytz==2024.2
  tzdata==2024.2 six==1.16.0
)
COMMON=("${RUNTIME[@]}" h2==4.1.0 hpack==4.0.0 hyperframe==6.0.1)
CONNECT_40=(grpcio==1.67.1 grpcio-status==1.67.1 googleapis-common-protos==1.65.0 protobuf==5.28.3
  py4j==0.10.9.9)
case "${1:-4.0}" in
4.0 | 4.0.1)
  VERSION=4.0.1
  PINS=("${CONNECT_40[@]}" "${COMMON[@]}")
  ;;
image)
  VERSION=image
  PINS=(pyspark-client==4.0.1 "${CONNECT_40[@]}" "${RUNTIME[@]}")
  ;;
4.1 | 4.1.3)
  VERSION=4.1.3
  PINS=(pyspark-client==4.1.3 grpcio==1.76.0 grpcio-status==1.76.0 googleapis-common-protos==1.71.0
    protobuf==6.33.6 zstandard==0.25.0 pyyaml==6.0.4 "${COMMON[@]}")
  ;;
*)
  echo "install-pyspark-client: unknown client version '$1' (expected 4.0, 4.1 or image)" >&2
  exit 1
  ;;
esac
CACHE=${CSPARK_PYSPARK_CLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cspark}
DEST=$CACHE/pyspark-client-$VERSION

fail() {
  echo "install-pyspark-client: $*" >&2
  exit 1
}

probe='import pyspark.sql.connect.session, grpc, grpc_status, pandas, pyarrow, h2'
[ "$VERSION" = image ] && probe='import pyspark.sql.connect.session, pyspark.worker, grpc, grpc_status, pandas, pyarrow'
if [ -f "$DEST/.complete" ] && [ -x "$DEST/python3" ] && "$DEST/python3" -c "$probe" 2>/dev/null; then
  echo "$DEST/python3"
  exit 0
fi

HERE=$(cd "$(dirname "$0")" && pwd)
EXTRA_PATH= # the directory holding the 4.0 client's pyspark package (4.1's is in the site dir)
if [ "$VERSION" = 4.0.1 ]; then
  SPARK_HOME=$(CSPARK_SPARK_VERSION=$VERSION "$HERE/install-spark.sh") || fail "scripts/install-spark.sh failed"
  EXTRA_PATH=:$(dirname "$SPARK_HOME")
fi

PY=${PYTHON:-}
if [ -z "$PY" ]; then
  if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=$(command -v python3) || fail "no python3"; fi
fi
"$PY" -m pip --version >/dev/null 2>&1 || fail "$PY has no pip (install python3-pip)"

mkdir -p "$CACHE" || fail "cannot create $CACHE (set CSPARK_PYSPARK_CLIENT_CACHE to a writable directory)"
TMP=$(mktemp -d "$CACHE/.pyspark-client.XXXXXX") || fail "cannot write into $CACHE"
trap 'rm -rf "$TMP"' EXIT
echo "install-pyspark-client: installing the Spark Connect client's packages into $DEST (once)" >&2
if ! "$PY" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps \
  --target "$TMP/site" "${PINS[@]}" >&2; then
  fail "pip install ${PINS[*]} failed"
fi
cat >"$TMP/python3" <<WRAP
#!/bin/sh
# python3 with the pinned PySpark Spark Connect client of scripts/install-pyspark-client.sh
PYTHONPATH="$DEST/site$EXTRA_PATH\${PYTHONPATH:+:\$PYTHONPATH}" exec "$PY" "\$@"
WRAP
chmod +x "$TMP/python3"
PYTHONPATH="$TMP/site$EXTRA_PATH" "$PY" -c "$probe" >&2 || fail "the client does not import with $PY"
touch "$TMP/.complete"
rm -rf "$DEST"
mv "$TMP" "$DEST"
trap - EXIT
echo "$DEST/python3"
