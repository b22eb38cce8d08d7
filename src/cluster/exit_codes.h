/*
 * exit_codes.h — Spark's explanation of an executor's exit status (ExecutorExitCode /
 * describeExitCode), used by the local-cluster launcher and the Kubernetes lifecycle manager
 * when they report a lost executor.
 */
#ifndef CSPARK_CLUSTER_EXIT_CODES_H
#define CSPARK_CLUSTER_EXIT_CODES_H

#include <stddef.h>

/* Writes e.g. "exit code 137 (SIGKILL: killed, possibly out of memory)" into buf. */
void cs_describe_exit_code(int code, char *buf, size_t cap);
/* From a waitpid status: normal exits as above, deaths by signal as 128+signal. */
void cs_describe_wait_status(int status, char *buf, size_t cap);
/* The reason of a lost executor process from its waitpid status, as Spark's ExecutorExited
 * ("Command exited with code 3 (...)"), naming the signal of a process killed by one: "Command
 * exited with code 137: killed by signal 9 (SIGKILL: killed, possibly out of memory)". */
void cs_describe_executor_exit(int status, char *buf, size_t cap);

#endif
