/*
 * container_rootfs.h — a container's root filesystem from an image, as a container runtime makes
 * it: the image's layer directories stacked read-only (overlayfs) under a writable layer of the
 * container's own (a tmpfs: gone with the container, as a fresh container gets a fresh writable
 * layer), /dev with the usual device nodes, then pivot_root into it with the old root kept at
 * KS_ROOTFS_OLD until the volumes are bound from it, then detached.
 *
 * The child of ks_container_start() (container.c) calls these after unshare(CLONE_NEWNS), in this
 * order: ks_rootfs_mount, ks_rootfs_pivot, (bind the volumes from KS_ROOTFS_OLD + host path),
 * ks_rootfs_finish. They only make system calls (safe after fork in a threaded kubesim); each
 * returns 0, or -1 with errno set. Strings are prepared by the parent; nothing is owned.
 */
#ifndef KS_CONTAINER_ROOTFS_H
#define KS_CONTAINER_ROOTFS_H

/* where the host's root is, inside the new root, between pivot and finish */
#define KS_ROOTFS_OLD "/.kubesim-host"

/* Mounts the root at <scratch>/root: overlay of lowerdirs (overlayfs syntax, the top layer first)
 * with its writable layer on a tmpfs at <scratch>/rw, and /dev (tmpfs, null, zero, full, random,
 * urandom, tty bound from the host, shm, pts, the fd links). */
int ks_rootfs_mount(const char *scratch, const char *root, const char *lowerdirs);

/* pivot_root into root; the host's root stays reachable at KS_ROOTFS_OLD. */
int ks_rootfs_pivot(const char *root);

/* /sys read-only from the host, then the host's root is detached. */
int ks_rootfs_finish(void);

#endif
