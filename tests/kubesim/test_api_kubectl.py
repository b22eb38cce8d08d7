"""Real kubectl against kubesim: create/apply (client-side, strategic merge patch), get with label
selectors (server-side Table), get -w, describe, delete, and error messages."""
import json
import subprocess
import time

from kubesim_fixture import KUBECTL, kubesim, wait_for  # noqa: F401

POD = """apiVersion: v1
kind: Pod
metadata:
  name: web
  labels: {app: web, tier: %s}
spec:
  containers:
  - name: main
    image: busybox
    command: ["sleep", "3600"]
    env: [{name: A, value: "1"}]
"""

SVC = """apiVersion: v1
kind: Service
metadata: {name: web-svc}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
"""


def test_create_get_table_and_selectors(kubesim):
    kubesim.kubectl("create", "-f", "-", input=POD % "front")
    kubesim.kubectl("create", "-f", "-", input=(POD % "back").replace("name: web\n", "name: api\n")
                    .replace("app: web", "app: api"))
    out = kubesim.kubectl("get", "pods").stdout.splitlines()
    assert out[0].split() == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"]
    assert sorted(l.split()[0] for l in out[1:]) == ["api", "web"]
    assert out[1].split()[1:4] == ["0/1", "Pending", "0"]
    out = kubesim.kubectl("get", "pods", "-l", "app=web", "-o", "name").stdout.split()
    assert out == ["pod/web"]
    out = kubesim.kubectl("get", "pods", "-l", "tier in (back)", "-o", "jsonpath={.items[*].metadata.name}").stdout
    assert out == "api"
    out = kubesim.kubectl("get", "pods", "-l", "app!=web", "--no-headers").stdout
    assert out.split()[0] == "api"
    wide = kubesim.kubectl("get", "pod", "web", "-o", "wide").stdout.splitlines()
    assert wide[0].split()[:7] == ["NAME", "READY", "STATUS", "RESTARTS", "AGE", "IP", "NODE"]
    j = json.loads(kubesim.kubectl("get", "pod", "web", "-o", "json").stdout)
    assert j["kind"] == "Pod" and j["metadata"]["labels"]["tier"] == "front"
    p = kubesim.kubectl("get", "pod", "nope", check=False)
    assert p.returncode != 0 and 'pods "nope" not found' in p.stderr
    kubesim.kubectl("create", "-f", "-", input=SVC)
    out = kubesim.kubectl("get", "svc").stdout.splitlines()
    assert out[0].split()[:5] == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)"]
    row = [l.split() for l in out[1:] if l.split()[0] == "web-svc"][0]  # beside the kubernetes Service
    assert row[1] == "ClusterIP" and row[4] == "80/TCP"
    assert "default" in kubesim.kubectl("get", "ns").stdout


def test_apply_twice_patches(kubesim):
    out = kubesim.kubectl("apply", "-f", "-", input=POD % "one").stdout
    assert "pod/web created" in out
    out = kubesim.kubectl("apply", "-f", "-", input=POD % "two").stdout
    assert "pod/web configured" in out
    j = json.loads(kubesim.kubectl("get", "pod", "web", "-o", "json").stdout)
    assert j["metadata"]["labels"] == {"app": "web", "tier": "two"}
    assert "kubectl.kubernetes.io/last-applied-configuration" in j["metadata"]["annotations"]
    out = kubesim.kubectl("apply", "-f", "-", input=POD % "two").stdout
    assert "pod/web unchanged" in out
    # a changed image is applied; removing a label in the manifest removes it (3-way merge through the
    # last-applied annotation)
    kubesim.kubectl("apply", "-f", "-", input=(POD % "two").replace("image: busybox", "image: busybox:2")
                    .replace("{app: web, tier: two}", "{app: web}"))
    j = json.loads(kubesim.kubectl("get", "pod", "web", "-o", "json").stdout)
    assert j["spec"]["containers"][0]["image"] == "busybox:2" and j["metadata"]["labels"] == {"app": "web"}
    # other pod spec fields are immutable, as in the real API server
    p = kubesim.kubectl("apply", "-f", "-", input=(POD % "two").replace('value: "1"', 'value: "2"'), check=False)
    assert p.returncode != 0 and "pod updates may not change fields" in p.stderr
    kubesim.kubectl("label", "pod", "web", "extra=yes")
    kubesim.kubectl("annotate", "pod", "web", "note=hi")
    j = json.loads(kubesim.kubectl("get", "pod", "web", "-o", "json").stdout)
    assert j["metadata"]["labels"]["extra"] == "yes" and j["metadata"]["annotations"]["note"] == "hi"


def test_describe_and_delete(kubesim):
    kubesim.kubectl("apply", "-f", "-", input=POD % "x")
    out = kubesim.kubectl("describe", "pod", "web").stdout
    assert "Name:" in out and "web" in out and "Status:           Pending" in out and "busybox" in out
    out = kubesim.kubectl("delete", "pod", "web").stdout
    assert 'pod "web" deleted' in out
    p = kubesim.kubectl("get", "pod", "web", check=False)
    assert p.returncode != 0


def test_get_watch(kubesim):
    import os
    env = dict(os.environ, KUBECONFIG=kubesim.kubeconfig, HOME=kubesim.tmpdir)
    w = subprocess.Popen([KUBECTL, "get", "pods", "-w", "--request-timeout=30s"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        time.sleep(1.0)
        kubesim.kubectl("apply", "-f", "-", input=POD % "w")
        kubesim.call("PATCH", "/api/v1/namespaces/default/pods/web/status",
                     {"status": {"phase": "Running", "containerStatuses": [
                         {"name": "main", "ready": True, "restartCount": 0, "image": "busybox", "imageID": "",
                          "state": {"running": {"startedAt": "2026-01-01T00:00:00Z"}}}]}},
                     content_type="application/merge-patch+json")
        lines = []
        deadline = time.time() + 20
        while time.time() < deadline and not any("Running" in l for l in lines):
            line = w.stdout.readline()
            if not line:
                break
            lines.append(line)
    finally:
        w.kill()
        w.wait()
    assert any(l.split()[:3] == ["web", "0/1", "Pending"] for l in lines), lines
    assert any(l.split()[:3] == ["web", "1/1", "Running"] for l in lines), lines


def test_kubectl_validation_errors(kubesim):
    bad = POD.replace("name: web", "name: Web_Bad") % "x"
    p = kubesim.kubectl("create", "-f", "-", input=bad, check=False)
    assert p.returncode != 0 and "is invalid" in p.stderr and "metadata.name" in p.stderr


def test_typed_generators_send_protobuf(kubesim):
    """kubectl create configmap/secret/namespace/service send protobuf bodies; kubesim decodes them."""
    kubesim.kubectl("create", "configmap", "cm1", "--from-literal=a=b")
    assert kubesim.call("GET", "/api/v1/namespaces/default/configmaps/cm1")[1]["data"] == {"a": "b"}
    kubesim.kubectl("create", "secret", "generic", "s1", "--from-literal=p=q")
    st, s = kubesim.call("GET", "/api/v1/namespaces/default/secrets/s1")
    assert s["data"] == {"p": "cQ=="} and s["type"] == "Opaque"
    kubesim.kubectl("create", "namespace", "team")
    assert kubesim.call("GET", "/api/v1/namespaces/team")[1]["status"]["phase"] == "Active"
    kubesim.kubectl("create", "service", "clusterip", "svc1", "--tcp=80:8080", "-n", "team")
    st, svc = kubesim.call("GET", "/api/v1/namespaces/team/services/svc1")
    assert svc["spec"]["ports"][0]["port"] == 80 and svc["spec"]["ports"][0]["targetPort"] == 8080
    assert svc["spec"]["clusterIP"].startswith("10.96.") and svc["spec"]["type"] == "ClusterIP"
    assert 'namespace "team" deleted' in kubesim.kubectl("delete", "namespace", "team").stdout


def test_tables_for_nodes_events_secrets(kubesim):
    kubesim.call("POST", "/api/v1/nodes", {"metadata": {"name": "node-1"}, "status": {
        "conditions": [{"type": "Ready", "status": "True"}], "nodeInfo": {"kubeletVersion": "v1.32.0"}}})
    out = kubesim.kubectl("get", "nodes").stdout.splitlines()
    assert out[0].split() == ["NAME", "STATUS", "ROLES", "AGE", "VERSION"]
    assert out[1].split()[:3] == ["node-1", "Ready", "<none>"] and out[1].split()[4] == "v1.32.0"
    kubesim.call("POST", "/api/v1/namespaces/default/events", {
        "metadata": {"name": "e1"}, "type": "Warning", "reason": "BackOff", "message": "restarting",
        "involvedObject": {"kind": "Pod", "name": "web"}, "lastTimestamp": "2026-01-01T00:00:00Z"})
    out = kubesim.kubectl("get", "events").stdout.splitlines()
    assert out[0].split() == ["LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"]
    assert out[1].split()[1:] == ["Warning", "BackOff", "pod/web", "restarting"]
    kubesim.kubectl("create", "secret", "generic", "s", "--from-literal=a=b")
    out = kubesim.kubectl("get", "secret", "s").stdout.splitlines()
    assert out[0].split() == ["NAME", "TYPE", "DATA", "AGE"] and out[1].split()[1:3] == ["Opaque", "1"]
