#!/usr/bin/env python3
"""job_time.py — a Spark (or cspark) event log's job-only time, for bench/spark_vs_cspark.sh.

usage: job_time.py EVENT_LOG   (a single uncompressed JSON-lines file)

Prints "jobs=N job_s=S app_s=A": N jobs, S = the sum over jobs of JobEnd.Completion Time -
JobStart.Submission Time (the time the application spent inside actions, JVM start, context
set-up and shutdown excluded), A = ApplicationEnd - ApplicationStart. Exit 1 if a job never ended.
"""
import json
import sys


def main():
    if len(sys.argv) != 2:
        print("usage: job_time.py EVENT_LOG", file=sys.stderr)
        return 2
    started, total, jobs, app0, app1 = {}, 0, 0, None, None
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            e = json.loads(line)
            kind = e.get("Event")
            if kind == "SparkListenerJobStart":
                started[e["Job ID"]] = e["Submission Time"]
            elif kind == "SparkListenerJobEnd":
                total += e["Completion Time"] - started.pop(e["Job ID"])
                jobs += 1
            elif kind == "SparkListenerApplicationStart":
                app0 = e["Timestamp"]
            elif kind == "SparkListenerApplicationEnd":
                app1 = e["Timestamp"]
    if started:
        print(f"job_time: jobs {sorted(started)} never ended in {sys.argv[1]}", file=sys.stderr)
        return 1
    app = (app1 - app0) / 1000 if app0 is not None and app1 is not None else 0
    print(f"jobs={jobs} job_s={total / 1000:.3f} app_s={app:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
