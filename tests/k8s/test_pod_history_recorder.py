"""test_pod_history_recorder.py — the real-cluster tests' pod recorder (lib/pod_history.py record)
ends with the shell that started it, even when that shell's EXIT trap does not stop it: tests that
set a trap of their own left recorders running after their cluster was gone, retrying it forever.
The API server here is one that never answers (a closed port), as after a cluster's teardown."""
# ctest-labels: no-asan (Python alone: no cspark program runs, the sanitizer pass would repeat it)
import os
import signal
import socket
import subprocess
import time

LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", "pod_history.py")


def closed_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def recorder_alive(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return b"pod_history.py" in f.read()
    except OSError:
        return False


def test_recorder_ends_with_its_parent(tmp_path):
    kubeconfig = tmp_path / "kubeconfig"
    kubeconfig.write_text(
        "apiVersion: v1\nkind: Config\n"
        "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:%d', insecure-skip-tls-verify: true}}]\n"
        "users: [{name: u, user: {token: x}}]\n"
        "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n" % closed_port())
    out = tmp_path / "pods.jsonl"
    # the parent shell starts the recorder, sees it running, and exits without stopping it
    script = ('/usr/bin/python3 "$1" record "$2" >/dev/null 2>&1 & echo $!; '
              'for i in $(seq 100); do [ -e /proc/$!/cmdline ] && break; sleep 0.1; done; sleep 2')
    env = dict(os.environ, KUBECONFIG=str(kubeconfig))
    res = subprocess.run(["sh", "-c", script, "sh", LIB, str(out)], env=env, capture_output=True,
                         text=True, timeout=120)
    pid = int(res.stdout.split()[0])
    for _ in range(300):  # a bounded wait for it to go
        if not recorder_alive(pid):
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)
    raise AssertionError("the recorder outlived the shell that started it")
