"""ui_sql_check.py — what the SQL tab and /api/v1/applications/<id>/sql must show for the queries
a test ran through cspark-sql (tests/integration/ui_sql.sh, tests/spark/history_server_sql.sh).

  ui_sql_check.py ui API_BASE PAGE_BASE APP QUERIES.json
      the REST answers (Spark 4's ExecutionData, field by field), the /SQL/ list, each query's
      page and its jobs' pages; retried for up to 60 s while the answer is not yet complete (the
      live UI follows the listener bus)
  ui_sql_check.py events LINES QUERIES.json
      the event log's lines: SQLExecutionStart / End as Spark 4 writes them, the jobs' Properties
      naming their query
  ui_sql_check.py same BASE_A BASE_B APP
      the two servers' /sql answers are the same (cspark-history and Spark's History Server over
      one log), retried for up to 120 s while either is not complete

QUERIES.json: [{"text": "...", "status": "COMPLETED" | "FAILED", "plan": ["HashAggregate", ...]}]
in execution order; "plan" names nodes the plan must have. Exit 0 when all holds, else one line
per problem and exit 1. Standard library only (Debian's /usr/bin/python3).
"""
import html
import json
import sys
import time
import urllib.error
import urllib.request

FIELDS = ["id", "status", "description", "planDescription", "submissionTime", "duration",
          "runningJobIds", "successJobIds", "failedJobIds", "nodes", "edges"]


def esc(text):
    """text as the UI's pages escape it (& < > " ')."""
    return html.escape(text, quote=False).replace('"', "&quot;").replace("'", "&#39;")


def fetch(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except (urllib.error.URLError, ConnectionError) as e:
        return 0, str(e)


def get_json(url):
    status, body = fetch(url)
    return json.loads(body) if status == 200 else {"status": status, "body": body[:200]}


def check_execution(e, q, errs, where):
    if list(e) != FIELDS:
        errs.append(f"{where}: fields {list(e)}, expected Spark's {FIELDS}")
        return
    if e["description"] != q["text"]:
        errs.append(f"{where}: description {e['description']!r}, expected {q['text']!r}")
    if e["status"] != q["status"]:
        errs.append(f"{where}: status {e['status']}, expected {q['status']}")
    if e["runningJobIds"]:
        errs.append(f"{where}: running jobs {e['runningJobIds']} after the query ended")
    if q.get("local"):  # answered on the driver with no job, as Spark's LocalTableScan
        if e["successJobIds"] or e["failedJobIds"]:
            errs.append(f"{where}: jobs {e['successJobIds']} {e['failedJobIds']} for a local query")
    elif q["status"] == "COMPLETED" and (e["failedJobIds"] or not e["successJobIds"]):
        errs.append(f"{where}: jobs {e['successJobIds']} succeeded, {e['failedJobIds']} failed")
    if q["status"] == "FAILED" and not e["failedJobIds"]:
        errs.append(f"{where}: no failed job")
    plan = e["planDescription"]
    if not plan.startswith("== Physical Plan ==\n"):
        errs.append(f"{where}: planDescription {plan[:80]!r}")
    names = [n["nodeName"] for n in e["nodes"]]
    for name in q.get("plan", []):
        if name not in names or name not in plan:
            errs.append(f"{where}: no {name} node in the plan ({names}; {plan[:300]!r})")
    ids = [n["nodeId"] for n in e["nodes"]]
    if ids != list(range(len(ids) - 1, -1, -1)):
        errs.append(f"{where}: node ids {ids}, expected {len(ids) - 1} down to 0")
    if len(e["edges"]) != max(len(ids) - 1, 0) or any(
            not (0 <= x["toId"] < x["fromId"] < len(ids)) for x in e["edges"]):
        errs.append(f"{where}: edges {e['edges']} do not make a tree of the {len(ids)} nodes")
    if any(n["metrics"] != [] for n in e["nodes"]):
        errs.append(f"{where}: metrics without SQL metrics: {e['nodes']}")


def ui_problems(api, base, app, queries):
    root = f"{api}/api/v1/applications/{app}"
    errs = []
    execs = get_json(root + "/sql")
    if not isinstance(execs, list) or len(execs) != len(queries):
        return [f"/sql: {json.dumps(execs)[:300]}, expected {len(queries)} queries"]
    ids = [e["id"] for e in execs]
    if ids != sorted(ids):
        errs.append(f"/sql: ids {ids} not ascending")
    jobs = get_json(root + "/jobs")
    job_of = {j["jobId"]: j for j in jobs} if isinstance(jobs, list) else {}
    seen_jobs = set()
    for e, q in zip(execs, queries):
        where = f"/sql[{e['id']}]"
        check_execution(e, q, errs, where)
        one = get_json(f"{root}/sql/{e['id']}")
        if one != e:
            errs.append(f"/sql/{e['id']}: differs from the list's entry: {json.dumps(one)[:300]}")
        for jid in e["successJobIds"] + e["failedJobIds"]:
            seen_jobs.add(jid)
            j = job_of.get(jid)
            want = "SUCCEEDED" if jid in e["successJobIds"] else "FAILED"
            if not j or j["status"] != want or j.get("description") != q["text"]:
                errs.append(f"{where}: job {jid} is {json.dumps(j)[:200]}, expected {want} "
                            f"with the statement as its description")
    if job_of and seen_jobs != set(job_of):
        errs.append(f"jobs {sorted(set(job_of) - seen_jobs)} belong to no query")
    bare = get_json(root + "/sql?details=false&planDescription=false")
    if not isinstance(bare, list) or any(
            x["nodes"] or x["edges"] or x["planDescription"] for x in bare):
        errs.append(f"/sql?details=false&planDescription=false: {json.dumps(bare)[:300]}")
    window = get_json(root + "/sql?offset=1&length=2")
    if not isinstance(window, list) or [x["id"] for x in window] != ids[1:3]:
        errs.append(f"/sql?offset=1&length=2: {json.dumps(window)[:200]}, expected ids {ids[1:3]}")
    status, body = fetch(root + "/sql/999999")
    if status != 404 or "unknown query execution id: 999999" not in body:
        errs.append(f"/sql/999999: {status} {body[:100]!r}, expected 404 as Spark's")
    if errs:
        return errs
    # the pages
    status, page = fetch(base + "/SQL/")
    counts = {s: sum(q["status"] == s for q in queries) for s in ("COMPLETED", "FAILED")}
    if status != 200 or f'id="completed-sql-count">{counts["COMPLETED"]}<' not in page or \
            f'id="failed-sql-count">{counts["FAILED"]}<' not in page:
        errs.append(f"/SQL/: {status}, not the counts {counts}")
    for e in execs:
        if f'id="sql-{e["id"]}"' not in page or esc(e["description"]) not in page:
            errs.append(f"/SQL/ has no row for query {e['id']}")
        for jid in e["successJobIds"] + e["failedJobIds"]:
            if f'/jobs/job/?id={jid}">[{jid}]</a>' not in page:
                errs.append(f"/SQL/ has no link to job {jid} of query {e['id']}")
        status, qp = fetch(f"{base}/SQL/execution/?id={e['id']}")
        if status != 200 or f'id="sql-status">{e["status"]}<' not in qp or \
                esc(e["description"]) not in qp:
            errs.append(f"/SQL/execution/?id={e['id']}: {status}, no status or description")
        if esc(e["planDescription"]) not in qp:
            errs.append(f"/SQL/execution/?id={e['id']}: the physical plan is not shown")
        boxes = qp.count('<g class="stage')
        if boxes != len(e["nodes"]):
            errs.append(f"/SQL/execution/?id={e['id']}: {boxes} boxes drawn for "
                        f"{len(e['nodes'])} plan nodes")
        for jid in e["successJobIds"] + e["failedJobIds"]:
            if f'id="job-{jid}"' not in qp:
                errs.append(f"/SQL/execution/?id={e['id']}: job {jid} not in its jobs table")
            status, jp = fetch(f"{base}/jobs/job/?id={jid}")
            if f'/SQL/execution/?id={e["id"]}">{e["id"]}</a>' not in jp:
                errs.append(f"the page of job {jid} does not link its query {e['id']}")
    status, _ = fetch(f"{base}/SQL/execution/?id=999999")
    if status != 404:
        errs.append(f"/SQL/execution/?id=999999: {status}, expected 404")
    status, jobs_page = fetch(base + "/jobs/")
    if "/SQL/\">SQL / DataFrame</a>" not in jobs_page:
        errs.append("the Jobs page has no SQL / DataFrame tab")
    return errs


def event_problems(lines_file, queries):
    errs, starts, ends, job_exec = [], [], [], {}
    with open(lines_file) as f:
        for line in f:
            ev = json.loads(line)
            name = ev["Event"]
            if name.endswith("SparkListenerSQLExecutionStart"):
                starts.append(ev)
            elif name.endswith("SparkListenerSQLExecutionEnd"):
                ends.append(ev)
            elif name == "SparkListenerJobStart":
                job_exec[ev["Job ID"]] = ev["Properties"].get("spark.sql.execution.id")
    start_fields = ["Event", "executionId", "rootExecutionId", "description", "details",
                    "physicalPlanDescription", "sparkPlanInfo", "time", "modifiedConfigs",
                    "jobTags", "jobGroupId"]
    if [s["description"] for s in starts] != [q["text"] for q in queries]:
        errs.append(f"SQLExecutionStart descriptions {[s['description'] for s in starts]}")
    for s, q in zip(starts, queries):
        if list(s) != start_fields:
            errs.append(f"SQLExecutionStart fields {list(s)}, expected Spark 4's {start_fields}")
        info = s["sparkPlanInfo"]
        stack, names = [info], []
        while stack:
            n = stack.pop()
            if list(n) != ["nodeName", "simpleString", "children", "metadata", "metrics"]:
                errs.append(f"sparkPlanInfo node fields {list(n)}")
                break
            names.append(n["nodeName"])
            if not n["simpleString"].startswith(n["nodeName"]):
                errs.append(f"simpleString {n['simpleString']!r} of {n['nodeName']}")
            stack.extend(n["children"])
        for name in q.get("plan", []):
            if name not in names:
                errs.append(f"query {s['executionId']}: no {name} in sparkPlanInfo ({names})")
    by_id = {e["executionId"]: e for e in ends}
    for s, q in zip(starts, queries):
        end = by_id.get(s["executionId"])
        if not end or list(end) != ["Event", "executionId", "time", "errorMessage"]:
            errs.append(f"SQLExecutionEnd of {s['executionId']}: {json.dumps(end)[:200]}")
            continue
        if (end["errorMessage"] == "") != (q["status"] == "COMPLETED"):
            errs.append(f"SQLExecutionEnd of {s['executionId']}: errorMessage "
                        f"{end['errorMessage'][:100]!r} for a query that is {q['status']}")
        if end["time"] < s["time"]:
            errs.append(f"query {s['executionId']} ended before it started")
    ids = {str(s["executionId"]) for s in starts}
    if not job_exec or any(v not in ids for v in job_exec.values()):
        errs.append(f"jobs' spark.sql.execution.id {job_exec}, expected one of {sorted(ids)}")
    return errs


def same_problems(a, b, app):
    x = get_json(f"{a}/api/v1/applications/{app}/sql")
    y = get_json(f"{b}/api/v1/applications/{app}/sql")
    if x == y and isinstance(x, list) and x:
        return []
    return [f"/sql differs:\n  {json.dumps(x)[:1500]}\n  {json.dumps(y)[:1500]}"]


def retry(fn, seconds):
    deadline = time.time() + seconds
    while True:
        errs = fn()
        if not errs or time.time() > deadline:
            return errs
        time.sleep(0.5)


def main(argv):
    if len(argv) == 6 and argv[1] == "ui":
        with open(argv[5]) as f:
            queries = json.load(f)
        errs = retry(lambda: ui_problems(argv[2].rstrip("/"), argv[3].rstrip("/"), argv[4],
                                         queries), 60)
    elif len(argv) == 4 and argv[1] == "events":
        with open(argv[3]) as f:
            errs = event_problems(argv[2], json.load(f))
    elif len(argv) == 5 and argv[1] == "same":
        errs = retry(lambda: same_problems(argv[2].rstrip("/"), argv[3].rstrip("/"), argv[4]),
                     120)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    for e in errs:
        print("ui_sql_check:", e)
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
