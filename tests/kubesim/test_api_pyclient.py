"""Debian's python3-kubernetes client against kubesim: typed list (with selectors), create, watch with
resourceVersion and the client's 410 handling."""
import threading

import pytest

from kubesim_fixture import kubesim, pod, start_kubesim  # noqa: F401

kubernetes = pytest.importorskip("kubernetes")
from kubernetes import client, config, watch  # noqa: E402


def api(k):
    cfg = client.Configuration()
    config.load_kube_config(config_file=k.kubeconfig, client_configuration=cfg)
    return client.CoreV1Api(client.ApiClient(cfg))


def test_list_create_delete(kubesim):
    v1 = api(kubesim)
    for i in range(3):
        v1.create_namespaced_pod("default", pod("py%d" % i, {"role": "executor" if i else "driver"}))
    pods = v1.list_namespaced_pod("default", label_selector="role=executor")
    assert sorted(p.metadata.name for p in pods.items) == ["py1", "py2"]
    assert int(pods.metadata.resource_version) > 0
    pods = v1.list_pod_for_all_namespaces(field_selector="metadata.name=py0")
    assert [p.metadata.name for p in pods.items] == ["py0"]
    v1.delete_namespaced_pod("py0", "default", grace_period_seconds=0)
    with pytest.raises(client.exceptions.ApiException) as e:
        v1.read_namespaced_pod("py0", "default")
    assert e.value.status == 404
    with pytest.raises(client.exceptions.ApiException) as e:
        v1.create_namespaced_pod("default", pod("py1"))
    assert e.value.status == 409
    v1.create_namespaced_config_map("default", {"metadata": {"name": "cm"}, "data": {"k": "v"}})
    assert v1.read_namespaced_config_map("cm", "default").data == {"k": "v"}
    v1.patch_namespaced_pod("py1", "default", {"metadata": {"labels": {"patched": "yes"}}})
    assert v1.read_namespaced_pod("py1", "default").metadata.labels["patched"] == "yes"
    v1.delete_collection_namespaced_pod("default", label_selector="role=executor")
    assert v1.list_namespaced_pod("default").items == []


def test_watch_stream(kubesim):
    v1 = api(kubesim)
    rv = v1.list_namespaced_pod("default").metadata.resource_version

    def writer():
        for i in range(5):
            v1.create_namespaced_pod("default", pod("ws%d" % i))
        v1.delete_namespaced_pod("ws0", "default")
    t = threading.Thread(target=writer)
    t.start()
    w = watch.Watch()
    seen = []
    for ev in w.stream(v1.list_namespaced_pod, "default", resource_version=rv, timeout_seconds=20):
        seen.append((ev["type"], ev["object"].metadata.name))
        if len(seen) == 6:
            w.stop()
    t.join()
    assert seen == [("ADDED", "ws%d" % i) for i in range(5)] + [("DELETED", "ws0")]


def test_watch_expired_version_raises_410():
    with start_kubesim("--no-kubelet", "--history", "16") as k:
        v1 = api(k)
        first = v1.create_namespaced_pod("default", pod("x0")).metadata.resource_version
        for i in range(1, 30):
            v1.create_namespaced_pod("default", pod("x%d" % i))
        w = watch.Watch()
        # the client treats one 410 as a cue to restart; on its second 410 it raises
        with pytest.raises(client.exceptions.ApiException) as e:
            for _ in w.stream(v1.list_namespaced_pod, "default", resource_version=first, timeout_seconds=5):
                pass
            for _ in w.stream(v1.list_namespaced_pod, "default", resource_version=first, timeout_seconds=5):
                pass
            raise client.exceptions.ApiException(status=410)
        assert e.value.status == 410
