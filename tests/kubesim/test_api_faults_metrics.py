"""kubesim fault injection (admin endpoint and flags), /metrics and the pod history endpoint."""
import time

from kubesim_fixture import kubesim, pod, start_kubesim  # noqa: F401

NS = "/api/v1/namespaces/default"


def test_error_and_throttle_faults(kubesim):
    st, f = kubesim.call("POST", "/kubesim/faults", {"errorRate": 1.0})
    assert st == 200 and f["errorRate"] == 1.0
    st, s = kubesim.call("GET", NS + "/pods")
    assert st == 500 and s["reason"] == "InternalError" and s["kind"] == "Status"
    # admin endpoints are never faulted
    assert kubesim.call("GET", "/kubesim/faults")[0] == 200
    assert kubesim.call("POST", "/kubesim/faults", {"errorRate": 0, "throttleRate": 1.0,
                                                     "retryAfterSeconds": 3})[0] == 200
    st, hdrs, body = kubesim.request("GET", NS + "/pods")
    import json
    s = json.loads(body)
    assert st == 429 and hdrs["retry-after"] == "3" and s["reason"] == "TooManyRequests"
    assert s["details"]["retryAfterSeconds"] == 3
    assert kubesim.call("DELETE", "/kubesim/faults")[0] == 200
    assert kubesim.call("GET", NS + "/pods")[0] == 200
    st, s = kubesim.call("POST", "/kubesim/faults", {"errorRate": 7})
    assert st == 400 and "errorRate" in s["message"]


def test_latency_fault(kubesim):
    kubesim.call("POST", "/kubesim/faults", {"latencyMs": 300})
    t0 = time.time()
    kubesim.call("GET", NS + "/pods")
    assert time.time() - t0 >= 0.3
    kubesim.call("POST", "/kubesim/faults", {"latencyMs": 0})


def test_dropped_watch_and_forced_expiry(kubesim):
    st, lst = kubesim.call("GET", NS + "/pods")
    rv = lst["metadata"]["resourceVersion"]
    t0 = time.time()
    import http.client
    try:
        with kubesim.watch(NS + "/pods?watch=1&resourceVersion=%s&timeoutSeconds=60" % rv) as next_event:
            # set while the watch is open: it is cut too
            kubesim.call("POST", "/kubesim/faults", {"dropWatchAfterMs": 300})
            while next_event() is not None:
                pass
    except (http.client.IncompleteRead, ConnectionError, http.client.HTTPException):
        pass
    assert time.time() - t0 < 30, "the watch was not dropped"
    kubesim.call("POST", "/kubesim/faults", {"dropWatchAfterMs": 0})
    kubesim.call("POST", NS + "/pods", pod("after"))
    st, _ = kubesim.call("POST", "/kubesim/faults", {"expireVersions": True})
    assert st == 200
    with kubesim.watch(NS + "/pods?watch=1&resourceVersion=%s" % rv) as next_event:
        ev = next_event()
    assert ev["type"] == "ERROR" and ev["object"]["code"] == 410


def test_fault_flags():
    with start_kubesim("--no-kubelet", "--fault-error-rate", "1") as k:
        assert k.call("GET", NS + "/pods")[0] == 500
        st, f = k.call("GET", "/kubesim/faults")
        assert f["errorRate"] == 1.0


def test_metrics(kubesim):
    kubesim.call("POST", NS + "/pods", pod("m1"))
    kubesim.call("POST", NS + "/pods", pod("m1"))
    kubesim.call("GET", NS + "/pods")
    st, _, body = kubesim.request("GET", "/metrics", token=None)
    text = body.decode()
    assert st == 200
    # kube-apiserver's labels (alphabetical), its verbs (POST, LIST, ...), subresources apart
    # (a create's scope is "resource": it names its object, in the body)
    lab = ('component="apiserver",dry_run="",group="",resource="pods",scope="%s",'
           'subresource="",verb="%s",version="v1"')
    assert 'apiserver_request_total{code="201",%s} 1' % (lab % ("resource", "POST")) in text, text
    assert 'apiserver_request_total{code="409",%s} 1' % (lab % ("resource", "POST")) in text
    assert 'apiserver_request_total{code="200",%s} 1' % (lab % ("namespace", "LIST")) in text
    assert 'apiserver_request_duration_seconds_bucket{%s,le="+Inf"} 2' % (lab % ("resource", "POST")) in text
    assert "# TYPE apiserver_request_duration_seconds histogram" in text


def test_metrics_labels_as_kube_apiserver(kubesim):
    # regression: kubesim counted verb="create"/"patch" and resource="pods/status", where
    # kube-apiserver counts verb="POST"/"PATCH" with the subresource in a label of its own, so
    # tests had to match both spellings
    kubesim.call("POST", NS + "/pods", pod("m2"))
    kubesim.call("PATCH", NS + "/pods/m2/status", {"status": {"phase": "Running"}},
                 content_type="application/merge-patch+json")
    kubesim.call("GET", NS + "/pods/m2")
    kubesim.call("POST", NS + "/pods?dryRun=All", pod("m3"))
    kubesim.call("GET", "/apis/coordination.k8s.io/v1/namespaces/default/leases")
    text = kubesim.request("GET", "/metrics", token=None)[2].decode()
    lines = [l for l in text.splitlines() if l.startswith("apiserver_request_total{")]
    assert lines and not any('verb="create"' in l or 'resource="pods/status"' in l for l in lines)
    assert ('apiserver_request_total{code="200",component="apiserver",dry_run="",group="",'
            'resource="pods",scope="resource",subresource="status",verb="PATCH",version="v1"} 1') in lines
    assert ('apiserver_request_total{code="200",component="apiserver",dry_run="",group="",'
            'resource="pods",scope="resource",subresource="",verb="GET",version="v1"} 1') in lines
    assert any('dry_run="All"' in l and 'verb="POST"' in l for l in lines)
    assert any('group="coordination.k8s.io",resource="leases",scope="namespace"' in l and 'verb="LIST"' in l
               for l in lines)


def test_pod_history(kubesim):
    kubesim.call("POST", NS + "/pods", pod("h1"))
    kubesim.call("POST", NS + "/pods/h1/binding", {"target": {"name": "n1"}})
    kubesim.call("PATCH", NS + "/pods/h1/status", {"status": {"phase": "Running"}},
                 content_type="application/merge-patch+json")
    kubesim.call("DELETE", NS + "/pods/h1?gracePeriodSeconds=0")
    st, h = kubesim.admin("GET", "/kubesim/pod-history")
    assert st == 200
    rec = [p for p in h["pods"] if p["name"] == "h1"][0]
    assert rec["namespace"] == "default" and len(rec["uid"]) == 36
    assert [p["phase"] for p in rec["phases"]] == ["Pending", "Running"]
    assert rec["createdMs"] <= rec["phases"][1]["timeMs"] <= rec["deletionRequestedMs"] <= rec["deletedMs"]
    assert rec["nodeName"] == "n1"
