/*
 * python_worker_factory.h — an executor's Python workers, as Spark's PythonWorkerFactory with
 * its daemon: one `<python> -m pyspark.daemon` per interpreter (and reuse and faulthandler
 * settings), started on first use, forks a worker for every connection made to it; a worker
 * whose task ended cleanly is kept idle, when spark.python.worker.reuse is on (the daemon then
 * runs SPARK_REUSE_WORKER), and handed to the next task of the same interpreter without a fork,
 * an import or a handshake.
 *
 * Daemon protocol (the installed pyspark/daemon.py): it prints its loopback port on its stdout
 * (an int32); a connection to it is a forked worker, which first sends its pid, then reads the
 * secret (PYTHON_WORKER_FACTORY_SECRET of the daemon's environment, int32 length + bytes) and
 * answers "ok"; then it speaks the worker protocol (python_worker.h) for one task, and for the
 * next ones on the same socket when reused. An int32 pid written to the daemon's stdin kills that
 * worker; the daemon's stdin closed ends the daemon and every worker it forked (SIGHUP to its
 * process group). The daemon's stdout, after the port, is what the workers print: a thread
 * copies it to this process's stdout, as a simple worker's would go there.
 *
 * Pool: at most max_idle idle workers in all (the executor's cores); a worker given back when the
 * pool is full, or not reusable (it failed, its task was killed, or its output was not read to
 * its end), is killed through its daemon. cs_py_worker_factory_free ends every daemon, and with
 * them every worker, idle or not: the executor stops.
 *
 * Ownership: the factory owns its daemons and idle sockets; an acquired socket is the caller's
 * until released. Thread-safe: tasks acquire and release from their own threads (one mutex;
 * the handshake of a new worker runs outside it).
 */
#ifndef CSPARK_SQLEXEC_PYTHON_WORKER_FACTORY_H
#define CSPARK_SQLEXEC_PYTHON_WORKER_FACTORY_H

#include <stdatomic.h>
#include <stdbool.h>

#include "common/err.h"

typedef struct cs_py_worker_factory cs_py_worker_factory;

/* A factory keeping at most max_idle (>= 1) idle workers. */
cs_py_worker_factory *cs_py_worker_factory_new(int max_idle);

/* A worker of python ready for a task's header: an idle one when reuse is on and one is there,
 * else a new fork of the daemon (started if need be), authenticated. A daemon serves one
 * (python, reuse, faulthandler); with faulthandler its workers run with PYTHON_FAULTHANDLER_DIR
 * (a directory of the daemon's, removed with it; *fh_dir: a copy of its path, the caller's to
 * free; else NULL), where a worker's faulthandler writes its log (named by its pid). Fills *fd
 * (blocking mode, close-on-exec; the caller's until released), *pid and *reused. Waits are
 * bounded (60 s) and check cancelled (NULL: never). */
int cs_py_worker_factory_acquire(cs_py_worker_factory *f, const char *python, bool reuse,
                                 bool faulthandler, const _Atomic int *cancelled, int *fd, int *pid,
                                 bool *reused, char **fh_dir, cs_error *err);

/* Gives a worker back (fd taken over): kept idle when reusable, reuse is on and the pool has
 * room; else killed through its daemon. */
void cs_py_worker_factory_release(cs_py_worker_factory *f, const char *python, bool reuse,
                                  bool faulthandler, int fd, int pid, bool reusable);

/* A new empty directory for workers' faulthandler logs (under $TMPDIR, else /tmp): its path
 * (the caller's), or NULL + err. */
char *cs_py_faulthandler_dir_new(cs_error *err);
/* Removes the directory with whatever logs are left in it, and frees the path (NULL: nothing). */
void cs_py_faulthandler_dir_free(char *dir);

/* Ends every daemon and worker and frees f (NULL: nothing). No task may hold a worker. */
void cs_py_worker_factory_free(cs_py_worker_factory *f);

#endif /* CSPARK_SQLEXEC_PYTHON_WORKER_FACTORY_H */
