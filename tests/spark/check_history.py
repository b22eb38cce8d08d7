#!/usr/bin/env python3
"""check_history.py — what Apache Spark's History Server shows of cspark's event logs, checked
against the logs themselves and against facts the test measured independently.

usage: check_history.py URL EVENT_DIR FACTS_JSON

URL is the History Server (http://127.0.0.1:PORT); EVENT_DIR holds one cspark event log per
application as plain lines (history_server.sh writes them with cat_event_log: the logs themselves
are rolled and zstd-compressed); FACTS_JSON maps application names to facts the test knows from
outside the logs (input sizes, line counts, the job's printed result, which failures were planned). Called by
tests/spark/history_server.sh once the server runs. For every application it checks, through
Spark's REST API (/api/v1): the application is listed with its name, user, start and end times,
completed; every job with its status, stages and task counts; every stage attempt with its status,
task count, completed and failed tasks, RDDs and summed task metrics (input, output, shuffle read
local/remote bytes and blocks, shuffle write, spill); every task with its attempt number, executor,
host, status and metrics; every executor added, and removed with its reason. Then the per-app facts.
Waits (bounded) for the server to list every application. Prints one line per application;
exits 1 at the first mismatch with a line saying what differs.
"""
import glob
import json
import os
import sys
import time
import urllib.error
import urllib.request

# REST StageData field -> path of the summed value in cspark's "Task Metrics"
STAGE_METRICS = {
    "inputBytes": ("Input Metrics", "Bytes Read"),
    "inputRecords": ("Input Metrics", "Records Read"),
    "outputBytes": ("Output Metrics", "Bytes Written"),
    "outputRecords": ("Output Metrics", "Records Written"),
    "shuffleLocalBytesRead": ("Shuffle Read Metrics", "Local Bytes Read"),
    "shuffleRemoteBytesRead": ("Shuffle Read Metrics", "Remote Bytes Read"),
    "shuffleLocalBlocksFetched": ("Shuffle Read Metrics", "Local Blocks Fetched"),
    "shuffleRemoteBlocksFetched": ("Shuffle Read Metrics", "Remote Blocks Fetched"),
    "shuffleReadRecords": ("Shuffle Read Metrics", "Total Records Read"),
    "shuffleWriteBytes": ("Shuffle Write Metrics", "Shuffle Bytes Written"),
    "shuffleWriteRecords": ("Shuffle Write Metrics", "Shuffle Records Written"),
    "memoryBytesSpilled": ("Memory Bytes Spilled",),
    "diskBytesSpilled": ("Disk Bytes Spilled",),
    "executorRunTime": ("Executor Run Time",),
    "executorCpuTime": ("Executor CPU Time",),
    "resultSize": ("Result Size",),
}
# REST TaskMetrics (nested) -> the same paths
TASK_METRICS = {
    ("inputMetrics", "bytesRead"): ("Input Metrics", "Bytes Read"),
    ("inputMetrics", "recordsRead"): ("Input Metrics", "Records Read"),
    ("outputMetrics", "bytesWritten"): ("Output Metrics", "Bytes Written"),
    ("outputMetrics", "recordsWritten"): ("Output Metrics", "Records Written"),
    ("shuffleReadMetrics", "localBytesRead"): ("Shuffle Read Metrics", "Local Bytes Read"),
    ("shuffleReadMetrics", "remoteBytesRead"): ("Shuffle Read Metrics", "Remote Bytes Read"),
    ("shuffleReadMetrics", "localBlocksFetched"): ("Shuffle Read Metrics", "Local Blocks Fetched"),
    ("shuffleReadMetrics", "remoteBlocksFetched"): ("Shuffle Read Metrics", "Remote Blocks Fetched"),
    ("shuffleReadMetrics", "recordsRead"): ("Shuffle Read Metrics", "Total Records Read"),
    ("shuffleWriteMetrics", "bytesWritten"): ("Shuffle Write Metrics", "Shuffle Bytes Written"),
    ("shuffleWriteMetrics", "recordsWritten"): ("Shuffle Write Metrics", "Shuffle Records Written"),
    ("memoryBytesSpilled",): ("Memory Bytes Spilled",),
    ("diskBytesSpilled",): ("Disk Bytes Spilled",),
    ("executorRunTime",): ("Executor Run Time",),
    ("executorCpuTime",): ("Executor CPU Time",),
    ("peakExecutionMemory",): ("Peak Execution Memory",),
}


class Mismatch(Exception):
    pass



def error_message(reason):
    """What Spark's AppStatusListener shows as a failed task's errorMessage (or a part of it):
    TaskEndReason.toErrorString, but a TaskKilled's kill reason alone."""
    kind = reason["Reason"]
    if kind == "ExecutorLostFailure":
        cause = ("caused by one of the running tasks" if reason.get("Exit Caused By App", True)
                 else "unrelated to the running tasks")
        loss = reason.get("Loss Reason")
        return f"ExecutorLostFailure (executor {reason['Executor ID']} exited {cause})" + (
            f" Reason: {loss}" if loss else "")
    if kind == "TaskKilled":
        return reason.get("Kill Reason", "")
    if kind == "FetchFailed":
        return f"shuffleId={reason['Shuffle ID']}"
    return reason.get("Description", "")

def expect(cond, what):
    if not cond:
        raise Mismatch(what)


def get(base, path):
    with urllib.request.urlopen(base + "/api/v1" + path, timeout=60) as r:
        return json.load(r)


def dig(obj, path):
    for k in path:
        obj = obj[k]
    return obj


class Log:
    """The facts of one cspark event log, as Spark's AppStatusListener would derive them."""

    def __init__(self, path):
        self.events = [json.loads(line) for line in open(path, encoding="utf-8")]
        by = lambda kind: [e for e in self.events if e["Event"] == kind]
        self.start = by("SparkListenerApplicationStart")[0]
        self.end = by("SparkListenerApplicationEnd")[0]
        self.name = self.start["App Name"]
        self.app_id = self.start["App ID"]
        self.jobs = {}  # id -> {stages, status, completed, failed}
        self.stages = {}  # (id, attempt) -> {info, status, tasks: [TaskEnd]}
        self.executors = {}  # id -> {cores, removed}
        running = set()
        active = {}  # stage attempt -> tasks started and not ended
        live = set()  # stage attempts Spark keeps live: pending (listed by a job) or active
        for e in self.events:
            kind = e["Event"]
            if kind == "SparkListenerJobStart":
                self.jobs[e["Job ID"]] = {"stages": set(e["Stage IDs"]), "status": "RUNNING",
                                          "completed": 0, "failed": 0, "killed": 0}
                running.add(e["Job ID"])
                # every stage the job lists becomes a pending stage attempt unless already live
                # (a stage an earlier job completed is listed again: Spark starts it afresh and
                # marks it SKIPPED at the job's end unless the job runs it)
                for i in e["Stage Infos"]:
                    key = (i["Stage ID"], i["Stage Attempt ID"])
                    if key not in live:
                        self.stages[key] = {"info": i, "status": "PENDING", "tasks": []}
                        live.add(key)
            elif kind == "SparkListenerJobEnd":
                ok = e["Job Result"]["Result"] == "JobSucceeded"
                job = self.jobs[e["Job ID"]]
                job["status"] = "SUCCEEDED" if ok else "FAILED"
                running.discard(e["Job ID"])
                for key in [k for k in live if k[0] in job["stages"]]:
                    if self.stages[key]["status"] == "PENDING":
                        self.stages[key]["status"] = "SKIPPED"
                        live.discard(key)
            elif kind == "SparkListenerStageSubmitted":
                i = e["Stage Info"]
                key = (i["Stage ID"], i["Stage Attempt ID"])
                if key not in live:
                    self.stages[key] = {"tasks": []}
                    live.add(key)
                self.stages[key].update(info=i, status="ACTIVE")
                # as Spark's AppStatusListener: the jobs a stage attempt counts its tasks for are
                # the running jobs that list it when it is submitted
                self.stages[key]["jobs"] = [j for j in running if i["Stage ID"] in self.jobs[j]["stages"]]
            elif kind == "SparkListenerStageCompleted":
                i = e["Stage Info"]
                key = (i["Stage ID"], i["Stage Attempt ID"])
                s = self.stages[key]
                s["status"] = "FAILED" if "Failure Reason" in i else "COMPLETE"
                # Spark keeps a completed attempt live until its running tasks have ended
                if active.get(key, 0) == 0:
                    live.discard(key)
            elif kind == "SparkListenerTaskStart":
                key = (e["Stage ID"], e["Stage Attempt ID"])
                if key in live:
                    active[key] = active.get(key, 0) + 1
            elif kind == "SparkListenerTaskEnd":
                key = (e["Stage ID"], e["Stage Attempt ID"])
                self.stages[key]["tasks"].append(e)
                # as Spark's AppStatusListener: a task counts for its stage attempt and that
                # attempt's jobs while the attempt is live — until it completed and no task of it
                # runs; a task of an attempt no longer live (none here, as every task end follows
                # its start) counts for neither
                if key not in live:
                    self.stages[key].setdefault("late", []).append(e)
                    continue
                active[key] = active.get(key, 0) - 1
                if active[key] == 0 and self.stages[key]["status"] in ("COMPLETE", "FAILED"):
                    live.discard(key)
                # as Spark's AppStatusListener: a killed task (or a denied commit) is killed, not
                # failed — which of the two an abandoned attempt's task becomes depends on timing
                reason = e["Task End Reason"]["Reason"]
                outcome = ("completed" if reason == "Success" else
                           "killed" if reason in ("TaskKilled", "TaskCommitDenied") else "failed")
                for j in self.stages[key].get("jobs", []):
                    self.jobs[j][outcome] += 1
            elif kind == "SparkListenerExecutorAdded":
                self.executors[e["Executor ID"]] = {
                    "cores": e["Executor Info"]["Total Cores"], "removed": None}
            elif kind == "SparkListenerExecutorRemoved":
                self.executors[e["Executor ID"]]["removed"] = e["Removed Reason"]


def check_app(base, log, facts):
    apps = {a["id"]: a for a in get(base, "/applications")}
    expect(log.app_id in apps, f"application {log.app_id} is not listed")
    a = apps[log.app_id]
    expect(a["name"] == log.name, f"name {a['name']!r}, expected {log.name!r}")
    att = a["attempts"][0]
    expect(att["completed"] is True, "listed as not completed")
    expect(att["sparkUser"] == log.start["User"], f"sparkUser {att['sparkUser']!r}")
    expect(att["startTimeEpoch"] == log.start["Timestamp"],
           f"startTimeEpoch {att['startTimeEpoch']}, log says {log.start['Timestamp']}")
    expect(att["endTimeEpoch"] == log.end["Timestamp"],
           f"endTimeEpoch {att['endTimeEpoch']}, log says {log.end['Timestamp']}")
    app = "/applications/" + log.app_id

    jobs = {j["jobId"]: j for j in get(base, app + "/jobs")}
    expect(set(jobs) == set(log.jobs), f"jobs {sorted(jobs)}, log has {sorted(log.jobs)}")
    for jid, want in log.jobs.items():
        j = jobs[jid]
        expect(j["status"] == want["status"], f"job {jid} status {j['status']}, expected {want['status']}")
        expect(set(j["stageIds"]) == want["stages"], f"job {jid} stages {j['stageIds']}")
        expect(j["numCompletedTasks"] == want["completed"],
               f"job {jid} numCompletedTasks {j['numCompletedTasks']}, log has {want['completed']}")
        expect(j["numFailedTasks"] == want["failed"],
               f"job {jid} numFailedTasks {j['numFailedTasks']}, log has {want['failed']}")
        expect(j["numKilledTasks"] == want["killed"],
               f"job {jid} numKilledTasks {j['numKilledTasks']}, log has {want['killed']}")

    stages = {(s["stageId"], s["attemptId"]): s for s in get(base, app + "/stages")}
    expect(set(stages) == set(log.stages),
           f"stage attempts {sorted(stages)}, log has {sorted(log.stages)}")
    for key, want in log.stages.items():
        s, where = stages[key], "stage %d.%d" % key
        info = want["info"]
        expect(s["status"] == want["status"], f"{where} status {s['status']}, expected {want['status']}")
        expect(s["numTasks"] == info["Number of Tasks"],
               f"{where} numTasks {s['numTasks']}, log says {info['Number of Tasks']}")
        counted = [t for t in want["tasks"] if t not in want.get("late", [])]
        done = [t for t in counted if t["Task End Reason"]["Reason"] == "Success"]
        killed = [t for t in counted
                  if t["Task End Reason"]["Reason"] in ("TaskKilled", "TaskCommitDenied")]
        failed = [t for t in counted
                  if t["Task End Reason"]["Reason"] != "Success" and t not in killed]
        expect(s["numCompleteTasks"] == len(done), f"{where} numCompleteTasks {s['numCompleteTasks']}, log has {len(done)}")
        expect(s["numFailedTasks"] == len(failed), f"{where} numFailedTasks {s['numFailedTasks']}, log has {len(failed)}")
        expect(s["numKilledTasks"] == len(killed), f"{where} numKilledTasks {s['numKilledTasks']}, log has {len(killed)}")
        rdds = [r["RDD ID"] for r in info["RDD Info"]]
        expect(rdds or want["status"] == "SKIPPED", f"{where}: no RDD Info in the log")
        expect(sorted(s["rddIds"]) == sorted(rdds), f"{where} rddIds {s['rddIds']}, log has {rdds}")
        if not failed and not killed:  # Spark keeps failed tasks' metrics apart from the stage's sums
            for field, path in STAGE_METRICS.items():
                total = sum(dig(t["Task Metrics"], path) for t in counted)
                expect(s[field] == total, f"{where} {field} {s[field]}, tasks in the log sum to {total}")
        tasks = {t["taskId"]: t for t in get(base, f"{app}/stages/{key[0]}/{key[1]}/taskList?length=100000")}
        for t in want["tasks"]:
            ti, tid = t["Task Info"], t["Task Info"]["Task ID"]
            expect(tid in tasks, f"{where} task {tid} is missing")
            r = tasks[tid]
            ok = t["Task End Reason"]["Reason"] == "Success"
            expect(r["attempt"] == ti["Attempt"] and r["index"] == ti["Index"],
                   f"task {tid} index.attempt {r['index']}.{r['attempt']}, log {ti['Index']}.{ti['Attempt']}")
            expect(r["executorId"] == ti["Executor ID"] and r["host"] == ti["Host"],
                   f"task {tid} ran on {r['host']} executor {r['executorId']}, log says {ti['Host']} {ti['Executor ID']}")
            kind = t["Task End Reason"]["Reason"]
            want_status = "SUCCESS" if ok else ("KILLED" if kind == "TaskKilled" else "FAILED")
            expect(r["status"] == want_status, f"task {tid} status {r['status']}, want {want_status}")
            if not ok:
                why = error_message(t["Task End Reason"])
                expect(why and why in r.get("errorMessage", ""),
                       f"task {tid} errorMessage {r.get('errorMessage')!r}, want {why!r} in it")
                continue
            for rest, path in TASK_METRICS.items():
                got, want_v = dig(r["taskMetrics"], rest), dig(t["Task Metrics"], path)
                expect(got == want_v, f"task {tid} {'.'.join(rest)} {got}, log says {want_v}")

    execs = {e["id"]: e for e in get(base, app + "/allexecutors")}
    expect(set(execs) == set(log.executors), f"executors {sorted(execs)}, log has {sorted(log.executors)}")
    for eid, want in log.executors.items():
        e = execs[eid]
        expect(e["totalCores"] == want["cores"], f"executor {eid} totalCores {e['totalCores']}")
        if want["removed"] is None:
            continue
        expect(e["isActive"] is False, f"executor {eid} still active after its removal")
        expect(e.get("removeReason") == want["removed"],
               f"executor {eid} removeReason {e.get('removeReason')!r}, log says {want['removed']!r}")
    check_facts(log, facts, stages, jobs, execs)
    if "cached_rdds" in facts:  # the Storage tab
        listed = {str(r["id"]): r for r in get(base, app + "/storage/rdd")}
        for rid, level in facts["cached_rdds"].items():
            expect(rid in listed, f"RDD {rid} is not in the Storage tab ({sorted(listed)})")
            r = listed[rid]
            expect(r["storageLevel"] == level,
                   f"RDD {rid} storage level {r['storageLevel']!r}, expected {level!r}")
            expect(r["numCachedPartitions"] == r["numPartitions"] and r["memoryUsed"] > 0,
                   f"RDD {rid}: {r['numCachedPartitions']} of {r['numPartitions']} partitions "
                   f"cached, {r['memoryUsed']} bytes in memory")
    if "accumulators" in facts:
        check_accumulators(base, app, facts["accumulators"], stages)


def check_accumulators(base, app, want, stages):
    """Named accumulators as Spark shows them: the final stage's values, and its successful tasks'
    updates adding up to the count (failed attempts add nothing)."""
    final = max(stages)
    s = get(base, f"{app}/stages/{final[0]}/{final[1]}")
    s = s[0] if isinstance(s, list) else s
    got = {a["name"]: a["value"] for a in s.get("accumulatorUpdates", [])}
    expect(got == want, f"stage {final} accumulators {got}, expected {want}")
    tasks = get(base, f"{app}/stages/{final[0]}/{final[1]}/taskList?length=100000")
    total = 0
    for t in tasks:
        ups = {a["name"]: a for a in t.get("accumulatorUpdates", [])}
        if t["status"] != "SUCCESS":
            expect(not ups, f"failed task {t['taskId']} shows accumulator updates {ups}")
            continue
        total += int(ups["records"]["update"])
    expect(str(total) == want["records"], f"task updates of 'records' add up to {total}")


def check_facts(log, f, stages, jobs, execs):
    """What the test knows from outside the log (see history_server.sh)."""
    by_stage = lambda field: sum(s[field] for s in stages.values())
    if "input_bytes" in f:  # word count: job 0 reads the input and saves the counts, job 1 reads them back
        job0 = lambda field: sum(s[field] for k, s in stages.items() if k[0] in jobs[0]["stageIds"])
        job1 = lambda field: sum(s[field] for k, s in stages.items() if k[0] in jobs[1]["stageIds"])
        # a split's reader finishes the line that crosses its end, as Hadoop's LineRecordReader
        # (whose bytes Spark counts, buffer included): the whole file, plus at most a line per split
        read = job0("inputBytes")
        expect(f["input_bytes"] <= read <= f["input_bytes"] + 4096,
               f"job 0 read {read} bytes, the file has {f['input_bytes']}")
        expect(job0("inputRecords") == f["input_records"], f"job 0 read {job0('inputRecords')} records, the file has {f['input_records']} lines")
        expect(job0("outputRecords") == f["output_records"], f"job 0 wrote {job0('outputRecords')} records, {f['output_records']} distinct words")
        expect(job0("outputBytes") == f["output_bytes"], f"job 0 wrote {job0('outputBytes')} bytes, the part files hold {f['output_bytes']}")
        expect(job1("inputBytes") == f["output_bytes"], f"job 1 read {job1('inputBytes')} bytes of the {f['output_bytes']} saved")
    if f.get("shuffle_balanced"):  # every map output read exactly once
        expect(by_stage("shuffleWriteBytes") > 0, "nothing was shuffled")
        read = by_stage("shuffleLocalBytesRead") + by_stage("shuffleRemoteBytesRead")
        expect(read == by_stage("shuffleWriteBytes"),
               f"shuffle read {read} bytes, written {by_stage('shuffleWriteBytes')}")
        expect(by_stage("shuffleReadRecords") == by_stage("shuffleWriteRecords"), "shuffle records read != written")
    if f.get("spills"):
        expect(by_stage("memoryBytesSpilled") > 0 and by_stage("diskBytesSpilled") > 0,
               f"spill memory {by_stage('memoryBytesSpilled')} disk {by_stage('diskBytesSpilled')}")
    if f.get("remote_reads"):
        expect(by_stage("shuffleRemoteBlocksFetched") > 0 and by_stage("shuffleRemoteBytesRead") > 0, "no remote shuffle read")
        expect(by_stage("shuffleLocalBlocksFetched") > 0, "no local shuffle read")
    if f.get("job_failed"):
        expect(any(j["status"] == "FAILED" for j in jobs.values()), "no failed job")
        expect(any(s["status"] == "FAILED" for s in stages.values()), "no failed stage")
    if "max_failures" in f:
        attempts = sorted({t["Task Info"]["Attempt"] for s in log.stages.values() for t in s["tasks"]
                           if t["Task End Reason"]["Reason"] != "Success"})
        expect(attempts == list(range(f["max_failures"])), f"failed attempts {attempts}")
    if f.get("executor_lost"):
        removed = [e for e in execs.values() if not e["isActive"]]
        expect(removed, "no executor removed")
        retried = [s for s in log.stages.values() for t in s["tasks"]
                   if t["Task Info"]["Attempt"] > 0 and t["Task End Reason"]["Reason"] == "Success"]
        expect(retried, "no task succeeded on a retry")
        expect(all(j["status"] == "SUCCEEDED" for j in jobs.values()), "a job failed")
    if f.get("resubmitted"):
        again = [s for k, s in stages.items() if k[1] > 0]
        expect(again, "no stage was resubmitted")
        expect(any(s["status"] == "COMPLETE" and s["numTasks"] < stages[(s["stageId"], 0)]["numTasks"]
                   for s in again), "no resubmitted attempt ran only the missing tasks")
    if "cached_rdds" in f:  # each cached RDD (2 partitions) reads the input once, then its blocks
        reads = [t for k, s in log.stages.items() for t in s["tasks"]
                 if t["Task Metrics"]["Input Metrics"]["Bytes Read"] > 0]
        expect(len(reads) == 2 * len(f["cached_rdds"]),
               f"{len(reads)} tasks read the input; each cached RDD's 2 partitions read it once")
    if f.get("dynamic"):
        expect(len(execs) >= 2, f"{len(execs)} executors added")
        expect(any(not e["isActive"] for e in execs.values()), "no executor removed")


def main():
    if len(sys.argv) != 4:
        print("usage: check_history.py URL EVENT_DIR FACTS_JSON", file=sys.stderr)
        return 2
    base, evdir = sys.argv[1].rstrip("/"), sys.argv[2]
    facts = json.load(open(sys.argv[3], encoding="utf-8"))
    logs = [Log(p) for p in sorted(glob.glob(os.path.join(evdir, "*"))) if not p.endswith(".inprogress")]
    names = {log.name for log in logs}
    missing = set(facts) - names
    if missing:
        print(f"check_history: no event log for {sorted(missing)}", file=sys.stderr)
        return 1
    deadline = time.time() + 240
    while True:  # the server lists an application once it has replayed its log
        try:
            listed = {a["id"] for a in get(base, "/applications")}
        except (urllib.error.URLError, OSError):
            listed = set()
        if all(log.app_id in listed for log in logs):
            break
        if time.time() > deadline:
            print(f"check_history: the History Server lists {sorted(listed)} after 240 s, expected "
                  f"{sorted(log.app_id for log in logs)}", file=sys.stderr)
            return 1
        time.sleep(1)
    for log in logs:
        try:
            check_app(base, log, facts.get(log.name, {}))
        except Mismatch as m:
            print(f"check_history: {log.name} ({log.app_id}): {m}", file=sys.stderr)
            return 1
        print(f"check_history: {log.name}: {len(log.jobs)} jobs, {len(log.stages)} stage attempts, "
              f"{sum(len(s['tasks']) for s in log.stages.values())} tasks, {len(log.executors)} executors: "
              "as cspark logged them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
