"""kubesim's validation beyond issue #10 item 26, each case as kube-apiserver answers it: unknown and
duplicate fields per fieldValidation, typed quantities and base64, name/label/annotation/finalizer
syntax, owner references and generation, immutable fields and no new finalizers while deleting,
namespace mismatch on update, dryRun=All, server-owned status at create, pod generation and QoS."""
from kubesim_fixture import kubesim, pod  # noqa: F401

NS = "/api/v1/namespaces/default"


def test_unknown_fields_follow_field_validation(kubesim):
    body = pod("u1")
    body["spec"]["containers"][0]["imagePullPolice"] = "Always"
    body["spec"]["bogus"] = 1
    st, s = kubesim.call("POST", NS + "/pods?fieldValidation=Strict", body)
    assert st == 400 and s["reason"] == "BadRequest", s
    assert s["message"] == ('Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
                            'unknown field "spec.bogus", unknown field "spec.containers[0].imagePullPolice"'
                            ) or s["message"] == (
                            'Pod in version "v1" cannot be handled as a Pod: strict decoding error: '
                            'unknown field "spec.containers[0].imagePullPolice", unknown field "spec.bogus"')
    assert kubesim.call("GET", NS + "/pods/u1")[0] == 404
    # the default (Warn): created, one Warning header per unknown field
    st, h, _ = kubesim.request("POST", NS + "/pods", body)
    assert st == 201 and 'unknown field \\"spec.bogus\\"' in h.get("warning", ""), h
    body["metadata"]["name"] = "u2"
    st, h, _ = kubesim.request("POST", NS + "/pods?fieldValidation=Ignore", body)
    assert st == 201 and "warning" not in h
    st, s = kubesim.call("POST", NS + "/pods?fieldValidation=Loose", pod("u3"))
    assert st == 422 and s["message"] == (
        'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": '
        'supported values: "Ignore", "Strict", "Warn"')


def test_duplicate_fields(kubesim):
    raw = '{"metadata":{"name":"d1","name":"d2"},"data":{"a":"b"}}'
    st, s = kubesim.call("POST", NS + "/configmaps?fieldValidation=Strict", raw)
    assert st == 400 and 'strict decoding error: duplicate field "name"' in s["message"]
    st, h, data = kubesim.request("POST", NS + "/configmaps", raw)
    assert st == 201 and 'duplicate field \\"name\\"' in h.get("warning", "")
    assert kubesim.call("GET", NS + "/configmaps/d2")[0] == 200  # the last value wins


def test_quantities_and_base64_are_typed(kubesim):
    body = pod("q1")
    body["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "abc"}}
    st, s = kubesim.call("POST", NS + "/pods", body)
    assert st == 400 and s["message"] == (
        'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular '
        "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    body["spec"]["containers"][0]["resources"] = {"limits": {"cpu": "1", "memory": "1Gi"}}
    st, p = kubesim.call("POST", NS + "/pods", body)
    assert st == 201 and p["status"]["qosClass"] == "Guaranteed"
    body = pod("q2")
    body["spec"]["containers"][0]["resources"] = {"requests": {"cpu": "100m"}}
    st, p = kubesim.call("POST", NS + "/pods", body)
    assert st == 201 and p["status"]["qosClass"] == "Burstable"
    st, s = kubesim.call("POST", NS + "/secrets", {"metadata": {"name": "s"}, "data": {"k": "a$b="}})
    assert st == 400 and s["message"] == (
        'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 1')
    st, s = kubesim.call("POST", NS + "/pods", dict(pod("q3"), metadata={
        "name": "q3", "creationTimestamp": "yesterday"}))
    assert st == 400 and s["message"].endswith(
        'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"')


def test_metadata_syntax(kubesim):
    st, s = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "l", "labels": {"a/b/c": "x"}}})
    assert st == 422 and s["details"]["causes"][0]["field"] == "metadata.labels"
    assert "a qualified name must consist of" in s["message"]
    st, s = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "a", "annotations": {"-bad": "x"}}})
    assert st == 422 and s["details"]["causes"] == [{
        "reason": "FieldValueInvalid", "field": "metadata.annotations",
        "message": ("Invalid value: \"-bad\": name part must consist of alphanumeric characters, '-', '_' "
                    "or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
                    "'my.name',  or '123-abc', regex used for validation is "
                    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")}]
    # upper case annotation keys are fine (the rule ignores case), labels are not lowercased
    assert kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "up", "annotations": {"Ex.com/K": "v"}}})[0] == 201
    st, s = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "f", "finalizers": ["mine"]}})
    assert st == 422 and s["details"]["causes"][0] == {
        "reason": "FieldValueInvalid", "field": "metadata.finalizers[0]",
        "message": 'Invalid value: "mine": name is neither a standard finalizer name nor is it fully qualified'}
    st, s = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "o", "ownerReferences": [
        {"apiVersion": "v1", "kind": "Pod", "name": "p", "uid": ""}]}})
    assert st == 422 and s["details"]["causes"][0]["field"] == "metadata.ownerReferences.uid"
    st, s = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "g", "generation": -1}})
    assert st == 422 and s["message"] == (
        'ConfigMap "g" is invalid: metadata.generation: Invalid value: -1: must be greater than or equal to 0')
    long_name = "a" * 254
    st, s = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": long_name}})
    assert st == 422


def test_immutable_fields_on_update(kubesim):
    st, cm = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "im"}, "data": {"a": "1"},
                                                        "immutable": True})
    assert st == 201
    cm["data"]["a"] = "2"
    st, s = kubesim.call("PUT", NS + "/configmaps/im", cm)
    assert st == 422 and s["message"] == (
        'ConfigMap "im" is invalid: data: Forbidden: field is immutable when `immutable` is set')
    st, sec = kubesim.call("POST", NS + "/secrets", {"metadata": {"name": "t"}, "type": "Opaque"})
    sec["type"] = "kubernetes.io/tls"
    st, s = kubesim.call("PUT", NS + "/secrets/t", sec)
    assert st == 422 and s["details"]["causes"][0]["field"] == "type"
    st, p = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "uid"}})
    p["metadata"]["uid"] = "00000000-0000-0000-0000-000000000000"
    st, s = kubesim.call("PUT", NS + "/configmaps/uid", p)
    assert st == 422 and s["message"] == ('ConfigMap "uid" is invalid: metadata.uid: Invalid value: '
                                          '"00000000-0000-0000-0000-000000000000": field is immutable')
    # a stale resourceVersion conflicts; the namespace in the body must match the URL
    st, c = kubesim.call("GET", NS + "/configmaps/uid")
    c["metadata"]["resourceVersion"] = "1"
    assert kubesim.call("PUT", NS + "/configmaps/uid", c)[0] == 409
    del c["metadata"]["resourceVersion"]
    c["metadata"]["namespace"] = "kube-system"
    st, s = kubesim.call("PUT", NS + "/configmaps/uid", c)
    assert st == 400 and "does not match the namespace" in s["message"]


def test_no_new_finalizers_while_deleting(kubesim):
    st, _ = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "fin", "finalizers": ["example.com/a"]}})
    assert st == 201
    st, cm = kubesim.call("DELETE", NS + "/configmaps/fin")
    assert st == 200 and cm["metadata"]["deletionTimestamp"]
    st, s = kubesim.call("PATCH", NS + "/configmaps/fin",
                         {"metadata": {"finalizers": ["example.com/a", "example.com/b"]}},
                         content_type="application/merge-patch+json")
    assert st == 422 and "no new finalizers can be added if the object is being deleted" in s["message"]
    # removing the last finalizer lets it go
    st, _ = kubesim.call("PATCH", NS + "/configmaps/fin", {"metadata": {"finalizers": None}},
                         content_type="application/merge-patch+json")
    assert st == 200 and kubesim.call("GET", NS + "/configmaps/fin")[0] == 404


def test_patch_results_are_typed(kubesim):
    kubesim.call("POST", NS + "/pods", pod("pt"))
    st, s = kubesim.call("PATCH", NS + "/pods/pt", {"spec": {"activeDeadlineSeconds": "soon"}},
                         content_type="application/merge-patch+json")
    assert st == 422 and s["reason"] == "Invalid" and s["details"]["causes"][0]["field"] == "patch"
    assert s["message"].endswith("json: cannot unmarshal string into Go struct field "
                                 "PodSpec.spec.activeDeadlineSeconds of type int64")
    # an unknown field under Strict is refused as kube-apiserver refuses it: a 422 on "patch" whose
    # value is the patched object (regression: kubesim answered 400 with the bare decoder message)
    for ctype, body in (("application/merge-patch+json", {"spec": {"nope": 1}}),
                        ("application/strategic-merge-patch+json", {"spec": {"nope": 1}}),
                        ("application/json-patch+json", [{"op": "add", "path": "/spec/nope", "value": 1}])):
        st, s = kubesim.call("PATCH", NS + "/pods/pt?fieldValidation=Strict", body, content_type=ctype)
        assert st == 422 and s["reason"] == "Invalid", (ctype, st, s)
        # (a strategic merge patch is checked before it applies: the value is the patch, as Go prints it)
        value = "map[spec:map[nope:1]]" if "strategic" in ctype else "{"
        assert s["message"].startswith(' "" is invalid: patch: Invalid value: "' + value), s["message"]
        assert s["message"].endswith('": strict decoding error: unknown field "spec.nope"'), s["message"]
        assert s["details"]["causes"][0]["field"] == "patch"


def test_dry_run(kubesim):
    st, p = kubesim.call("POST", NS + "/pods?dryRun=All", pod("dry"))
    assert st == 201 and p["metadata"]["uid"] and "resourceVersion" not in p["metadata"]
    assert p["spec"]["restartPolicy"] == "Always" and p["status"]["phase"] == "Pending"
    assert kubesim.call("GET", NS + "/pods/dry")[0] == 404
    st, s = kubesim.call("POST", NS + "/pods?dryRun=Some", pod("dry"))
    assert st == 422 and s["message"] == ('CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported '
                                          'value: []string{"Some"}: supported values: "All"')
    st, cm = kubesim.call("POST", NS + "/configmaps", {"metadata": {"name": "dc"}, "data": {"a": "1"}})
    cm["data"]["a"] = "2"
    st, out = kubesim.call("PUT", NS + "/configmaps/dc?dryRun=All", cm)
    assert st == 200 and out["data"]["a"] == "2"
    st, now = kubesim.call("GET", NS + "/configmaps/dc")
    assert now["data"]["a"] == "1" and now["metadata"]["resourceVersion"] == cm["metadata"]["resourceVersion"]
    st, _ = kubesim.call("DELETE", NS + "/configmaps/dc", {"dryRun": ["All"]})
    assert st == 200 and kubesim.call("GET", NS + "/configmaps/dc")[0] == 200
    st, _ = kubesim.call("DELETE", NS + "/configmaps/dc?dryRun=All")
    assert st == 200 and kubesim.call("GET", NS + "/configmaps/dc")[0] == 200


def test_server_owned_status_and_generation(kubesim):
    st, pvc = kubesim.call("POST", NS + "/persistentvolumeclaims", {
        "metadata": {"name": "c"}, "spec": {"accessModes": ["ReadWriteOnce"],
                                            "resources": {"requests": {"storage": "1Gi"}}},
        "status": {"phase": "Bound"}})
    assert st == 201 and pvc["status"]["phase"] == "Pending"
    st, p = kubesim.call("POST", NS + "/pods", pod("gen"))
    assert p["metadata"]["generation"] == 1
    st, p = kubesim.call("PATCH", NS + "/pods/gen", {"metadata": {"labels": {"x": "y"}}},
                         content_type="application/merge-patch+json")
    assert st == 200 and p["metadata"]["generation"] == 1
    st, p = kubesim.call("PATCH", NS + "/pods/gen", {"spec": {"activeDeadlineSeconds": 100}},
                         content_type="application/strategic-merge-patch+json")
    assert st == 200 and p["metadata"]["generation"] == 2


def test_kubectl_sees_strict_errors(kubesim, tmp_path):
    manifest = tmp_path / "pod.yaml"
    manifest.write_text("apiVersion: v1\nkind: Pod\nmetadata:\n  name: kc\nspec:\n  containers:\n"
                        "  - name: c\n    image: busybox\n    imagePullPolice: Always\n")
    p = kubesim.kubectl("create", "-f", str(manifest), check=False)
    assert p.returncode != 0
    assert 'strict decoding error: unknown field "spec.containers[0].imagePullPolice"' in p.stderr, p.stderr
    assert kubesim.call("GET", NS + "/pods/kc")[0] == 404
