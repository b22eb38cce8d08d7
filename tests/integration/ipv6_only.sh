#!/usr/bin/env bash
# ipv6_only.sh — an IPv6-only host (a network namespace whose loopback has ::1 and no 127.0.0.1,
# as in an IPv6-only pod's outside view): local-cluster binds the driver's RPC endpoint, the
# executors' block servers and the UI on ::1, executors reach the driver through
# spark://CoarseGrainedScheduler@[::1]:port, the shuffle between them works and the word count
# equals the one of an ordinary run; the UI answers at http://[::1]:<port>. Needs unshare(1) and
# ip(8) as root (the suite runs as root).
. "$(dirname "$0")/../lib/prelude.sh"
lib_init "$@"
need "$EX/wordcount.so" "$BIN/gen_text" "$BUILD/tests/jobs/testjobs.so"
command -v unshare >/dev/null && command -v ip >/dev/null || fail "unshare or ip is missing (util-linux, iproute2)"
unshare -n true 2>/dev/null || { echo "SKIP: $TEST_NAME: no network namespaces here (needs root)"; exit 77; }
"$BIN/gen_text" -s 11 100000 >"$T/words.txt"
submit_ok "local-cluster[2,1,512]" "$EX/wordcount.so" "$T/words.txt" "$T/ref"
cat "$T"/ref/part-* | sort >"$T/ref.txt"

cat >"$T/v6.sh" <<SH
set -eu
ip link set lo up
ip addr del 127.0.0.1/8 dev lo
if ip -4 addr show | grep -q inet; then echo "an IPv4 address is left" >&2; exit 3; fi
"$BIN/cspark-submit" --master 'local-cluster[2,1,512]' --conf spark.ui.port=0 \
    "$EX/wordcount.so" "$T/words.txt" "$T/out" >"$T/wc.out" 2>"$T/wc.err"
# the UI, while a slower job runs
"$BIN/cspark-submit" --master 'local-cluster[2,1,512]' --conf spark.ui.port=0 \
    --class slow "$BUILD/tests/jobs/testjobs.so" 3000 >"$T/slow.out" 2>"$T/slow.err" &
pid=\$!
port=
for i in \$(seq 1 300); do
    port=\$(grep -o 'Bound SparkUI to ::1, and started at http://[^ ]*:[0-9]*' "$T/slow.err" | grep -o '[0-9]*\$' || true)
    [ -n "\$port" ] && break
    sleep 0.1
done
[ -n "\$port" ] || { echo "the UI did not bind ::1" >&2; kill \$pid; exit 4; }
curl -sfg "http://[::1]:\$port/api/v1/applications" >"$T/apps.json" || { echo "the UI does not answer on [::1]:\$port" >&2; kill \$pid; exit 5; }
wait \$pid
SH
rc=0
timeout 300 unshare -n bash "$T/v6.sh" || rc=$?
[ $rc -eq 0 ] || { tail -20 "$T/wc.err" "$T/slow.err" 2>/dev/null >&2; fail "the IPv6-only run failed (exit $rc)"; }
cat "$T"/out/part-* | sort | cmp -s - "$T/ref.txt" || fail "the word count differs from the ordinary run's"
grep -q "event=listening host=::1 " "$T/wc.err" || fail "the driver did not listen on ::1"
[ "$(grep -c 'block-server event=started address=::1:' "$T/wc.err")" = 2 ] ||
    fail "the executors' block servers did not both listen on ::1"
grep -q "event=executor_registered executor=2 host=::1 " "$T/wc.err" || fail "executor 2 did not register from ::1"
grep -q '"id"' "$T/apps.json" || fail "the UI's application list is empty: $(cat "$T/apps.json")"
grep -q "^count=16$" "$T/slow.out" || fail "the slow job's count: $(tail -3 "$T/slow.out")"
log ok
