"""rest_check.py — fetches every REST endpoint of one application and checks each response field
by field against Spark 4's api.v1 schema (spark_api_v1.py).

  rest_check.py check BASE_URL APP_ID OUT.json   every endpoint; writes what was fetched to OUT
  rest_check.py compare A.json B.json            the same answers (the live UI and the history
                                                 server for the same log), but for the fields
                                                 that name where the answer came from
Exit status 0 when everything matches; otherwise one line per problem and status 1.
Standard library only (run with Debian's /usr/bin/python3).
"""
import json
import sys
import urllib.error
import urllib.request

import spark_api_v1 as api


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, json.loads(r.read().decode())
    except urllib.error.HTTPError as e:
        return e.code, None


def check_all(base, app):
    errors, got = [], {}

    def get(path, typ, want_status=200):
        status, body = fetch(base + "/api/v1" + path)
        if status != want_status:
            errors.append(f"GET {path}: status {status}, expected {want_status}")
            return None
        if status == 200:
            api.check(body, typ, path, errors)
            got[path] = body
        return body

    get("/version", "VersionInfo")
    apps = get("/applications", ("seq", "ApplicationInfo")) or []
    if app not in [a.get("id") for a in apps]:
        errors.append(f"/applications does not list {app}")
    root = f"/applications/{app}"
    get(root, "ApplicationInfo")
    for job in get(root + "/jobs", ("seq", "JobData")) or []:
        get(f"{root}/jobs/{job['jobId']}", "JobData")
    get(root + "/stages?details=true", ("seq", "StageData"))
    for st in get(root + "/stages", ("seq", "StageData")) or []:
        sid, att = st["stageId"], st["attemptId"]
        get(f"{root}/stages/{sid}", ("seq", "StageData"))
        get(f"{root}/stages/{sid}/{att}", "StageData")
        get(f"{root}/stages/{sid}/{att}/taskList?length=1000", ("seq", "TaskData"))
        has_done = st["numCompleteTasks"] > 0
        get(f"{root}/stages/{sid}/{att}/taskSummary", "TaskMetricDistributions",
            200 if has_done else 404)
    get(root + "/executors", ("seq", "ExecutorSummary"))
    get(root + "/allexecutors", ("seq", "ExecutorSummary"))
    get(root + "/environment", "ApplicationEnvironmentInfo")
    get(root + "/storage/rdd", ("seq", "RDDStorageInfo"))
    for q in get(root + "/sql", ("seq", "ExecutionData")) or []:
        get(f"{root}/sql/{q['id']}", "ExecutionData")
    get(root + "/sql?details=false&planDescription=false", ("seq", "ExecutionData"))
    get(root + "/sql/999999", "ExecutionData", 404)
    get(root + "/jobs/999999", "JobData", 404)
    return errors, got


# Fields that say where an answer came from, not what the application did: executors' log
# links are served by the live driver only, and their heartbeat metrics (peakMemoryMetrics) are
# not in the event log (Spark logs them only with spark.eventLog.logStageExecutorMetrics).
SOURCE_FIELDS = {"lastUpdated", "lastUpdatedEpoch", "executorLogs", "peakMemoryMetrics"}
# The live UI is asked while the application still runs (it serves nothing once it has ended),
# the history server after: of the application's own record, its end differs.
END_FIELDS = {"completed", "duration", "endTime", "endTimeEpoch"}


def normalize(x, drop=SOURCE_FIELDS):
    if isinstance(x, dict):
        return {k: normalize(v, drop) for k, v in x.items() if k not in drop}
    if isinstance(x, list):
        return [normalize(v, drop) for v in x]
    return x


def first_diff(x, y, where):
    """Where two JSON values first differ, and the two values there."""
    if isinstance(x, dict) and isinstance(y, dict):
        for k in sorted(set(x) | set(y)):
            if k not in x or k not in y:
                return f"{where}.{k}: present in only one"
            if x[k] != y[k]:
                return first_diff(x[k], y[k], f"{where}.{k}")
    if isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            return f"{where}: {len(x)} vs {len(y)} elements"
        for i, (u, v) in enumerate(zip(x, y)):
            if u != v:
                return first_diff(u, v, f"{where}[{i}]")
    return f"{where}: {json.dumps(x)[:200]} vs {json.dumps(y)[:200]}"


def compare(a, b):
    errors = []
    for path in sorted(set(a) | set(b)):
        if path not in a or path not in b:
            errors.append(f"{path}: answered by only one of them")
            continue
        drop = SOURCE_FIELDS | END_FIELDS if path.count("/") <= 2 else SOURCE_FIELDS
        x, y = normalize(a[path], drop), normalize(b[path], drop)
        if x != y:
            errors.append(f"{path}: the answers differ at {first_diff(x, y, '')}")
    return errors


def main(argv):
    if len(argv) == 5 and argv[1] == "check":
        errors, got = check_all(argv[2].rstrip("/"), argv[3])
        with open(argv[4], "w") as f:
            json.dump(got, f, indent=1, sort_keys=True)
        print(f"rest_check: {len(got)} responses checked against Spark 4's api.v1 schema")
    elif len(argv) == 4 and argv[1] == "compare":
        with open(argv[2]) as f:
            a = json.load(f)
        with open(argv[3]) as f:
            b = json.load(f)
        errors = compare(a, b)
        print(f"rest_check: {len(a)} responses compared")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for e in errors:
        print("rest_check:", e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
