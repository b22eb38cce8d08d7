/*
 * python_app.c — cspark_python_app, the application entry of `cspark-submit app.py`
 * (python_submit.c hands libcspark to cs_app_run with this entry's name), as Spark 4 runs a
 * Python application with spark.api.mode=connect: the driver serves Spark Connect and the program
 * is its client.
 *
 *   argv = [library, interpreter, max message bytes, max batch bytes, program, arguments...]
 *
 * It starts the Spark Connect service (connect_service.h) over the application's context, on
 * 127.0.0.1 and a free port, requiring a bearer token of 32 random bytes (hex) made here; then
 * runs the interpreter on the program with its arguments, stdin/stdout/stderr passed through and
 * SPARK_REMOTE=sc://localhost:PORT/;token=TOKEN and SPARK_CONNECT_MODE_ENABLED=1 in its
 * environment, so that SparkSession.builder.getOrCreate() connects to the service. A thread
 * waits for the program and stops the service when it ends; the entry's thread serves
 * (cs_connect_service_run) until then. The entry returns the program's exit status (128+N when
 * it died of signal N). When cspark-submit is asked to stop (SIGINT/SIGTERM, common/shutdown.h)
 * the service stops, the program is sent SIGTERM, and SIGKILL if it has not ended
 * CHILD_STOP_GRACE_MS later.
 *
 * Ownership: the service and the child's environment are made and freed here; argv is borrowed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "api/app.h"
#include "common/log.h"
#include "connect/connect_service.h"
#include "programs/program_mains.h"
#include "common/localaddr.h"

#define PROGRAM "cspark-submit"
#define TOKEN_BYTES 32
#define CHILD_STOP_GRACE_MS 10000

extern char **environ;

typedef struct program_wait {
    pid_t pid;
    int status;              /* waitpid's, once ended */
    atomic_bool ended;       /* the program has ended */
    cs_connect_service *svc; /* stopped when the program ends */
} program_wait;

static void *wait_main(void *arg)
{
    program_wait *w = arg;
    int st = 0;
    while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {
    }
    w->status = st;
    atomic_store(&w->ended, true);
    cs_connect_service_stop(w->svc);
    return NULL;
}

static int make_token(char out[2 * TOKEN_BYTES + 1])
{
    unsigned char raw[TOKEN_BYTES];
    if (RAND_bytes(raw, sizeof raw) != 1) return -1;
    for (int i = 0; i < TOKEN_BYTES; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

/* This process's environment without the keys set for the program, then those (malloc'd array;
 * its strings are borrowed from environ or the two given). */
static char **child_environment(char *remote, char *mode)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **envp = calloc(n + 3, sizeof *envp);
    if (!envp) return NULL;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "SPARK_REMOTE=", 13) != 0 &&
            strncmp(environ[i], "SPARK_CONNECT_MODE_ENABLED=", 27) != 0 &&
            strncmp(environ[i], "SPARK_LOCAL_REMOTE=", 19) != 0)
            envp[k++] = environ[i];
    envp[k++] = remote;
    envp[k++] = mode;
    envp[k] = NULL;
    return envp;
}

/* Starts the interpreter on the program: 0 with *pid, else an errno. The child gets default
 * signal dispositions and an empty mask (this process blocks SIGINT/SIGTERM in every thread
 * but its signal watcher, and ignores SIGPIPE). */
static int spawn_program(char *const argv[], char **envp, pid_t *pid)
{
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t empty, defaults;
    sigemptyset(&empty);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int rc = posix_spawn(pid, argv[0], NULL, &attr, argv, envp);
    posix_spawnattr_destroy(&attr);
    return rc;
}

/* The program is still running (cspark-submit is stopping): SIGTERM, then SIGKILL. */
static void end_program(program_wait *w)
{
    if (atomic_load(&w->ended)) return;
    kill(w->pid, SIGTERM);
    for (int waited = 0; waited < CHILD_STOP_GRACE_MS && !atomic_load(&w->ended); waited += 50)
        nanosleep(&(struct timespec){0, 50 * 1000000L}, NULL);
    if (!atomic_load(&w->ended)) kill(w->pid, SIGKILL);
}

CS_PROGRAM_MAIN int cspark_python_app(struct cspark_context *sc, int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, PROGRAM ": cspark_python_app expects its settings\n");
        return 1;
    }
    int status = 1;
    char **envp = NULL;
    char *remote = NULL;
    char token[2 * TOKEN_BYTES + 1];
    program_wait w = {.pid = -1};
    pthread_t waiter;
    cs_connect_service *svc = NULL;
    if (make_token(token) < 0) {
        fprintf(stderr, PROGRAM ": cannot make the Spark Connect token (RAND_bytes failed)\n");
        goto out;
    }
    cs_connect_service_opts o = {.sc = sc,
                                 .port = 0,
                                 .address = cs_loopback_address(),
                                 .max_message = (size_t)strtoull(argv[2], NULL, 10),
                                 .max_batch = (size_t)strtoull(argv[3], NULL, 10),
                                 .token = token,
                                 .conf = cs_app_conf(sc)};
    cs_error err;
    cs_error_clear(&err);
    svc = cs_connect_service_start(&o, &err);
    if (!svc) {
        fprintf(stderr, PROGRAM ": cannot start the Spark Connect server: %s\n", err.msg);
        goto out;
    }
    int port = cs_connect_service_port(svc);
    /* "localhost", not the address: PySpark sends a token without TLS to localhost only (it
     * resolves to ::1 too on an IPv6-only host, where the server listens) */
    if (asprintf(&remote, "SPARK_REMOTE=sc://localhost:%d/;token=%s", port, token) < 0) {
        remote = NULL;
        goto out;
    }
    envp = child_environment(remote, "SPARK_CONNECT_MODE_ENABLED=1");
    if (!envp) goto out;
    char **child_argv = calloc((size_t)argc - 2, sizeof(char *));
    if (!child_argv) goto out;
    child_argv[0] = argv[1];
    for (int i = 4; i < argc; i++)
        child_argv[i - 3] = argv[i];
    CS_INFO("python", "event=program_start python=%s program=%s connect_port=%d",
            cs_log_value(argv[1]), cs_log_value(argv[4]), port);
    fflush(stdout);
    fflush(stderr);
    int rc = spawn_program(child_argv, envp, &w.pid);
    free(child_argv);
    if (rc != 0) {
        fprintf(stderr, PROGRAM ": cannot run the Python interpreter %s: %s\n", argv[1],
                strerror(rc));
        goto out;
    }
    w.svc = svc;
    atomic_init(&w.ended, false);
    if (pthread_create(&waiter, NULL, wait_main, &w) != 0) {
        kill(w.pid, SIGKILL);
        waitpid(w.pid, NULL, 0);
        fprintf(stderr, PROGRAM ": cannot start a thread to wait for the program\n");
        goto out;
    }
    cs_connect_service_run(svc); /* until the program ends or cspark-submit is stopped */
    end_program(&w);
    pthread_join(waiter, NULL);
    if (WIFEXITED(w.status))
        status = WEXITSTATUS(w.status);
    else if (WIFSIGNALED(w.status))
        status = 128 + WTERMSIG(w.status);
    CS_INFO("python", "event=program_end status=%d", status);
out:
    cs_connect_service_free(svc);
    free(envp);
    free(remote);
    return status;
}
