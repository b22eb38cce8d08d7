"""Pod lifecycle on kubesim's process kubelet (tools/kubesim/kubelet*.c, container.c).

Each test talks to a kubesim started by the module fixture (process kubelet, 1 node of 4 CPU / 2Gi) through
Debian's python3-kubernetes client or kubectl, and checks what a real kubelet reports: exit codes and
reasons, OOMKilled, SIGTERM then SIGKILL on graceful deletion, Unschedulable pods retried when capacity
frees, ownerReference garbage collection stopping processes, env fieldRefs and configMap volumes seen by
the process, `kubectl logs`, headless Service names resolving inside a pod, restart counts, and that no
pod process outlives kubesim. The fake kubelet gets a 500-pod run (tests/kubesim/scale_fake_kubelet.sh
runs 5,000 by hand). Waits are bounded and generous; nothing asserts on timing.
Run: CSPARK_BUILD_DIR=build /usr/bin/python3 -m pytest -q tests/kubesim/test_pod_lifecycle.py
"""
import base64
import concurrent.futures
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid

import pytest
from kubernetes import client, config
from kubernetes.client.rest import ApiException

from kubesim_fixture import KUBECTL, KUBESIM, start_kubesim

NS = "default"


def wait_for(fn, timeout=60, interval=0.1, what="condition"):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = fn()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError("%s not met within %ss (last=%r)" % (what, timeout, last))


def api_for(ks):
    cfg = client.Configuration()
    config.load_kube_config(config_file=ks.kubeconfig, client_configuration=cfg)
    return client.CoreV1Api(client.ApiClient(cfg))


def uniq(prefix):
    return "%s-%s" % (prefix, uuid.uuid4().hex[:6])


def make_pod(name, command, restart="Never", labels=None, **extra):
    c = {"name": "c", "image": "busybox", "command": command}
    for k in ("env", "volumeMounts", "resources"):
        if k in extra:
            c[k] = extra.pop(k)
    spec = {"restartPolicy": restart, "containers": [c]}
    spec.update(extra)
    meta = {"name": name, "labels": labels or {}}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


def phase_of(v1, name):
    try:
        return v1.read_namespaced_pod(name, NS).status.phase
    except ApiException as e:
        if e.status == 404:
            return "Gone"
        raise


def terminal(v1, name):
    p = v1.read_namespaced_pod(name, NS)
    return p if p.status.phase in ("Succeeded", "Failed") else None


def gone(v1, name):
    try:
        v1.read_namespaced_pod(name, NS)
        return False
    except ApiException as e:
        return e.status == 404


def host_pids(token):
    """Host pids of live processes whose command line contains token (pods have their own PID namespace)."""
    out = []
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                cmd = f.read()
        except OSError:
            continue
        if token.encode() in cmd and pid_alive(int(d)):
            out.append(int(d))
    return out


def sleep_token():
    """A unique sleep duration: finds the process on the host by its argv."""
    return "1000.%06d" % (uuid.uuid4().int % 1000000)


def pid_alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def cluster():
    if not os.access(KUBESIM, os.X_OK):
        pytest.fail("kubesim not built at %s" % KUBESIM)
    state = tempfile.mkdtemp(prefix="cspark-kubelet-test-")
    try:
        with start_kubesim("--state-dir", state, "--nodes", "1", "--node-cpu", "4", "--node-memory", "2Gi") as ks:
            ks.v1 = api_for(ks)
            ks.state = state
            # a private copy for kubectl: the fixture's temp dir is not ours to rely on
            ks.kc_copy = os.path.join(state, "kubeconfig")
            shutil.copy(ks.kubeconfig, ks.kc_copy)
            wait_for(lambda: ks.v1.list_node().items, 30, what="node registered")
            yield ks
        check_sanitizer_log(ks)
    finally:
        shutil.rmtree(state, ignore_errors=True)


def check_sanitizer_log(ks):
    """In the ASan+UBSan build, memory errors and undefined behaviour reported by kubesim fail the test."""
    try:
        text = open(os.path.join(ks.tmpdir, "kubesim.log"), errors="replace").read()
    except OSError:
        return
    bad = [l for l in text.splitlines() if "ERROR: AddressSanitizer" in l or "runtime error:" in l]
    assert not bad, "kubesim reported:\n" + "\n".join(bad[:10])


def test_node_registered_with_capacity(cluster):
    nodes = cluster.v1.list_node().items
    assert len(nodes) == 1
    n = nodes[0]
    assert n.status.capacity["cpu"] == "4"
    assert n.status.allocatable["memory"] == "2097152Ki"
    assert any(c.type == "Ready" and c.status == "True" for c in n.status.conditions)


def test_exit_code_failed_and_succeeded(cluster):
    v1 = cluster.v1
    bad, good = uniq("exit3"), uniq("exit0")
    body = make_pod(bad, ["sh", "-c", "echo failing; exit 3"])
    body["spec"]["containers"][0]["terminationMessagePolicy"] = "FallbackToLogsOnError"
    v1.create_namespaced_pod(NS, body)
    v1.create_namespaced_pod(NS, make_pod(good, ["sh", "-c", "exit 0"]))
    p = wait_for(lambda: terminal(v1, bad), what="pod %s terminal" % bad)
    assert p.status.phase == "Failed"
    cs = p.status.container_statuses[0]
    assert cs.state.terminated.exit_code == 3
    assert cs.state.terminated.reason == "Error"
    assert cs.state.terminated.message == "failing\n"  # FallbackToLogsOnError
    assert cs.state.terminated.started_at and cs.state.terminated.finished_at
    assert cs.container_id and cs.image_id and cs.ready is False and cs.restart_count == 0
    assert p.status.pod_ip and p.status.pod_ip.startswith("127.") and p.status.host_ip and p.status.start_time
    conds = {c.type: c for c in p.status.conditions}
    assert conds["PodScheduled"].status == "True"
    assert conds["Ready"].status == "False" and conds["Ready"].reason == "PodCompleted"
    p = wait_for(lambda: terminal(v1, good), what="pod %s terminal" % good)
    assert p.status.phase == "Succeeded"
    assert p.status.container_statuses[0].state.terminated.reason == "Completed"
    assert p.status.container_statuses[0].state.terminated.exit_code == 0


def test_running_status_and_logs(cluster):
    v1 = cluster.v1
    name = uniq("logs")
    v1.create_namespaced_pod(NS, make_pod(name, ["sh", "-c", "echo out-line; echo err-line >&2; sleep 1000"]))
    p = wait_for(lambda: (lambda q: q if q.status.phase == "Running" else None)(v1.read_namespaced_pod(name, NS)),
                 what="Running")
    cs = p.status.container_statuses[0]
    assert cs.state.running and cs.state.running.started_at and cs.ready and cs.started
    assert {c.type: c.status for c in p.status.conditions}["Ready"] == "True"
    log = wait_for(lambda: (lambda s: s if "err-line" in s else None)(v1.read_namespaced_pod_log(name, NS)),
                   what="log lines")
    assert "out-line" in log and "err-line" in log
    env = dict(os.environ, KUBECONFIG=cluster.kc_copy, HOME=cluster.state)
    out = subprocess.run([KUBECTL, "logs", name], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "out-line" in out.stdout and "err-line" in out.stdout
    v1.delete_namespaced_pod(name, NS, grace_period_seconds=1)
    wait_for(lambda: gone(v1, name), what="pod deleted")


def test_oom_killed(cluster):
    v1 = cluster.v1
    name = uniq("oom")
    v1.create_namespaced_pod(NS, make_pod(
        name, ["/usr/bin/python3", "-c", "b = bytearray(400 << 20); print('survived')"],
        resources={"limits": {"memory": "64Mi"}, "requests": {"memory": "64Mi"}}))
    p = wait_for(lambda: terminal(v1, name), what="OOM pod terminal")
    t = p.status.container_statuses[0].state.terminated
    assert p.status.phase == "Failed"
    assert t.reason == "OOMKilled" and t.exit_code == 137
    assert "survived" not in v1.read_namespaced_pod_log(name, NS)


def own_cgroup(controller):
    for line in open("/proc/self/cgroup"):
        parts = line.strip().split(":", 2)
        if len(parts) == 3 and controller in parts[1].split(","):
            return "/sys/fs/cgroup/%s%s" % (controller, parts[2].rstrip("/"))
    return None


def test_cpu_and_memory_limits_are_cgroup_limits(cluster):
    v1 = cluster.v1
    name = uniq("cpulim")
    tok = sleep_token()
    v1.create_namespaced_pod(NS, make_pod(name, ["sleep", tok], resources={
        "requests": {"cpu": "100m", "memory": "32Mi"}, "limits": {"cpu": "250m", "memory": "48Mi"}}))
    pid = wait_for(lambda: host_pids(tok), what="pod process found")[0]
    found = {}
    for ctrl, knob in (("cpu", "cpu.cfs_quota_us"), ("memory", "memory.limit_in_bytes")):
        base = "%s/kubesim-%d" % (own_cgroup(ctrl), cluster.proc.pid)
        for sub in os.listdir(base):
            d = os.path.join(base, sub)
            if os.path.isdir(d) and str(pid) in open(os.path.join(d, "cgroup.procs")).read().split():
                found[ctrl] = int(open(os.path.join(d, knob)).read())
                if ctrl == "cpu":
                    found["shares"] = int(open(os.path.join(d, "cpu.shares")).read())
    assert found == {"cpu": 25000, "shares": 102, "memory": 48 << 20}, found
    v1.delete_namespaced_pod(name, NS, grace_period_seconds=0)
    wait_for(lambda: gone(v1, name), what="cleanup")


def test_graceful_delete_sigterm_then_sigkill(cluster):
    v1 = cluster.v1
    name = uniq("grace")
    d = tempfile.mkdtemp(prefix="grace-", dir=cluster.state)
    tok = uuid.uuid4().hex
    script = ('trap "echo TERM >> /data/signals" TERM; echo started > /data/started; '
              'while true; do sleep 0.1; done; : %s' % tok)
    v1.create_namespaced_pod(NS, make_pod(
        name, ["sh", "-c", script], volumeMounts=[{"name": "data", "mountPath": "/data"}],
        volumes=[{"name": "data", "hostPath": {"path": d}}]))
    wait_for(lambda: os.path.exists(os.path.join(d, "started")), what="pod started")
    pids = wait_for(lambda: host_pids(tok), what="pod process found")
    v1.delete_namespaced_pod(name, NS, grace_period_seconds=2)
    p = v1.read_namespaced_pod(name, NS)
    assert p.metadata.deletion_timestamp is not None
    wait_for(lambda: os.path.exists(os.path.join(d, "signals")), what="SIGTERM recorded")
    assert any(pid_alive(x) for x in pids), "the trap ignores SIGTERM: the process lives until the grace period ends"
    wait_for(lambda: gone(v1, name), what="pod finalized after the grace period")
    wait_for(lambda: not host_pids(tok), 10, what="process SIGKILLed")
    assert "TERM" in open(os.path.join(d, "signals")).read()


def test_prestop_exec_hook_runs_inside_the_container_before_sigterm(cluster):
    """Spark's decommissioning path: preStop exec (decom.sh) signals the executor, then SIGTERM."""
    v1 = cluster.v1
    name = uniq("prestop")
    d = tempfile.mkdtemp(prefix="prestop-", dir=cluster.state)
    app = ('trap "echo USR1 >> /data/log" USR1; trap "echo TERM >> /data/log; exit 0" TERM; '
           'echo $$$$ > /data/apppid; while true; do sleep 0.1; done')
    # the hook sees the container's mounts (/data) and PID namespace (the app's own pid)
    hook = 'echo "prestop $(cat /etc/hostname)" >> /data/log; kill -USR1 $(cat /data/apppid); sleep 0.5'
    body = make_pod(name, ["sh", "-c", app], volumeMounts=[{"name": "data", "mountPath": "/data"}],
                    volumes=[{"name": "data", "hostPath": {"path": d}}])
    body["spec"]["containers"][0]["lifecycle"] = {"preStop": {"exec": {"command": ["sh", "-c", hook]}}}
    v1.create_namespaced_pod(NS, body)
    wait_for(lambda: os.path.exists(os.path.join(d, "apppid")), what="app started")
    v1.delete_namespaced_pod(name, NS, grace_period_seconds=20)
    wait_for(lambda: gone(v1, name), what="pod finalized")
    lines = open(os.path.join(d, "log")).read().split("\n")
    assert lines[:3] == ["prestop %s" % name, "USR1", "TERM"], lines


def test_unschedulable_then_scheduled_when_capacity_frees(cluster):
    v1 = cluster.v1
    big, waiter, huge = uniq("big"), uniq("waiter"), uniq("huge")
    req = lambda m: {"requests": {"memory": m, "cpu": "100m"}, "limits": {"memory": m}}  # noqa: E731
    v1.create_namespaced_pod(NS, make_pod(huge, ["sleep", "1000"], resources=req("100Gi")))
    v1.create_namespaced_pod(NS, make_pod(big, ["sleep", "1000"], resources=req("1536Mi")))
    wait_for(lambda: phase_of(v1, big) == "Running", what="big pod Running")
    v1.create_namespaced_pod(NS, make_pod(waiter, ["sleep", "1000"], resources=req("1Gi")))

    def unschedulable(n):
        p = v1.read_namespaced_pod(n, NS)
        c = [c for c in (p.status.conditions or []) if c.type == "PodScheduled"]
        return p if c and c[0].status == "False" and c[0].reason == "Unschedulable" else None
    p = wait_for(lambda: unschedulable(waiter), what="waiter Unschedulable")
    assert p.status.phase == "Pending" and not p.spec.node_name
    msg = [c for c in p.status.conditions if c.type == "PodScheduled"][0].message
    # kube-scheduler's wording (v1.34), preemption's verdict included: the node could hold the pod
    # once others leave, but none has a lower priority (regression: kubesim stopped after the
    # filter's reasons)
    assert msg == ("0/1 nodes are available: 1 Insufficient memory. no new claims to deallocate, "
                   "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod."), msg
    p = wait_for(lambda: unschedulable(huge), what="huge Unschedulable")
    msg = [c for c in p.status.conditions if c.type == "PodScheduled"][0].message
    # more than the node's allocatable: preemption cannot help
    assert msg == ("0/1 nodes are available: 1 Insufficient memory. no new claims to deallocate, "
                   "preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."), msg
    ev = [e for e in v1.list_namespaced_event(NS).items if e.involved_object.name == waiter]
    assert any(e.reason == "FailedScheduling" and e.type == "Warning" and
               e.source.component == "default-scheduler" for e in ev), ev
    v1.delete_namespaced_pod(big, NS, grace_period_seconds=1)
    wait_for(lambda: phase_of(v1, waiter) == "Running", what="waiter scheduled after capacity freed")
    assert v1.read_namespaced_pod(waiter, NS).spec.node_name == "kubesim-node-1"
    assert phase_of(v1, huge) == "Pending"
    for n in (waiter, huge):
        v1.delete_namespaced_pod(n, NS, grace_period_seconds=0)
    wait_for(lambda: gone(v1, waiter) and gone(v1, huge), what="cleanup")


def test_pod_with_missing_claim_stays_pending(cluster):
    # as the real scheduler: a pod mounting a claim that does not exist is not bound (issue #10 item 9)
    v1 = cluster.v1
    name, claim = uniq("claimer"), uniq("data")
    body = make_pod(name, ["sleep", "1000"],
                    volumes=[{"name": "d", "persistentVolumeClaim": {"claimName": claim}}])
    body["spec"]["containers"][0]["volumeMounts"] = [{"name": "d", "mountPath": "/data"}]
    v1.create_namespaced_pod(NS, body)

    def unschedulable():
        p = v1.read_namespaced_pod(name, NS)
        c = [c for c in (p.status.conditions or []) if c.type == "PodScheduled"]
        return p if c and c[0].status == "False" and c[0].reason == "Unschedulable" else None
    p = wait_for(unschedulable, what="pod with a missing claim Unschedulable")
    assert p.status.phase == "Pending" and not p.spec.node_name
    msg = [c for c in p.status.conditions if c.type == "PodScheduled"][0].message
    assert msg == '0/1 nodes are available: persistentvolumeclaim "%s" not found. not found' % claim, msg
    v1.create_namespaced_persistent_volume_claim(NS, {
        "metadata": {"name": claim},
        "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})
    wait_for(lambda: phase_of(v1, name) == "Running", what="pod Running once its claim exists")
    v1.delete_namespaced_pod(name, NS, grace_period_seconds=0)
    v1.delete_namespaced_persistent_volume_claim(claim, NS)
    wait_for(lambda: gone(v1, name), what="cleanup")


def test_owner_deletion_garbage_collects_dependents(cluster):
    v1 = cluster.v1
    owner, dep = uniq("owner"), uniq("dep")
    o = v1.create_namespaced_pod(NS, make_pod(owner, ["sleep", "1000"]))
    tok = sleep_token()
    body = make_pod(dep, ["sleep", tok])
    body["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Pod", "name": owner,
                                            "uid": o.metadata.uid, "controller": True}]
    v1.create_namespaced_pod(NS, body)
    wait_for(lambda: phase_of(v1, dep) == "Running", what="dependent Running")
    wait_for(lambda: host_pids(tok), what="dependent's process found")
    v1.delete_namespaced_pod(owner, NS, grace_period_seconds=1)
    wait_for(lambda: gone(v1, owner), what="owner gone")
    wait_for(lambda: gone(v1, dep), what="dependent garbage-collected")
    wait_for(lambda: not host_pids(tok), 15, what="dependent's process stopped")


def test_env_field_refs_config_and_volumes(cluster):
    v1 = cluster.v1
    name = uniq("env")
    cm, sec = uniq("cm"), uniq("sec")
    v1.create_namespaced_config_map(NS, {"metadata": {"name": cm},
                                         "data": {"spark.properties": "spark.app.name=x\n", "k": "from-cm"},
                                         "binaryData": {"blob.bin": base64.b64encode(b"\x00\x01\xfe").decode()}})
    v1.create_namespaced_secret(NS, {"metadata": {"name": sec},
                                     "data": {"pw": base64.b64encode(b"s3cr3t").decode()}})
    svc = uniq("envsvc")
    cip = v1.create_namespaced_service(NS, {"metadata": {"name": svc}, "spec": {
        "selector": {"app": svc}, "ports": [{"name": "http", "port": 8080}]}}).spec.cluster_ip
    script = ("env | sort; echo CONF=$(cat /opt/spark/conf/spark.properties); "
              "echo ITEM=$(cat /etc/items/renamed.txt); echo BLOB=$(od -An -tx1 /opt/spark/conf/blob.bin | xargs); "
              "echo NSFILE=$(cat /var/run/secrets/kubernetes.io/serviceaccount/namespace); "
              "ls /var/run/secrets/kubernetes.io/serviceaccount; echo HOSTNAME=$(hostname); "
              "echo SECRETFILE=$(cat /etc/sec/pw); echo done")
    env = [
        {"name": "POD_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
        {"name": "POD_NS", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
        {"name": "POD_UID", "valueFrom": {"fieldRef": {"fieldPath": "metadata.uid"}}},
        {"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}},
        {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
        {"name": "SA", "valueFrom": {"fieldRef": {"fieldPath": "spec.serviceAccountName"}}},
        {"name": "ROLE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['spark-role']"}}},
        {"name": "FROM_CM", "valueFrom": {"configMapKeyRef": {"name": cm, "key": "k"}}},
        {"name": "FROM_SECRET", "valueFrom": {"secretKeyRef": {"name": sec, "key": "pw"}}},
        {"name": "PLAIN", "value": "v-$(POD_NAME)"},
    ]
    vols = [{"name": "conf", "configMap": {"name": cm}},
            {"name": "items", "configMap": {"name": cm, "items": [{"key": "k", "path": "renamed.txt"}]}},
            {"name": "sec", "secret": {"secretName": sec}}]
    mounts = [{"name": "conf", "mountPath": "/opt/spark/conf"}, {"name": "items", "mountPath": "/etc/items"},
              {"name": "sec", "mountPath": "/etc/sec"}]
    v1.create_namespaced_pod(NS, make_pod(name, ["sh", "-c", script], labels={"spark-role": "driver"},
                                          env=env, volumeMounts=mounts, volumes=vols))
    p = wait_for(lambda: terminal(v1, name), what="env pod terminal")
    log = v1.read_namespaced_pod_log(name, NS)
    assert p.status.phase == "Succeeded", log
    lines = set(log.splitlines())
    assert "POD_NAME=%s" % name in lines
    assert "POD_NS=%s" % NS in lines
    assert "POD_UID=%s" % p.metadata.uid in lines
    assert "POD_IP=%s" % p.status.pod_ip in lines
    assert "NODE=kubesim-node-1" in lines
    assert "SA=default" in lines
    assert "ROLE=driver" in lines
    assert "FROM_CM=from-cm" in lines and "FROM_SECRET=s3cr3t" in lines
    assert "PLAIN=v-%s" % name in lines
    assert "CONF=spark.app.name=x" in lines
    assert "ITEM=from-cm" in lines
    assert "BLOB=00 01 fe" in lines
    assert "NSFILE=%s" % NS in lines
    assert "token" in lines and "ca.crt" in lines
    assert "HOSTNAME=%s" % name in lines
    assert "SECRETFILE=s3cr3t" in lines
    assert "done" in lines
    up = svc.upper().replace("-", "_")
    assert "%s_SERVICE_HOST=%s" % (up, cip) in lines and "%s_SERVICE_PORT_HTTP=8080" % up in lines
    assert "%s_PORT_8080_TCP=tcp://%s:8080" % (up, cip) in lines


def test_headless_service_resolves_inside_pod(cluster):
    v1 = cluster.v1
    app, svc, web, cli = uniq("app"), uniq("svc"), uniq("web"), uniq("dns")
    v1.create_namespaced_service(NS, {"metadata": {"name": svc},
                                      "spec": {"clusterIP": "None", "selector": {"app": app},
                                               "ports": [{"port": 7078, "name": "rpc"}]}})
    v1.create_namespaced_pod(NS, make_pod(web, ["sleep", "1000"], labels={"app": app}))
    wait_for(lambda: phase_of(v1, web) == "Running", what="web Running")
    ip = v1.read_namespaced_pod(web, NS).status.pod_ip
    script = ("for i in $(seq 100); do getent hosts %s.%s.svc >/dev/null && break; sleep 0.2; done; "
              "getent hosts %s.%s.svc; getent hosts %s; getent hosts %s.%s.svc.cluster.local; "
              "getent hosts kubernetes.default.svc.cluster.local || true") % (svc, NS, svc, NS, svc, svc, NS)
    v1.create_namespaced_pod(NS, make_pod(cli, ["sh", "-c", script]))
    wait_for(lambda: terminal(v1, cli), what="dns pod terminal")
    log = v1.read_namespaced_pod_log(cli, NS)
    resolved = [l.split()[0] for l in log.splitlines() if l.strip()]
    assert resolved[:3] == [ip, ip, ip], log
    # a pod relabelled into the Service's selector becomes resolvable in running pods
    late, watcher = uniq("late"), uniq("watcher")
    v1.create_namespaced_pod(NS, make_pod(late, ["sleep", "1000"], labels={"app": "not-yet"}))
    wait_for(lambda: phase_of(v1, late) == "Running", what="late pod Running")
    late_ip = v1.read_namespaced_pod(late, NS).status.pod_ip
    # (getent answers with one address per name: read the pod's /etc/hosts for all of them)
    script = ("for i in $(seq 300); do grep -E '^%s[[:space:]].*[[:space:]]%s[.]%s[.]svc([[:space:]]|$)' /etc/hosts "
              "&& exit 0; sleep 0.2; done; exit 1") % (late_ip.replace(".", "[.]"), svc, NS)
    v1.create_namespaced_pod(NS, make_pod(watcher, ["sh", "-c", script]))
    wait_for(lambda: phase_of(v1, watcher) == "Running", what="watcher Running")
    v1.patch_namespaced_pod(late, NS, {"metadata": {"labels": {"app": app}}})
    p = wait_for(lambda: terminal(v1, watcher), what="watcher saw the relabelled pod")
    assert p.status.phase == "Succeeded", v1.read_namespaced_pod_log(watcher, NS)
    for n in (web, cli, late, watcher):
        v1.delete_namespaced_pod(n, NS, grace_period_seconds=0)


def test_restart_policy_on_failure_counts_restarts(cluster):
    v1 = cluster.v1
    name = uniq("crash")
    v1.create_namespaced_pod(NS, make_pod(name, ["sh", "-c", "echo run; exit 1"], restart="OnFailure"))

    def restarted():
        p = v1.read_namespaced_pod(name, NS)
        cs = (p.status.container_statuses or [None])[0]
        return p if cs and cs.restart_count >= 1 and cs.last_state.terminated else None
    p = wait_for(restarted, what="container restarted")
    cs = p.status.container_statuses[0]
    assert cs.last_state.terminated.exit_code == 1 and cs.last_state.terminated.reason == "Error"
    assert p.status.phase in ("Running", "Pending")
    assert p.status.phase != "Failed"
    v1.delete_namespaced_pod(name, NS, grace_period_seconds=0)
    wait_for(lambda: gone(v1, name), what="cleanup")


@pytest.mark.xfail(strict=False, reason="kubesim's main must call ks_kubelet_set_apiserver() once it listens")
def test_in_cluster_client_works(cluster):
    """A pod's in-cluster client (KUBERNETES_SERVICE_HOST/PORT, service-account token and ca.crt) reads
    its own pod from the API server."""
    v1 = cluster.v1
    name = uniq("incluster")
    code = ("import os; from kubernetes import client, config; config.load_incluster_config(); "
            "ns = open('/var/run/secrets/kubernetes.io/serviceaccount/namespace').read(); "
            "print('IP=' + client.CoreV1Api().read_namespaced_pod(os.environ['HOSTNAME'], ns).status.pod_ip)")
    v1.create_namespaced_pod(NS, make_pod(name, ["/usr/bin/python3", "-c", code]))
    p = wait_for(lambda: terminal(v1, name), what="in-cluster pod terminal")
    log = v1.read_namespaced_pod_log(name, NS)
    assert p.status.phase == "Succeeded", log
    assert "IP=%s" % p.status.pod_ip in log.splitlines(), log


def test_init_containers_and_empty_dir(cluster):
    v1 = cluster.v1
    name = uniq("init")
    body = make_pod(name, ["sh", "-c", "cat /work/from-init; cat /work/from-init2; pwd"],
                    volumeMounts=[{"name": "work", "mountPath": "/work"}],
                    volumes=[{"name": "work", "emptyDir": {}}])
    body["spec"]["containers"][0]["workingDir"] = "/srv/kubesim-workdir-%s" % name  # created like runc does
    body["spec"]["initContainers"] = [
        {"name": "init1", "image": "busybox", "command": ["sh", "-c", "echo first > /work/from-init"],
         "volumeMounts": [{"name": "work", "mountPath": "/work"}]},
        {"name": "init2", "image": "busybox", "command": ["sh", "-c", "test -f /work/from-init && echo second > /work/from-init2"],
         "volumeMounts": [{"name": "work", "mountPath": "/work"}]}]
    v1.create_namespaced_pod(NS, body)
    p = wait_for(lambda: terminal(v1, name), what="init pod terminal")
    assert p.status.phase == "Succeeded", v1.read_namespaced_pod_log(name, NS)
    assert [s.state.terminated.reason for s in p.status.init_container_statuses] == ["Completed", "Completed"]
    assert {c.type: c.status for c in p.status.conditions}["Initialized"] == "True"
    assert v1.read_namespaced_pod_log(name, NS).split() == ["first", "second", "/srv/kubesim-workdir-%s" % name]
    assert not os.path.exists("/srv/kubesim-workdir-%s" % name), "created on the host"


def test_readiness_probes_exec_and_http(cluster):
    v1 = cluster.v1
    name = uniq("ready")
    d = tempfile.mkdtemp(prefix="ready-", dir=cluster.state)
    body = make_pod(name, ["sleep", "1000"], restart="Always",
                    volumeMounts=[{"name": "data", "mountPath": "/data"}],
                    volumes=[{"name": "data", "hostPath": {"path": d}}])
    c1 = body["spec"]["containers"][0]
    c1["readinessProbe"] = {"exec": {"command": ["test", "-f", "/data/ready"]}, "periodSeconds": 1}
    body["spec"]["containers"].append({
        "name": "web", "image": "busybox",
        "command": ["/usr/bin/python3", "-m", "http.server", "8080", "--bind", "$(POD_IP)"],
        "env": [{"name": "POD_IP", "valueFrom": {"fieldRef": {"fieldPath": "status.podIP"}}}],
        "ports": [{"name": "http", "containerPort": 8080}],
        "readinessProbe": {"httpGet": {"path": "/", "port": "http"}, "periodSeconds": 1}})
    v1.create_namespaced_pod(NS, body)

    def statuses():
        p = v1.read_namespaced_pod(name, NS)
        return p, {c.name: c for c in (p.status.container_statuses or [])}
    wait_for(lambda: (lambda p, cs: p.status.phase == "Running" and cs["web"].ready)(*statuses()),
             what="http readiness probe passes")
    p, cs = statuses()
    assert cs["c"].state.running and not cs["c"].ready, "exec probe cannot pass before /data/ready exists"
    assert {c.type: c.status for c in p.status.conditions}["Ready"] == "False"
    open(os.path.join(d, "ready"), "w").close()
    wait_for(lambda: (lambda p, cs: cs["c"].ready)(*statuses()), what="exec readiness probe passes")
    p, _ = statuses()
    assert {c.type: c.status for c in p.status.conditions}["Ready"] == "True"
    v1.delete_namespaced_pod(name, NS, grace_period_seconds=0)
    wait_for(lambda: gone(v1, name), what="cleanup")


def test_liveness_probe_failure_restarts_container(cluster):
    v1 = cluster.v1
    name = uniq("live")
    body = make_pod(name, ["sleep", "1000"], restart="Always")
    body["spec"]["containers"][0]["livenessProbe"] = {"tcpSocket": {"port": 9}, "periodSeconds": 1,
                                                      "failureThreshold": 1}
    v1.create_namespaced_pod(NS, body)

    def restarted():
        p = v1.read_namespaced_pod(name, NS)
        cs = (p.status.container_statuses or [None])[0]
        return cs if cs and cs.restart_count >= 1 else None
    cs = wait_for(restarted, what="container restarted after failing its liveness probe")
    assert cs.last_state.terminated and cs.last_state.terminated.reason == "Error"
    ev = v1.list_namespaced_event(NS).items
    assert any(e.reason == "Unhealthy" and "Liveness probe failed" in (e.message or "") and
               e.involved_object.name == name for e in ev)
    v1.delete_namespaced_pod(name, NS, grace_period_seconds=0)
    wait_for(lambda: gone(v1, name), what="cleanup")


def test_security_context_host_aliases_and_empty_dir(cluster):
    v1 = cluster.v1
    name, bad = uniq("user"), uniq("nonroot")
    body = make_pod(name, ["sh", "-c", "echo UID=$(id -u) GID=$(id -g) GROUPS=$(id -G); touch /scratch/f && echo WRITE=ok; "
                                       "getent hosts alias.example"],
                    volumeMounts=[{"name": "scratch", "mountPath": "/scratch"}],
                    volumes=[{"name": "scratch", "emptyDir": {}}],
                    securityContext={"runAsUser": 185, "runAsGroup": 185, "fsGroup": 2000},
                    hostAliases=[{"ip": "127.9.9.9", "hostnames": ["alias.example"]}])
    v1.create_namespaced_pod(NS, body)
    p = wait_for(lambda: terminal(v1, name), what="pod terminal")
    log = v1.read_namespaced_pod_log(name, NS)
    assert p.status.phase == "Succeeded", log
    lines = log.splitlines()
    assert "UID=185 GID=185 GROUPS=185 2000" in lines, log
    assert "WRITE=ok" in lines, log
    assert any(l.split()[:2] == ["127.9.9.9", "alias.example"] for l in lines), log
    v1.create_namespaced_pod(NS, make_pod(bad, ["true"], securityContext={"runAsNonRoot": True}))

    def config_error():
        cs = (v1.read_namespaced_pod(bad, NS).status.container_statuses or [None])[0]
        return cs if cs and cs.state.waiting and cs.state.waiting.reason == "CreateContainerConfigError" else None
    cs = wait_for(config_error, what="runAsNonRoot refused")
    assert "runAsNonRoot" in cs.state.waiting.message
    v1.delete_namespaced_pod(bad, NS, grace_period_seconds=0)


def test_unknown_command_is_start_error(cluster):
    v1 = cluster.v1
    name = uniq("nocmd")
    v1.create_namespaced_pod(NS, make_pod(name, ["no-such-command-xyz"]))
    p = wait_for(lambda: terminal(v1, name), what="terminal")
    t = p.status.container_statuses[0].state.terminated
    assert p.status.phase == "Failed" and t.exit_code == 128 and t.reason == "StartError"
    assert "executable file not found" in t.message


def test_no_pod_process_outlives_kubesim():
    state = tempfile.mkdtemp(prefix="cspark-kubelet-stop-")
    d = os.path.join(state, "out")
    os.makedirs(d)
    try:
        with start_kubesim("--state-dir", state) as ks:
            v1 = api_for(ks)
            # the container's shell starts a background child in its own session: only the cgroup /
            # PID-namespace sweep on stop can reach it
            t1, t2 = sleep_token(), sleep_token()
            v1.create_namespaced_pod(NS, make_pod("survivor", ["sh", "-c", "setsid sleep %s & sleep %s" % (t1, t2)]))
            wait_for(lambda: host_pids(t1) and host_pids(t2), what="pod processes found")
            ks.proc.send_signal(signal.SIGTERM)
            ks.proc.wait(timeout=30)
        check_sanitizer_log(ks)
        wait_for(lambda: not host_pids(t1) and not host_pids(t2), 10,
                 what="pod processes gone after kubesim stopped")
    finally:
        shutil.rmtree(state, ignore_errors=True)


def test_no_pod_process_outlives_a_killed_kubesim():
    """SIGKILL leaves kubesim no chance to clean up: PDEATHSIG ends each pod's init and the kernel then ends
    every process of its PID namespace."""
    state = tempfile.mkdtemp(prefix="cspark-kubelet-kill-")
    pid = None
    try:
        with start_kubesim("--state-dir", state) as ks:
            pid = ks.proc.pid
            v1 = api_for(ks)
            t1, t2 = sleep_token(), sleep_token()
            v1.create_namespaced_pod(NS, make_pod("orphan", ["sh", "-c", "setsid sleep %s & sleep %s" % (t1, t2)]))
            wait_for(lambda: host_pids(t1) and host_pids(t2), what="pod processes found")
            ks.proc.kill()
            ks.proc.wait(timeout=30)
        wait_for(lambda: not host_pids(t1) and not host_pids(t2), 10,
                 what="pod processes gone after kubesim was SIGKILLed")
    finally:
        shutil.rmtree(state, ignore_errors=True)
        # the emptied cgroups kubesim could not remove
        for ctrl in ("memory", "cpu"):
            own = own_cgroup(ctrl)
            base = "%s/kubesim-%d" % (own, pid) if own and pid else None
            if base and os.path.isdir(base):
                for sub in os.listdir(base):
                    if os.path.isdir(os.path.join(base, sub)):
                        try:
                            os.rmdir(os.path.join(base, sub))
                        except OSError:
                            pass
                try:
                    os.rmdir(base)
                except OSError:
                    pass


def test_fake_kubelet_500_pods():
    with start_kubesim("--fake-kubelet", "--fake-delay-ms", "50", "--nodes", "2") as ks:
        v1 = api_for(ks)
        names = ["fake-%04d" % i for i in range(500)]

        def create(n):
            body = {"metadata": {"name": n, "labels": {"spark-role": "executor"}},
                    "spec": {"containers": [{"name": "c", "image": "cspark:dev",
                                             "resources": {"requests": {"cpu": "1m", "memory": "1Mi"}}}]}}
            v1.create_namespaced_pod(NS, body)
        with concurrent.futures.ThreadPoolExecutor(8) as ex:
            list(ex.map(create, names))

        def all_running():
            items = v1.list_namespaced_pod(NS, label_selector="spark-role=executor").items
            running = [p for p in items if p.status.phase == "Running"]
            return items if len(running) == len(names) else None
        items = wait_for(all_running, 90, 0.5, what="500 fake pods Running")
        ips = {p.status.pod_ip for p in items}
        assert len(ips) == len(names) and all(ip.startswith("127.") for ip in ips)
        p = items[0]
        cs = p.status.container_statuses[0]
        assert cs.state.running and cs.ready and p.spec.node_name.startswith("kubesim-node-")
        v1.delete_collection_namespaced_pod(NS, label_selector="spark-role=executor")
        wait_for(lambda: not v1.list_namespaced_pod(NS, label_selector="spark-role=executor").items, 60, 0.5,
                 what="fake pods deleted")
