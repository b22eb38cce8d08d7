/* run_command.h — runs a helper program to completion and collects what it prints: kubeconfig
 * exec credential plugins (kube/kube_exec.c) and resource discovery scripts
 * (exec/resource_discovery.c).
 *
 * cs_run_command runs argv (argv[0] looked up in PATH when it has no '/') with the environment
 * envp (NULL: this process's), stdin from /dev/null, and collects stdout and stderr (each bounded
 * to CS_RUN_OUTPUT_MAX bytes), until the program has exited and closed both, or until
 * timeout_ms, or until this process is asked to stop (cs_shutdown_requested, checked every
 * 100 ms): in the last two cases the program is killed and reaped, and the error says which
 * (CS_ETIMEOUT, CS_ECANCELLED). A program that closes its output and goes on running is waited
 * for through a pidfd, within the same bound; output its own children keep open after it exited
 * is read for 200 ms at most. *status is the exit status as a shell reports it (128 + signal).
 *
 * Ownership: *out and *errout are malloc'd, NUL-terminated, owned by the caller (also on error;
 * NULL when it could not be started). argv and envp are borrowed for the call.
 */
#ifndef CSPARK_COMMON_RUN_COMMAND_H
#define CSPARK_COMMON_RUN_COMMAND_H

#include <stdint.h>

#include "common/err.h"

#define CS_RUN_OUTPUT_MAX (1 << 20)

int cs_run_command(char **argv, char **envp, int64_t timeout_ms, char **out, char **errout,
                   int *status, cs_error *err);

#endif
