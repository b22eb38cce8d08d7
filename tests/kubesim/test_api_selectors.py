"""kubesim list selectors: every label operator and the supported field selectors, plus 400 on bad ones."""
import urllib.parse

from kubesim_fixture import kubesim, pod  # noqa: F401

NS = "/api/v1/namespaces/default"


def names(k, query, path=NS + "/pods"):
    st, lst = k.call("GET", path + "?" + urllib.parse.urlencode(query))
    assert st == 200, lst
    return sorted(i["metadata"]["name"] for i in lst["items"])


def make_pods(k):
    k.call("POST", NS + "/pods", pod("a", {"app": "x", "tier": "fe"}))
    k.call("POST", NS + "/pods", pod("b", {"app": "y", "tier": "be"}))
    k.call("POST", NS + "/pods", pod("c", {"app": "z"}))
    k.call("POST", NS + "/pods/b/binding", {"target": {"name": "node-7"}})
    k.call("PATCH", NS + "/pods/c/status", {"status": {"phase": "Running"}},
           content_type="application/merge-patch+json")


def test_label_operators(kubesim):
    make_pods(kubesim)
    assert names(kubesim, {"labelSelector": "app=x"}) == ["a"]
    assert names(kubesim, {"labelSelector": "app==y"}) == ["b"]
    assert names(kubesim, {"labelSelector": "app!=x"}) == ["b", "c"]
    assert names(kubesim, {"labelSelector": "app in (x, z)"}) == ["a", "c"]
    assert names(kubesim, {"labelSelector": "app notin (x,z)"}) == ["b"]
    assert names(kubesim, {"labelSelector": "tier"}) == ["a", "b"]
    assert names(kubesim, {"labelSelector": "!tier"}) == ["c"]
    assert names(kubesim, {"labelSelector": "tier,app in (y,z)"}) == ["b"]
    assert names(kubesim, {"labelSelector": "tier!=fe"}) == ["b", "c"]


def test_field_selectors(kubesim):
    make_pods(kubesim)
    assert names(kubesim, {"fieldSelector": "metadata.name=b"}) == ["b"]
    assert names(kubesim, {"fieldSelector": "status.phase=Running"}) == ["c"]
    assert names(kubesim, {"fieldSelector": "status.phase!=Running"}) == ["a", "b"]
    assert names(kubesim, {"fieldSelector": "spec.nodeName=node-7"}) == ["b"]
    assert names(kubesim, {"fieldSelector": "spec.nodeName="}) == ["a", "c"]
    assert names(kubesim, {"fieldSelector": "metadata.namespace=default"}, "/api/v1/pods") == ["a", "b", "c"]
    assert names(kubesim, {"fieldSelector": "metadata.namespace=kube-system"}, "/api/v1/pods") == []


def test_bad_selectors_are_400(kubesim):
    st, s = kubesim.call("GET", NS + "/pods?fieldSelector=spec.bogus%3D1")
    assert st == 400 and s["reason"] == "BadRequest" and "field label not supported" in s["message"]
    st, s = kubesim.call("GET", NS + "/pods?labelSelector=" + urllib.parse.quote("app in x"))
    assert st == 400 and s["kind"] == "Status"
