/* kubesim_proc.h — starts build/bin/kubesim for a cmocka test and always stops it.
 *
 * The binary is $CSPARK_BUILD_DIR/bin/kubesim or else ../bin/kubesim relative to the test
 * executable (build/tests/). The child gets PR_SET_PDEATHSIG so that it dies with a crashed test;
 * kubesim_stop sends SIGTERM, waits up to 10 s, then SIGKILLs. The kubeconfig kubesim writes is
 * loaded with cs_kube_config_load_env, so tests go through the product's configuration code.
 * Header-only (static functions) because each test file is its own executable.
 */
#ifndef TEST_KUBESIM_PROC_H
#define TEST_KUBESIM_PROC_H

#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "kube/kube_client.h"
#include "kube/kube_config.h"

typedef struct kubesim_proc {
    pid_t pid;
    char dir[256];
    char kubeconfig[320];
    char log[320];
} kubesim_proc;

static void ks_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int ks_binary(char *buf, size_t cap)
{
    const char *bd = getenv("CSPARK_BUILD_DIR");
    if (bd && *bd) {
        snprintf(buf, cap, "%s/bin/kubesim", bd);
        return access(buf, X_OK);
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return -1;
    exe[n] = 0;
    snprintf(buf, cap, "%s/../bin/kubesim", dirname(exe));
    return access(buf, X_OK);
}

/* Starts kubesim with the extra NULL-terminated arguments; returns 0 once the kubeconfig exists. */
static int kubesim_start(kubesim_proc *k, ...)
{
    memset(k, 0, sizeof *k);
    char bin[PATH_MAX];
    if (ks_binary(bin, sizeof bin) != 0) {
        fprintf(stderr, "kubesim not found (%s)\n", bin);
        return -1;
    }
    snprintf(k->dir, sizeof k->dir, "/tmp/kube-client-test-XXXXXX");
    if (!mkdtemp(k->dir)) return -1;
    snprintf(k->kubeconfig, sizeof k->kubeconfig, "%s/kubeconfig", k->dir);
    snprintf(k->log, sizeof k->log, "%s/kubesim.log", k->dir);
    const char *argv[32];
    int argc = 0;
    argv[argc++] = bin;
    argv[argc++] = "--kubeconfig-out";
    argv[argc++] = k->kubeconfig;
    va_list ap;
    va_start(ap, k);
    const char *a;
    while ((a = va_arg(ap, const char *)) && argc < 30)
        argv[argc++] = a;
    va_end(ap);
    argv[argc] = NULL;
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(1);
        int fd = open(k->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
            close(fd);
        }
        execv(bin, (char *const *)argv);
        _exit(127);
    }
    k->pid = pid;
    for (int i = 0; i < 1500; i++) { /* 30 s */
        if (access(k->kubeconfig, R_OK) == 0) return 0;
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            k->pid = 0;
            fprintf(stderr, "kubesim exited early, see %s\n", k->log);
            return -1;
        }
        ks_sleep_ms(20);
    }
    return -1;
}

static void kubesim_stop(kubesim_proc *k)
{
    if (k->pid > 0) {
        kill(k->pid, SIGTERM);
        int st;
        bool done = false;
        for (int i = 0; i < 500 && !done; i++) { /* 10 s */
            if (waitpid(k->pid, &st, WNOHANG) == k->pid)
                done = true;
            else
                ks_sleep_ms(20);
        }
        if (!done) {
            kill(k->pid, SIGKILL);
            waitpid(k->pid, &st, 0);
        }
        k->pid = 0;
    }
    if (k->dir[0]) {
        char cmd[400];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", k->dir);
        if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", k->dir);
        k->dir[0] = 0;
    }
}

/* A client for kubesim's kubeconfig; conf may carry extra keys. */
static kube_client *kubesim_client(const kubesim_proc *k, const cs_conf *conf, const char *master,
                                   cs_error *err)
{
    kube_config_env env = {.kubeconfig = k->kubeconfig, .sa_dir = "/nonexistent-sa"};
    kube_config kc;
    if (cs_kube_config_load_env(conf, master, "spark.kubernetes.authenticate.submission", &env, &kc,
                                err)) {
        return NULL;
    }
    kube_client *c = cs_kube_client_new(&kc, conf, "spark.kubernetes.submission", err);
    cs_kube_config_free(&kc);
    return c;
}

static json_t *ks_pod(const char *name, const char *app)
{
    return json_pack("{s:s, s:s, s:{s:s, s:{s:s}}, s:{s:[{s:s, s:s, s:[s,s]}]}}", "apiVersion",
                     "v1", "kind", "Pod", "metadata", "name", name, "labels", "app", app, "spec",
                     "containers", "name", "c", "image", "busybox", "command", "sleep", "1000");
}

#endif /* TEST_KUBESIM_PROC_H */
