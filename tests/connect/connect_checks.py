"""connect_checks.py — the checks the Spark Connect test programs of tests/connect share.

Imported by the programs beside it (run as scripts, so this folder is on their path):
  check(cond, what)                     exits 1 with "FAIL: what" on stderr unless cond holds
  fail(what)                            the same, unconditionally
  raised(fn)                            the exception fn() raised, or None
  condition_of(fn, kind=AnalysisException)
                                        the Spark error condition (class) of the kind fn() raised,
                                        or None when it raised nothing
  raises(fn, error_class, *words)       checks that fn() raises an AnalysisException of error_class
                                        whose text holds every word
  error_of_udf(fn)                      {"type", "message_has_cause"} of what fn() raised (a UDF
                                        failing "on purpose"), or None: compared across servers
  answers(frames)                       each named DataFrame's answer as compare_results.py
                                        compares them: schema, rows (sorted, values as repr) and
                                        pandas shape
  table(results, name)                  answers' rows of name back as value tuples, sorted with
                                        nulls last
Nothing here holds state; each program owns its session.
"""

import sys

from pyspark.errors import AnalysisException


def fail(what):
    print("FAIL: %s" % what, file=sys.stderr)
    sys.exit(1)


def check(cond, what):
    if not cond:
        fail(what)


def raised(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the caller checks the type
        return e
    return None


def condition_of(fn, kind=AnalysisException):
    try:
        fn()
    except kind as e:
        return e.getCondition()
    return None


def raises(fn, error_class, *words):
    try:
        fn()
    except AnalysisException as e:
        text = str(e)
        first = text.splitlines()[0] if text else ""
        check(e.getCondition() == error_class, "%s: got %s (%s)" % (error_class, e.getCondition(), first))
        for w in words:
            check(w in text, "%s names %r: %s" % (error_class, w, first))
        return
    fail("expected %s" % error_class)


def error_of_udf(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type's name is what is compared
        return {"type": type(e).__name__, "message_has_cause": "on purpose" in str(e)}
    return None


def answers(frames):
    results = {}
    for name, df in frames.items():
        rows = sorted([repr(v) for v in r] for r in df.collect())
        pdf = df.toPandas()
        results[name] = {
            "schema": df.schema.simpleString(),
            "rows": rows,
            "pandas": {"columns": list(pdf.columns), "rows": len(pdf)},
        }
    return results


def _nulls_last(row):
    return [(True, 0) if v is None else (False, v) for v in row]


def table(results, name):
    return sorted((tuple(eval(v) for v in r) for r in results[name]["rows"]), key=_nulls_last)
