#!/usr/bin/env bash
# local_dir_made.sh — a local directory root that does not exist yet is made, as Spark's
# DiskBlockManager makes it (mkdirs): SPARK_LOCAL_DIRS (or spark.local.dir) naming a missing
# directory used to fail the application with "cannot create a local directory". The word count
# example runs with its shuffle under a missing two-level root, in local[2] and in
# local-cluster[2,1,1024] (the executors' directories too), with the right counts, and nothing is
# left under the root afterwards; a root that cannot be made (under a regular file) is one line
# naming SPARK_LOCAL_DIRS, exit status 1.
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
APP=$EX/wordcount.so
need "$APP"
SUBMIT_OPTS=(--conf spark.ui.enabled=false)
printf 'b a b\nc b a\n' >"$T/in.txt"

for master in 'local[2]' 'local-cluster[2,1,1024]'; do
    root="$T/missing-$(echo "$master" | tr -c 'a-z0-9' '_')/local"
    SPARK_LOCAL_DIRS=$root submit_ok "$master" "$APP" "$T/in.txt" "$T/out-${#master}"
    assert_eq "$(head -1 "$T/stdout")" "3 distinct words, 6 total" "$master: summary"
    [ -d "$root" ] || fail "$master: $root was not made"
    [ -z "$(find "$root" -mindepth 1 | head -3)" ] || fail "$master: left behind: $(find "$root" -mindepth 1 | head -3)"
done

: >"$T/a-file"
rc=0
SPARK_LOCAL_DIRS="$T/a-file/local" run_submit 'local[2]' "$APP" "$T/in.txt" "$T/out-bad" || rc=$?
assert_eq "$rc" 1 "a root under a regular file: exit status"
assert_eq "$(grep -v '^INFO ' "$T/stderr")" \
    "cspark-submit: cannot create a local directory under $T/a-file/local (SPARK_LOCAL_DIRS): Not a directory" \
    "the error"
[ -e "$T/out-bad" ] && fail "the output directory was created"
echo "PASS local_dir_made"
