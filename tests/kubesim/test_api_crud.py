"""kubesim API server: create/get/update/patch/delete semantics and Status error bodies."""
from kubesim_fixture import kubesim, pod  # noqa: F401

NS = "/api/v1/namespaces/default"


def test_create_fills_metadata_and_defaults(kubesim):
    st, p = kubesim.call("POST", NS + "/pods", pod("p1", {"app": "a"}))
    assert st == 201, p
    m = p["metadata"]
    assert m["namespace"] == "default" and m["name"] == "p1"
    assert len(m["uid"]) == 36 and m["creationTimestamp"].endswith("Z")
    assert int(m["resourceVersion"]) > 0
    assert p["status"]["phase"] == "Pending" and p["spec"]["terminationGracePeriodSeconds"] == 30
    st, g = kubesim.call("GET", NS + "/pods/p1")
    assert st == 200 and g["metadata"]["uid"] == m["uid"]
    # one global counter: the next write gets a larger version
    st, cm = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "c"}, "data": {"k": "v"},
                                                         "binaryData": {"b": "AAE="}})
    assert st == 201 and int(cm["metadata"]["resourceVersion"]) > int(m["resourceVersion"])
    assert cm["binaryData"] == {"b": "AAE="} and cm["data"] == {"k": "v"}


def test_generate_name(kubesim):
    body = pod("")
    del body["metadata"]["name"]
    body["metadata"]["generateName"] = "exec-"
    st, p = kubesim.call("POST", NS + "/pods", body)
    assert st == 201
    assert p["metadata"]["name"].startswith("exec-") and len(p["metadata"]["name"]) == 10


def test_already_exists_and_not_found(kubesim):
    assert kubesim.call("POST", NS + "/pods", pod("dup"))[0] == 201
    st, s = kubesim.call("POST", NS + "/pods", pod("dup"))
    assert st == 409 and s["kind"] == "Status" and s["reason"] == "AlreadyExists"
    assert s["message"] == 'pods "dup" already exists' and s["details"]["name"] == "dup"
    st, s = kubesim.call("GET", NS + "/pods/nope")
    assert st == 404 and s["reason"] == "NotFound" and s["message"] == 'pods "nope" not found'
    assert s["code"] == 404 and s["status"] == "Failure"


def test_missing_namespace(kubesim):
    st, s = kubesim.call("POST", "/api/v1/namespaces/ghost/pods", pod("p"))
    assert st == 404 and s["message"] == 'namespaces "ghost" not found'
    assert s["details"] == {"name": "ghost", "kind": "namespaces"}
    # only create checks the namespace; other verbs just do not find the object
    st, s = kubesim.call("DELETE", "/api/v1/namespaces/ghost/pods/p")
    assert st == 404 and s["message"] == 'pods "p" not found'
    st, lst = kubesim.call("GET", "/api/v1/namespaces/ghost/pods")
    assert st == 200 and lst["items"] == []
    assert kubesim.call("GET", "/api/v1/namespaces/kube-system")[0] == 200


def test_invalid_objects_get_422_with_causes(kubesim):
    st, s = kubesim.call("POST", NS + "/pods", pod("Bad_Name"))
    assert st == 422 and s["reason"] == "Invalid"
    assert s["details"]["kind"] == "Pod" and s["details"]["name"] == "Bad_Name"
    assert s["details"]["causes"][0]["field"] == "metadata.name"
    assert "RFC 1123 subdomain" in s["message"]
    body = pod("nocontainers")
    body["spec"]["containers"] = []
    st, s = kubesim.call("POST", NS + "/pods", body)
    assert st == 422 and s["details"]["causes"] == [
        {"reason": "FieldValueRequired", "message": "Required value", "field": "spec.containers"}]
    body = pod("noimage")
    body["spec"]["containers"] = [{"name": ""}]
    st, s = kubesim.call("POST", NS + "/pods", body)
    fields = sorted(c["field"] for c in s["details"]["causes"])
    assert st == 422 and fields == ["spec.containers[0].image", "spec.containers[0].name"]
    st, s = kubesim.call("POST", NS + "/services", {"metadata": {"name": "1svc"}, "spec": {"ports": [{"port": 80}]}})
    assert st == 422 and "DNS-1035" in s["message"]
    st, s = kubesim.call("POST", NS + "/services", {"metadata": {"name": "svc"}, "spec": {"ports": [{"port": 0}]}})
    assert st == 422 and s["details"]["causes"][0]["field"] == "spec.ports[0].port"
    st, s = kubesim.call("POST", NS + "/services", {"metadata": {"name": "svc"}, "spec": {}})
    assert st == 422 and s["details"]["causes"][0]["field"] == "spec.ports"
    # a headless service may have no ports
    assert kubesim.call("POST", NS + "/services", {"metadata": {"name": "hl"}, "spec": {"clusterIP": "None"}})[0] == 201
    body = pod("dupc")
    body["spec"]["containers"].append(dict(body["spec"]["containers"][0]))
    st, s = kubesim.call("POST", NS + "/pods", body)
    assert st == 422 and s["details"]["causes"][0]["reason"] == "FieldValueDuplicate"
    st, s = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "cm"}, "data": {"bad key": "x"}})
    assert st == 422 and "valid config key" in s["message"]


def test_malformed_json_is_400_status(kubesim):
    st, _, data = kubesim.request("POST", NS + "/pods", b'{"metadata": {"name": ')
    import json
    s = json.loads(data)
    assert st == 400 and s["kind"] == "Status" and s["reason"] == "BadRequest"
    st, s = kubesim.call("POST", NS + "/pods", b'[1,2]')
    assert st == 400 and s["reason"] == "BadRequest"
    st, s = kubesim.call("POST", NS + "/pods", {"kind": "Service", "metadata": {"name": "x"}})
    assert st == 400


def test_update_with_conflict(kubesim):
    st, p = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "cm"}, "data": {"a": "1"}})
    stale = dict(p)
    p["data"] = {"a": "2"}
    st, u = kubesim.call("PUT", NS + "/configmaps/cm", p)
    assert st == 200 and u["data"] == {"a": "2"}
    assert int(u["metadata"]["resourceVersion"]) > int(stale["metadata"]["resourceVersion"])
    stale["data"] = {"a": "3"}
    st, s = kubesim.call("PUT", NS + "/configmaps/cm", stale)
    assert st == 409 and s["reason"] == "Conflict"
    assert "the object has been modified" in s["message"]
    # a no-op update keeps the resourceVersion
    st, same = kubesim.call("PUT", NS + "/configmaps/cm", u)
    assert st == 200 and same["metadata"]["resourceVersion"] == u["metadata"]["resourceVersion"]


def test_patch_types(kubesim):
    kubesim.call("POST", NS + "/pods", pod("pp", {"a": "1", "b": "2"}))
    st, p = kubesim.call("PATCH", NS + "/pods/pp", {"metadata": {"labels": {"a": None, "c": "3"}}},
                         content_type="application/merge-patch+json")
    assert st == 200 and p["metadata"]["labels"] == {"b": "2", "c": "3"}
    # strategic merge: containers merge by name, $setElementOrder ignored
    st, p = kubesim.call("PATCH", NS + "/pods/pp", {
        "metadata": {"annotations": {"x": "y"}},
        "spec": {"$setElementOrder/containers": [{"name": "c"}],
                 "containers": [{"name": "c", "image": "busybox:2"}]}},
        content_type="application/strategic-merge-patch+json")
    assert st == 200, p
    c = p["spec"]["containers"]
    assert len(c) == 1 and c[0]["image"] == "busybox:2" and c[0]["command"] == ["sleep", "1000"]
    assert p["metadata"]["annotations"] == {"x": "y"}
    st, p = kubesim.call("PATCH", NS + "/pods/pp", [{"op": "replace", "path": "/metadata/labels/b", "value": "9"}],
                         content_type="application/json-patch+json")
    assert st == 200 and p["metadata"]["labels"]["b"] == "9"
    st, s = kubesim.call("PATCH", NS + "/pods/pp", {"x": 1}, content_type="application/apply-patch+yaml")
    assert st == 415
    st, s = kubesim.call("PATCH", NS + "/pods/missing", {}, content_type="application/merge-patch+json")
    assert st == 404
    st, s = kubesim.call("PATCH", NS + "/pods/pp", b"{bad", content_type="application/merge-patch+json")
    assert st == 400 and s["kind"] == "Status"


def test_status_subresource(kubesim):
    kubesim.call("POST", NS + "/pods", pod("sp"))
    st, p = kubesim.call("PATCH", NS + "/pods/sp/status", {"status": {"phase": "Running"},
                                                            "metadata": {"labels": {"ignored": "x"}}},
                         content_type="application/merge-patch+json")
    assert st == 200 and p["status"]["phase"] == "Running" and "ignored" not in p["metadata"]["labels"]
    # a main-resource update cannot change status
    p["status"]["phase"] = "Failed"
    st, u = kubesim.call("PUT", NS + "/pods/sp", p)
    assert st == 200 and u["status"]["phase"] == "Running"


def test_delete_unbound_pod_is_immediate(kubesim):
    kubesim.call("POST", NS + "/pods", pod("d1"))
    st, p = kubesim.call("DELETE", NS + "/pods/d1")
    assert st == 200 and p["metadata"]["name"] == "d1"
    assert kubesim.call("GET", NS + "/pods/d1")[0] == 404
    st, s = kubesim.call("DELETE", NS + "/pods/d1")
    assert st == 404 and s["reason"] == "NotFound"


def test_graceful_deletion_of_bound_pod(kubesim):
    body = pod("g1", terminationGracePeriodSeconds=45)
    kubesim.call("POST", NS + "/pods", body)
    st, _ = kubesim.call("POST", NS + "/pods/g1/binding", {"target": {"kind": "Node", "name": "node-1"}})
    assert st == 201
    st, p = kubesim.call("DELETE", NS + "/pods/g1")
    assert st == 200 and p["metadata"]["deletionGracePeriodSeconds"] == 45 and "deletionTimestamp" in p["metadata"]
    st, p = kubesim.call("GET", NS + "/pods/g1")
    assert st == 200 and "deletionTimestamp" in p["metadata"]
    # DeleteOptions body with grace 0 removes it at once
    st, _ = kubesim.call("DELETE", NS + "/pods/g1", {"kind": "DeleteOptions", "apiVersion": "v1",
                                                     "gracePeriodSeconds": 0})
    assert st == 200 and kubesim.call("GET", NS + "/pods/g1")[0] == 404
    # terminal pods go at once; query-parameter grace works too
    kubesim.call("POST", NS + "/pods", pod("g2"))
    kubesim.call("POST", NS + "/pods/g2/binding", {"target": {"name": "node-1"}})
    st, p = kubesim.call("DELETE", NS + "/pods/g2?gracePeriodSeconds=5")
    assert p["metadata"]["deletionGracePeriodSeconds"] == 5
    kubesim.call("POST", NS + "/pods", pod("g3"))
    kubesim.call("POST", NS + "/pods/g3/binding", {"target": {"name": "node-1"}})
    kubesim.call("PATCH", NS + "/pods/g3/status", {"status": {"phase": "Succeeded"}},
                 content_type="application/merge-patch+json")
    kubesim.call("DELETE", NS + "/pods/g3")
    assert kubesim.call("GET", NS + "/pods/g3")[0] == 404


def test_delete_collection_with_label_selector(kubesim):
    for i in range(6):
        kubesim.call("POST", NS + "/pods", pod("dc%d" % i, {"spark-app-selector": "a" if i < 4 else "b"}))
    st, lst = kubesim.call("DELETE", NS + "/pods?labelSelector=spark-app-selector%3Da")
    assert st == 200 and len(lst["items"]) == 4
    st, lst = kubesim.call("GET", NS + "/pods")
    assert sorted(p["metadata"]["name"] for p in lst["items"]) == ["dc4", "dc5"]


def test_owner_reference_garbage_collection(kubesim):
    st, drv = kubesim.call("POST", NS + "/pods", pod("driver"))
    ref = [{"apiVersion": "v1", "kind": "Pod", "name": "driver", "uid": drv["metadata"]["uid"], "controller": True}]
    kubesim.call("POST", NS + "/services", {"metadata": {"name": "driver-svc", "ownerReferences": ref},
                                            "spec": {"clusterIP": "None", "ports": [{"port": 7078}]}})
    kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "driver-conf", "ownerReferences": ref}})
    st, ex = kubesim.call("POST", NS + "/pods", dict(pod("exec-1"), metadata={"name": "exec-1",
                                                                              "ownerReferences": ref}))
    assert st == 201
    eref = [{"apiVersion": "v1", "kind": "Pod", "name": "exec-1", "uid": ex["metadata"]["uid"]}]
    kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "exec-conf", "ownerReferences": eref}})
    kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "unrelated"}})
    assert kubesim.call("DELETE", NS + "/pods/driver")[0] == 200
    for path in ("/services/driver-svc", "/configmaps/driver-conf", "/pods/exec-1", "/configmaps/exec-conf"):
        assert kubesim.call("GET", NS + path)[0] == 404, path
    assert kubesim.call("GET", NS + "/configmaps/unrelated")[0] == 200
    # Orphan keeps dependents and strips the reference
    st, o = kubesim.call("POST", NS + "/pods", pod("owner2"))
    ref2 = [{"apiVersion": "v1", "kind": "Pod", "name": "owner2", "uid": o["metadata"]["uid"]}]
    kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "kept", "ownerReferences": ref2}})
    kubesim.call("DELETE", NS + "/pods/owner2", {"propagationPolicy": "Orphan"})
    st, kept = kubesim.call("GET", NS + "/configmaps/kept")
    assert st == 200 and "ownerReferences" not in kept["metadata"]


def test_namespace_lifecycle(kubesim):
    st, ns = kubesim.call("POST", "/api/v1/namespaces", {"metadata": {"name": "team"}})
    assert st == 201 and ns["status"]["phase"] == "Active"
    kubesim.call("POST", "/api/v1/namespaces/team/configmaps", {"metadata": {"name": "x"}})
    st, _ = kubesim.call("DELETE", "/api/v1/namespaces/team")
    assert st == 200
    assert kubesim.call("GET", "/api/v1/namespaces/team")[0] == 404
    assert kubesim.call("GET", "/api/v1/namespaces/team/configmaps/x")[0] == 404


def test_secret_and_pvc_and_events(kubesim):
    st, s = kubesim.call("POST", NS + "/secrets", {"metadata": {"name": "s"}, "data": {"k": "dg=="}})
    assert st == 201 and s["type"] == "Opaque"
    st, p = kubesim.call("POST", NS + "/persistentvolumeclaims", {
        "metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                               "resources": {"requests": {"storage": "1Gi"}}}})
    assert st == 201 and p["kind"] == "PersistentVolumeClaim"
    st, e = kubesim.call("POST", NS + "/events", {"metadata": {"name": "ev1"}, "reason": "Test",
                                                  "involvedObject": {"kind": "Pod", "name": "x"}})
    assert st == 201
    st, lst = kubesim.call("GET", NS + "/events?fieldSelector=involvedObject.name%3Dx")
    assert st == 200 and [i["metadata"]["name"] for i in lst["items"]] == ["ev1"]


def test_long_names_are_subdomains_not_labels(kubesim):
    # a pod name is a DNS-1123 subdomain: up to 253 characters, no 63-character limit per part
    # (long application names give long executor pod names, as with Spark)
    name = "a" * 100 + "-exec-1"
    st, p = kubesim.call("POST", NS + "/pods", pod(name, {}))
    assert st == 201 and p["metadata"]["name"] == name
    st, s = kubesim.call("POST", NS + "/pods", pod("b" * 254, {}))
    assert st == 422 and s["reason"] == "Invalid"
