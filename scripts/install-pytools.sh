#!/usr/bin/env bash
# install-pytools.sh — installs the pinned Python test tools (pyarrow, the judge of the Arrow IPC
# and Parquet tests; duckdb, a reader bench/csv_json_parse.sh compares with) into a cache
# directory outside the source tree, and prints the path
# of a python3 that imports them (a small wrapper setting PYTHONPATH) on stdout.
#
# Used by tests/formats/*.sh, tests/integration/parquet_pyarrow.sh and tests/fuzz/parquet_reader.sh;
# the product never needs it. pyarrow's wheel bundles Arrow's C++
# libraries, so nothing else is installed; numpy is not needed for what the tests do.
#
#   scripts/install-pytools.sh     -> prints e.g. ~/.cache/cspark/pytools-pyarrow-26.0.1/python3
#
# Idempotent: a complete install (marked by .complete) is reused as it is. An install is made in a
# temporary directory and renamed into place, so an interrupted one leaves nothing that looks
# complete. Environment: CSPARK_PYTOOLS_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/cspark),
# CSPARK_PYARROW_VERSION, CSPARK_DUCKDB_VERSION (defaults below), PYTHON (default: Debian's /usr/bin/python3, else python3;
# the wheel must match the interpreter that runs the tests, so the wrapper records it).
# Exit: 0 with the path; 1 with one line on stderr naming what failed.
set -euo pipefail

PYARROW=${CSPARK_PYARROW_VERSION:-26.0.1}
DUCKDB=${CSPARK_DUCKDB_VERSION:-1.5.6}
CACHE=${CSPARK_PYTOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cspark}
DEST=$CACHE/pytools-pyarrow-$PYARROW

fail() {
  echo "install-pytools: $*" >&2
  exit 1
}

if [ -f "$DEST/.complete" ] && [ -x "$DEST/python3" ] && "$DEST/python3" -c 'import pyarrow, duckdb' 2>/dev/null; then
  echo "$DEST/python3"
  exit 0
fi

PY=${PYTHON:-}
if [ -z "$PY" ]; then
  if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=$(command -v python3) || fail "no python3"; fi
fi
if ! "$PY" -m pip --version >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "install-pytools: installing python3-pip with apt-get" >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-pip >&2 ||
    fail "cannot install pip (python3-pip)"
fi

mkdir -p "$CACHE" || fail "cannot create $CACHE (set CSPARK_PYTOOLS_CACHE to a writable directory)"
TMP=$(mktemp -d "$CACHE/.pytools.XXXXXX") || fail "cannot write into $CACHE"
trap 'rm -rf "$TMP"' EXIT
echo "install-pytools: installing pyarrow==$PYARROW duckdb==$DUCKDB into $DEST (about 100 MB, once)" >&2
if ! "$PY" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps \
  --target "$TMP/site" "pyarrow==$PYARROW" "duckdb==$DUCKDB" >&2; then
  fail "pip install pyarrow==$PYARROW duckdb==$DUCKDB failed"
fi
cat >"$TMP/python3" <<WRAP
#!/bin/sh
# python3 with the pinned test tools of scripts/install-pytools.sh
PYTHONPATH="$DEST/site\${PYTHONPATH:+:\$PYTHONPATH}" exec "$PY" "\$@"
WRAP
chmod +x "$TMP/python3"
PYTHONPATH="$TMP/site" "$PY" -c 'import pyarrow, duckdb' >&2 || fail "pyarrow or duckdb does not import with $PY"
touch "$TMP/.complete"
rm -rf "$DEST"
mv "$TMP" "$DEST"
trap - EXIT
echo "$DEST/python3"
