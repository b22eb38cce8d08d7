"""alloc_watch.py — executor pods of one allocation run, seen through a pod watch (bench/spark_k8s_alloc.sh).

  alloc_watch.py record EVENTS STATUS   LISTs then watches the pods labelled spark-role=executor in the
                                        kubeconfig's namespace (KUBECONFIG; default `default`) and appends
                                        one JSON line per event to EVENTS: {"t": epoch ms of receipt,
                                        "type", "uid", "name", "app", "id", "phase", "deleting"}. After the
                                        LIST and after every event it rewrites STATUS (atomically) as
                                        "running=R alive=A seen=S": Running pods not being deleted, pods
                                        not yet deleted, pods ever seen. Runs until killed.
  alloc_watch.py summary EVENTS N T0    prints key=value figures of the run: first executor pod seen, time
                                        to 100 / N/2 / N pods Running (from the first pod and from T0, the
                                        driver's launch, epoch ms), pods created, pods per executor id
                                        beyond the first (duplicates), names seen twice, and pods not
                                        deleted by the end of EVENTS.

The watch reads the raw stream and parses each line with json (no model objects), so 1,000 pods cost
the recorder little CPU beside the API server and the driver under test. Same client rules as the
benchmarks' other watchers: /usr/bin/python3 with Debian's python3-kubernetes.
"""
import json
import os
import sys
import time


def now_ms():
    return int(time.time() * 1000)


def pod_line(t, typ, pod):
    md = pod.get("metadata") or {}
    labels = md.get("labels") or {}
    return {"t": t, "type": typ, "uid": md.get("uid"), "name": md.get("name"),
            "app": labels.get("spark-app-selector"), "id": labels.get("spark-exec-id"),
            "phase": (pod.get("status") or {}).get("phase"),
            "deleting": bool(md.get("deletionTimestamp"))}


class Table:
    """Pods by uid: the last state seen, and the counts STATUS reports."""

    def __init__(self, status_path):
        self.status_path = status_path
        self.pods = {}
        self.seen = set()

    def apply(self, ev):
        self.seen.add(ev["uid"])
        if ev["type"] == "DELETED":
            self.pods.pop(ev["uid"], None)
        else:
            self.pods[ev["uid"]] = ev

    def write_status(self):
        running = sum(1 for p in self.pods.values() if p["phase"] == "Running" and not p["deleting"])
        tmp = self.status_path + ".tmp"
        with open(tmp, "w") as f:
            f.write("running=%d alive=%d seen=%d\n" % (running, len(self.pods), len(self.seen)))
        os.replace(tmp, self.status_path)


def record(events_path, status_path):
    from kubernetes import client, config
    from kubernetes.watch.watch import iter_resp_lines
    config.load_kube_config()
    try:
        namespace = config.list_kube_config_contexts()[1]["context"].get("namespace") or "default"
    except (KeyError, TypeError, IndexError):
        namespace = "default"
    api = client.CoreV1Api()
    selector = "spark-role=executor"
    table = Table(status_path)
    with open(events_path, "a", buffering=1) as out:
        rv = None
        while True:
            try:
                if rv is None:  # (re)list: every pod present is an event of its own
                    resp = api.list_namespaced_pod(namespace, label_selector=selector, _preload_content=False)
                    body = json.loads(resp.data)
                    t = now_ms()
                    listed = set()
                    for pod in body.get("items") or []:
                        ev = pod_line(t, "LISTED", pod)
                        listed.add(ev["uid"])
                        table.apply(ev)
                        out.write(json.dumps(ev) + "\n")
                    for uid in [u for u in table.pods if u not in listed]:  # deleted while not watching
                        ev = dict(table.pods[uid], t=t, type="DELETED")
                        table.apply(ev)
                        out.write(json.dumps(ev) + "\n")
                    rv = body["metadata"]["resourceVersion"]
                    table.write_status()
                resp = api.list_namespaced_pod(namespace, label_selector=selector, watch=True,
                                               resource_version=rv, timeout_seconds=300,
                                               allow_watch_bookmarks=True, _preload_content=False)
                for line in iter_resp_lines(resp):
                    e = json.loads(line)
                    obj = e.get("object") or {}
                    if e.get("type") == "ERROR":  # 410 Gone: list again
                        rv = None
                        break
                    rv = (obj.get("metadata") or {}).get("resourceVersion") or rv
                    if e.get("type") == "BOOKMARK":
                        continue
                    ev = pod_line(now_ms(), e["type"], obj)
                    table.apply(ev)
                    out.write(json.dumps(ev) + "\n")
                    table.write_status()
            except Exception as exc:  # a dropped connection: watch again from where we were
                print("alloc_watch: %s; watching again" % exc, file=sys.stderr)
                time.sleep(0.2)


def summary(events_path, n, t0):
    first_seen = {}  # uid -> ms
    running_at = {}  # uid -> ms, first Running
    names, ids, deleted = {}, {}, set()
    with open(events_path) as f:
        for line in f:
            try:
                ev = json.loads(line)
            except ValueError:
                continue  # a line being written when the recorder was stopped
            uid = ev["uid"]
            if uid not in first_seen:
                first_seen[uid] = ev["t"]
                names[ev["name"]] = names.get(ev["name"], 0) + 1
                key = (ev["app"], ev["id"])
                ids[key] = ids.get(key, 0) + 1
            if ev["phase"] == "Running" and not ev["deleting"] and uid not in running_at:
                running_at[uid] = ev["t"]
            if ev["type"] == "DELETED":
                deleted.add(uid)
    out = {}
    if not first_seen:
        print("pods=0")
        return
    first = min(first_seen.values())
    runs = sorted(running_at.values())
    out["first_pod_after_launch_s"] = "%.1f" % ((first - t0) / 1000.0)
    for k in sorted({100, n // 2, n}):
        if len(runs) >= k:
            out["running_%d_s" % k] = "%.1f" % ((runs[k - 1] - first) / 1000.0)
            out["running_%d_launch_s" % k] = "%.1f" % ((runs[k - 1] - t0) / 1000.0)
        else:
            out["running_%d_s" % k] = "nan"
            out["running_%d_launch_s" % k] = "nan"
    out["pods"] = len(first_seen)
    out["ever_running"] = len(runs)
    out["duplicate_ids"] = sum(c - 1 for c in ids.values())
    out["duplicate_names"] = sum(c - 1 for c in names.values())
    out["apps"] = len({a for a, _ in ids})
    out["not_deleted"] = len(set(first_seen) - deleted)
    for k, v in out.items():
        print("%s=%s" % (k, v))


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "record":
        record(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 5 and sys.argv[1] == "summary":
        summary(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
