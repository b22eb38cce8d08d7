/* run_command.c — see run_command.h. */
#define _GNU_SOURCE
#include "common/run_command.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/clock.h"
#include "common/shutdown.h"
#include "common/strutil.h"

/* The exit status as a shell reports it. */
static int exit_status(int st)
{
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

#define POLL_SLICE_MS 100
#define DRAIN_MS 200
int cs_run_command(char **argv, char **envp, int64_t timeout_ms, char **out, char **errout,
                   int *status, cs_error *err)
{
    extern char **environ;
    int po[2], pe[2];
    *out = *errout = NULL;
    if (!envp) envp = environ;
    if (pipe2(po, O_CLOEXEC) != 0) return cs_error_set(err, CS_EIO, "pipe: %s", strerror(errno));
    if (pipe2(pe, O_CLOEXEC) != 0) {
        close(po[0]), close(po[1]);
        return cs_error_set(err, CS_EIO, "pipe: %s", strerror(errno));
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
        return cs_error_set(err, CS_EIO, "fork: %s", strerror(errno));
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) dup2(devnull, 0); /* never interactive */
        dup2(po[1], 1);
        dup2(pe[1], 2);
        execvpe(argv[0], argv, envp);
        fprintf(stderr, "%s", strerror(errno));
        _exit(127);
    }
    close(po[1]);
    close(pe[1]);
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* -1 on kernels before 5.3: polled */
    size_t cap[2] = {4096, 4096}, len[2] = {0, 0};
    char *buf[2] = {cs_xmalloc(cap[0]), cs_xmalloc(cap[1])};
    struct pollfd fds[3] = {{.fd = po[0], .events = POLLIN},
                            {.fd = pe[0], .events = POLLIN},
                            {.fd = pidfd, .events = POLLIN}};
    int open_fds = 2, rc = 0, st = 0;
    bool exited = false;
    int64_t deadline = cs_mono_ms() + timeout_ms, drain_until = 0;
    while (open_fds > 0 || !exited) {
        int64_t now = cs_mono_ms();
        if (cs_shutdown_requested()) {
            rc = cs_error_set(err, CS_ECANCELLED, "stopped by signal %d while it ran",
                              cs_shutdown_signal());
            break;
        }
        if (now >= deadline) {
            rc = cs_error_set(err, CS_ETIMEOUT, "no answer within %lld s%s",
                              (long long)(timeout_ms / 1000),
                              open_fds ? "" : " (it closed its output but did not exit)");
            break;
        }
        if (exited && now >= drain_until) break; /* a child of the program holds its output */
        int64_t slice = deadline - now < POLL_SLICE_MS ? deadline - now : POLL_SLICE_MS;
        if (poll(fds, 3, (int)slice) < 0 && errno != EINTR) break;
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            if (len[i] + 4096 > cap[i] && len[i] < CS_RUN_OUTPUT_MAX)
                buf[i] = cs_xrealloc(buf[i], cap[i] *= 2);
            ssize_t n = len[i] + 4096 <= cap[i] ? read(fds[i].fd, buf[i] + len[i], 4096) : 0;
            if (n <= 0) {
                close(fds[i].fd);
                fds[i].fd = -1;
                open_fds--;
            } else {
                len[i] += (size_t)n;
            }
        }
        if (!exited && (pidfd < 0 || (fds[2].revents & POLLIN))) {
            int w = waitpid(pid, &st, WNOHANG);
            if (w == pid) {
                exited = true;
                drain_until = cs_mono_ms() + DRAIN_MS;
                if (pidfd >= 0) close(pidfd);
                fds[2].fd = pidfd = -1;
            }
        }
    }
    for (int i = 0; i < 2; i++)
        if (fds[i].fd >= 0) close(fds[i].fd);
    if (pidfd >= 0) close(pidfd);
    if (!exited) { /* stopped, timed out, or poll failed: the program goes */
        kill(pid, SIGKILL);
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    *status = exit_status(st);
    buf[0][len[0]] = 0;
    buf[1][len[1]] = 0;
    *out = buf[0];
    *errout = buf[1];
    return rc;
}
