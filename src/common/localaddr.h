/*
 * localaddr.h — this host's address as other machines reach it, chosen as Spark's
 * Utils.findLocalInetAddress does: SPARK_LOCAL_IP when set; else the address the host name resolves
 * to, unless that is a loopback address (Debian maps the host name to 127.0.1.1), in which case the
 * first IPv4 address of an interface that is up and neither loopback nor link-local, with one WARN
 * line naming both (as Spark's "Your hostname, X resolves to a loopback address"); else 127.0.0.1.
 *
 * Called by the Kubernetes backend for the default of spark.driver.host in client mode (executors
 * on other nodes must reach the driver). No ownership: the caller's buffer is filled.
 */
#ifndef CSPARK_COMMON_LOCALADDR_H
#define CSPARK_COMMON_LOCALADDR_H

#include <stddef.h>

/* Fills out (at least 46 bytes) with a numeric address; never fails (127.0.0.1 at worst). */
void cs_local_address(char *out, size_t len);

#endif
