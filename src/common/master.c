/* master.c — Spark master URL parsing (master.h).
 *
 * Mirrors SparkContext.createTaskScheduler's patterns (local, local[N|*], local[N|*,F],
 * local-cluster[N,C,M], whitespace allowed around the numbers as Spark's regexes allow) and
 * Utils.checkAndGetK8sMasterUrl for k8s:// (no scheme means https; http and https accepted).
 * cspark additionally requires the API server port. Called by cspark-submit and the context.
 */
#include "common/master.h"

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define MASTER_EXPECTED                                                                            \
    "expected local, local[N], local[*], local[N,F], local-cluster[N,C,M] or "                     \
    "k8s://https://host:port"

static int invalid(cs_error *err, const char *url)
{
    return cs_error_set(err, CS_EINVAL, "invalid master URL '%s': " MASTER_EXPECTED, url);
}

const char *cs_master_kind_name(cs_master_kind kind)
{
    switch (kind) {
    case MASTER_LOCAL:
        return "local";
    case MASTER_LOCAL_CLUSTER:
        return "local-cluster";
    case MASTER_K8S:
        return "k8s";
    }
    return "unknown";
}

static void skip_ws(const char **p)
{
    while (isspace((unsigned char)**p))
        (*p)++;
}

/* Parses [0-9]+ (or '*' when star is non-NULL, setting *star) with optional surrounding
 * whitespace; value must fit in an int. */
static bool parse_num(const char **p, int *out, bool *star)
{
    skip_ws(p);
    if (star && **p == '*') {
        *star = true;
        (*p)++;
        skip_ws(p);
        return true;
    }
    if (!isdigit((unsigned char)**p)) return false;
    long long v = 0;
    while (isdigit((unsigned char)**p)) {
        v = v * 10 + (**p - '0');
        if (v > INT_MAX) return false;
        (*p)++;
    }
    skip_ws(p);
    *out = (int)v;
    return true;
}

static int nproc(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static int parse_k8s(const char *url, cs_master *out, cs_error *err)
{
    const char *rest = url + strlen("k8s://");
    const char *scheme = "https";
    const char *sep = strstr(rest, "://");
    if (sep) {
        size_t sl = (size_t)(sep - rest);
        if (sl == 5 && strncasecmp(rest, "https", 5) == 0)
            scheme = "https";
        else if (sl == 4 && strncasecmp(rest, "http", 4) == 0)
            scheme = "http";
        else
            return cs_error_set(err, CS_EINVAL,
                                "invalid master URL '%s': unsupported Kubernetes API scheme '%.*s' "
                                "(expected k8s://https://host:port)",
                                url, (int)sl, rest);
        rest = sep + 3;
    }
    size_t n = strlen(rest);
    while (n && rest[n - 1] == '/')
        n--;
    if (n == 0)
        return cs_error_set(err, CS_EINVAL,
                            "invalid master URL '%s': the Kubernetes API server host is missing "
                            "(expected k8s://https://host:port)",
                            url);
    /* host: [v6] or name/IPv4 up to the last ':'; then a port */
    const char *colon;
    if (rest[0] == '[') {
        const char *close = memchr(rest, ']', n);
        if (!close || close == rest + 1) return invalid(err, url);
        colon = close + 1 < rest + n && close[1] == ':' ? close + 1 : NULL;
    } else {
        colon = NULL;
        for (size_t i = 0; i < n; i++) {
            char ch = rest[i];
            if (ch == ':') {
                colon = rest + i;
                break;
            }
            if (ch == '/' || ch == '@' || ch == '?' || ch == '#' || isspace((unsigned char)ch))
                return cs_error_set(err, CS_EINVAL,
                                    "invalid master URL '%s': expected k8s://https://host:port "
                                    "(no user, path or query)",
                                    url);
        }
        if (colon == rest)
            return cs_error_set(err, CS_EINVAL,
                                "invalid master URL '%s': the Kubernetes API server host is "
                                "missing (expected k8s://https://host:port)",
                                url);
    }
    if (!colon)
        return cs_error_set(err, CS_EINVAL,
                            "invalid master URL '%s': the Kubernetes API server port is missing "
                            "(expected k8s://https://host:port)",
                            url);
    const char *pp = colon + 1, *pe = rest + n;
    long port = 0;
    if (pp == pe) port = -1;
    for (const char *q = pp; q < pe && port >= 0; q++) {
        if (!isdigit((unsigned char)*q) || port > 65535)
            port = -1;
        else
            port = port * 10 + (*q - '0');
    }
    if (port <= 0 || port > 65535)
        return cs_error_set(err, CS_EINVAL,
                            "invalid master URL '%s': invalid Kubernetes API server port '%.*s' "
                            "(expected 1-65535)",
                            url, (int)(pe - pp), pp);
    int w = snprintf(out->api_url, sizeof out->api_url, "%s://%.*s:%ld", scheme,
                     (int)(colon - rest), rest, port);
    if (w < 0 || (size_t)w >= sizeof out->api_url)
        return cs_error_set(err, CS_EINVAL, "invalid master URL '%.64s...': too long", url);
    out->kind = MASTER_K8S;
    return CS_OK;
}

int cs_master_parse(const char *url, cs_master *out, cs_error *err)
{
    memset(out, 0, sizeof *out);
    if (!url) return invalid(err, "");
    if (strncmp(url, "k8s://", 6) == 0) return parse_k8s(url, out, err);
    if (strcmp(url, "local") == 0) {
        out->kind = MASTER_LOCAL;
        out->threads = 1;
        return CS_OK;
    }
    const char *p;
    if (strncmp(url, "local-cluster[", 14) == 0) {
        p = url + 14;
        int v[3];
        for (int i = 0; i < 3; i++) {
            if (!parse_num(&p, &v[i], NULL)) return invalid(err, url);
            if (*p != (i < 2 ? ',' : ']')) return invalid(err, url);
            p++;
        }
        if (*p) return invalid(err, url);
        if (v[0] <= 0 || v[1] <= 0 || v[2] <= 0)
            return cs_error_set(err, CS_EINVAL,
                                "invalid master URL '%s': executors, cores and memory (MiB) "
                                "must all be positive",
                                url);
        out->kind = MASTER_LOCAL_CLUSTER;
        out->executors = v[0];
        out->cores_per_executor = v[1];
        out->memory_mb = v[2];
        return CS_OK;
    }
    if (strncmp(url, "local[", 6) == 0) {
        p = url + 6;
        bool star = false;
        bool has_failures = false;
        int threads = 0, failures = 0;
        if (!parse_num(&p, &threads, &star)) return invalid(err, url);
        if (*p == ',') {
            p++;
            has_failures = true;
            if (!parse_num(&p, &failures, NULL)) return invalid(err, url);
        }
        if (*p != ']' || p[1]) return invalid(err, url);
        if (!star && threads <= 0)
            return cs_error_set(err, CS_EINVAL,
                                "invalid master URL '%s': asked to run locally with %d threads "
                                "(expected at least 1)",
                                url, threads);
        if (has_failures && failures <= 0)
            return cs_error_set(err, CS_EINVAL,
                                "invalid master URL '%s': max task failures must be at least 1",
                                url);
        out->kind = MASTER_LOCAL;
        out->threads = star ? nproc() : threads;
        out->max_failures = failures;
        return CS_OK;
    }
    return invalid(err, url);
}
