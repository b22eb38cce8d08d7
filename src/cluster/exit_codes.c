/*
 * exit_codes.c — see exit_codes.h. The texts follow Spark's ExecutorExitCode.explainExitCode and
 * the Kubernetes lifecycle manager's additions (137, 139), adapted where a JVM-only reason has a
 * cspark counterpart.
 */
#include "cluster/exit_codes.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* Spark's explanation of an exit code (ExecutorExitCode.explainExitCode). */
static const char *explain(int code)
{
    const char *why;
    switch (code) {
    case 0:
        why = "exited normally";
        break;
    case 1:
        why = "generic failure; see the executor's log";
        break;
    case 10:
    case 50:
        why = "uncaught error in the executor";
        break;
    case 11:
        why = "too many executor failures";
        break;
    case 52:
        why = "out of memory";
        break;
    case 53:
        why = "could not create a local directory";
        break;
    case 126:
        why = "not executable: wrong permissions or architecture";
        break;
    case 134:
        why = "SIGABRT: aborted";
        break;
    case 137:
        why = "SIGKILL: killed, possibly out of memory";
        break;
    case 139:
        why = "SIGSEGV: segmentation fault";
        break;
    case 143:
        why = "SIGTERM: terminated";
        break;
    case 255:
        why = "exit(-1)";
        break;
    default:
        why = code > 128 && code < 128 + 65 ? strsignal(code - 128) : "unexpected exit code";
        break;
    }
    return why;
}

void cs_describe_exit_code(int code, char *buf, size_t cap)
{
    snprintf(buf, cap, "exit code %d (%s)", code, explain(code));
}

void cs_describe_wait_status(int status, char *buf, size_t cap)
{
    if (WIFSIGNALED(status))
        cs_describe_exit_code(128 + WTERMSIG(status), buf, cap);
    else if (WIFEXITED(status))
        cs_describe_exit_code(WEXITSTATUS(status), buf, cap);
    else
        snprintf(buf, cap, "unknown wait status %d", status);
}

void cs_describe_executor_exit(int status, char *buf, size_t cap)
{
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        snprintf(buf, cap, "Command exited with code %d: killed by signal %d (%s)", 128 + sig, sig,
                 explain(128 + sig));
    } else if (WIFEXITED(status)) {
        int code = WEXITSTATUS(status);
        snprintf(buf, cap, "Command exited with code %d (%s)", code, explain(code));
    } else {
        snprintf(buf, cap, "Command ended with unknown wait status %d", status);
    }
}
