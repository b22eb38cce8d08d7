/* kubesim helpers: clock and timestamps, random uids/names, and metav1.Status bodies.
 * Called by every API-server file; see util.h for ownership. */
#define _GNU_SOURCE
#include "util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

int64_t ks_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t ks_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void ks_rfc3339(int64_t t, char *buf, size_t len)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int64_t ks_parse_rfc3339(const char *s)
{
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    if (!s || !strptime(s, "%Y-%m-%dT%H:%M:%S", &tm)) return -1;
    return (int64_t)timegm(&tm);
}

static pthread_mutex_t rnd_mu = PTHREAD_MUTEX_INITIALIZER;
static int rnd_init;
static unsigned short rnd_state[3];

static uint64_t rnd64(void)
{
    pthread_mutex_lock(&rnd_mu);
    if (!rnd_init) {
        unsigned short seed[3];
        int fd = open("/dev/urandom", O_RDONLY);
        if (fd < 0 || read(fd, seed, sizeof seed) != (ssize_t)sizeof seed) {
            seed[0] = (unsigned short)time(NULL);
            seed[1] = (unsigned short)getpid();
            seed[2] = 0x1234;
        }
        if (fd >= 0) close(fd);
        memcpy(rnd_state, seed, sizeof seed);
        rnd_init = 1;
    }
    uint64_t v = ((uint64_t)(uint32_t)jrand48(rnd_state) << 32) | (uint32_t)jrand48(rnd_state);
    pthread_mutex_unlock(&rnd_mu);
    return v;
}

double ks_random01(void)
{
    return (double)(rnd64() >> 11) / (double)(1ULL << 53);
}

void ks_uuid(char *buf)
{
    uint64_t a = rnd64(), b = rnd64();
    a = (a & ~0xF000ULL) | 0x4000ULL;
    b = (b & ~(3ULL << 62)) | (2ULL << 62);
    snprintf(buf, 37, "%08x-%04x-%04x-%04x-%012llx", (unsigned)(a >> 32),
             (unsigned)((a >> 16) & 0xFFFF), (unsigned)(a & 0xFFFF), (unsigned)(b >> 48),
             (unsigned long long)(b & 0xFFFFFFFFFFFFULL));
}

void ks_random_suffix(char *buf, int n)
{
    static const char alphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    for (int i = 0; i < n; i++)
        buf[i] = alphabet[rnd64() % (sizeof alphabet - 1)];
    buf[n] = 0;
}

json_t *ks_status(int code, const char *reason, const char *message, json_t *details)
{
    json_t *st = json_pack("{s:s,s:s,s:{},s:s,s:s,s:s,s:i}", "kind", "Status", "apiVersion", "v1",
                           "metadata", "status", "Failure", "message", message ? message : "",
                           "reason", reason ? reason : "", "code", code);
    if (details) json_object_set_new(st, "details", details);
    if (!reason || !*reason) json_object_del(st, "reason");
    return st;
}

json_t *ks_status_success(void)
{
    return json_pack("{s:s,s:s,s:{},s:s,s:i}", "kind", "Status", "apiVersion", "v1", "metadata",
                     "status", "Success", "code", 200);
}
