/*
 * localaddr.h — this host's address as other machines reach it, chosen as Spark's
 * Utils.findLocalInetAddress does: SPARK_LOCAL_IP when set; else the address the host name resolves
 * to, unless that is a loopback address (Debian maps the host name to 127.0.1.1), in which case the
 * first address of an interface that is up and neither loopback nor link-local (IPv4 first, then
 * IPv6, so an IPv6-only host or pod finds its address), with one WARN line naming both (as Spark's
 * "Your hostname, X resolves to a loopback address"); else the loopback address.
 *
 * cs_loopback_address is where a process binds what only this host reaches (the UI and RPC of
 * local modes, the in-process Connect server): 127.0.0.1, or ::1 on an IPv6-only host, where no
 * IPv4 loopback exists. cs_host_port writes host:port, an IPv6 address in brackets, as URLs and
 * Spark's host:port strings want it.
 *
 * Called by the Kubernetes backend for the default of spark.driver.host in client mode (executors
 * on other nodes must reach the driver) and by the local modes. No ownership: the caller's buffer
 * is filled; cs_loopback_address returns a static string.
 */
#ifndef CSPARK_COMMON_LOCALADDR_H
#define CSPARK_COMMON_LOCALADDR_H

#include <stdbool.h>
#include <stddef.h>

/* Fills out (at least 46 bytes) with a numeric address; never fails (the loopback at worst). */
void cs_local_address(char *out, size_t len);

/* "127.0.0.1", or "::1" when this host has no usable IPv4 loopback (probed once). */
const char *cs_loopback_address(void);

/* Where a server listens for every peer when no address is given: "::" (dual-stack: IPv4 and
 * IPv6 peers, so an IPv6-only pod is reachable) when the host has IPv6, else "0.0.0.0". */
const char *cs_wildcard_address(void);

/* host:port into out, "[host]:port" when host is an IPv6 address. */
void cs_host_port(char *out, size_t len, const char *host, int port);

#endif
