/* localaddr.c — this host's reachable address and its loopback address (see localaddr.h). */
#include "common/localaddr.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"

/* Loopback (127/8, ::1), link-local (169.254/16, fe80::/10) or unspecified: not for peers. */
static int unusable(const struct sockaddr *sa)
{
    if (sa->sa_family == AF_INET) {
        uint32_t a = ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);
        return (a >> 24) == 127 || (a >> 16) == 0xA9FE || a == 0;
    }
    if (sa->sa_family == AF_INET6) {
        const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(a) || IN6_IS_ADDR_LINKLOCAL(a) || IN6_IS_ADDR_UNSPECIFIED(a) ||
               IN6_IS_ADDR_V4MAPPED(a);
    }
    return 1;
}

static void numeric(const struct sockaddr *sa, char *out, size_t len)
{
    const void *a = sa->sa_family == AF_INET6
                        ? (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr
                        : (const void *)&((const struct sockaddr_in *)sa)->sin_addr;
    if (!inet_ntop(sa->sa_family, a, out, (socklen_t)len)) snprintf(out, len, "?");
}

/* The first address of family the host name resolves to (0 when none); usable or not. */
static int resolve_host(const char *host, int family, struct sockaddr_storage *out)
{
    struct addrinfo hints = {.ai_family = family, .ai_socktype = SOCK_STREAM}, *res = NULL;
    if (!*host || getaddrinfo(host, NULL, &hints, &res) != 0 || !res) return 0;
    memcpy(out, res->ai_addr, res->ai_addrlen);
    freeaddrinfo(res);
    return 1;
}

/* The first usable address of family on an interface that is up; 0 when none. */
static int interface_address(int family, char *out, size_t len, char *ifname, size_t ifcap)
{
    struct ifaddrs *ifs = NULL;
    int found = 0;
    if (getifaddrs(&ifs) != 0) return 0;
    for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != family || !(i->ifa_flags & IFF_UP) ||
            (i->ifa_flags & IFF_LOOPBACK) || unusable(i->ifa_addr))
            continue;
        numeric(i->ifa_addr, out, len);
        snprintf(ifname, ifcap, "%s", i->ifa_name);
        found = 1;
    }
    freeifaddrs(ifs);
    return found;
}

void cs_local_address(char *out, size_t len)
{
    const char *env = getenv("SPARK_LOCAL_IP");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return;
    }
    char host[256] = "";
    if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
    /* the host name's address, IPv4 first (Java's default preference), then IPv6 */
    static const int families[] = {AF_INET, AF_INET6};
    struct sockaddr_storage resolved;
    int have_resolved = 0;
    for (int f = 0; f < 2 && !have_resolved; f++)
        have_resolved = resolve_host(host, families[f], &resolved);
    if (have_resolved && !unusable((struct sockaddr *)&resolved)) {
        numeric((struct sockaddr *)&resolved, out, len);
        return;
    }
    char ifname[IFNAMSIZ + 1] = "";
    for (int f = 0; f < 2; f++) {
        if (!interface_address(families[f], out, len, ifname, sizeof ifname)) continue;
        char shown[INET6_ADDRSTRLEN] = "none";
        if (have_resolved) numeric((struct sockaddr *)&resolved, shown, sizeof shown);
        CS_WARN("net",
                "msg=\"Your hostname, %s, resolves to a loopback address: %s; using "
                "%s instead (on interface %s). Set SPARK_LOCAL_IP if you need to "
                "bind to another address\"",
                host, shown, out, ifname);
        return;
    }
    snprintf(out, len, "%s", cs_loopback_address());
}

static const char *loopback = "127.0.0.1";
static pthread_once_t loopback_once = PTHREAD_ONCE_INIT;

/* IPv4's loopback when a socket can be bound to it, else IPv6's (an IPv6-only host). */
static void probe_loopback(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
    if (fd >= 0) close(fd);
    if (ok) return;
    fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in6 b = {.sin6_family = AF_INET6, .sin6_port = 0};
    b.sin6_addr = in6addr_loopback;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&b, sizeof b) == 0) loopback = "::1";
    if (fd >= 0) close(fd);
}

const char *cs_loopback_address(void)
{
    pthread_once(&loopback_once, probe_loopback);
    return loopback;
}

static const char *wildcard = "0.0.0.0";
static pthread_once_t wildcard_once = PTHREAD_ONCE_INIT;

/* "::" when this host can listen on IPv6 (a dual-stack socket: IPv4 peers too), else "0.0.0.0". */
static void probe_wildcard(void)
{
    int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int off = 0;
    struct sockaddr_in6 b = {.sin6_family = AF_INET6, .sin6_port = 0};
    b.sin6_addr = in6addr_any;
    if (fd >= 0 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off) == 0 &&
        bind(fd, (struct sockaddr *)&b, sizeof b) == 0)
        wildcard = "::";
    if (fd >= 0) close(fd);
}

const char *cs_wildcard_address(void)
{
    pthread_once(&wildcard_once, probe_wildcard);
    return wildcard;
}

void cs_host_port(char *out, size_t len, const char *host, int port)
{
    bool v6 = strchr(host, ':') && host[0] != '[';
    snprintf(out, len, v6 ? "[%s]:%d" : "%s:%d", host, port);
}
