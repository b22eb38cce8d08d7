"""The log route: GET .../pods/NAME/log served from the kubelet half, with tailLines and follow=true
(streams until the pod ends). Runs kubesim with its kubelet."""
import time

from kubesim_fixture import start_kubesim, wait_for

SCRIPT = "for i in 1 2 3 4 5; do echo tick $i; sleep 0.4; done"


def test_logs_tail_and_follow():
    with start_kubesim() as k:
        k.kubectl("run", "ticker", "--image=busybox", "--restart=Never", "--command", "--", "/bin/sh", "-c",
                  SCRIPT)
        # follow from the start: every line arrives, and the stream ends when the pod completes
        wait_for(lambda: k.call("GET", "/api/v1/namespaces/default/pods/ticker")[1]["status"]["phase"]
                 in ("Running", "Succeeded"))
        t0 = time.time()
        out = k.kubectl("logs", "-f", "ticker", timeout=60).stdout
        assert out.splitlines() == ["tick %d" % i for i in range(1, 6)], out
        assert time.time() - t0 < 50
        assert k.kubectl("logs", "ticker", "--tail=2").stdout.splitlines() == ["tick 4", "tick 5"]
        st, _, body = k.request("GET", "/api/v1/namespaces/default/pods/ticker/log?tailLines=1")
        assert st == 200 and body == b"tick 5\n"
        st, s = k.call("GET", "/api/v1/namespaces/default/pods/nope/log")
        assert st == 404 and s["message"] == 'pods "nope" not found'


def test_logs_without_kubelet_is_a_clear_error():
    with start_kubesim("--no-kubelet") as k:
        k.call("POST", "/api/v1/namespaces/default/pods", {"metadata": {"name": "p"}, "spec": {
            "containers": [{"name": "c", "image": "busybox"}]}})
        st, s = k.call("GET", "/api/v1/namespaces/default/pods/p/log")
        assert st == 400 and s["kind"] == "Status" and "without a kubelet" in s["message"]
