"""helpers.py — the --py-files module of tests/connect/python_app/app.py: imported by the program and
by the Python UDF workers that run triple."""


def triple(x):
    return x * 3
