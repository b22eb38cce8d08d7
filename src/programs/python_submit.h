/*
 * python_submit.h — `cspark-submit app.py`: a PySpark program run unchanged with Spark 4's
 * spark.api.mode=connect semantics. cspark-submit (submit_main.c) hands a primary resource ending
 * in ".py" here after building and validating the conf; python_submit.c checks the program, the
 * interpreter and --py-files, and runs libcspark itself as the application whose entry,
 * cspark_python_app (python_app.c), serves Spark Connect on loopback and runs the program
 * against it. docs/connect.md ("PySpark applications") describes what the program sees.
 */
#ifndef CSPARK_PROGRAMS_PYTHON_SUBMIT_H
#define CSPARK_PROGRAMS_PYTHON_SUBMIT_H

#include "common/conf.h"

/* Cluster mode on Kubernetes, on the submitting machine: the program app (as given: a path, or a
 * local:// or remote URI the driver pod reads) and every --py-files entry that is a local path
 * must be readable files. Returns 0, or 1 after one "cspark-submit: " line naming what is wrong
 * (nothing has been created). The interpreter is checked in the driver pod, whose image has it. */
int cs_python_submit_check_cluster(const cs_conf *conf, const char *app);

/* Runs the Python program app_path (a local file) with its arguments argv[0..argc) in client
 * mode — on the user's machine, or in the driver pod of a cluster-mode application; conf is the
 * validated application conf (borrowed; the executors' keys are added to it). Returns the
 * process's exit status: the program's own, 128+N when it or cspark-submit was ended by signal
 * N, 1 after one "cspark-submit: " line naming what is wrong (missing file, no interpreter, a bad
 * --py-files entry, a build without the Spark Connect server). Sets PYTHONPATH in this process's
 * environment (the --py-files before it, those at remote URIs fetched into a local directory
 * removed when it returns), so the program and the Python UDF workers of the driver and of
 * local-cluster executors import them; with a k8s:// master the --py-files also go to the
 * executor pods as spark.files entries, and spark.executorEnv.PYTHONPATH names where the pods
 * see them. */
int cs_python_submit_run(cs_conf *conf, const char *app_path, int argc, char **argv);

#endif /* CSPARK_PROGRAMS_PYTHON_SUBMIT_H */
