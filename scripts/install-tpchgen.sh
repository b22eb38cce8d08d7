#!/usr/bin/env bash
# install-tpchgen.sh — installs the pinned tpchgen-cli (TPC-H data generator, a Rust binary
# shipped as a Python wheel) into a cache directory outside the source tree and prints the path of
# its executable on stdout. Used by bench/parquet_scan.sh, bench/sql/tpch_data.sh and
# scripts/sql-testdata.sh; the product never needs it.
#
# Idempotent: a complete install (marked by .complete) is reused; an install is made in a
# temporary directory and renamed into place. Environment: CSPARK_PYTOOLS_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/cspark), CSPARK_TPCHGEN_VERSION (default below), PYTHON.
# Exit: 0 with the path; 1 with one line on stderr naming what failed.
set -euo pipefail

VERSION=${CSPARK_TPCHGEN_VERSION:-4.0.0}
CACHE=${CSPARK_PYTOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cspark}
DEST=$CACHE/tpchgen-cli-$VERSION

fail() {
  echo "install-tpchgen: $*" >&2
  exit 1
}

if [ -f "$DEST/.complete" ] && [ -x "$DEST/bin/tpchgen-cli" ]; then
  echo "$DEST/bin/tpchgen-cli"
  exit 0
fi
PY=${PYTHON:-}
if [ -z "$PY" ]; then
  if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=$(command -v python3) || fail "no python3"; fi
fi
"$PY" -m pip --version >/dev/null 2>&1 || fail "pip is missing (scripts/install-pytools.sh installs it)"
mkdir -p "$CACHE" || fail "cannot create $CACHE"
TMP=$(mktemp -d "$CACHE/.tpchgen.XXXXXX") || fail "cannot write into $CACHE"
trap 'rm -rf "$TMP"' EXIT
echo "install-tpchgen: installing tpchgen-cli==$VERSION into $DEST (once)" >&2
"$PY" -m pip install -q --disable-pip-version-check --root-user-action=ignore --no-deps \
  --target "$TMP/site" "tpchgen-cli==$VERSION" >&2 || fail "pip install tpchgen-cli==$VERSION failed"
BIN=$(find "$TMP/site" -type f -name tpchgen-cli | head -1)
[ -n "$BIN" ] || fail "the tpchgen-cli wheel holds no tpchgen-cli executable"
mkdir -p "$TMP/bin"
cp "$BIN" "$TMP/bin/tpchgen-cli"
chmod +x "$TMP/bin/tpchgen-cli"
"$TMP/bin/tpchgen-cli" --help >/dev/null 2>&1 || fail "tpchgen-cli==$VERSION does not run here"
touch "$TMP/.complete"
rm -rf "$DEST"
mv "$TMP" "$DEST"
trap - EXIT
echo "$DEST/bin/tpchgen-cli"
