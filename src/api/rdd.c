/*
 * rdd.c — lineage nodes made by the API (see rdd_internal.h), named after the operation and the
 * job function that created them ("reduce_by_key at wordcount.so:cspark_main"), and the call
 * sites jobs are named after: each thread's outermost public call (its scope) names whatever
 * the calls it makes inside libcspark create, as Spark's call site is the user's frame.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "api/rdd_internal.h"

/* The outermost public call of this thread that made a scope (see rdd_internal.h). */
static _Thread_local const char *scope_op;
static _Thread_local const void *scope_caller;

bool cs_api_scope_enter(const char *op, const void *caller)
{
    if (scope_op) return false;
    scope_op = op;
    scope_caller = caller;
    return true;
}

void cs_api_scope_leave(bool entered)
{
    if (entered) scope_op = NULL;
}

void cs_api_call_site(const char *op, const void *caller, char *buf, size_t cap)
{
    if (scope_op) {
        op = scope_op;
        caller = scope_caller;
    }
    Dl_info info;
    if (caller && dladdr(caller, &info) && info.dli_fname) {
        const char *base = strrchr(info.dli_fname, '/');
        snprintf(buf, cap, "%s at %s%s%s", op, base ? base + 1 : info.dli_fname,
                 info.dli_sname ? ":" : "", info.dli_sname ? info.dli_sname : "");
    } else {
        snprintf(buf, cap, "%s", op);
    }
}

cspark_rdd *cs_api_rdd_new(cspark_context *sc, rdd_kind kind, int num_partitions, const char *op,
                           const void *caller)
{
    char name[512];
    cs_api_call_site(op, caller, name, sizeof name);
    return cs_rdd_new(&sc->graph, kind, num_partitions, name);
}
