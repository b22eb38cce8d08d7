/* k8s_naming.c — Spark's naming rules for Kubernetes objects (see k8s_naming.h).
 *
 * Ids come from OpenSSL RAND_bytes; everything else is string shaping. Called by the pod-spec
 * builders, cspark-submit and the k8s backend.
 */
#include "cluster/k8s/k8s_naming.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/rand.h>

static const char HEX[] = "0123456789abcdef";

static int random_hex(char *out, size_t nbytes, cs_error *err)
{
    unsigned char buf[64];
    if (nbytes > sizeof buf || RAND_bytes(buf, (int)nbytes) != 1)
        return cs_error_set(err, CS_EIO, "cannot read random bytes for an application id");
    for (size_t i = 0; i < nbytes; i++) {
        out[2 * i] = HEX[buf[i] >> 4];
        out[2 * i + 1] = HEX[buf[i] & 15];
    }
    out[2 * nbytes] = '\0';
    return CS_OK;
}

int cs_k8s_new_app_id(char out[K8S_APP_ID_SIZE], cs_error *err)
{
    memcpy(out, "spark-", 6);
    return random_hex(out + 6, 16, err);
}

int cs_k8s_new_unique_id(char out[K8S_UNIQUE_ID_SIZE], cs_error *err)
{
    int rc = random_hex(out, 3, err);
    if (rc != CS_OK) return rc;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    unsigned long long ms =
        (unsigned long long)ts.tv_sec * 1000ULL + (unsigned long long)ts.tv_nsec / 1000000ULL;
    snprintf(out + 6, K8S_UNIQUE_ID_SIZE - 6, "%010llx", ms & 0xFFFFFFFFFFULL);
    return CS_OK;
}

char *cs_k8s_sanitize_name(const char *s, size_t max)
{
    size_t n = s ? strlen(s) : 0;
    char *out = cs_xmalloc(n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 'A' && ch <= 'Z') ch = (unsigned char)(ch - 'A' + 'a');
        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))) ch = '-';
        if (ch == '-' && (o == 0 || out[o - 1] == '-')) continue; /* leading dash or run */
        out[o++] = (char)ch;
    }
    if (o > max) o = max;
    while (o > 0 && out[o - 1] == '-')
        o--;
    out[o] = '\0';
    return out;
}

static char *concat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *out = cs_xmalloc(la + lb + lc + 1);
    memcpy(out, a, la);
    memcpy(out + la, b, lb);
    memcpy(out + la + lb, c, lc + 1);
    return out;
}

char *cs_k8s_resource_prefix(const char *app_name, const char *unique_id)
{
    size_t ul = strlen(unique_id);
    size_t room = ul + 1 < K8S_POD_PREFIX_MAX ? K8S_POD_PREFIX_MAX - ul - 1 : 1;
    char *name = cs_k8s_sanitize_name(app_name, room);
    if (!name[0]) {
        free(name);
        name = cs_xstrdup("spark");
    }
    if (name[0] >= '0' && name[0] <= '9') name[0] = 'x'; /* Spark: names start with a letter */
    char *uid = cs_k8s_sanitize_name(unique_id, K8S_POD_PREFIX_MAX);
    char *out = concat3(name, "-", uid);
    free(name);
    free(uid);
    return out;
}

char *cs_k8s_app_name_label(const char *app_name)
{
    return cs_k8s_sanitize_name(app_name, K8S_DNS_LABEL_MAX);
}

char *cs_k8s_driver_pod_name(const char *prefix)
{
    return concat3(prefix, "-driver", "");
}

char *cs_k8s_executor_pod_name(const char *prefix, long exec_id)
{
    char num[32];
    snprintf(num, sizeof num, "%ld", exec_id);
    return concat3(prefix, "-exec-", num);
}

char *cs_k8s_driver_service_name(const char *prefix, const char *unique_id)
{
    char *name = concat3(prefix, "-driver-svc", "");
    /* Service names are DNS-1035 labels: <= 63 and starting with a letter */
    if (strlen(name) <= K8S_DNS_LABEL_MAX && name[0] >= 'a' && name[0] <= 'z') return name;
    free(name);
    return concat3("spark-", unique_id, "-driver-svc");
}

char *cs_k8s_driver_configmap_name(const char *unique_id)
{
    return concat3("spark-drv-", unique_id, "-conf-map");
}

char *cs_k8s_executor_configmap_name(const char *unique_id)
{
    return concat3("spark-exec-", unique_id, "-conf-map");
}

char *cs_k8s_auth_secret_name(const char *unique_id)
{
    return concat3("spark-", unique_id, "-auth-secret");
}

static bool is_alnum_lower(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}
static bool is_alnum(char c)
{
    return is_alnum_lower(c) || (c >= 'A' && c <= 'Z');
}

char *cs_k8s_executor_hostname(const char *pod_name)
{
    size_t n = strlen(pod_name);
    const char *p = pod_name + (n > K8S_DNS_LABEL_MAX ? n - K8S_DNS_LABEL_MAX : 0);
    while (*p && !is_alnum(*p))
        p++;
    char *out = cs_xstrdup(p);
    for (char *q = out; *q; q++)
        if (!is_alnum(*q) && *q != '-') *q = '-';
    return out;
}

static bool label_ok(const char *s, size_t n)
{
    if (n == 0 || n > K8S_DNS_LABEL_MAX) return false;
    if (!is_alnum_lower(s[0]) || !is_alnum_lower(s[n - 1])) return false;
    for (size_t i = 0; i < n; i++)
        if (!is_alnum_lower(s[i]) && s[i] != '-') return false;
    return true;
}

bool cs_k8s_is_dns1123_label(const char *s)
{
    return s && label_ok(s, strlen(s));
}

bool cs_k8s_is_dns1123_subdomain(const char *s)
{
    if (!s) return false;
    size_t n = strlen(s);
    if (n == 0 || n > K8S_DNS_SUBDOMAIN_MAX) return false;
    const char *p = s;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        /* a subdomain label may be up to 253 long in pieces; only the character rule matters */
        if (len == 0 || !is_alnum_lower(p[0]) || !is_alnum_lower(p[len - 1])) return false;
        for (size_t i = 0; i < len; i++)
            if (!is_alnum_lower(p[i]) && p[i] != '-') return false;
        if (!dot) return true;
        p = dot + 1;
    }
}

static bool name_part_ok(const char *s, size_t n)
{
    if (n == 0 || n > K8S_DNS_LABEL_MAX) return false;
    if (!is_alnum(s[0]) || !is_alnum(s[n - 1])) return false;
    for (size_t i = 0; i < n; i++)
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.') return false;
    return true;
}

bool cs_k8s_is_label_value(const char *s)
{
    if (!s) return false;
    size_t n = strlen(s);
    return n == 0 || name_part_ok(s, n);
}

bool cs_k8s_is_qualified_name(const char *s)
{
    if (!s) return false;
    const char *slash = strchr(s, '/');
    if (!slash) return name_part_ok(s, strlen(s));
    if (strchr(slash + 1, '/')) return false;
    char prefix[K8S_DNS_SUBDOMAIN_MAX + 1];
    size_t pl = (size_t)(slash - s);
    if (pl == 0 || pl > K8S_DNS_SUBDOMAIN_MAX) return false;
    memcpy(prefix, s, pl);
    prefix[pl] = '\0';
    return cs_k8s_is_dns1123_subdomain(prefix) && name_part_ok(slash + 1, strlen(slash + 1));
}

/* The multiplier of a quantity's suffix (Kubernetes' binarySI and decimalSI), 0 when unknown. */
static long double quantity_suffix(const char *sfx)
{
    static const char *const binary[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    static const char decimal[] = "num kMGTPE"; /* 10^-9 .. 10^18 by steps of 10^3 */
    for (int i = 0; i < 6; i++)
        if (!strcmp(sfx, binary[i])) return powl(2, 10 * (i + 1));
    if (!*sfx) return 1;
    const char *at = sfx[1] ? NULL : strchr(decimal, sfx[0]);
    if (at && *at != ' ') return powl(10, 3 * (int)(at - decimal) - 9);
    if (sfx[0] != 'e' && sfx[0] != 'E') return 0;
    const char *p = sfx + 1 + (sfx[1] == '+' || sfx[1] == '-');
    if (!*p || strspn(p, "0123456789") != strlen(p) || strlen(p) > 3) return 0;
    return powl(10, sfx[1] == '-' ? -atoi(p) : atoi(p));
}

bool cs_k8s_parse_quantity(const char *s, long double *value)
{
    if (!s) return false;
    const char *p = s + (*s == '+' || *s == '-');
    size_t whole = strspn(p, "0123456789"), frac = 0;
    long double v = 0;
    for (size_t i = 0; i < whole; i++)
        v = v * 10 + (p[i] - '0');
    p += whole;
    if (*p == '.') {
        frac = strspn(++p, "0123456789");
        for (size_t i = 0; i < frac; i++)
            v += (p[i] - '0') * powl(10, -(int)(i + 1));
        p += frac;
    }
    long double mult = whole + frac ? quantity_suffix(p) : 0;
    if (mult == 0) return false;
    if (value) *value = (*s == '-' ? -v : v) * mult;
    return true;
}
