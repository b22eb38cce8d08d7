#!/usr/bin/env bash
# install-spark.sh — installs a pinned Apache Spark (from PyPI's pyspark, which bundles Spark's
# jars, bin/spark-submit, bin/spark-class and the History Server) into a cache directory outside
# the source tree, and prints its SPARK_HOME on stdout. Java 17 (Debian's
# openjdk-17-jdk-headless) is installed with apt-get when `javac` is missing.
#
# Used by the Spark side of the benchmarks (bench/spark_vs_cspark.sh) and by the History Server
# test (tests/spark/history_server.sh); `make run` and the product never need it.
#
#   scripts/install-spark.sh            -> prints e.g. ~/.cache/cspark/spark-4.0.1/pyspark
#
# Idempotent: a complete install (marked by .complete) is reused as it is, so a second run only
# prints the path. An install is made in a temporary directory and renamed into place, so an
# interrupted one leaves nothing that looks complete. pip keeps the downloaded package in its own
# cache, so a reinstall after the directory was removed does not download it again.
# Environment: CSPARK_SPARK_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/cspark),
# CSPARK_SPARK_VERSION (default below; the benchmarks and tests are written for 4.0.x),
# PYTHON (default python3). Exit: 0 with the path; 1 with one line on stderr naming what failed.
set -euo pipefail

VERSION=${CSPARK_SPARK_VERSION:-4.0.1}
CACHE=${CSPARK_SPARK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cspark}
DEST=$CACHE/spark-$VERSION
HOME_DIR=$DEST/pyspark

fail() {
  echo "install-spark: $*" >&2
  exit 1
}

if [ -f "$DEST/.complete" ] && [ -x "$HOME_DIR/bin/spark-submit" ]; then
  echo "$HOME_DIR"
  exit 0
fi

SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
apt_install() {
  echo "install-spark: installing $* with apt-get" >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "$@" >&2
}

if ! command -v javac >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
  apt_install openjdk-17-jdk-headless || fail "cannot install Java 17 (openjdk-17-jdk-headless)"
fi

PY=${PYTHON:-python3}
if ! "$PY" -m pip --version >/dev/null 2>&1; then
  if /usr/bin/python3 -m pip --version >/dev/null 2>&1; then
    PY=/usr/bin/python3
  else
    apt_install python3-pip || fail "cannot install pip (python3-pip)"
    PY=/usr/bin/python3
  fi
fi

mkdir -p "$CACHE" || fail "cannot create $CACHE (set CSPARK_SPARK_CACHE to a writable directory)"
TMP=$(mktemp -d "$CACHE/.spark-$VERSION.XXXXXX") || fail "cannot write into $CACHE"
trap 'rm -rf "$TMP"' EXIT
echo "install-spark: installing pyspark==$VERSION into $DEST (about 450 MB, once)" >&2
# --target installs into a plain directory (no environment is modified); --no-deps: py4j and the
# Python extras are not needed to run Java applications or the History Server.
if ! "$PY" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --target "$TMP" \
  "pyspark==$VERSION" >&2; then
  fail "pip install pyspark==$VERSION failed"
fi
[ -x "$TMP/pyspark/bin/spark-submit" ] || fail "pyspark==$VERSION has no bin/spark-submit"
ls "$TMP"/pyspark/jars/spark-core_*.jar >/dev/null 2>&1 || fail "pyspark==$VERSION has no jars"
touch "$TMP/.complete"
rm -rf "$DEST"
mv "$TMP" "$DEST"
trap - EXIT
echo "$HOME_DIR"
