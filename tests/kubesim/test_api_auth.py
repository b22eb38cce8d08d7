"""kubesim authentication (bearer tokens, 401), RBAC rules (403 Forbidden Status like the real API
server), and plain HTTP mode."""
import os

from kubesim_fixture import pod, start_kubesim

RULES = """
# service account of the spark namespace
token sa-token system:serviceaccount:spark:spark
token ro-token reader
allow system:serviceaccount:spark:spark get,list,watch,create,delete,deletecollection pods,configmaps,services spark
allow reader get,list * *
"""


def test_tokens_and_rbac(tmp_path):
    rules = tmp_path / "rbac.txt"
    rules.write_text(RULES)
    with start_kubesim("--no-kubelet", "--token", "admin-secret", "--rbac", str(rules)) as k:
        assert k.token == "admin-secret"
        # no token / wrong token: 401 with a Status body
        st, s = k.call("GET", "/api/v1/namespaces/default/pods", token=None)
        assert st == 401 and s["reason"] == "Unauthorized" and s["code"] == 401
        assert k.call("GET", "/api/v1/namespaces/default/pods", token="wrong")[0] == 401
        # admin can create the namespace
        assert k.call("POST", "/api/v1/namespaces", {"metadata": {"name": "spark"}})[0] == 201
        # the service account can work in its namespace
        assert k.call("POST", "/api/v1/namespaces/spark/pods", pod("driver"), token="sa-token")[0] == 201
        assert k.call("GET", "/api/v1/namespaces/spark/pods?watch=1&timeoutSeconds=1", token="sa-token")[0] == 200
        # ... but not elsewhere, and not other verbs
        st, s = k.call("POST", "/api/v1/namespaces/default/pods", pod("x"), token="sa-token")
        assert st == 403 and s["reason"] == "Forbidden" and s["kind"] == "Status"
        assert s["message"] == ('pods is forbidden: User "system:serviceaccount:spark:spark" cannot create '
                                'resource "pods" in API group "" in the namespace "default"')
        st, s = k.call("PATCH", "/api/v1/namespaces/spark/pods/driver", {"metadata": {}}, token="sa-token",
                       content_type="application/merge-patch+json")
        assert st == 403 and s["message"] == ('pods "driver" is forbidden: User "system:serviceaccount:spark:spark" '
                                              'cannot patch resource "pods" in API group "" in the namespace "spark"')
        assert s["details"] == {"kind": "pods", "name": "driver"}
        st, s = k.call("GET", "/api/v1/nodes", token="sa-token")
        assert st == 403 and s["message"].endswith('cannot list resource "nodes" in API group "" at the cluster scope')
        st, s = k.call("GET", "/api/v1/namespaces/spark/pods/driver/log", token="sa-token")
        assert st == 403 and 'resource "pods/log"' in s["message"]
        # the reader may read everywhere but write nowhere
        assert k.call("GET", "/api/v1/pods", token="ro-token")[0] == 200
        assert k.call("DELETE", "/api/v1/namespaces/spark/pods/driver", token="ro-token")[0] == 403
        # kubectl with the service-account token gets the same 403
        env_kc = os.path.join(k.tmpdir, "sa.kubeconfig")
        with open(k.kubeconfig) as f:
            text = f.read().replace("admin-secret", "sa-token")
        with open(env_kc, "w") as f:
            f.write(text)
        import subprocess
        p = subprocess.run(["/usr/bin/kubectl", "--kubeconfig", env_kc, "get", "pods", "-n", "default"],
                           capture_output=True, text=True, timeout=60, env=dict(os.environ, HOME=k.tmpdir))
        assert p.returncode != 0 and "forbidden" in p.stderr


def test_bad_rbac_file_is_a_clear_error(tmp_path):
    import subprocess
    from kubesim_fixture import KUBESIM
    bad = tmp_path / "bad.txt"
    bad.write_text("permit everyone\n")
    p = subprocess.run([KUBESIM, "--rbac", str(bad)], capture_output=True, text=True, timeout=30)
    assert p.returncode == 2 and "bad.txt:1" in p.stderr


def test_plain_http_mode():
    with start_kubesim("--no-kubelet", "--http") as k:
        assert k.server.startswith("http://")
        st, v = k.call("GET", "/version")
        assert st == 200 and v["major"] == "1"
        assert k.call("POST", "/api/v1/namespaces/default/pods", pod("p"))[0] == 201
        out = k.kubectl("get", "pods").stdout
        assert "p " in out or out.splitlines()[1].startswith("p")


def test_https_certificate_verifies_against_kubeconfig_ca():
    with start_kubesim("--no-kubelet") as k:
        assert k.server.startswith("https://127.0.0.1:")
        # the fixture's SSL context verifies the chain and host name with the CA from the kubeconfig
        st, doc = k.call("GET", "/api")
        assert st == 200 and doc["versions"] == ["v1"]
        import ssl
        import http.client
        c = http.client.HTTPSConnection(k.host, k.port, context=ssl.create_default_context(), timeout=10)
        try:
            c.request("GET", "/version")
            raised = False
        except ssl.SSLError:
            raised = True
        finally:
            c.close()
        assert raised, "a client without the kubesim CA must not trust the server"
