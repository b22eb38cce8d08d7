"""eventlog_check.py — checks on a cspark event log (Spark's JSON lines) for the dynamic allocation
and decommissioning tests. Prints one line of findings; exits 1 with the reason on failure.

  eventlog_check.py scaled LOG MIN MAX    dynamic allocation's outcome: the target rose above
                                          max(MIN, 1) and never above MAX, then fell to MIN; every
                                          executor beyond MIN was removed as idle before the
                                          application ended. Prints "removed=N". (The ramp's shape
                                          — 1, 2, 4, ... per backlog round — depends on timing and
                                          is checked on the pure policy: tests/unit/sched/
                                          test_allocation_policy.c.)
  eventlog_check.py attempts LOG          every stage ran exactly one attempt
  eventlog_check.py reran LOG             some map task ran again (a stage attempt > 0, or more
                                          successful ShuffleMapTask ends than map partitions)
  eventlog_check.py kept LOG              shuffle tracking: every executor that ran a map task
                                          stayed registered until the job ended
"""
import json
import sys

TARGET = "org.cspark.scheduler.ExecutorAllocationTargetUpdate"


def events(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def fail(msg):
    print("eventlog_check: " + msg)
    sys.exit(1)


def scaled(evs, lo, hi):
    seq = [e["Target Executors"] for e in evs if e["Event"] == TARGET]
    if not seq:
        fail("no allocation target updates in the event log")
    if max(seq) <= max(lo, 1):
        fail("the target never rose above %d (updates: %s)" % (max(lo, 1), seq))
    if max(seq) > hi:
        fail("the target rose above maxExecutors %d (updates: %s)" % (hi, seq))
    if seq[-1] != lo:
        fail("the target ended at %d, not minExecutors %d (updates: %s)" % (seq[-1], lo, seq))
    # the driver is listed as an executor too, as Spark does
    added = [e["Executor ID"] for e in evs if e["Event"] == "SparkListenerExecutorAdded"
             and e["Executor ID"] != "driver"]
    removed = [e for e in evs if e["Event"] == "SparkListenerExecutorRemoved"
               and "idle" in e.get("Removed Reason", "")]
    end = [e["Timestamp"] for e in evs if e["Event"] == "SparkListenerApplicationEnd"]
    live, peak = 0, 0
    for e in evs:
        if e["Event"] == "SparkListenerExecutorAdded" and e["Executor ID"] != "driver":
            live += 1
            peak = max(peak, live)
        elif e["Event"] == "SparkListenerExecutorRemoved":
            live -= 1
    if peak > hi:
        fail("%d executors were registered at once, more than maxExecutors %d" % (peak, hi))
    if len(removed) != len(added) - lo:
        fail("%d executors removed as idle, expected %d of the %d added"
             % (len(removed), len(added) - lo, len(added)))
    if end and any(e["Timestamp"] > end[0] for e in removed):
        fail("executors were removed after the application ended")
    print("scaled ok: targets %s, %d executors added, removed=%d as idle" % (seq, len(added), len(removed)))


def attempts(evs):
    subs = [(e["Stage Info"]["Stage ID"], e["Stage Info"]["Stage Attempt ID"]) for e in evs
            if e["Event"] == "SparkListenerStageSubmitted"]
    again = [s for s in subs if s[1] > 0]
    if not subs:
        fail("no stages in the event log")
    if again:
        fail("stages ran again: %s" % again)
    resub = [e for e in evs if e["Event"] == "SparkListenerTaskEnd"
             and e.get("Task End Reason", {}).get("Reason") != "Success"]
    print("attempts ok: %d stages, one attempt each; %d unsuccessful task ends" % (len(subs), len(resub)))


def reran(evs):
    subs = [(e["Stage Info"]["Stage ID"], e["Stage Info"]["Stage Attempt ID"]) for e in evs
            if e["Event"] == "SparkListenerStageSubmitted"]
    maps = {}
    for e in evs:
        if e["Event"] == "SparkListenerTaskEnd" and e["Task Type"] == "ShuffleMapTask" \
                and e["Task End Reason"]["Reason"] == "Success":
            maps.setdefault(e["Stage ID"], []).append(e["Task Info"]["Index"])
    dup = {s: len(v) - len(set(v)) for s, v in maps.items() if len(v) != len(set(v))}
    if not dup and not any(a > 0 for _, a in subs):
        fail("no map task ran again (stage attempts %s)" % subs)
    print("reran ok: stage attempts %s, map partitions run again %s" % (subs, dup))


def kept(evs):
    holders = {e["Task Info"]["Executor ID"] for e in evs if e["Event"] == "SparkListenerTaskEnd"
               and e["Task Type"] == "ShuffleMapTask" and e["Task End Reason"]["Reason"] == "Success"}
    job_end = [e["Completion Time"] for e in evs if e["Event"] == "SparkListenerJobEnd"]
    if not holders or not job_end:
        fail("no map tasks or no job end in the event log")
    removed = {e["Executor ID"]: e["Timestamp"] for e in evs if e["Event"] == "SparkListenerExecutorRemoved"}
    early = [x for x in holders if x in removed and removed[x] < job_end[0]]
    if early:
        fail("executors holding the job's shuffle data were removed while it ran: %s" % early)
    # the check means something only if a holder sat idle (no task) longer than the idle timeout
    # while the job ran: the longest gap between two of its tasks
    spans = {}
    for e in evs:
        if e["Event"] == "SparkListenerTaskEnd":
            i = e["Task Info"]
            spans.setdefault(i["Executor ID"], []).append((i["Launch Time"], i["Finish Time"]))
    idle = 0
    for x in holders:
        s = sorted(spans.get(x, []))
        for (_, end), (start, _) in zip(s, s[1:]):
            idle = max(idle, start - end)
    if len(sys.argv) > 3 and idle < int(sys.argv[3]):
        fail("no shuffle holder was idle for %s ms during the job (longest %d ms)" % (sys.argv[3], idle))
    print("kept ok: shuffle holders %s stayed until the job ended (one idle for %d ms meanwhile)"
          % (sorted(holders), idle))


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    evs = events(path)
    if cmd == "scaled":
        scaled(evs, int(sys.argv[3]), int(sys.argv[4]))
    elif cmd == "attempts":
        attempts(evs)
    elif cmd == "reran":
        reran(evs)
    elif cmd == "kept":
        kept(evs)
    else:
        fail("unknown check " + cmd)


if __name__ == "__main__":
    main()
