"""kubesim refuses what kube-apiserver refuses (issue #10 item 26), with the same code, reason and
message: typed decoding of DeleteOptions bodies and query parameters, terminationGracePeriodSeconds
coerced as the real server does, typed status fields, the 256 KiB annotation limit, watch
resourceVersion and timeoutSeconds handling, and the fault admin endpoint behind a token."""
from kubesim_fixture import kubesim, pod  # noqa: F401

NS = "/api/v1/namespaces/default"


def _create_pod(kubesim, name):
    st, p = kubesim.call("POST", NS + "/pods", pod(name))
    assert st == 201, p
    return p


def test_delete_preconditions_of_the_wrong_type_are_refused(kubesim):
    _create_pod(kubesim, "pre")
    st, s = kubesim.call("DELETE", NS + "/pods/pre", {"preconditions": {"uid": 5}})
    assert st == 400 and s["reason"] == "BadRequest", s
    assert s["message"] == ("json: cannot unmarshal number into Go struct field "
                            "Preconditions.preconditions.uid of type types.UID")
    st, s = kubesim.call("DELETE", NS + "/pods/pre", {"preconditions": "x"})
    assert st == 400 and s["message"] == ("json: cannot unmarshal string into Go struct field "
                                          "DeleteOptions.preconditions of type v1.Preconditions")
    st, s = kubesim.call("DELETE", NS + "/pods/pre", {"preconditions": {"resourceVersion": ["1"]}})
    assert st == 400 and "Preconditions.preconditions.resourceVersion of type string" in s["message"]
    # nothing was deleted; a right precondition still works
    st, p = kubesim.call("GET", NS + "/pods/pre")
    assert st == 200
    st, s = kubesim.call("DELETE", NS + "/pods/pre", {"preconditions": {"uid": "other"}})
    assert st == 409 and s["reason"] == "Conflict"
    st, _ = kubesim.call("DELETE", NS + "/pods/pre", {"preconditions": {"uid": p["metadata"]["uid"]}})
    assert st == 200


def test_delete_grace_period_of_the_wrong_type_is_refused(kubesim):
    _create_pod(kubesim, "g")
    st, s = kubesim.call("DELETE", NS + "/pods/g", {"gracePeriodSeconds": "abc"})
    assert st == 400 and s["reason"] == "BadRequest", s
    assert s["message"] == ("json: cannot unmarshal string into Go struct field "
                            "DeleteOptions.gracePeriodSeconds of type int64")
    st, s = kubesim.call("DELETE", NS + "/pods/g", {"gracePeriodSeconds": 1.5})
    assert st == 400 and "cannot unmarshal number 1.5 into Go struct field" in s["message"]
    st, s = kubesim.call("DELETE", NS + "/pods/g", {"orphanDependents": "yes"})
    assert st == 400 and "DeleteOptions.orphanDependents of type bool" in s["message"]
    # without a body the query is decoded, with strconv's message
    st, s = kubesim.call("DELETE", NS + "/pods/g?gracePeriodSeconds=abc")
    assert st == 400 and s["reason"] == "BadRequest"
    assert s["message"] == 'strconv.ParseInt: parsing "abc": invalid syntax'
    st, s = kubesim.call("DELETE", NS + "/pods/g?orphanDependents=true&propagationPolicy=Background")
    assert st == 422 and s["reason"] == "Invalid" and s["message"] == (
        'DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Invalid value: "Background": '
        'orphanDependents and deletionPropagation cannot be both set')
    assert kubesim.call("GET", NS + "/pods/g")[0] == 200


def test_negative_delete_grace_period_counts_as_one_second(kubesim):
    _create_pod(kubesim, "neg")
    assert kubesim.call("POST", NS + "/pods/neg/binding",
                        {"target": {"kind": "Node", "name": "n1"}})[0] == 201
    st, p = kubesim.call("DELETE", NS + "/pods/neg", {"gracePeriodSeconds": -5})
    assert st == 200, p
    assert p["metadata"]["deletionGracePeriodSeconds"] == 1


def test_negative_termination_grace_period_is_stored_as_one(kubesim):
    body = pod("tg", terminationGracePeriodSeconds=-5)
    st, p = kubesim.call("POST", NS + "/pods", body)
    assert st == 201, p
    assert p["spec"]["terminationGracePeriodSeconds"] == 1


def test_typed_fields_of_the_wrong_type_are_refused(kubesim):
    body = pod("ph")
    body["status"] = {"phase": 12}
    st, s = kubesim.call("POST", NS + "/pods", body)
    assert st == 400 and s["reason"] == "BadRequest", s
    assert s["message"] == ('Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal '
                            'number into Go struct field PodStatus.status.phase of type v1.PodPhase')
    body = pod("tg2", terminationGracePeriodSeconds="30")
    st, s = kubesim.call("POST", NS + "/pods", body)
    assert st == 400 and s["message"].endswith(
        "json: cannot unmarshal string into Go struct field PodSpec.spec.terminationGracePeriodSeconds "
        "of type int64")
    body = pod("img")
    body["spec"]["containers"][0]["image"] = ["busybox"]
    st, s = kubesim.call("POST", NS + "/pods", body)
    assert st == 400 and s["message"].endswith(
        "json: cannot unmarshal array into Go struct field Container.spec.containers.image of type string")
    st, s = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "c", "labels": {"a": 1}}})
    assert st == 400 and s["message"] == (
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number '
        'into Go struct field ObjectMeta.metadata.labels of type string')
    for name in ("ph", "tg2", "img"):
        assert kubesim.call("GET", NS + "/pods/" + name)[0] == 404
    # the status a client sends at create is replaced by the server's
    body = pod("st")
    body["status"] = {"phase": "Running"}
    st, p = kubesim.call("POST", NS + "/pods", body)
    assert st == 201 and p["status"]["phase"] == "Pending"


def test_annotations_over_256_KiB_are_refused(kubesim):
    big = {"a": "x" * (256 * 1024)}
    st, s = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "big", "annotations": big}})
    assert st == 422 and s["reason"] == "Invalid", s
    assert s["message"] == ('ConfigMap "big" is invalid: metadata.annotations: Too long: '
                            'may not be more than 262144 bytes')
    assert s["details"]["causes"] == [{"reason": "FieldValueTooLong", "field": "metadata.annotations",
                                       "message": "Too long: may not be more than 262144 bytes"}]
    # exactly the limit (keys count too) is fine
    ok = {"a": "x" * (256 * 1024 - 1)}
    assert kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "edge", "annotations": ok}})[0] == 201
    # an update or a patch that crosses it is refused as well
    st, s = kubesim.call("PATCH", NS + "/configmaps/edge", {"metadata": {"annotations": {"b": "y"}}},
                         content_type="application/merge-patch+json")
    assert st == 422 and "Too long" in s["message"]
    # 3 MB bodies: annotations refused, not stored
    st, s = kubesim.call("POST", NS + "/pods", dict(pod("huge"), metadata={
        "name": "huge", "annotations": {"a": "x" * (3 * 1000 * 1000)}}))
    assert st == 422 and kubesim.call("GET", NS + "/pods/huge")[0] == 404


def test_watch_with_a_malformed_resource_version_fails_as_the_api_server(kubesim):
    # kube-apiserver answers 500 with no reason here (kubernetes/kubernetes#139485); it never lists
    for path in ("/api/v1/pods?watch=1&resourceVersion=abc", "/api/v1/pods?resourceVersion=abc",
                 NS + "/pods?watch=true&resourceVersion=-1"):
        st, s = kubesim.call("GET", path)
        assert st == 500 and s["kind"] == "Status" and "reason" not in s, (path, s)
        rv = path.split("resourceVersion=")[1]
        assert s["message"] == ('resourceVersion: Invalid value: "%s": strconv.ParseUint: parsing "%s": '
                                'invalid syntax' % (rv, rv))


def test_watch_query_parameters_are_typed(kubesim):
    st, s = kubesim.call("GET", "/api/v1/pods?watch=1&timeoutSeconds=abc")
    assert st == 400 and s["message"] == 'strconv.ParseInt: parsing "abc": invalid syntax'
    st, s = kubesim.call("GET", "/api/v1/pods?limit=x")
    assert st == 400 and s["message"] == 'strconv.ParseInt: parsing "x": invalid syntax'
    # a flag is true unless absent, "0" or "false": this is a watch (ended at once), not a list
    st, _, body = kubesim.request("GET", "/api/v1/pods?watch=maybe&timeoutSeconds=-1")
    assert st == 200 and body == b""
    st, lst = kubesim.call("GET", "/api/v1/pods?watch=false")
    assert st == 200 and lst["kind"] == "PodList"


def test_negative_watch_timeout_ends_the_watch_at_once(kubesim):
    _create_pod(kubesim, "w")
    # the stream ends by itself (a stream that never ends fails on the client's 30 s socket timeout)
    st, _, body = kubesim.request("GET", "/api/v1/pods?watch=1&timeoutSeconds=-1&resourceVersion=1")
    assert st == 200 and body == b""


def test_fault_endpoint_needs_the_admin_token(kubesim):
    st, s = kubesim.call("POST", "/kubesim/faults", {"errorRate": 1.0}, token=None)
    assert st == 401 and s["reason"] == "Unauthorized"
    st, s = kubesim.call("GET", "/kubesim/faults", token="wrong")
    assert st == 401
    st, s = kubesim.call("DELETE", "/kubesim/faults", token=None)
    assert st == 401
    # nothing changed: requests still succeed
    assert kubesim.call("GET", NS + "/pods")[0] == 200
    st, f = kubesim.call("POST", "/kubesim/faults", {"latencyMs": 1})
    assert st == 200 and f["latencyMs"] == 1
    assert kubesim.call("DELETE", "/kubesim/faults")[0] == 200
