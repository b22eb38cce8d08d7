/*
 * rdd.c — lineage nodes made by the API (see rdd_internal.h), named after the operation and the
 * job function that created them ("reduce_by_key at wordcount.so:cspark_main").
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "api/rdd_internal.h"

cspark_rdd *cs_api_rdd_new(cspark_context *sc, rdd_kind kind, int num_partitions, const char *op,
                           const void *caller)
{
    char name[512];
    Dl_info info;
    if (caller && dladdr(caller, &info) && info.dli_fname) {
        const char *base = strrchr(info.dli_fname, '/');
        snprintf(name, sizeof name, "%s at %s%s%s", op, base ? base + 1 : info.dli_fname,
                 info.dli_sname ? ":" : "", info.dli_sname ? info.dli_sname : "");
    } else {
        snprintf(name, sizeof name, "%s", op);
    }
    return cs_rdd_new(&sc->graph, kind, num_partitions, name);
}
