/*
 * peak_rss.c — runs a command and reports its wall-clock time and peak resident set size.
 *
 * usage: peak_rss [-o FILE] COMMAND [ARGS...]
 *
 * Forks and execs COMMAND, waits for it, and writes one line
 *     elapsed_s=1.234 maxrss_kb=56789 status=0
 * to FILE (appended) or to stderr. maxrss_kb is getrusage(RUSAGE_CHILDREN).ru_maxrss: the largest
 * peak RSS among the command and the descendants it waited for (not a sum). Exits with the
 * command's exit status (128 + signal when killed). Used by bench/run.sh because GNU time may be
 * missing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    const char *outpath = NULL;
    int i = 1;
    if (argc > 2 && !strcmp(argv[1], "-o")) {
        outpath = argv[2];
        i = 3;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: peak_rss [-o FILE] COMMAND [ARGS...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("peak_rss: fork");
        return 1;
    }
    if (pid == 0) {
        execvp(argv[i], argv + i);
        perror(argv[i]);
        _exit(127);
    }
    int status;
    if (waitpid(pid, &status, 0) < 0) {
        perror("peak_rss: waitpid");
        return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    struct rusage ru;
    getrusage(RUSAGE_CHILDREN, &ru);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    FILE *f = outpath ? fopen(outpath, "a") : stderr;
    if (!f) {
        perror(outpath);
        return 1;
    }
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                 (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    fprintf(f, "elapsed_s=%.3f maxrss_kb=%ld status=%d cpu_s=%.3f\n", dt, ru.ru_maxrss, code, cpu);
    if (outpath) fclose(f);
    return code;
}
