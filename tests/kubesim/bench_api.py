#!/usr/bin/python3
"""kubesim API-server benchmark (not a test): pod creates per second from several client processes with
keep-alive connections, LIST latency of N pods with a label selector, and watch fan-out.

usage: /usr/bin/python3 tests/kubesim/bench_api.py [--build build] [--pods 5000] [--procs 4] [--http]
                                                   [--watches 100]
Prints one line per figure. Starts its own kubesim (--no-kubelet) and stops it at the end.
"""
import argparse
import json
import multiprocessing
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kubesim_fixture  # noqa: E402


def pod(name, i):
    return json.dumps({"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": name, "labels": {"spark-app-selector": "app-1",
                                                             "spark-role": "executor" if i % 2 else "driver",
                                                             "spark-exec-id": str(i)}},
                       "spec": {"containers": [{"name": "spark-kubernetes-executor", "image": "cspark:latest",
                                                "args": ["executor"],
                                                "env": [{"name": "SPARK_EXECUTOR_ID", "value": str(i)}],
                                                "resources": {"requests": {"cpu": "1", "memory": "1408Mi"}}}]}})


def worker(args):
    kc, start, count, prefix = args
    ks = kubesim_fixture.Kubesim(None, "/tmp", kc)
    c = ks.conn()
    hdr = {"Authorization": "Bearer " + ks.token, "Content-Type": "application/json"}
    bad = 0
    for i in range(start, start + count):
        c.request("POST", "/api/v1/namespaces/default/pods", body=pod("%s-%d" % (prefix, i), i), headers=hdr)
        r = c.getresponse()
        r.read()
        if r.status != 201:
            bad += 1
    c.close()
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default=os.environ.get("CSPARK_BUILD_DIR", "build"))
    ap.add_argument("--pods", type=int, default=5000)
    ap.add_argument("--procs", type=int, default=4)
    ap.add_argument("--http", action="store_true")
    ap.add_argument("--watches", type=int, default=0, help="open N pod watches during the creates")
    a = ap.parse_args()
    kubesim_fixture.KUBESIM = os.path.join(a.build, "bin", "kubesim")
    args = ["--no-kubelet"] + (["--http"] if a.http else [])
    with kubesim_fixture.start_kubesim(*args) as ks:
        import threading
        counts = [0] * a.watches
        conns = []

        def reader(i, resp):
            while True:
                line = resp.readline()
                if not line:
                    return
                counts[i] += 1
        threads = []
        for i in range(a.watches):
            c = ks.conn(timeout=600)
            c.request("GET", "/api/v1/namespaces/default/pods?watch=1&resourceVersion=1&timeoutSeconds=600",
                      headers={"Authorization": "Bearer " + ks.token})
            t = threading.Thread(target=reader, args=(i, c.getresponse()), daemon=True)
            t.start()
            conns.append(c)
            threads.append(t)
        per = a.pods // a.procs
        jobs = [(ks.kubeconfig, p * per, per, "bench") for p in range(a.procs)]
        with multiprocessing.Pool(a.procs) as pool:
            t0 = time.time()
            bad = sum(pool.map(worker, jobs))
            dt = time.time() - t0
        n = per * a.procs
        print("creates: %d pods in %.2f s = %.0f pods/s (%d procs, %s, %d failed, %d watches open)"
              % (n, dt, n / dt, a.procs, "http" if a.http else "https", bad, a.watches))
        if a.watches:
            deadline = time.time() + 60
            while min(counts) < n and time.time() < deadline:
                time.sleep(0.05)
            print("watches: %d streams received %d..%d of %d events, all delivered %.2f s after the first create"
                  % (a.watches, min(counts), max(counts), n, time.time() - t0))
            for c in conns:
                c.close()
        c = ks.conn()
        hdr = {"Authorization": "Bearer " + ks.token}
        times = []
        for _ in range(7):
            t0 = time.time()
            c.request("GET", "/api/v1/namespaces/default/pods?labelSelector=spark-app-selector%3Dapp-1,"
                      "spark-role%3Dexecutor", headers=hdr)
            r = c.getresponse()
            body = r.read()
            times.append(time.time() - t0)
        items = len(json.loads(body)["items"])
        print("list: %d of %d pods by label selector: median %.1f ms, min %.1f ms (%d bytes, incl. client read)"
              % (items, n, statistics.median(times) * 1000, min(times) * 1000, len(body)))
        times = []
        for _ in range(5):
            t0 = time.time()
            c.request("GET", "/api/v1/namespaces/default/pods?labelSelector=spark-exec-id%3D7", headers=hdr)
            r = c.getresponse()
            r.read()
            times.append(time.time() - t0)
        print("list: 1 of %d pods by label selector: median %.1f ms" % (n, statistics.median(times) * 1000))
        c.close()


if __name__ == "__main__":
    main()
