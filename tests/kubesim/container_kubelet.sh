#!/usr/bin/env bash
# Unit test of tools/kubesim/container.c (the kubelet's process runtime) without the API server: compiles a
# small harness against container.c (with ASan+UBSan when CSPARK_SANITIZE=1, as in CI's second pass) and
# checks exit codes, signals as 128+n, OOMKilled under a memory limit, StartError for a missing command,
# a bind mount at a path missing on the host (not created on the host), the pod hostname, env, the PID
# namespace, and that SIGTERM reaches the command.
# Usage: tests/kubesim/container_kubelet.sh [BUILD_DIR]     (CTest passes the build directory)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CC=${CC:-cc}
TMP=$(mktemp -d /tmp/kubesim-container-test-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
SAN=
[ "${CSPARK_SANITIZE:-0}" = 1 ] && SAN="-fsanitize=address,undefined -fno-omit-frame-pointer"

cat >"$TMP/harness.c" <<'EOF'
#include "container.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *dir;

/* runs argv; returns "exit/reason" in out; kill_after_ms > 0 sends SIGTERM after that long */
static void run(char **argv, long long limit, const ks_mount *m, int nm, int term_after_ms, char *out, size_t n)
{
    char *envp[] = {"PATH=/usr/bin:/bin", "GREETING=hello", NULL};
    char log[4096], scratch[4096], err[1024];
    snprintf(log, sizeof log, "%s/c.log", dir);
    snprintf(scratch, sizeof scratch, "%s/scratch", dir);
    ks_container_spec s = {.id = "harness", .argv = argv, .envp = envp, .mounts = m, .n_mounts = nm,
                           .hostname = "pod-a", .log_path = log, .memory_limit = limit, .run_as_user = -1,
                           .run_as_group = -1, .scratch_dir = scratch};
    ks_container *c;
    int rc = ks_container_start(&s, &c, err, sizeof err);
    if (rc) {
        snprintf(out, n, "start-error %s", err);
        return;
    }
    int code, waited = 0;
    const char *reason;
    while (ks_container_reap(c, &code, &reason)) {
        ks_container_check_memory(c);
        usleep(10000);
        waited += 10;
        if (term_after_ms && waited == term_after_ms)
            ks_container_signal(c, SIGTERM);
        if (waited > 60000) {
            snprintf(out, n, "timeout");
            ks_container_free(c);
            return;
        }
    }
    snprintf(out, n, "%d/%s", code, reason);
    ks_container_free(c);
}

int main(int argc, char **argv)
{
    dir = argv[1];
    const ks_container_caps *caps = ks_container_probe();
    printf("caps mountns=%d pidns=%d cgroup=%d\n", caps->mount_ns, caps->pid_ns, caps->cgroup);
    char out[2048], src[4096], dst[512];
    snprintf(src, sizeof src, "%s/vol", dir);
    snprintf(dst, sizeof dst, "%s", argc > 2 ? argv[2] : "/kubesim-test-missing/conf");
    ks_mount m[] = {{src, dst, 1}};
    char script[1024];
    snprintf(script, sizeof script, "cat %s/f; hostname; echo $GREETING; echo pid=$$; exit 3", dst);
    char *a1[] = {"sh", "-c", script, NULL};
    run(a1, 0, m, 1, 0, out, sizeof out);
    printf("exit3 %s\n", out);
    char *a2[] = {"sh", "-c", "kill -KILL $$", NULL};
    run(a2, 0, NULL, 0, 0, out, sizeof out);
    printf("signal %s\n", out);
    char *a3[] = {"/usr/bin/python3", "-c", "b = bytearray(300 << 20); print('survived')", NULL};
    run(a3, 64 << 20, NULL, 0, 0, out, sizeof out);
    printf("oom %s\n", out);
    char *a4[] = {"no-such-command-kubesim", NULL};
    run(a4, 0, NULL, 0, 0, out, sizeof out);
    printf("missing %s\n", out);
    char *a5[] = {"sh", "-c", "trap 'echo got-term; exit 0' TERM; while true; do sleep 0.05; done", NULL};
    run(a5, 0, NULL, 0, 500, out, sizeof out);
    printf("term %s\n", out);
    ks_container_cleanup_all();
    return 0;
}
EOF
mkdir -p "$TMP/vol" && echo volume-file >"$TMP/vol/f"
# shellcheck disable=SC2086
$CC -std=gnu11 -g -Wall -Wextra -Werror -Wno-unused-parameter -Wno-missing-field-initializers $SAN \
    -I"$ROOT/tools/kubesim" "$TMP/harness.c" "$ROOT/tools/kubesim/container.c" "$ROOT/tools/kubesim/container_rootfs.c" -o "$TMP/harness"
"$TMP/harness" "$TMP" >"$TMP/out" 2>&1 || { cat "$TMP/out" >&2; echo "FAIL: harness crashed" >&2; exit 1; }
cat "$TMP/out"
fail() { echo "FAIL: $*" >&2; echo "--- container log:" >&2; cat "$TMP/c.log" >&2 || true; exit 1; }
grep -q '^caps mountns=1 pidns=1 cgroup=1$' "$TMP/out" || fail "this test needs root, namespaces and cgroups"
grep -qx 'exit3 3/Error' "$TMP/out" || fail "exit 3 not reported as 3/Error"
grep -qx 'signal 137/Error' "$TMP/out" || fail "SIGKILL not reported as 137"
grep -qx 'oom 137/OOMKilled' "$TMP/out" || fail "memory limit not enforced as OOMKilled/137"
grep -q '^missing start-error exec: "no-such-command-kubesim": executable file not found in \$PATH$' "$TMP/out" ||
    fail "missing command not a start error"
grep -qx 'term 0/Completed' "$TMP/out" || fail "SIGTERM did not reach the command's trap"
grep -qx 'volume-file' "$TMP/c.log" || fail "bind mount not visible at its path"
grep -qx 'pod-a' "$TMP/c.log" || fail "pod hostname not set"
grep -qx 'hello' "$TMP/c.log" || fail "env not passed"
grep -qx 'pid=2' "$TMP/c.log" || fail "command is not PID 2 of its own PID namespace"
grep -qx 'got-term' "$TMP/c.log" || fail "trap output missing"
[ ! -e /kubesim-test-missing ] || fail "the mount point was created on the host"
echo "PASS: container_kubelet"
