/*
 * container.h — one container of a kubesim pod as a real process tree on this host.
 *
 * ks_container_start() forks the container's init process, which (when the sandbox permits: root
 * and unshare(CLONE_NEWNS)) enters a private mount, UTS and PID namespace (a tini-like init of ours
 * is PID 1, the command PID 2: when kubesim dies, PDEATHSIG ends the init and the kernel every
 * process in the namespace), enters the image's root filesystem when it has one
 * (container_rootfs.c), bind-mounts the pod's volumes, image tree, service-account dir,
 * /etc/hosts and /etc/resolv.conf at their real paths, joins the pod's network namespace, sets the
 * pod's hostname, joins its own process group and a memory cgroup holding the container's limit,
 * sets PR_SET_PDEATHSIG, sends stdout and stderr to the container's log file and execs the command
 * found on the env's PATH. The kubelet (kubelet.c) calls these functions from its single worker
 * thread only.
 *
 * Ownership: the spec and everything it points to is borrowed during ks_container_start() only; the
 * returned ks_container is owned by the caller and freed with ks_container_free() once reaped.
 */
#ifndef KS_CONTAINER_H
#define KS_CONTAINER_H

#include <stddef.h>
#include <sys/types.h>

typedef struct ks_mount {
    const char *src; /* host path (directory or regular file) */
    const char *dst; /* absolute path inside the container */
    int read_only;
} ks_mount;

typedef struct ks_container_spec {
    const char *id;    /* unique name (cgroup directory), e.g. "<pod uid>-<container>-<restart>" */
    char *const *argv; /* NULL-terminated; argv[0] searched on the PATH of envp */
    char *const *envp; /* NULL-terminated "K=V" */
    const ks_mount *mounts; /* applied in order */
    int n_mounts;
    const char *workdir;    /* NULL or "" -> "/" */
    const char *hostname;   /* pod hostname (UTS namespace), may be NULL */
    const char *log_path;   /* stdout+stderr appended here */
    long long memory_limit; /* bytes, 0 = none */
    long long
        cpu_request; /* millicores, 0 = none (cpu.shares as the kubelet: millis * 1024 / 1000) */
    long long cpu_limit;    /* millicores, 0 = none (cpu.cfs_quota_us over a 100 ms period) */
    long long run_as_user;  /* securityContext.runAsUser, -1 = keep (root) */
    long long run_as_group; /* securityContext.runAsGroup, -1 = the user's primary group 0 */
    const long long *supplemental_groups; /* securityContext.supplementalGroups (+ fsGroup) */
    int n_supplemental_groups;
    const char *scratch_dir;   /* host dir owned by the pod: mount points missing on the host are
                                * created in shadow copies of their parent under it, never on the
                                * host; NULL -> created on the host (mkdir -p) */
    const char *netns_path;    /* the pod's network namespace (a bind-mounted nsfs file, shared by
                                * its containers), or NULL to stay in kubesim's own */
    const char *const *layers; /* an image's layer directories, lowest first: the container's root
                                * is them stacked under a writable layer of its own, entered with
                                * pivot_root (container_rootfs.h), and mounts[].dst are paths in
                                * it; needs scratch_dir and mount namespaces. NULL = the host's
                                * root, the image (if any) bound over it */
    int n_layers;
} ks_container_spec;

typedef struct ks_container ks_container;

/* What this sandbox permits, probed once. */
typedef struct ks_container_caps {
    int mount_ns;   /* private mount namespaces with bind mounts */
    int cgroup;     /* cgroup v1 memory controller writable */
    int cpu_cgroup; /* cgroup v1 cpu controller writable (requests -> cpu.shares, limits -> CFS
                       quota) */
    int pid_ns; /* a PID namespace per container (an init of ours as PID 1, the command as PID 2) */
} ks_container_caps;
const ks_container_caps *ks_container_probe(void);

/* Starts the container. Returns 0 and *out, or a negative errno with a kubelet-style message in err
 * (e.g. `exec: "foo": executable file not found in $PATH`): the container then never ran. */
int ks_container_start(const ks_container_spec *spec, ks_container **out, char *err, size_t errlen);

pid_t ks_container_pid(const ks_container *c);
/* A pidfd that becomes readable when the init process exits, or -1 (then poll ks_container_reap).
 */
int ks_container_pidfd(const ks_container *c);

/* Sends sig to the container's process group and to every process of its cgroup. */
void ks_container_signal(ks_container *c, int sig);

/* Non-blocking. Returns 1 while the init process runs; 0 once it has exited: fills *exit_code
 * (128+n for a signal n) and *reason ("Completed", "Error" or "OOMKilled"), and kills whatever the
 * init left behind. */
int ks_container_reap(ks_container *c, int *exit_code, const char **reason);

/* Fallback memory enforcement when no cgroup is available: sums the RSS of the process group and
 * SIGKILLs it when over the limit (the exit is then reported as OOMKilled). No-op with a cgroup. */
void ks_container_check_memory(ks_container *c);

/* Runs argv inside running container c (its mount, UTS and PID namespaces and cgroups), with envp
 * and workdir, output discarded: a preStop `exec` hook. Returns 0 and a handle to reap/free like a
 * container (ks_container_reap gives the hook's exit code), or a negative errno with a message in
 * err. Needs the PID namespace (caps.pid_ns). */
int ks_container_exec(ks_container *c, char *const *argv, char *const *envp, const char *workdir,
                      ks_container **out, char *err, size_t errlen);

/* Frees c (SIGKILLs and reaps it first if it still runs) and removes its cgroup. NULL accepted. */
void ks_container_free(ks_container *c);

/* Kills and removes every cgroup this process created (at kubelet stop). */
void ks_container_cleanup_all(void);

#endif
