/* curl_pool.c — idle CURL handles for reuse (see curl_pool.h). */
#include "common/curl_pool.h"

#include <stdlib.h>

#include "common/err.h"

void cs_curl_pool_init(cs_curl_pool *p, int cap)
{
    pthread_mutex_init(&p->lock, NULL);
    p->cap = cap > 0 ? cap : 1;
    p->idle = cs_xcalloc((size_t)p->cap, sizeof *p->idle);
    p->n = 0;
}

void cs_curl_pool_destroy(cs_curl_pool *p)
{
    if (!p->idle) return; /* never initialised (zeroed), or destroyed */
    for (int i = 0; i < p->n; i++)
        curl_easy_cleanup(p->idle[i]);
    free(p->idle);
    p->idle = NULL;
    p->n = 0;
    pthread_mutex_destroy(&p->lock);
}

CURL *cs_curl_pool_get(cs_curl_pool *p)
{
    CURL *h = NULL;
    pthread_mutex_lock(&p->lock);
    if (p->n > 0) h = p->idle[--p->n];
    pthread_mutex_unlock(&p->lock);
    return h ? h : curl_easy_init();
}

void cs_curl_pool_put(cs_curl_pool *p, CURL *h)
{
    if (!h) return;
    pthread_mutex_lock(&p->lock);
    if (p->n < p->cap) {
        p->idle[p->n++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&p->lock);
    if (h) curl_easy_cleanup(h);
}
