/* localaddr.c — this host's reachable address (see localaddr.h). */
#include "common/localaddr.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/log.h"

static int is_loopback(const struct in_addr *a)
{
    return (ntohl(a->s_addr) >> 24) == 127;
}

static int is_link_local(const struct in_addr *a)
{
    return (ntohl(a->s_addr) >> 16) == 0xA9FE; /* 169.254/16 */
}

void cs_local_address(char *out, size_t len)
{
    const char *env = getenv("SPARK_LOCAL_IP");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return;
    }
    char host[256] = "";
    struct in_addr resolved = {0};
    int have_resolved = 0;
    if (gethostname(host, sizeof host - 1) == 0) {
        struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM}, *res = NULL;
        if (getaddrinfo(host, NULL, &hints, &res) == 0 && res) {
            resolved = ((struct sockaddr_in *)res->ai_addr)->sin_addr;
            have_resolved = 1;
            freeaddrinfo(res);
        }
    }
    if (have_resolved && !is_loopback(&resolved)) {
        inet_ntop(AF_INET, &resolved, out, (socklen_t)len);
        return;
    }
    struct ifaddrs *ifs = NULL;
    if (getifaddrs(&ifs) == 0) {
        for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
                (i->ifa_flags & IFF_LOOPBACK))
                continue;
            struct in_addr a = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
            if (is_loopback(&a) || is_link_local(&a)) continue;
            inet_ntop(AF_INET, &a, out, (socklen_t)len);
            char shown[INET_ADDRSTRLEN] = "none";
            if (have_resolved) inet_ntop(AF_INET, &resolved, shown, sizeof shown);
            CS_WARN("net",
                    "msg=\"Your hostname, %s, resolves to a loopback address: %s; using "
                    "%s instead (on interface %s). Set SPARK_LOCAL_IP if you need to "
                    "bind to another address\"",
                    host, shown, out, i->ifa_name);
            freeifaddrs(ifs);
            return;
        }
        freeifaddrs(ifs);
    }
    snprintf(out, len, "127.0.0.1");
}
