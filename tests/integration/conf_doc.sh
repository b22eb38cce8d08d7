#!/usr/bin/env bash
# conf_doc.sh — docs/configuration.md's table of spark.kubernetes.* keys (between the
# "k8s-keys" markers) is what tools/conf_doc prints from the conf tables (conf_entries.c,
# conf_k8s_keys.c): a key added, refused or given another default without the page being
# regenerated (scripts/conf-doc.sh BUILD_DIR) fails here. It also shows the comparison bites: a
# page with one row changed is told apart.
# Usage: conf_doc.sh BUILD_DIR
set -u
SRC=${CSPARK_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${1:?usage: conf_doc.sh BUILD_DIR}
GEN="$BUILD/tools/conf_doc/conf_doc"
[ -x "$GEN" ] || { echo "FAIL: conf_doc: $GEN was not built"; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
fail() { echo "FAIL: conf_doc: $*"; fails=$((fails + 1)); }
section() { awk '/<!-- k8s-keys: begin -->/ { on = 1; next } /<!-- k8s-keys: end -->/ { on = 0 } on' "$1"; }
"$GEN" >"$T/generated" || fail "conf_doc failed: $(cat "$T/generated")"
section "$SRC/docs/configuration.md" >"$T/page"
[ -s "$T/page" ] || fail "no k8s-keys markers in docs/configuration.md"
if ! diff -u "$T/page" "$T/generated" >"$T/diff"; then
    fail "docs/configuration.md is out of date (run scripts/conf-doc.sh BUILD_DIR):
$(head -40 "$T/diff")"
fi
# every Spark 4.1 key named in the acceptance test's table has a row, and the rows the issue
# names are refused until implemented
for key in allocation.pods.allocator driver.pod.featureSteps \
    executor.pod.featureSteps; do
    grep -q "^| \`spark.kubernetes.$key\` .*refused" "$T/generated" || fail "spark.kubernetes.$key is not refused"
done
# the comparison tells a stale page apart
sed 's/| `spark.kubernetes.namespace` | text | `default`/| `spark.kubernetes.namespace` | text | `other`/' \
    "$T/page" >"$T/stale"
cmp -s "$T/stale" "$T/page" && fail "the stale-page fixture changed nothing"
diff -q "$T/stale" "$T/generated" >/dev/null && fail "a stale page passed"
[ "$fails" -eq 0 ] && echo "PASS conf_doc" || exit 1
