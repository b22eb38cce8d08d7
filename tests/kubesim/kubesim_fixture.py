"""Shared helpers for the kubesim API-server tests.

start_kubesim() runs build/bin/kubesim --kubeconfig-out <tmp> on a free loopback port, waits for the
kubeconfig, yields a Kubesim handle (raw HTTP client, kubectl runner, watch reader) and always kills
the process. The `kubesim` pytest fixture is the plain API server (--no-kubelet, HTTPS).
"""
import base64
import contextlib
import http.client
import json
import os
import shutil
import signal
import ssl
import subprocess
import tempfile
import time
import urllib.parse

import pytest

BUILD = os.environ.get("CSPARK_BUILD_DIR") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "build")
KUBESIM = os.path.join(BUILD, "bin", "kubesim")
KUBECTL = "/usr/bin/kubectl"


def _kubeconfig_fields(path):
    """Reads server, token and CA from the kubeconfig kubesim writes (a fixed, simple layout)."""
    server = token = ca = None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("server:"):
                server = line.split(":", 1)[1].strip()
            elif line.startswith("token:"):
                token = line.split(":", 1)[1].strip()
            elif line.startswith("certificate-authority-data:"):
                ca = base64.b64decode(line.split(":", 1)[1].strip()).decode()
    return server, token, ca


class Kubesim:
    def __init__(self, proc, tmpdir, kubeconfig):
        self.proc = proc
        self.tmpdir = tmpdir
        self.kubeconfig = kubeconfig
        self.server, self.token, self.ca_pem = _kubeconfig_fields(kubeconfig)
        u = urllib.parse.urlparse(self.server)
        self.https = u.scheme == "https"
        self.host, self.port = u.hostname, u.port
        self.ssl_ctx = None
        if self.https:
            self.ssl_ctx = ssl.create_default_context(cadata=self.ca_pem)

    def conn(self, timeout=30):
        if self.https:
            return http.client.HTTPSConnection(self.host, self.port, context=self.ssl_ctx, timeout=timeout)
        return http.client.HTTPConnection(self.host, self.port, timeout=timeout)

    def request(self, method, path, body=None, token="default", content_type="application/json", headers=None):
        """Returns (status, headers dict, body bytes)."""
        h = dict(headers or {})
        tok = self.token if token == "default" else token
        if tok:
            h["Authorization"] = "Bearer " + tok
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
        if body is not None:
            h["Content-Type"] = content_type
        c = self.conn()
        try:
            c.request(method, path, body=body, headers=h)
            r = c.getresponse()
            data = r.read()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, data
        finally:
            c.close()

    def call(self, method, path, body=None, **kw):
        """Returns (status, parsed JSON body or None)."""
        st, _, data = self.request(method, path, body, **kw)
        try:
            return st, json.loads(data) if data else None
        except ValueError:
            return st, None

    def admin(self, method, path, body=None):
        return self.call(method, path, body, token=None)

    def kubectl(self, *args, input=None, check=True, timeout=60):
        env = dict(os.environ, KUBECONFIG=self.kubeconfig, HOME=self.tmpdir)
        p = subprocess.run([KUBECTL, *args], input=input, capture_output=True, text=True, env=env, timeout=timeout)
        if check and p.returncode != 0:
            raise AssertionError("kubectl %s failed (%d): %s %s" % (" ".join(args), p.returncode, p.stdout, p.stderr))
        return p

    @contextlib.contextmanager
    def watch(self, path, timeout=30, token="default"):
        """Opens a watch; yields a function next_event(deadline_s) -> dict or None at end of stream."""
        c = self.conn(timeout=timeout)
        h = {}
        tok = self.token if token == "default" else token
        if tok:
            h["Authorization"] = "Bearer " + tok
        c.request("GET", path, headers=h)
        r = c.getresponse()
        assert r.status == 200, (r.status, r.read())

        def next_event():
            line = r.readline()
            if not line:
                return None
            return json.loads(line)
        try:
            yield next_event
        finally:
            c.close()


@contextlib.contextmanager
def start_kubesim(*args):
    tmpdir = tempfile.mkdtemp(prefix="kubesim-test-")
    kc = os.path.join(tmpdir, "kubeconfig")
    log = open(os.path.join(tmpdir, "kubesim.log"), "w")
    proc = subprocess.Popen([KUBESIM, "--kubeconfig-out", kc, *args], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 30
        while not os.path.exists(kc):
            if proc.poll() is not None:
                raise AssertionError("kubesim exited with %d: %s" % (proc.returncode,
                                     open(os.path.join(tmpdir, "kubesim.log")).read()))
            if time.time() > deadline:
                raise AssertionError("kubesim did not write its kubeconfig within 30 s")
            time.sleep(0.02)
        yield Kubesim(proc, tmpdir, kc)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        log.close()
        with open(os.path.join(tmpdir, "kubesim.log"), errors="replace") as f:
            text = f.read()
        shutil.rmtree(tmpdir, ignore_errors=True)
    # in the sanitizer build, memory errors in kubesim fail the test that caused them
    for marker in ("ERROR: AddressSanitizer", "runtime error:"):
        if marker in text:
            raise AssertionError("kubesim reported a sanitizer error:\n" + text[-6000:])


@pytest.fixture
def kubesim():
    with start_kubesim("--no-kubelet") as k:
        yield k


def pod(name, labels=None, **spec_extra):
    spec = {"containers": [{"name": "c", "image": "busybox", "command": ["sleep", "1000"]}]}
    spec.update(spec_extra)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": labels or {}}, "spec": spec}


def wait_for(fn, timeout=20, interval=0.05):
    deadline = time.time() + timeout
    while True:
        v = fn()
        if v:
            return v
        if time.time() > deadline:
            raise AssertionError("condition not met within %s s" % timeout)
        time.sleep(interval)
