"""bonus.py — the --py-files module of tests/k8s/python_job/job.py: imported by the program in the
driver pod and by the Python UDF workers on the executor pods."""


def with_bonus(amount):
    return amount + (10 if amount % 2 == 0 else 1)
