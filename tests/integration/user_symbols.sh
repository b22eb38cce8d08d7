#!/usr/bin/env bash
# user_symbols.sh — a job that defines functions named like libcspark's former internals
# (master_parse, conf_get, batch_init, rdd_free, and a map function named task_run) gets its own
# definitions on the driver and in tasks, in local and local-cluster mode (cluster mode:
# tests/k8s/user_symbols.sh). Regression: libcspark exported 412 internal names and a
# job's call to its own master_parse reached cspark's and died with SIGSEGV.
# Usage: user_symbols.sh BUILD_DIR
. "$(dirname "$0")/lib/submit.sh" "$@"
JOB="$B/tests/jobs/user_symbols.so"
awk 'BEGIN { split("alpha beta gamma", w, " "); for (v = 0; v < 1000; v++) s[w[v % 3 + 1]] += 3 * v + 1;
             print "master_parse=56 rdd_free=1"; for (k in s) print k, s[k] }' | sort >"$T/want"
for master in 'local[2]' 'local-cluster[2,1,512]'; do
    "$SUBMIT" --master "$master" "$JOB" 1000 >"$T/out" 2>"$T/err"
    rc=$?
    [ $rc -eq 0 ] || fail "$master: exit $rc: $(tail -3 "$T/err")"
    sort "$T/out" | cmp -s - "$T/want" || fail "$master: output $(tr '\n' ' ' <"$T/out"), want $(tr '\n' ' ' <"$T/want")"
done
echo "PASS user_symbols"
