/*
 * python_worker.h — one PySpark Python worker process for one task, spoken to in PySpark's own
 * worker protocol (the `pyspark.worker` module of the installed client), as Spark's
 * PythonWorkerFactory (a simple worker, no daemon) and BasePythonRunner do.
 *
 * Start: a loopback listening socket, `<python> -m pyspark.worker` started with
 * PYTHON_WORKER_FACTORY_PORT / PYTHON_WORKER_FACTORY_SECRET in its environment; the worker
 * connects back, sends the secret (int32 length + bytes), is answered "ok", and sends its pid.
 * Then the task's header goes out: the partition (split index), the client's Python version,
 * the barrier flag, the TaskContext (stage, partition, attempt, task attempt id, cpus, no
 * resources, no local properties), the files directory and Python includes (none), the
 * broadcast variables (none), the eval type, the runner conf (key / value pairs), the profiler
 * flag (off), and each UDF: its argument offsets (positional) and its pickled command.
 *
 * Data: an Arrow IPC stream of the argument columns (cs_py_worker_send); the worker answers
 * START_ARROW_STREAM (-6) then an Arrow IPC stream of the results, or PYTHON_EXCEPTION_THROWN
 * (-2) then the traceback (int32 length + UTF-8), either at the start or after the results'
 * stream has ended. After its stream: TIMING_DATA (-3) and three longs, two longs of spill
 * counts, END_OF_DATA_SECTION (-1), the accumulator updates (a count, then length-prefixed
 * values), and the echo of the END_OF_STREAM (-4) we send right after the input (the worker reads
 * it before it flushes that last output, as Spark's writer sends it at once).
 *
 * Flow: the worker reads input and writes output on its own schedule (its output is buffered, it
 * may hold results until more input comes), so cs_py_worker_read never just blocks: while no
 * result byte is there it writes the pending input and, once all of it is written, calls the
 * caller's pump to queue more (or to end the input), as Spark's writer thread keeps feeding the
 * worker while its reader waits. Every wait is a poll of at most 100 ms that checks the task's
 * cancellation flag.
 *
 * Workers of an executor's factory (spec->factory) come from its daemon or its idle pool and go
 * back there at cs_py_worker_free: kept for the next task when the results were read to the
 * worker's echo of END_OF_STREAM (the worker then waits for the next task's header on the same
 * socket), killed otherwise (an exception, a killed task, output left unread).
 *
 * Ownership: the caller owns the worker; cs_py_worker_free gives a factory's worker back, or
 * kills a simple worker's process (SIGKILL) if it has not ended and reaps it; it closes the
 * socket (unless kept idle) and frees the buffers. Strings and bytes passed to
 * cs_py_worker_start are copied into the header. Single-threaded: the task's thread.
 */
#ifndef CSPARK_SQLEXEC_PYTHON_WORKER_H
#define CSPARK_SQLEXEC_PYTHON_WORKER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "sqlexec/exec_ctx.h"
#include "sqlexec/python_worker_factory.h"

/* PySpark's PythonEvalType values cspark runs. */
enum {
    CS_PY_EVAL_BATCHED_UDF = 100,
    CS_PY_EVAL_ARROW_BATCHED_UDF = 101,
    CS_PY_EVAL_SCALAR_PANDAS_UDF = 200,
    CS_PY_EVAL_GROUPED_MAP_PANDAS_UDF = 201,
    CS_PY_EVAL_GROUPED_AGG_PANDAS_UDF = 202,
    CS_PY_EVAL_WINDOW_AGG_PANDAS_UDF = 203,
    CS_PY_EVAL_SCALAR_PANDAS_ITER_UDF = 204,
    CS_PY_EVAL_MAP_PANDAS_ITER_UDF = 205,
    CS_PY_EVAL_COGROUPED_MAP_PANDAS_UDF = 206,
    CS_PY_EVAL_MAP_ARROW_ITER_UDF = 207,
    CS_PY_EVAL_GROUPED_MAP_ARROW_UDF = 209,
    CS_PY_EVAL_COGROUPED_MAP_ARROW_UDF = 210
};

/* PySpark's SpecialLengths. */
enum {
    CS_PY_END_OF_DATA_SECTION = -1,
    CS_PY_EXCEPTION_THROWN = -2,
    CS_PY_TIMING_DATA = -3,
    CS_PY_END_OF_STREAM = -4,
    CS_PY_START_ARROW_STREAM = -6
};

typedef struct cs_py_udf_command {
    const uint8_t *command; /* the pickled (function, return type) the client sent */
    size_t command_len;
    int n_args;
    const int *arg_offsets; /* columns of the batches sent */
    /* NULL, or per argument its keyword (NULL: positional), sent for the eval types whose
     * worker reads names (PySpark's read_single_udf); borrowed */
    const char *const *arg_names;
} cs_py_udf_command;

typedef struct cs_py_worker_spec {
    const char *python;     /* the interpreter (spark.pyspark.python / PYSPARK_PYTHON) */
    const char *python_ver; /* the client's "3.11": the worker refuses another version */
    int eval_type;
    int n_conf; /* runner conf: spark.sql.session.timeZone, ... */
    const char *const *conf_keys;
    const char *const *conf_values;
    int n_udfs;
    const cs_py_udf_command *udfs;
    /* the TaskContext the UDF sees */
    int stage_id, partition_id, attempt;
    int64_t task_attempt_id;
    /* a barrier task's (BarrierTaskContext): the executor's service port (0: not a barrier task),
     * its secret and the "addresses" local property (getTaskInfos) */
    int barrier_port;
    const char *barrier_secret, *barrier_addresses;
    const _Atomic int *cancelled; /* the task's kill flag (NULL: never) */
    /* the executor's workers (python_worker_factory.h): the worker comes from there and goes
     * back there; NULL: a simple worker of this task alone (`-m pyspark.worker`) */
    cs_py_worker_factory *factory;
    bool reuse; /* spark.python.worker.reuse: a worker that ended cleanly serves the next task */
    /* spark.sql.execution.pyspark.udf.faulthandler.enabled: the worker runs with
     * PYTHON_FAULTHANDLER_DIR (a factory's workers: of a daemon of their own), and when it
     * crashes, the traceback its faulthandler wrote there is the error's text, as Spark's
     * BasePythonRunner reads it */
    bool faulthandler;
} cs_py_worker_spec;

typedef struct cs_py_worker cs_py_worker;

/* The TaskContext of spec from the task's ctx: its partition, stage, attempt number and task
 * attempt id, and a barrier task's BarrierTaskContext service (port, secret, addresses). */
void cs_py_worker_spec_task(cs_py_worker_spec *spec, const cs_sql_exec_ctx *ctx);

/* Starts the worker and queues the header: NULL + err (naming the interpreter) when it cannot be
 * started or does not connect back within 60 s. */
cs_py_worker *cs_py_worker_start(const cs_py_worker_spec *spec, cs_error *err);

/* Queues bytes of input (written while cs_py_worker_read waits). */
void cs_py_worker_send(cs_py_worker *w, const void *p, size_t n);
/* Queues an int32 (big-endian, as Java's DataOutputStream). */
void cs_py_worker_send_int(cs_py_worker *w, int32_t v);
/* cs_py_worker_send as an Arrow IPC writer's sink (cs_ipc_writer_new's, arg the worker): the
 * operators' argument batches go to the worker through it. Never fails. */
int cs_py_worker_ipc_sink(void *worker, const void *p, size_t n, cs_error *err);

/* After the last of the input: END_OF_STREAM, as Spark's writer sends it at once (the worker
 * reads it before it flushes its last output). */
void cs_py_worker_end_input(cs_py_worker *w);

/* Called when every queued byte is written: queue more input with cs_py_worker_send, or return
 * 1 when the input has ended (it is not called again); 0, or < 0 with err. */
typedef int (*cs_py_pump_fn)(void *arg, cs_error *err);
void cs_py_worker_set_pump(cs_py_worker *w, cs_py_pump_fn fn, void *arg);

/* Reads exactly n bytes of the worker's output (n may be 0 for "the end"): as cs_ipc_read_fn,
 * *got < n only at the end of the output. CS_ECANCELLED when the task is killed. */
int cs_py_worker_read(void *worker, void *p, size_t n, size_t *got, cs_error *err);
int cs_py_worker_read_int(cs_py_worker *w, int32_t *out, cs_error *err);

/* After PYTHON_EXCEPTION_THROWN: reads the traceback and fills err with Spark's
 * PythonException ("An exception was thrown from the Python worker...", the traceback). */
int cs_py_worker_exception(cs_py_worker *w, cs_error *err);

/* After the results' stream: reads the timing, spill and accumulator sections (an exception
 * there is read as above) and the worker's echo of END_OF_STREAM (the worker may then be reused).
 * cs_py_worker_finish_after_timing: the same once TIMING_DATA itself has been read (a worker
 * that sent no results' stream at all). */
int cs_py_worker_finish(cs_py_worker *w, cs_error *err);
int cs_py_worker_finish_after_timing(cs_py_worker *w, cs_error *err);

/* The worker's process id (what os.getpid() says in it). */
int cs_py_worker_pid(const cs_py_worker *w);

void cs_py_worker_free(cs_py_worker *w);

/* Fills err with Spark's PythonException for a traceback text. */
int cs_py_exception_set(cs_error *err, const char *traceback);

#endif /* CSPARK_SQLEXEC_PYTHON_WORKER_H */
