#!/usr/bin/env bash
# install-pyspark-client.sh — installs the pinned PySpark Spark Connect client: the pyspark package of
# scripts/install-spark.sh (pyspark 4.0.1, reused as it is) and the Python packages its Connect
# client imports (grpcio, grpcio-status, googleapis-common-protos, protobuf, pandas, numpy, pyarrow,
# py4j, which pyspark imports at its top),
# plus h2 (raw HTTP/2 for the malformed-request tests), into a cache directory outside the source
# tree, and prints the path of a python3 that imports them (a wrapper setting PYTHONPATH).
#
# Used by tests/connect/*.sh; the product never needs it.
#
#   scripts/install-pyspark-client.sh     -> prints e.g. ~/.cache/cspark/pyspark-client-4.0.1/python3
#
# Idempotent: a complete install (marked by .complete) is reused as it is; an install is made in a
# temporary directory and renamed into place. Every package is pinned (and installed without
# resolving further dependencies, so the set is exactly the list below). Environment:
# CSPARK_PYSPARK_CLIENT_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/cspark), PYTHON (default:
# Debian's /usr/bin/python3, else python3; the wheels must match the interpreter, so the wrapper
# records it). Exit: 0 with the path; 1 with one line on stderr naming what failed.
set -euo pipefail

VERSION=4.0.1
CACHE=${CSPARK_PYSPARK_CLIENT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cspark}
DEST=$CACHE/pyspark-client-$VERSION
PINS=(
  grpcio==1.67.1 grpcio-status==1.67.1 googleapis-common-protos==1.65.0 protobuf==5.28.3
  pandas==2.2.3 numpy==2.1.3 pyarrow==18.1.0 python-dateutil==2.9.0.post0 pytz==2024.2
  tzdata==2024.2 six==1.16.0 py4j==0.10.9.9 h2==4.1.0 hpack==4.0.0 hyperframe==6.0.1
)

fail() {
  echo "install-pyspark-client: $*" >&2
  exit 1
}

probe='import pyspark.sql.connect.session, grpc, grpc_status, pandas, pyarrow, h2'
if [ -f "$DEST/.complete" ] && [ -x "$DEST/python3" ] && "$DEST/python3" -c "$probe" 2>/dev/null; then
  echo "$DEST/python3"
  exit 0
fi

HERE=$(cd "$(dirname "$0")" && pwd)
SPARK_HOME=$(CSPARK_SPARK_VERSION=$VERSION "$HERE/install-spark.sh") || fail "scripts/install-spark.sh failed"
PYSPARK_DIR=$(dirname "$SPARK_HOME") # the directory holding the pyspark package

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
PYTHONPATH="$DEST/site:$PYSPARK_DIR\${PYTHONPATH:+:\$PYTHONPATH}" exec "$PY" "\$@"
WRAP
chmod +x "$TMP/python3"
PYTHONPATH="$TMP/site:$PYSPARK_DIR" "$PY" -c "$probe" >&2 || fail "the client does not import with $PY"
touch "$TMP/.complete"
rm -rf "$DEST"
mv "$TMP" "$DEST"
trap - EXIT
echo "$DEST/python3"
