/*
 * exec_services.c — the registry of an executor's long-lived services (exec_services.h): a
 * short list under one mutex, searched by name (a handful of services at most).
 */
#include "exec/exec_services.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/err.h"

typedef struct service {
    char *name;
    void *value;
    cs_exec_service_destroy_fn destroy;
    struct service *next; /* the one made before */
} service;

struct cs_exec_services {
    pthread_mutex_t lock;
    service *newest;
};

cs_exec_services *cs_exec_services_new(void)
{
    cs_exec_services *s = cs_xcalloc(1, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    return s;
}

void *cs_exec_service(cs_exec_services *s, const char *name, cs_exec_service_create_fn create,
                      cs_exec_service_destroy_fn destroy, void *arg)
{
    if (!s) return NULL;
    pthread_mutex_lock(&s->lock);
    void *value = NULL;
    for (service *v = s->newest; v; v = v->next)
        if (strcmp(v->name, name) == 0) {
            value = v->value;
            break;
        }
    if (!value && (value = create(arg)) != NULL) {
        service *v = cs_xcalloc(1, sizeof *v);
        v->name = cs_xstrdup(name);
        v->value = value;
        v->destroy = destroy;
        v->next = s->newest;
        s->newest = v;
    }
    pthread_mutex_unlock(&s->lock);
    return value;
}

void cs_exec_services_free(cs_exec_services *s)
{
    if (!s) return;
    service *v = s->newest;
    while (v) {
        service *next = v->next;
        if (v->destroy) v->destroy(v->value);
        free(v->name);
        free(v);
        v = next;
    }
    pthread_mutex_destroy(&s->lock);
    free(s);
}
