#!/usr/bin/env bash
# conf-doc.sh BUILD_DIR — writes the table of spark.kubernetes.* keys that BUILD_DIR's conf_doc
# prints (from src/common/conf_entries.c and conf_k8s_keys.c) into docs/configuration.md,
# between its "k8s-keys: begin" and "k8s-keys: end" markers. Run it after changing a
# Kubernetes key; tests/integration/conf_doc.sh fails until the page is up to date.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:?usage: conf-doc.sh BUILD_DIR}
DOC="$SRC/docs/configuration.md"
table=$("$BUILD/tools/conf_doc/conf_doc")
TABLE="$table" awk '/<!-- k8s-keys: begin -->/ { print; print ENVIRON["TABLE"]; skip = 1; next }
    /<!-- k8s-keys: end -->/ { skip = 0 } !skip' "$DOC" >"$DOC.tmp"
mv "$DOC.tmp" "$DOC"
