/*
 * container.c — runs one kubesim container as a real process tree (see container.h).
 *
 * The parent prepares every string before fork(); the child only makes system calls (unshare,
 * mount, mkdir, dup2, chdir, prctl, execvp) so it is safe to fork from a multi-threaded kubesim. A
 * CLOEXEC pipe reports a failing step (errno + step) back to the parent; a second pipe holds the
 * child until the parent has moved it into its memory cgroup. Memory limits use the cgroup v1
 * memory controller under kubesim's own cgroup (<own>/kubesim-<pid>/<id>); without one,
 * ks_container_check_memory() samples the RSS of the process group. Called by kubelet.c from its
 * worker thread.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "container.h"
#include "container_rootfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct ks_container {
    pid_t pid;
    int pidfd;
    int exited;
    int status;
    int rss_killed;
    int waiters; /* pid is kubesim's waiter of a PID namespace, not the command */
    long long memory_limit;
    char *cgroup_dir; /* memory cgroup, NULL without */
    char *cpu_dir;    /* cpu cgroup (shares, CFS quota), NULL without */
};

static ks_container_caps g_caps;
static char g_cgroup_base[PATH_MAX + 128]; /* memory controller; "" when unavailable */
static char g_cpu_base[PATH_MAX + 128];    /* cpu controller; "" when unavailable */
static pthread_once_t g_probe_once = PTHREAD_ONCE_INIT;

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    size_t n = strlen(text);
    ssize_t w = write(fd, text, n);
    int rc = (w == (ssize_t)n) ? 0 : -(errno ? errno : EIO);
    close(fd);
    return rc;
}

/* Finds this process's cgroup v1 directory for controller ctrl, removes cgroups left by killed
 * kubesims and creates <own>/kubesim-<pid>. Returns 0 and the directory in out, or -1 (controller
 * unusable). */
static int setup_controller(const char *ctrl, const char *probe_file, char *out, size_t outlen)
{
    FILE *f = fopen("/proc/self/cgroup", "re");
    char line[1024], own[1024] = "", want[64];
    int found = 0;
    snprintf(want, sizeof want, ",%s,", ctrl);
    while (f && fgets(line, sizeof line, f)) {
        char *a = strchr(line, ':');
        char *b = a ? strchr(a + 1, ':') : NULL;
        if (!a || !b) continue;
        *b = 0;
        char tmp[256];
        snprintf(tmp, sizeof tmp, ",%s,", a + 1); /* "memory" or a comma-separated list */
        if (strstr(tmp, want)) {
            snprintf(own, sizeof own, "%s", b + 1);
            own[strcspn(own, "\n")] = 0;
            found = 1;
        }
    }
    if (f) fclose(f);
    if (!found) return -1;
    char base[PATH_MAX + 64];
    snprintf(base, sizeof base, "/sys/fs/cgroup/%s%s", ctrl, strcmp(own, "/") ? own : "");
    /* cgroups left by a kubesim that was killed: their processes are gone (PID namespaces) */
    DIR *d = opendir(base);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        int pid;
        if (sscanf(e->d_name, "kubesim-%d", &pid) != 1 || pid <= 0 ||
            (kill(pid, 0) == 0 || errno != ESRCH))
            continue;
        char stale[PATH_MAX * 2];
        snprintf(stale, sizeof stale, "%s/%s", base, e->d_name);
        DIR *sd = opendir(stale);
        struct dirent *se;
        while (sd && (se = readdir(sd))) {
            if (se->d_type != DT_DIR || se->d_name[0] == '.') continue;
            char sub[PATH_MAX * 3];
            snprintf(sub, sizeof sub, "%s/%s", stale, se->d_name);
            rmdir(sub);
        }
        if (sd) closedir(sd);
        rmdir(stale);
    }
    if (d) closedir(d);
    char mine[PATH_MAX + 128];
    snprintf(mine, sizeof mine, "%s/kubesim-%d", base, (int)getpid());
    if (mkdir(mine, 0755) != 0 && errno != EEXIST) return -1;
    char test[PATH_MAX + 256];
    snprintf(test, sizeof test, "%s/%s", mine, probe_file);
    if (access(test, W_OK) != 0) {
        rmdir(mine);
        return -1;
    }
    snprintf(out, outlen, "%s", mine);
    return 0;
}

static void probe(void)
{
    /* mount namespace: a child that unshares and makes / private */
    if (geteuid() == 0) {
        pid_t p = fork();
        if (p == 0) {
            if (unshare(CLONE_NEWNS) != 0) _exit(1);
            if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) _exit(2);
            _exit(0);
        }
        int st = 0;
        if (p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            g_caps.mount_ns = 1;
        p = fork();
        if (p == 0) {
            if (unshare(CLONE_NEWPID) != 0) _exit(1);
            pid_t q = fork();
            if (q == 0) _exit(getpid() == 1 ? 0 : 1);
            int qs = 0;
            _exit(q > 0 && waitpid(q, &qs, 0) == q && WIFEXITED(qs) && WEXITSTATUS(qs) == 0 ? 0
                                                                                            : 1);
        }
        if (p > 0 && waitpid(p, &st, 0) == p && WIFEXITED(st) && WEXITSTATUS(st) == 0)
            g_caps.pid_ns = g_caps.mount_ns;
    }
    if (setup_controller("memory", "memory.limit_in_bytes", g_cgroup_base, sizeof g_cgroup_base) ==
        0)
        g_caps.cgroup = 1;
    if (setup_controller("cpu", "cpu.cfs_quota_us", g_cpu_base, sizeof g_cpu_base) == 0)
        g_caps.cpu_cgroup = 1;
}

const ks_container_caps *ks_container_probe(void)
{
    pthread_once(&g_probe_once, probe);
    return &g_caps;
}

/* ---- child side: system calls only ---- */

enum {
    STEP_UNSHARE = 1,
    STEP_MOUNT,
    STEP_MKDIR,
    STEP_CHDIR,
    STEP_EXEC,
    STEP_SYNC,
    STEP_USER,
    STEP_ROOTFS
};

static void child_fail(int fd, int step, int idx)
{
    int msg[3] = {step, errno, idx};
    ssize_t w = write(fd, msg, sizeof msg);
    (void)w;
    _exit(127);
}

/* mkdir -p on a writable copy of the path (in the child's memory). */
static int mkdir_p(char *path, int last_is_file)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        int rc = mkdir(path, 0755);
        *p = '/';
        if (rc != 0 && errno != EEXIST) return -1;
    }
    if (last_is_file) {
        int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EISDIR) return -1;
        if (fd >= 0) close(fd);
        return 0;
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST) return -1;
    return 0;
}

/*
 * Mount points that do not exist on the host (e.g. /opt/spark/conf, /data) are made without
 * touching the host: the deepest existing parent P is "shadowed" — a scratch directory under the
 * pod's own directory gets one entry per entry of P (directories and files bind-mounted, symlinks
 * copied) and is bind-mounted over P inside the container's mount namespace (for P = "/" it becomes
 * the new root by pivot_root); the missing components are then created inside the scratch copy.
 * Runs in the child only.
 */
typedef struct shadow_state {
    const char *base;
    int n;
    char made[64][PATH_MAX]; /* shadowed parents and directories created inside shadows */
    int n_made;
} shadow_state;

static int remember(shadow_state *st, const char *path)
{
    if (st->n_made < 64) snprintf(st->made[st->n_made++], sizeof st->made[0], "%s", path);
    return 0;
}

static int is_ours(const shadow_state *st, const char *path)
{
    for (int i = 0; i < st->n_made; i++)
        if (!strcmp(st->made[i], path)) return 1;
    return 0;
}

/* a path that just became a mount target is the host's (or an image's) again: shadow it when needed
 */
static void forget(shadow_state *st, const char *path)
{
    for (int i = 0; i < st->n_made; i++)
        if (!strcmp(st->made[i], path)) st->made[i][0] = 0;
}

static int populate(const char *dir, const char *scratch)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    struct dirent *e;
    char src[PATH_MAX], dst[PATH_MAX], target[PATH_MAX];
    while ((e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(src, sizeof src, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name);
        snprintf(dst, sizeof dst, "%s/%s", scratch, e->d_name);
        struct stat st;
        if (lstat(src, &st) != 0) continue;
        if (S_ISLNK(st.st_mode)) {
            ssize_t n = readlink(src, target, sizeof target - 1);
            if (n < 0) continue;
            target[n] = 0;
            if (symlink(target, dst) != 0 && errno != EEXIST) continue;
        } else if (S_ISDIR(st.st_mode)) {
            if (mkdir(dst, st.st_mode & 07777) != 0 && errno != EEXIST) continue;
            mount(src, dst, NULL, MS_BIND | MS_REC, NULL);
        } else {
            int fd = open(dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            if (fd < 0) continue;
            close(fd);
            mount(src, dst, NULL, MS_BIND, NULL);
        }
    }
    closedir(d);
    return 0;
}

static int shadow(shadow_state *sh, const char *dir)
{
    char scratch[PATH_MAX];
    snprintf(scratch, sizeof scratch, "%s/%d", sh->base, sh->n++);
    if (mkdir(sh->base, 0755) != 0 && errno != EEXIST) return -1;
    if (mkdir(scratch, 0755) != 0 && errno != EEXIST) return -1;
    if (!strcmp(dir, "/")) {
        if (mount(scratch, scratch, NULL, MS_BIND, NULL) != 0) return -1;
        populate("/", scratch);
        if (chdir(scratch) != 0 || syscall(SYS_pivot_root, ".", ".") != 0 ||
            umount2(".", MNT_DETACH) != 0 || chdir("/") != 0)
            return -1;
    } else {
        populate(dir, scratch);
        if (mount(scratch, dir, NULL, MS_BIND | MS_REC, NULL) != 0) return -1;
    }
    return remember(sh, dir);
}

/* Creates dst (a directory, or a file when is_file) inside the container without writing to the
 * host. */
static int make_mount_point(shadow_state *sh, char *dst, int is_file)
{
    struct stat st;
    if (stat(dst, &st) == 0) return 0;
    /* find the first missing component */
    for (char *p = dst + 1;; p++) {
        if (*p != '/' && *p != 0) continue;
        char save = *p;
        *p = 0;
        int missing = stat(dst, &st) != 0;
        if (missing) {
            char parent[PATH_MAX];
            char *slash = strrchr(dst, '/');
            if (slash == dst)
                snprintf(parent, sizeof parent, "/");
            else
                snprintf(parent, sizeof parent, "%.*s", (int)(slash - dst), dst);
            if (!is_ours(sh, parent) && shadow(sh, parent) != 0) {
                *p = save;
                return -1;
            }
            if (save == 0 && is_file) {
                int fd = open(dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
                if (fd < 0) return -1;
                close(fd);
            } else if (mkdir(dst, 0755) != 0 && errno != EEXIST) {
                *p = save;
                return -1;
            }
            remember(sh, dst);
        }
        *p = save;
        if (save == 0) break;
    }
    return 0;
}

typedef struct child_args {
    const ks_container_spec *spec;
    char **dst_copies;
    char *workdir_copy; /* writable copy for make_mount_point */
    int *src_is_file;
    int err_fd, sync_fd, log_fd, null_fd;
    int netns_fd; /* the pod's network namespace, -1 = none */
    /* an image's root filesystem (spec->n_layers > 0) */
    char *root;      /* <scratch>/root, where it is mounted */
    char *lowerdirs; /* overlayfs lowerdir=, top layer first */
    char *
        *src_in_root; /* each mount's source as seen from the new root (KS_ROOTFS_OLD + realpath) */
    pid_t parent;
    int use_ns;
    int use_pidns;
} child_args;

static int status_code(int st)
{
    return WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
}

/* Enters a new PID namespace. The calling process stays outside and waits for the namespace's init;
 * the init (PID 1, our code) reaps orphans and exits with the command's status when it ends (taking
 * every process of the namespace with it); only the command's process (PID 2) returns from here.
 * Signals sent to the process group reach the command directly; the two waiters keep them blocked.
 */
static void set_oom_score_adj(const char *v)
{
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t w = write(fd, v, strlen(v));
        (void)w;
        close(fd);
    }
}

static void enter_pid_ns(const child_args *a)
{
    /* the two waiters are forks of kubesim (large RSS): the cgroup OOM killer must pick the command
     */
    set_oom_score_adj("-1000");
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, NULL);
    if (unshare(CLONE_NEWPID) != 0) child_fail(a->err_fd, STEP_UNSHARE, 0);
    pid_t init = fork();
    if (init < 0) child_fail(a->err_fd, STEP_EXEC, 0);
    if (init > 0) {
        close(a->err_fd);
        int st = 0;
        while (waitpid(init, &st, 0) < 0 && errno == EINTR)
            ;
        _exit(status_code(st));
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (a->use_ns)
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              NULL); /* this namespace's view */
    pid_t app = fork();
    if (app < 0) child_fail(a->err_fd, STEP_EXEC, 0);
    if (app == 0) {
        set_oom_score_adj("0");
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        return;
    }
    close(a->err_fd);
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(&all, &si);
        if (sig != SIGCHLD) continue; /* the command got it too (process group) */
        int st;
        pid_t w;
        while ((w = waitpid(-1, &st, WNOHANG)) > 0)
            if (w == app) _exit(status_code(st));
    }
}

static void child_main(const child_args *a)
{
    const ks_container_spec *s = a->spec;
    shadow_state *sh = NULL;
    /* signals: default dispositions, nothing blocked */
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);

    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != a->parent) _exit(126);
    setpgid(0, 0);

    char go;
    if (read(a->sync_fd, &go, 1) != 1) child_fail(a->err_fd, STEP_SYNC, 0);

    if (a->netns_fd >= 0 && setns(a->netns_fd, CLONE_NEWNET) != 0)
        child_fail(a->err_fd, STEP_UNSHARE, 0);
    if (a->use_ns) {
        if (unshare(CLONE_NEWNS) != 0) child_fail(a->err_fd, STEP_UNSHARE, 0);
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
            child_fail(a->err_fd, STEP_MOUNT, -1);
        if (s->hostname && s->hostname[0] && unshare(CLONE_NEWUTS) == 0) {
            if (sethostname(s->hostname, strlen(s->hostname)) != 0) {
                /* keep the host name; not fatal */
            }
        }
        sh = NULL;
        if (a->root) { /* mount points are made in the container's own writable root */
            if (ks_rootfs_mount(s->scratch_dir, a->root, a->lowerdirs) != 0 ||
                ks_rootfs_pivot(a->root) != 0)
                child_fail(a->err_fd, STEP_ROOTFS, -1);
        } else if (s->scratch_dir && s->scratch_dir[0]) {
            sh = calloc(1, sizeof *sh); /* glibc's fork leaves malloc usable in the child */
            if (!sh) child_fail(a->err_fd, STEP_MKDIR, -1);
            sh->base = s->scratch_dir;
        }
        for (int i = 0; i < s->n_mounts; i++) {
            const char *src = a->root ? a->src_in_root[i] : s->mounts[i].src;
            if (sh && make_mount_point(sh, a->dst_copies[i], a->src_is_file[i]) != 0)
                child_fail(a->err_fd, STEP_MKDIR, i);
            if (!sh && mkdir_p(a->dst_copies[i], a->src_is_file[i]) != 0)
                child_fail(a->err_fd, STEP_MKDIR, i);
            if (mount(src, s->mounts[i].dst, NULL, MS_BIND | MS_REC, NULL) != 0)
                child_fail(a->err_fd, STEP_MOUNT, i);
            if (sh) forget(sh, s->mounts[i].dst);
            if (s->mounts[i].read_only &&
                mount(NULL, s->mounts[i].dst, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_REC,
                      NULL) != 0)
                child_fail(a->err_fd, STEP_MOUNT, i);
        }
    }
    if (a->root) {
        if (ks_rootfs_finish() != 0) child_fail(a->err_fd, STEP_ROOTFS, -1);
        if (!a->use_pidns) mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
        /* like runc: a missing working directory is created (in the container's root) */
        if (a->workdir_copy && chdir(a->workdir_copy) != 0) mkdir_p(a->workdir_copy, 0);
    }
    if (a->use_pidns) enter_pid_ns(a);
    if (dup2(a->null_fd, 0) < 0 || dup2(a->log_fd, 1) < 0 || dup2(a->log_fd, 2) < 0)
        child_fail(a->err_fd, STEP_EXEC, 0);
    if (s->run_as_user >= 0 || s->run_as_group >= 0 || s->n_supplemental_groups > 0) {
        gid_t groups[64];
        int ng = 0;
        for (int i = 0; i < s->n_supplemental_groups && ng < 64; i++)
            groups[ng++] = (gid_t)s->supplemental_groups[i];
        if (setgroups((size_t)ng, groups) != 0) child_fail(a->err_fd, STEP_USER, 0);
        if (s->run_as_group >= 0 && setgid((gid_t)s->run_as_group) != 0)
            child_fail(a->err_fd, STEP_USER, 0);
        if (s->run_as_user >= 0 && s->run_as_group < 0 && setgid(0) != 0)
            child_fail(a->err_fd, STEP_USER, 0);
        if (s->run_as_user >= 0 && setuid((uid_t)s->run_as_user) != 0)
            child_fail(a->err_fd, STEP_USER, 0);
    }
    const char *wd = (s->workdir && s->workdir[0]) ? s->workdir : "/";
    if (chdir(wd) != 0 && errno == ENOENT && sh && a->workdir_copy) {
        /* like runc: a missing working directory is created (inside the container) */
        if (make_mount_point(sh, a->workdir_copy, 0) != 0) child_fail(a->err_fd, STEP_CHDIR, 0);
    }
    if (chdir(wd) != 0) child_fail(a->err_fd, STEP_CHDIR, 0);
        /* no kubesim descriptor leaks into the container (the error pipe is already CLOEXEC) */
#ifdef SYS_close_range
    syscall(SYS_close_range, 3, ~0U, 4 /* CLOSE_RANGE_CLOEXEC */);
#endif
    extern char **environ;
    environ = (char **)s->envp;
    execvp(s->argv[0], s->argv);
    child_fail(a->err_fd, STEP_EXEC, 0);
}

/* ---- parent side ---- */

static void format_error(const ks_container_spec *s, int step, int e, int idx, char *err, size_t n)
{
    switch (step) {
    case STEP_EXEC:
        if (e == ENOENT && !strchr(s->argv[0], '/'))
            snprintf(err, n, "exec: \"%s\": executable file not found in $PATH", s->argv[0]);
        else
            snprintf(err, n, "exec: \"%s\": %s", s->argv[0], strerror(e));
        break;
    case STEP_USER:
        snprintf(err, n, "setting user %lld group %lld: %s", s->run_as_user, s->run_as_group,
                 strerror(e));
        break;
    case STEP_CHDIR:
        snprintf(err, n, "chdir to cwd (\"%s\") set in config.json failed: %s", s->workdir,
                 strerror(e));
        break;
    case STEP_ROOTFS:
        snprintf(err, n, "error preparing rootfs from image layers %s: %s",
                 s->n_layers > 0 ? s->layers[0] : "", strerror(e));
        break;
    case STEP_MKDIR:
    case STEP_MOUNT:
        if (idx >= 0 && idx < s->n_mounts)
            snprintf(err, n, "error mounting \"%s\" to rootfs at \"%s\": %s", s->mounts[idx].src,
                     s->mounts[idx].dst, strerror(e));
        else
            snprintf(err, n, "making / private: %s", strerror(e));
        break;
    default:
        snprintf(err, n, "container init failed (step %d): %s", step, strerror(e));
    }
}

/* The strings the child needs to enter an image's root: <scratch>/root, the overlayfs lowerdir
 * list (top layer first, symlinks resolved) and each mount's source as the new root sees the
 * host's (KS_ROOTFS_OLD + its real path, so that no symlink of the host resolves in the image). */
static int rootfs_strings(const ks_container_spec *s, const ks_container_caps *caps, char **root,
                          char **lowerdirs, char **src_in_root, char *err, size_t errlen)
{
    if (!caps->mount_ns || !s->scratch_dir || !s->scratch_dir[0]) {
        snprintf(err, errlen, "running an image's root filesystem needs mount namespaces (root)");
        return -EPERM;
    }
    size_t len = 1;
    char **real = calloc((size_t)s->n_layers, sizeof(char *));
    int rc = real ? 0 : -ENOMEM;
    for (int i = 0; rc == 0 && i < s->n_layers; i++) {
        real[i] = realpath(s->layers[i], NULL);
        if (!real[i]) {
            rc = -errno;
            snprintf(err, errlen, "image layer %s: %s", s->layers[i], strerror(errno));
        } else if (strpbrk(real[i], ":,")) {
            rc = -EINVAL;
            snprintf(err, errlen, "image layer %s: a ':' or ',' in its path", real[i]);
        } else {
            len += strlen(real[i]) + 1;
        }
    }
    if (rc == 0 && !(*lowerdirs = calloc(1, len))) rc = -ENOMEM;
    for (int i = s->n_layers - 1; rc == 0 && i >= 0; i--) {
        strcat(*lowerdirs, real[i]);
        if (i > 0) strcat(*lowerdirs, ":");
    }
    for (int i = 0; real && i < s->n_layers; i++)
        free(real[i]);
    free(real);
    if (rc == 0 && asprintf(root, "%s/root", s->scratch_dir) < 0) {
        *root = NULL;
        rc = -ENOMEM;
    }
    for (int i = 0; rc == 0 && i < s->n_mounts; i++) {
        char *r = realpath(s->mounts[i].src, NULL);
        if (asprintf(&src_in_root[i], "%s%s", KS_ROOTFS_OLD, r ? r : s->mounts[i].src) < 0) {
            src_in_root[i] = NULL;
            rc = -ENOMEM;
        }
        free(r);
    }
    return rc;
}

int ks_container_start(const ks_container_spec *s, ks_container **out, char *err, size_t errlen)
{
    const ks_container_caps *caps = ks_container_probe();
    int rc = 0;
    int errp[2] = {-1, -1}, syncp[2] = {-1, -1}, log_fd = -1, null_fd = -1, netns_fd = -1;
    char *workdir_copy = NULL, *root = NULL, *lowerdirs = NULL;
    char **dst_copies = calloc((size_t)s->n_mounts + 1, sizeof(char *));
    char **src_in_root = calloc((size_t)s->n_mounts + 1, sizeof(char *));
    int *src_is_file = calloc((size_t)s->n_mounts + 1, sizeof(int));
    ks_container *c = calloc(1, sizeof(*c));
    *out = NULL;
    if (err && errlen) err[0] = 0;
    if (!dst_copies || !src_in_root || !src_is_file || !c) {
        rc = -ENOMEM;
        goto fail;
    }
    if (s->n_layers > 0 &&
        (rc = rootfs_strings(s, caps, &root, &lowerdirs, src_in_root, err, errlen)) != 0)
        goto fail;
    c->pidfd = -1;
    c->memory_limit = s->memory_limit;
    c->waiters = caps->pid_ns;
    for (int i = 0; i < s->n_mounts; i++) {
        struct stat st;
        dst_copies[i] = strdup(s->mounts[i].dst);
        if (!dst_copies[i]) {
            rc = -ENOMEM;
            goto fail;
        }
        src_is_file[i] = (stat(s->mounts[i].src, &st) == 0 && !S_ISDIR(st.st_mode));
    }
    log_fd = open(s->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (log_fd < 0 || null_fd < 0) {
        rc = -errno;
        snprintf(err, errlen, "open log %s: %s", s->log_path, strerror(errno));
        goto fail;
    }
    if (pipe2(errp, O_CLOEXEC) != 0 || pipe2(syncp, O_CLOEXEC) != 0) {
        rc = -errno;
        goto fail;
    }
    if (s->netns_path && (netns_fd = open(s->netns_path, O_RDONLY | O_CLOEXEC)) < 0) {
        rc = -errno;
        snprintf(err, errlen, "open network namespace %s: %s", s->netns_path, strerror(errno));
        goto fail;
    }
    if (caps->cgroup) { /* always: the cgroup also finds processes that left the process group */
        char path[PATH_MAX * 2], num[32];
        if (asprintf(&c->cgroup_dir, "%s/%s", g_cgroup_base, s->id) < 0) {
            c->cgroup_dir = NULL;
            rc = -ENOMEM;
            goto fail;
        }
        if (mkdir(c->cgroup_dir, 0755) != 0 && errno != EEXIST) {
            free(c->cgroup_dir);
            c->cgroup_dir = NULL;
        } else {
            snprintf(path, sizeof path, "%s/memory.limit_in_bytes", c->cgroup_dir);
            snprintf(num, sizeof num, "%lld", s->memory_limit);
            if (s->memory_limit > 0 && write_file(path, num) != 0) {
                rmdir(c->cgroup_dir);
                free(c->cgroup_dir);
                c->cgroup_dir = NULL;
            }
        }
    }

    if (g_caps.cpu_cgroup && (s->cpu_request > 0 || s->cpu_limit > 0)) {
        char path[PATH_MAX * 2], num[32];
        if (asprintf(&c->cpu_dir, "%s/%s", g_cpu_base, s->id) < 0) {
            c->cpu_dir = NULL;
        } else if (mkdir(c->cpu_dir, 0755) != 0 && errno != EEXIST) {
            free(c->cpu_dir);
            c->cpu_dir = NULL;
        } else {
            long long shares = s->cpu_request > 0 ? s->cpu_request * 1024 / 1000 : 2;
            snprintf(path, sizeof path, "%s/cpu.shares", c->cpu_dir);
            snprintf(num, sizeof num, "%lld", shares < 2 ? 2 : shares);
            write_file(path, num);
            if (s->cpu_limit > 0) {
                long long quota = s->cpu_limit * 100000 / 1000;
                snprintf(path, sizeof path, "%s/cpu.cfs_period_us", c->cpu_dir);
                write_file(path, "100000");
                snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", c->cpu_dir);
                snprintf(num, sizeof num, "%lld", quota < 1000 ? 1000 : quota);
                write_file(path, num);
            }
        }
    }

    workdir_copy = s->workdir && s->workdir[0] == '/' ? strdup(s->workdir) : NULL;
    child_args a = {.spec = s,
                    .workdir_copy = workdir_copy,
                    .dst_copies = dst_copies,
                    .src_is_file = src_is_file,
                    .err_fd = errp[1],
                    .sync_fd = syncp[0],
                    .log_fd = log_fd,
                    .null_fd = null_fd,
                    .netns_fd = netns_fd,
                    .root = root,
                    .lowerdirs = lowerdirs,
                    .src_in_root = src_in_root,
                    .parent = getpid(),
                    .use_ns = caps->mount_ns,
                    .use_pidns = caps->pid_ns};
    pid_t pid = fork();
    if (pid < 0) {
        rc = -errno;
        snprintf(err, errlen, "fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0) child_main(&a); /* never returns */
    c->pid = pid;
    setpgid(pid, pid); /* also done by the child; whichever runs first */
    close(errp[1]);
    errp[1] = -1;
    close(syncp[0]);
    syncp[0] = -1;
    if (c->cgroup_dir) {
        char path[PATH_MAX * 2], num[32];
        snprintf(path, sizeof path, "%s/cgroup.procs", c->cgroup_dir);
        snprintf(num, sizeof num, "%d", (int)pid);
        if (write_file(path, num) != 0) {
            /* fall back to RSS sampling for this container */
            rmdir(c->cgroup_dir);
            free(c->cgroup_dir);
            c->cgroup_dir = NULL;
        }
    }
    if (c->cpu_dir) {
        char path[PATH_MAX * 2], num[32];
        snprintf(path, sizeof path, "%s/cgroup.procs", c->cpu_dir);
        snprintf(num, sizeof num, "%d", (int)pid);
        if (write_file(path, num) != 0) {
            rmdir(c->cpu_dir);
            free(c->cpu_dir);
            c->cpu_dir = NULL;
        }
    }
    if (write(syncp[1], "g", 1) != 1) {
        /* the child died already; the error pipe tells why */
    }
    int msg[3];
    ssize_t r;
    do
        r = read(errp[0], msg, sizeof msg);
    while (r < 0 && errno == EINTR);
    if (r == (ssize_t)sizeof msg) {
        format_error(s, msg[0], msg[1], msg[2], err, errlen);
        rc = -(msg[1] ? msg[1] : EIO);
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
        c->exited = 1;
        goto fail;
    }
#ifdef SYS_pidfd_open
    c->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (c->pidfd >= 0) fcntl(c->pidfd, F_SETFD, FD_CLOEXEC);
#endif
    *out = c;
    c = NULL;
fail:
    free(workdir_copy);
    free(root);
    free(lowerdirs);
    for (int i = 0; dst_copies && i < s->n_mounts; i++)
        free(dst_copies[i]);
    free(dst_copies);
    for (int i = 0; src_in_root && i < s->n_mounts; i++)
        free(src_in_root[i]);
    free(src_in_root);
    free(src_is_file);
    if (errp[0] >= 0) close(errp[0]);
    if (errp[1] >= 0) close(errp[1]);
    if (syncp[0] >= 0) close(syncp[0]);
    if (syncp[1] >= 0) close(syncp[1]);
    if (log_fd >= 0) close(log_fd);
    if (null_fd >= 0) close(null_fd);
    if (netns_fd >= 0) close(netns_fd);
    if (c) {
        c->exited = 1;
        ks_container_free(c);
    }
    return rc;
}

int ks_container_exec(ks_container *c, char *const *argv, char *const *envp, const char *workdir,
                      ks_container **out, char *err, size_t errlen)
{
    *out = NULL;
    if (!g_caps.pid_ns || !c || c->exited || !c->waiters) {
        snprintf(err, errlen, "container is not running in its own namespaces");
        return -ESRCH;
    }
    char path[64], procs[2][PATH_MAX * 2 + 32], self[32];
    int fds[4] = {-1, -1, -1, -1}, errp[2] = {-1, -1}, rc = 0;
    const char *ns[4] = {"mnt", "uts", "pid_for_children", "net"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)c->pid, ns[i]);
        fds[i] = open(path, O_RDONLY | O_CLOEXEC);
        if (fds[i] < 0) {
            rc = -errno;
            snprintf(err, errlen, "open %s: %s", path, strerror(errno));
            goto out;
        }
    }
    snprintf(procs[0], sizeof procs[0], "%s/cgroup.procs", c->cgroup_dir ? c->cgroup_dir : "");
    snprintf(procs[1], sizeof procs[1], "%s/cgroup.procs", c->cpu_dir ? c->cpu_dir : "");
    int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0 || pipe2(errp, O_CLOEXEC) != 0) {
        rc = -errno;
        snprintf(err, errlen, "%s", strerror(errno));
        if (null_fd >= 0) close(null_fd);
        goto out;
    }
    pid_t parent = getpid();
    pid_t h = fork();
    if (h == 0) {
        for (int sig = 1; sig < NSIG; sig++)
            if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(126);
        setpgid(0, 0);
        if (setns(fds[0], CLONE_NEWNS) != 0 || setns(fds[1], CLONE_NEWUTS) != 0 ||
            setns(fds[2], CLONE_NEWPID) != 0 || setns(fds[3], CLONE_NEWNET) != 0)
            child_fail(errp[1], STEP_UNSHARE, 0);
        snprintf(self, sizeof self, "%d", (int)getpid());
        if (c->cgroup_dir) write_file(procs[0], self);
        if (c->cpu_dir) write_file(procs[1], self);
        pid_t h2 = fork();
        if (h2 < 0) child_fail(errp[1], STEP_EXEC, 0);
        if (h2 == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (dup2(null_fd, 0) < 0 || dup2(null_fd, 1) < 0 || dup2(null_fd, 2) < 0)
                child_fail(errp[1], STEP_EXEC, 0);
            if (chdir(workdir && *workdir ? workdir : "/") != 0) child_fail(errp[1], STEP_CHDIR, 0);
            extern char **environ;
            environ = (char **)envp;
            execvp(argv[0], argv);
            child_fail(errp[1], STEP_EXEC, 0);
        }
        close(errp[1]);
        int st = 0;
        while (waitpid(h2, &st, 0) < 0 && errno == EINTR)
            ;
        _exit(status_code(st));
    }
    close(null_fd);
    close(errp[1]);
    errp[1] = -1;
    if (h < 0) {
        rc = -errno;
        snprintf(err, errlen, "fork: %s", strerror(errno));
        goto out;
    }
    int msg[3];
    ssize_t r;
    do
        r = read(errp[0], msg, sizeof msg);
    while (r < 0 && errno == EINTR);
    if (r == (ssize_t)sizeof msg) {
        if (msg[0] == STEP_EXEC && msg[1] == ENOENT && !strchr(argv[0], '/'))
            snprintf(err, errlen, "exec: \"%s\": executable file not found in $PATH", argv[0]);
        else
            snprintf(err, errlen, "%s: %s", msg[0] == STEP_UNSHARE ? "setns" : "exec",
                     strerror(msg[1]));
        rc = -(msg[1] ? msg[1] : EIO);
        while (waitpid(h, NULL, 0) < 0 && errno == EINTR)
            ;
        goto out;
    }
    ks_container *hk = calloc(1, sizeof *hk);
    if (!hk) {
        kill(h, SIGKILL);
        waitpid(h, NULL, 0);
        rc = -ENOMEM;
        goto out;
    }
    hk->pid = h;
    hk->pidfd = -1;
    *out = hk;
out:
    for (int i = 0; i < 4; i++)
        if (fds[i] >= 0) close(fds[i]);
    if (errp[0] >= 0) close(errp[0]);
    if (errp[1] >= 0) close(errp[1]);
    return rc;
}

pid_t ks_container_pid(const ks_container *c)
{
    return c->pid;
}
int ks_container_pidfd(const ks_container *c)
{
    return c->pidfd;
}

/* Signals every process of the cgroup, except members of process group skip_pgrp (0 = none). */
static void kill_cgroup(const char *dir, int sig, pid_t skip_pgrp)
{
    char path[PATH_MAX * 2 + 64];
    snprintf(path, sizeof path, "%s/cgroup.procs", dir);
    FILE *f = fopen(path, "re");
    if (!f) return;
    int p;
    while (fscanf(f, "%d", &p) == 1)
        if (p > 0 && (!skip_pgrp || getpgid(p) != skip_pgrp)) kill(p, sig);
    fclose(f);
}

void ks_container_signal(ks_container *c, int sig)
{
    if (!c || c->pid <= 0) return;
    /* once each: the process group (the init leads it), then whatever left it but stayed in the
     * cgroup */
    if (killpg(c->pid, sig) != 0 && !c->exited) kill(c->pid, sig);
    if (c->cgroup_dir) kill_cgroup(c->cgroup_dir, sig, c->pid);
}

static long long cgroup_oom_kills(const char *dir)
{
    char path[PATH_MAX * 2], key[64];
    long long v, kills = 0;
    snprintf(path, sizeof path, "%s/memory.oom_control", dir);
    FILE *f = fopen(path, "re");
    if (!f) return 0;
    while (fscanf(f, "%63s %lld", key, &v) == 2)
        if (!strcmp(key, "oom_kill")) kills = v;
    fclose(f);
    return kills;
}

int ks_container_reap(ks_container *c, int *exit_code, const char **reason)
{
    if (!c->exited) {
        int st;
        pid_t r = waitpid(c->pid, &st, WNOHANG);
        if (r == 0 || (r < 0 && errno == EINTR)) return 1;
        c->exited = 1;
        c->status = (r == c->pid) ? st : 0;
        /* like a container runtime: when init ends, the rest of the container goes with it */
        killpg(c->pid, SIGKILL);
        if (c->cgroup_dir) kill_cgroup(c->cgroup_dir, SIGKILL, 0);
    }
    int code = WIFEXITED(c->status)     ? WEXITSTATUS(c->status)
               : WIFSIGNALED(c->status) ? 128 + WTERMSIG(c->status)
                                        : 1;
    int oom = c->rss_killed || (c->cgroup_dir && cgroup_oom_kills(c->cgroup_dir) > 0);
    if (exit_code) *exit_code = code;
    if (reason) *reason = oom ? "OOMKilled" : code == 0 ? "Completed" : "Error";
    return 0;
}

void ks_container_check_memory(ks_container *c)
{
    if (!c || c->exited || c->cgroup_dir || c->memory_limit <= 0) return;
    DIR *d = opendir("/proc");
    if (!d) return;
    long page = sysconf(_SC_PAGESIZE);
    long long total = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ssize_t n = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (n <= 0) continue;
        buf[n] = 0;
        char *rp = strrchr(buf, ')');
        int ppid, pgrp;
        char state;
        if (!rp || sscanf(rp + 2, "%c %d %d", &state, &ppid, &pgrp) != 3 || pgrp != c->pid)
            continue;
        if (c->waiters && (atoi(e->d_name) == c->pid || ppid == c->pid))
            continue; /* kubesim's forks waiting for the command: not the container's memory */
        snprintf(path, sizeof path, "/proc/%s/statm", e->d_name);
        FILE *f = fopen(path, "re");
        long long size, rss;
        if (f && fscanf(f, "%lld %lld", &size, &rss) == 2) total += rss * page;
        if (f) fclose(f);
    }
    closedir(d);
    if (total > c->memory_limit) {
        c->rss_killed = 1;
        killpg(c->pid, SIGKILL);
        kill(c->pid, SIGKILL);
    }
}

void ks_container_free(ks_container *c)
{
    if (!c) return;
    if (!c->exited && c->pid > 0) {
        ks_container_signal(c, SIGKILL);
        while (waitpid(c->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        c->exited = 1;
    }
    if (c->cgroup_dir) {
        for (int i = 0; i < 50 && rmdir(c->cgroup_dir) != 0 && errno == EBUSY; i++) {
            kill_cgroup(c->cgroup_dir, SIGKILL, 0);
            usleep(10000);
        }
        free(c->cgroup_dir);
    }
    if (c->cpu_dir) {
        for (int i = 0; i < 50 && rmdir(c->cpu_dir) != 0 && errno == EBUSY; i++) {
            kill_cgroup(c->cpu_dir, SIGKILL, 0);
            usleep(10000);
        }
        free(c->cpu_dir);
    }
    if (c->pidfd >= 0) close(c->pidfd);
    free(c);
}

static void cleanup_base(const char *base)
{
    if (!base[0]) return;
    DIR *d = opendir(base);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.' || e->d_type != DT_DIR) continue;
        char dir[PATH_MAX * 2];
        snprintf(dir, sizeof dir, "%s/%s", base, e->d_name);
        for (int i = 0; i < 50; i++) {
            kill_cgroup(dir, SIGKILL, 0);
            if (rmdir(dir) == 0 || errno != EBUSY) break;
            usleep(10000);
        }
    }
    if (d) closedir(d);
    rmdir(base);
}

void ks_container_cleanup_all(void)
{
    cleanup_base(g_cgroup_base);
    cleanup_base(g_cpu_base);
}
