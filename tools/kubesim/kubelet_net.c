/*
 * kubelet_net.c — pod networking for the kubesim kubelet, as a bridge CNI plugin does it: one Linux
 * bridge per node holding the first address of the node's pod CIDR (e.g. 10.244.1.1/24), and for
 * every pod a network namespace of its own (a nsfs file bind-mounted at <pod dir>/netns, joined by
 * each of its containers) with loopback up and one end of a veth pair as eth0 carrying the pod's
 * address, the other end enslaved to the bridge; the default route goes through the bridge. Pods
 * thus reach each other, the node's addresses and whatever the node's namespace routes to (the API
 * server, cluster DNS), and 127.0.0.1 inside a pod is the pod itself.
 *
 * Links and addresses are configured with iproute2 (`ip -batch -`), run in the node's namespace for
 * the host side and through setns into the pod's namespace for the pod side. Called by kubelet.c on
 * its worker thread (kl_net_node_up at start, kl_net_pod_up / kl_net_pod_down per pod). The
 * kubelet must run as root in a network namespace of its own (scripts/k8s-up, scripts/kubesim-run
 * enter one with unshare): the bridges it creates live there.
 *
 * Ownership: nothing allocated survives a call; the pod's namespace file is removed by
 * kl_net_pod_down (the kernel then deletes the veth pair with the namespace).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "kubelet_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs `ip -batch -` with the given commands on stdin; netns_fd >= 0: inside that namespace. */
static int ip_batch(const char *cmds, int netns_fd, char *err, size_t errlen)
{
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0) return -errno;
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return -errno;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        return -e;
    }
    if (pid == 0) {
        if (netns_fd >= 0 && setns(netns_fd, CLONE_NEWNET) != 0) _exit(125);
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(out[1], 2);
        execlp("ip", "ip", "-batch", "-", (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    size_t n = strlen(cmds);
    if (write(in[1], cmds, n) != (ssize_t)n) {
        /* ip exited early: its output says why */
    }
    close(in[1]);
    char buf[512];
    size_t got = 0;
    ssize_t r;
    while ((r = read(out[0], buf + got, sizeof buf - 1 - got)) > 0)
        if ((got += (size_t)r) >= sizeof buf - 1) break;
    buf[got] = 0;
    while (read(out[0], (char[256]){0}, 256) > 0)
        ;
    close(out[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return 0;
    char *nl = strchr(buf, '\n');
    if (nl) *nl = 0;
    snprintf(err, errlen, "ip: %s", got ? buf : "failed");
    return -EIO;
}

/* "10.244.1.0/24" -> base address (host order) and prefix length. */
static int parse_cidr(const char *cidr, uint32_t *base, int *bits)
{
    char addr[32];
    const char *slash = strchr(cidr, '/');
    if (!slash || (size_t)(slash - cidr) >= sizeof addr) return -1;
    memcpy(addr, cidr, (size_t)(slash - cidr));
    addr[slash - cidr] = 0;
    struct in_addr a;
    if (inet_pton(AF_INET, addr, &a) != 1) return -1;
    *bits = atoi(slash + 1);
    if (*bits < 8 || *bits > 30) return -1;
    *base = ntohl(a.s_addr) & (0xFFFFFFFFu << (32 - *bits));
    return 0;
}

static void addr_str(uint32_t host_order, char *out, size_t len)
{
    struct in_addr a = {.s_addr = htonl(host_order)};
    inet_ntop(AF_INET, &a, out, (socklen_t)len);
}

int kl_net_node_up(knode *n, char *err, size_t errlen)
{
    uint32_t base;
    int bits;
    if (parse_cidr(n->pod_cidr, &base, &bits) != 0) {
        snprintf(err, errlen, "bad pod CIDR \"%s\"", n->pod_cidr);
        return -EINVAL;
    }
    char gw[32], cmds[512];
    addr_str(base + 1, gw, sizeof gw);
    n->net_base = base;
    n->net_size = 1u << (32 - bits);
    snprintf(n->bridge, sizeof n->bridge, "cbr%u", (base >> 8) & 0xFFFFu); /* one per pod CIDR */
    snprintf(n->gateway, sizeof n->gateway, "%s", gw);
    /* the bridge's own MAC address, fixed: a bridge left to choose takes the lowest MAC of its
     * ports and changes it when that pod's veth goes, and the other pods keep sending to the
     * gateway's old MAC until their ARP entry goes stale (tens of seconds without a packet
     * reaching the node) — as the CNI bridge plugin and Docker, set one (locally administered,
     * from the gateway's address) */
    uint32_t g = base + 1;
    snprintf(cmds, sizeof cmds,
             "link add %s address 02:42:%02x:%02x:%02x:%02x type bridge\naddr add %s/%d dev "
             "%s\nlink set %s up\n",
             n->bridge, (g >> 24) & 0xFFu, (g >> 16) & 0xFFu, (g >> 8) & 0xFFu, g & 0xFFu, gw, bits,
             n->bridge, n->bridge);
    int rc = ip_batch(cmds, -1, err, errlen);
    if (rc == 0) {
        int fd = open("/proc/sys/net/ipv4/ip_forward", O_WRONLY | O_CLOEXEC);
        if (fd >= 0) {
            if (write(fd, "1", 1) != 1) {
                /* forwarding between bridges stays off: pods still reach the node */
            }
            close(fd);
        }
    }
    return rc;
}

int kl_net_alloc_ip(knode *n, char *out, size_t len)
{
    /* .0 is the network, .1 the bridge, the last the broadcast address */
    for (unsigned tries = 0; tries + 3 < n->net_size && tries < 65536; tries++) {
        unsigned off = 2 + (n->next_ip++ % (n->net_size - 3));
        if (off >= sizeof n->ip_used * 8) return -ENOSPC;
        if (n->ip_used[off / 8] & (1u << (off % 8))) continue;
        n->ip_used[off / 8] |= (uint8_t)(1u << (off % 8));
        addr_str(n->net_base + off, out, len);
        return 0;
    }
    return -ENOSPC;
}

void kl_net_free_ip(knode *n, const char *ip)
{
    struct in_addr a;
    if (!n->net_size || inet_pton(AF_INET, ip, &a) != 1) return;
    uint32_t off = ntohl(a.s_addr) - n->net_base;
    if (off < n->net_size && off < sizeof n->ip_used * 8)
        n->ip_used[off / 8] &= (uint8_t) ~(1u << (off % 8));
}

int kl_net_pod_up(kpod *p, char *err, size_t errlen)
{
    knode *n = p->node;
    char path[4200], cmds[5000], host_if[16];
    snprintf(path, sizeof path, "%s/netns", p->dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0444);
    if (fd < 0) {
        snprintf(err, errlen, "create %s: %s", path, strerror(errno));
        return -errno;
    }
    close(fd);
    /* a child unshares a new network namespace and pins it on the file */
    pid_t pid = fork();
    if (pid == 0) {
        if (unshare(CLONE_NEWNET) != 0) _exit(1);
        _exit(mount("/proc/self/ns/net", path, NULL, MS_BIND, NULL) == 0 ? 0 : 2);
    }
    int st = 0;
    while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        snprintf(err, errlen, "creating the pod's network namespace failed");
        unlink(path);
        return -EPERM;
    }
    /* host side: the veth pair, one end on the bridge, the other moved into the pod */
    unsigned long long h = 1469598103934665603ULL;
    for (const char *c = p->uid; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ULL;
    snprintf(host_if, sizeof host_if, "veth%08llx", h & 0xFFFFFFFFULL);
    snprintf(cmds, sizeof cmds,
             "link add %s type veth peer name eth0 netns %s\nlink set %s master %s\nlink set %s "
             "up\n",
             host_if, path, host_if, n->bridge, host_if);
    int rc = ip_batch(cmds, -1, err, errlen);
    if (rc == 0) {
        int nsfd = open(path, O_RDONLY | O_CLOEXEC);
        if (nsfd < 0) {
            snprintf(err, errlen, "open %s: %s", path, strerror(errno));
            rc = -errno;
        } else {
            int bits = 32;
            while (bits > 0 && (1u << (32 - bits)) < n->net_size)
                bits--;
            snprintf(cmds, sizeof cmds,
                     "link set lo up\naddr add %s/%d dev eth0\nlink set eth0 up\nroute add "
                     "default via %s\n",
                     p->ip, bits, n->gateway);
            rc = ip_batch(cmds, nsfd, err, errlen);
            close(nsfd);
        }
    }
    if (rc != 0) kl_net_pod_down(p);
    return rc;
}

void kl_net_pod_down(kpod *p)
{
    if (!p->dir) return;
    char path[4200];
    snprintf(path, sizeof path, "%s/netns", p->dir);
    umount2(path,
            MNT_DETACH); /* the namespace, and its end of the veth pair, go with the last user */
    unlink(path);
}

int kl_net_add_local_address(const char *ip, char *err, size_t errlen)
{
    char cmds[128];
    snprintf(cmds, sizeof cmds, "link set lo up\naddr replace %s/32 dev lo\n", ip);
    return ip_batch(cmds, -1, err, errlen);
}
