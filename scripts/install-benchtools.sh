#!/usr/bin/env bash
# install-benchtools.sh — installs the pinned peers and tools of the SQL benchmark (bench/sql/):
# DuckDB and DataFusion (Python packages), Sail (pysail, a Spark Connect server), the PySpark
# Connect client that talks to Sail (pyspark-client 4.0.x), pyarrow and matplotlib (the plot),
# into a cache directory outside the source tree, and prints the path of a python3 that imports
# them (a small wrapper setting PYTHONPATH and PATH) on stdout. Apache Spark itself comes from
# scripts/install-spark.sh, tpchgen-cli from scripts/install-tpchgen.sh.
#
# Used by bench/sql/run.sh only; neither the product nor the tests need it.
#
#   scripts/install-benchtools.sh     -> prints e.g. ~/.cache/cspark/benchtools-1/python3
#
# Idempotent: a complete install (marked by .complete) is reused as it is. An install is made in a
# temporary directory and renamed into place, so an interrupted one leaves nothing that looks
# complete. The top-level packages are pinned below; pip picks their dependencies, and the
# versions it picked are written to DEST/versions.txt (the harness copies them into its results).
# Environment: CSPARK_PYTOOLS_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/cspark), PYTHON
# (default: Debian's /usr/bin/python3, else python3; the wheels must match it, so the wrapper
# records it). Exit: 0 with the path; 1 with one line on stderr naming what failed.
set -euo pipefail

# Bump SET when a pin changes: a new directory is installed beside the old one.
SET=1
PINS=(
  "duckdb==1.5.6"
  "datafusion==55.0.0"
  "pysail==0.7.2"
  "pyspark-client==4.0.1"
  "pyarrow==26.0.1"
  "matplotlib==3.11.2"
)
IMPORTS="duckdb, datafusion, pysail, pyspark.sql.connect.session, pyarrow, matplotlib"
CACHE=${CSPARK_PYTOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/cspark}
DEST=$CACHE/benchtools-$SET

fail() {
  echo "install-benchtools: $*" >&2
  exit 1
}

if [ -f "$DEST/.complete" ] && [ -x "$DEST/python3" ] && "$DEST/python3" -c "import $IMPORTS" 2>/dev/null; then
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
  echo "install-benchtools: installing python3-pip with apt-get" >&2
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get update -qq >&2 &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-pip >&2 ||
    fail "cannot install pip (python3-pip)"
fi

mkdir -p "$CACHE" || fail "cannot create $CACHE (set CSPARK_PYTOOLS_CACHE to a writable directory)"
TMP=$(mktemp -d "$CACHE/.benchtools.XXXXXX") || fail "cannot write into $CACHE"
trap 'rm -rf "$TMP"' EXIT
echo "install-benchtools: installing ${PINS[*]} into $DEST (about 500 MB, once)" >&2
"$PY" -m pip install -q --disable-pip-version-check --root-user-action=ignore \
  --target "$TMP/site" "${PINS[@]}" >&2 || fail "pip install ${PINS[*]} failed"
cat >"$TMP/python3" <<WRAP
#!/bin/sh
# python3 with the pinned SQL benchmark tools of scripts/install-benchtools.sh (sail on PATH)
PATH="$DEST/site/bin:\$PATH" PYTHONPATH="$DEST/site\${PYTHONPATH:+:\$PYTHONPATH}" exec "$PY" "\$@"
WRAP
chmod +x "$TMP/python3"
PYTHONPATH="$TMP/site" "$PY" -c "import $IMPORTS" >&2 || fail "the tools do not import with $PY"
# The versions pip installed, one 'name==version' a line (from the .dist-info folder names).
(cd "$TMP/site" && ls -d ./*.dist-info | sed -e 's|^\./||' -e 's|\.dist-info$||' -e 's|-|==|' | sort) \
  >"$TMP/versions.txt"
touch "$TMP/.complete"
rm -rf "$DEST"
mv "$TMP" "$DEST"
trap - EXIT
echo "$DEST/python3"
