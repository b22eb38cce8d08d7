"""kubesim watch conformance: replay from a resourceVersion, bookmarks, 410 Expired, reconnect without
missing events, timeoutSeconds, selectors on watches, list consistency (resourceVersion, limit/continue)."""
import threading
import time

from kubesim_fixture import kubesim, pod, start_kubesim  # noqa: F401

NS = "/api/v1/namespaces/default"


def create(k, name, labels=None):
    st, p = k.call("POST", NS + "/pods", pod(name, labels))
    assert st == 201, p
    return p


def test_list_has_resource_version(kubesim):
    create(kubesim, "a")
    st, lst = kubesim.call("GET", NS + "/pods")
    assert st == 200 and lst["kind"] == "PodList" and int(lst["metadata"]["resourceVersion"]) > 0
    assert [i["metadata"]["name"] for i in lst["items"]] == ["a"]


def test_watch_without_version_sends_current_state_then_changes(kubesim):
    create(kubesim, "w1")
    with kubesim.watch(NS + "/pods?watch=true&timeoutSeconds=20") as next_event:
        ev = next_event()
        assert ev["type"] == "ADDED" and ev["object"]["metadata"]["name"] == "w1"
        create(kubesim, "w2")
        ev = next_event()
        assert ev["type"] == "ADDED" and ev["object"]["metadata"]["name"] == "w2"
        kubesim.call("PATCH", NS + "/pods/w2", {"metadata": {"labels": {"x": "y"}}},
                     content_type="application/merge-patch+json")
        ev = next_event()
        assert ev["type"] == "MODIFIED" and ev["object"]["metadata"]["labels"] == {"x": "y"}
        kubesim.call("DELETE", NS + "/pods/w2")
        ev = next_event()
        assert ev["type"] == "DELETED" and ev["object"]["metadata"]["name"] == "w2"


def test_watch_replays_from_resource_version(kubesim):
    p1 = create(kubesim, "r1")
    rv = p1["metadata"]["resourceVersion"]
    create(kubesim, "r2")
    kubesim.call("DELETE", NS + "/pods/r1")
    with kubesim.watch(NS + "/pods?watch=1&resourceVersion=%s&timeoutSeconds=10" % rv) as next_event:
        evs = [next_event() for _ in range(2)]
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in evs] == [("ADDED", "r2"), ("DELETED", "r1")]
    # versions increase along the stream
    assert int(evs[0]["object"]["metadata"]["resourceVersion"]) < int(evs[1]["object"]["metadata"]["resourceVersion"])


def test_watch_label_and_field_selectors(kubesim):
    st, lst = kubesim.call("GET", NS + "/pods")
    rv = lst["metadata"]["resourceVersion"]
    create(kubesim, "s1", {"role": "driver"})
    create(kubesim, "s2", {"role": "executor"})
    with kubesim.watch(NS + "/pods?watch=1&resourceVersion=%s&labelSelector=role%%3Dexecutor&timeoutSeconds=10"
                       % rv) as next_event:
        ev = next_event()
        assert ev["object"]["metadata"]["name"] == "s2"
    with kubesim.watch(NS + "/pods?watch=1&resourceVersion=%s&fieldSelector=metadata.name%%3Ds1&timeoutSeconds=10"
                       % rv) as next_event:
        ev = next_event()
        assert ev["object"]["metadata"]["name"] == "s1"


def test_bookmarks(kubesim):
    st, lst = kubesim.call("GET", NS + "/pods")
    with kubesim.watch(NS + "/pods?watch=1&allowWatchBookmarks=true&resourceVersion=%s&timeoutSeconds=20"
                       % lst["metadata"]["resourceVersion"]) as next_event:
        create(kubesim, "b1")
        seen = []
        for _ in range(5):
            ev = next_event()
            seen.append(ev)
            if ev["type"] == "BOOKMARK":
                break
    bm = seen[-1]
    assert bm["type"] == "BOOKMARK"
    assert bm["object"]["kind"] == "Pod" and set(bm["object"]["metadata"]) == {"resourceVersion"}
    assert int(bm["object"]["metadata"]["resourceVersion"]) >= int(lst["metadata"]["resourceVersion"])


def test_timeout_seconds_ends_stream(kubesim):
    t0 = time.time()
    with kubesim.watch(NS + "/pods?watch=1&resourceVersion=1&timeoutSeconds=1") as next_event:
        while next_event() is not None:
            pass
    assert time.time() - t0 < 15


def test_expired_version_gives_410():
    with start_kubesim("--no-kubelet", "--history", "16") as k:
        first = create(k, "e0")
        for i in range(1, 40):
            create(k, "e%d" % i)
        with k.watch(NS + "/pods?watch=1&resourceVersion=%s" % first["metadata"]["resourceVersion"]) as next_event:
            ev = next_event()
            assert ev["type"] == "ERROR"
            st = ev["object"]
            assert st["kind"] == "Status" and st["code"] == 410 and st["reason"] == "Expired"
            assert "too old resource version" in st["message"]
            assert next_event() is None
        # a list with resourceVersionMatch=Exact on an expired version is HTTP 410
        status, s = k.call("GET", NS + "/pods?resourceVersion=%s&resourceVersionMatch=Exact"
                           % first["metadata"]["resourceVersion"])
        assert status == 410 and s["reason"] == "Expired"
        # a recent version still replays
        st, lst = k.call("GET", NS + "/pods")
        create(k, "late")
        with k.watch(NS + "/pods?watch=1&resourceVersion=%s" % lst["metadata"]["resourceVersion"]) as next_event:
            assert next_event()["object"]["metadata"]["name"] == "late"


def test_reconnect_misses_nothing(kubesim):
    """A client that reconnects from the last resourceVersion it saw gets every event exactly once."""
    st, lst = kubesim.call("GET", NS + "/pods")
    rv = lst["metadata"]["resourceVersion"]
    total = 60
    stop = threading.Event()

    def writer():
        for i in range(total):
            create(kubesim, "rc%d" % i)
        stop.set()
    t = threading.Thread(target=writer)
    t.start()
    names = []
    while len(names) < total:
        # short connections: each one is cut after a few events and resumed from the last version seen
        with kubesim.watch(NS + "/pods?watch=1&resourceVersion=%s&timeoutSeconds=5" % rv) as next_event:
            for _ in range(7):
                ev = next_event()
                if ev is None:
                    break
                assert ev["type"] == "ADDED"
                names.append(ev["object"]["metadata"]["name"])
                rv = ev["object"]["metadata"]["resourceVersion"]
                if len(names) == total:
                    break
    t.join()
    assert names == ["rc%d" % i for i in range(total)]


def test_limit_and_continue(kubesim):
    for i in range(7):
        create(kubesim, "l%d" % i, {"g": "x"})
    got = []
    cont = ""
    pages = 0
    while True:
        st, lst = kubesim.call("GET", NS + "/pods?limit=3&labelSelector=g%%3Dx%s" % (
            "&continue=" + cont if cont else ""))
        assert st == 200
        pages += 1
        got += [i["metadata"]["name"] for i in lst["items"]]
        cont = lst["metadata"].get("continue")
        if not cont:
            break
    assert pages == 3 and got == ["l%d" % i for i in range(7)]


def test_many_concurrent_watches(kubesim):
    """100 concurrent watches all receive the same event."""
    import http.client
    import json
    st, lst = kubesim.call("GET", NS + "/pods")
    rv = lst["metadata"]["resourceVersion"]
    conns = []
    for _ in range(100):
        c = kubesim.conn(timeout=60)
        c.request("GET", NS + "/pods?watch=1&resourceVersion=%s&timeoutSeconds=60" % rv,
                  headers={"Authorization": "Bearer " + kubesim.token})
        conns.append(c)
    resps = [c.getresponse() for c in conns]
    assert all(r.status == 200 for r in resps)
    create(kubesim, "broadcast")
    for r in resps:
        ev = json.loads(r.readline())
        assert ev["object"]["metadata"]["name"] == "broadcast"
    for c in conns:
        c.close()
    assert isinstance(conns[0], (http.client.HTTPConnection,))


def test_filtered_watch_sees_objects_enter_and_leave(kubesim):
    create(kubesim, "m1", {"state": "idle"})
    st, lst = kubesim.call("GET", NS + "/pods")
    with kubesim.watch(NS + "/pods?watch=1&labelSelector=state%%3Dbusy&resourceVersion=%s&timeoutSeconds=10"
                       % lst["metadata"]["resourceVersion"]) as next_event:
        for state in ("busy", "busy2", "idle"):
            kubesim.call("PATCH", NS + "/pods/m1", {"metadata": {"labels": {"state": state}}},
                         content_type="application/merge-patch+json")
        kubesim.call("PATCH", NS + "/pods/m1", {"metadata": {"labels": {"state": "busy"}}},
                     content_type="application/merge-patch+json")
        evs = [next_event() for _ in range(3)]
    assert [e["type"] for e in evs] == ["ADDED", "DELETED", "ADDED"]
    assert evs[1]["object"]["metadata"]["labels"]["state"] == "busy2"
