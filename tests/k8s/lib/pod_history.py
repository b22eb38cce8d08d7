"""pod_history.py — kubesim's GET /kubesim/pod-history for any API server, from a pod watch.

  pod_history.py record FILE   watches every pod (kubeconfig from KUBECONFIG) and appends one JSON
                               line per event to FILE: {"t": epoch ms of receipt, "type", "pod"}
  pod_history.py render FILE   prints {"pods": [...]} in kubesim's format: namespace, name, uid,
                               createdMs, nodeName, phases [{phase, timeMs}], exitCodes
                               {container: code}, deletionRequestedMs, deletedMs (epoch ms, taken
                               when the event reached the recorder)

Used by the Kubernetes test frame (tests/k8s/lib/k8s.sh) on the real control plane, where tests
read the pod history as they do on kubesim. Run with /usr/bin/python3 (Debian's python3-kubernetes).
The recorder ends with the shell that started it (the test's inner script), whatever that script's
EXIT trap does: it asks the kernel for SIGTERM when its parent exits, and checks its parent when a
watch ends (a test whose trap replaced the frame's left recorders running, retrying a cluster that
was gone).
"""
import ctypes
import json
import os
import signal
import sys
import time


def end_with_parent():
    parent = os.getppid()
    try:
        PR_SET_PDEATHSIG = 1
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    except (OSError, AttributeError):
        pass  # the check below still ends it
    if os.getppid() != parent:  # the parent went before prctl took effect
        sys.exit(0)
    return parent


def record(path):
    parent = end_with_parent()
    from kubernetes import client, config, watch
    config.load_kube_config()
    api = client.CoreV1Api()
    rv = None
    with open(path, "a", buffering=1) as out:
        while True:
            try:
                w = watch.Watch()
                kw = {"allow_watch_bookmarks": False, "timeout_seconds": 300}
                if rv:
                    kw["resource_version"] = rv
                for ev in w.stream(api.list_pod_for_all_namespaces, **kw):
                    obj = api.api_client.sanitize_for_serialization(ev["object"])
                    rv = obj.get("metadata", {}).get("resourceVersion") or rv
                    out.write(json.dumps({"t": int(time.time() * 1000), "type": ev["type"], "pod": obj}) + "\n")
            except Exception:  # 410 Gone or a dropped connection: watch again from the start
                rv = None
                time.sleep(0.5)
            if os.getppid() != parent:
                return


def render(path):
    pods = {}
    order = []
    with open(path) as f:
        for line in f:
            try:
                e = json.loads(line)
            except ValueError:
                continue  # a line being written
            p = e["pod"]
            md = p.get("metadata", {})
            uid = md.get("uid")
            if not uid:
                continue
            h = pods.get(uid)
            if h is None:
                h = pods[uid] = {"namespace": md.get("namespace"), "name": md.get("name"), "uid": uid,
                                 "createdMs": e["t"], "phases": [], "exitCodes": {}}
                order.append(uid)
            node = (p.get("spec") or {}).get("nodeName")
            if node:
                h["nodeName"] = node
            st = p.get("status") or {}
            ph = st.get("phase")
            if ph and (not h["phases"] or h["phases"][-1]["phase"] != ph):
                h["phases"].append({"phase": ph, "timeMs": e["t"]})
            for cs in (st.get("containerStatuses") or []) + (st.get("initContainerStatuses") or []):
                term = (cs.get("state") or {}).get("terminated")
                if term is not None:
                    h["exitCodes"][cs["name"]] = term.get("exitCode")
            if md.get("deletionTimestamp") and "deletionRequestedMs" not in h:
                h["deletionRequestedMs"] = e["t"]
            if e["type"] == "DELETED":
                h["deletedMs"] = e["t"]
    json.dump({"pods": [pods[u] for u in order]}, sys.stdout)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("record", "render"):
        sys.exit("usage: pod_history.py record|render FILE")
    record(sys.argv[2]) if sys.argv[1] == "record" else render(sys.argv[2])
