#!/usr/bin/env bash
# install-pyarrow.sh — installs a pinned pyarrow (a test tool: it writes the Parquet files the
# format tests read and reads back what cspark writes; never linked into the product) into a cache
# directory outside the source tree, and prints that directory on stdout: put it on PYTHONPATH.
#
#   scripts/install-pyarrow.sh     -> prints e.g. ~/.cache/cspark/pyarrow-26.0.1
#
# Used by tests/integration/parquet_pyarrow.sh. Idempotent: a complete install (marked by
# .complete) is reused, so a second run only prints the path. The install is made in a temporary
# directory and renamed into place, so an interrupted one leaves nothing that looks complete.
# Environment: CSPARK_PYARROW_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/cspark),
# CSPARK_PYARROW_VERSION (default below), PYTHON (default /usr/bin/python3).
# Exit: 0 with the path; 1 with one line on stderr naming what failed.
set -euo pipefail

VERSION=${CSPARK_PYARROW_VERSION:-26.0.1}
CACHE=${CSPARK_PYARROW_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cspark}
DEST=$CACHE/pyarrow-$VERSION
PY=${PYTHON:-/usr/bin/python3}

fail() {
  echo "install-pyarrow: $*" >&2
  exit 1
}

if [ -f "$DEST/.complete" ] && [ -d "$DEST/pyarrow" ]; then
  echo "$DEST"
  exit 0
fi

if ! "$PY" -m pip --version >/dev/null 2>&1; then
  echo "install-pyarrow: installing pip (python3-pip) with apt-get" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-pip >&2 ||
    fail "cannot install pip (python3-pip)"
fi

mkdir -p "$CACHE" || fail "cannot create $CACHE (set CSPARK_PYARROW_CACHE to a writable directory)"
TMP=$(mktemp -d "$CACHE/.pyarrow-$VERSION.XXXXXX") || fail "cannot write into $CACHE"
trap 'rm -rf "$TMP"' EXIT
echo "install-pyarrow: installing pyarrow==$VERSION into $DEST (about 150 MB, once)" >&2
# --target: a plain directory, no environment modified; --no-deps: pyarrow needs no other package
# for what the tests do (numpy is optional since pyarrow 16).
"$PY" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps --target "$TMP" \
  "pyarrow==$VERSION" >&2 || fail "pip install pyarrow==$VERSION failed"
PYTHONPATH="$TMP" "$PY" -c 'import pyarrow.parquet' >&2 || fail "pyarrow==$VERSION does not import"
touch "$TMP/.complete"
rm -rf "$DEST"
mv "$TMP" "$DEST"
trap - EXIT
echo "$DEST"
