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

void cs_describe_exit_code(int code, char *buf, size_t cap)
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
    snprintf(buf, cap, "exit code %d (%s)", code, why);
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
