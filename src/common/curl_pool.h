/*
 * curl_pool.h — idle CURL easy handles kept for reuse, so that connections stay alive between
 * requests (the Kubernetes client's and the S3A file system's).
 *
 * Thread-safe: any thread gets and puts handles; the pool's own mutex guards the idle list.
 * Ownership: a handle from cs_curl_pool_get belongs to the caller until cs_curl_pool_put; the
 * pool cleans up the idle ones in cs_curl_pool_destroy.
 */
#ifndef CSPARK_COMMON_CURL_POOL_H
#define CSPARK_COMMON_CURL_POOL_H

#include <curl/curl.h>
#include <pthread.h>

typedef struct cs_curl_pool {
    pthread_mutex_t lock; /* guards idle and n */
    CURL **idle;
    int n, cap; /* cap: the most idle handles kept */
} cs_curl_pool;

void cs_curl_pool_init(cs_curl_pool *p, int cap);
/* Cleans up the idle handles; a zeroed (never initialised) pool is left alone. */
void cs_curl_pool_destroy(cs_curl_pool *p);
/* An idle handle (its connection may still be open), else a new one; NULL only when
 * curl_easy_init fails. */
CURL *cs_curl_pool_get(cs_curl_pool *p);
/* Keeps h for reuse, or cleans it up when the pool is full. NULL is ignored. */
void cs_curl_pool_put(cs_curl_pool *p, CURL *h);

#endif /* CSPARK_COMMON_CURL_POOL_H */
