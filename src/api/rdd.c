/*
 * rdd.c — creation and release of lineage nodes and function references (see rdd.h). Names
 * every node after the operation and the job function that created it ("reduce_by_key at
 * wordcount.so:cspark_main"), as Spark names RDDs after their call site; stage names shown in
 * logs, the progress bar and the event log come from here.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/context.h"
#include "api/rdd_internal.h"

int cs_fn_ref_init(cspark_context *sc, fn_ref *ref, void *fn, const void *closure, size_t len,
                   const char *what, cs_error *err)
{
    memset(ref, 0, sizeof *ref);
    if (!fn) return cs_error_set(err, CS_EINVAL, "%s: the function is NULL", what);
    const char *builtin = cs_builtin_name(fn);
    if (builtin) {
        cs_fn_ref_builtin(ref, builtin, fn);
        cs_fn_ref_copy_closure(ref, closure, len);
        return 0;
    }
    Dl_info info;
    if (!dladdr(fn, &info) || !info.dli_sname || info.dli_saddr != fn) {
        const char *obj = info.dli_fname ? strrchr(info.dli_fname, '/') : NULL;
        return cs_error_set(err, CS_EINVAL,
                            "%s: the function at %p%s%s is not an exported symbol; cspark "
                            "references functions by name, so it must not be static",
                            what, fn, obj ? " in " : "", obj ? obj + 1 : "");
    }
    ref->name = cs_xstrdup(info.dli_sname);
    ref->ptr = fn;
    if (closure && len) {
        ref->closure = cs_xmalloc(len);
        memcpy(ref->closure, closure, len);
        ref->closure_len = len;
    }
    (void)sc;
    return 0;
}

void cs_fn_ref_builtin(fn_ref *ref, const char *name, void *fn)
{
    memset(ref, 0, sizeof *ref);
    ref->name = cs_xstrdup(name);
    ref->ptr = fn;
}

void cs_fn_ref_copy_closure(fn_ref *ref, const void *closure, size_t len)
{
    if (closure && len) {
        ref->closure = cs_xmalloc(len);
        memcpy(ref->closure, closure, len);
        ref->closure_len = len;
    }
}

void cs_fn_ref_free(fn_ref *ref)
{
    free(ref->name);
    free(ref->closure);
    memset(ref, 0, sizeof *ref);
}

cspark_rdd *cs_rdd_new(cspark_context *sc, rdd_kind kind, int num_partitions, const char *op,
                       const void *caller)
{
    cspark_rdd *r = cs_xcalloc(1, sizeof *r);
    r->sc = sc;
    r->kind = kind;
    r->num_partitions = num_partitions;
    char site[256] = "";
    Dl_info info;
    if (caller && dladdr(caller, &info) && info.dli_fname) {
        const char *base = strrchr(info.dli_fname, '/');
        snprintf(site, sizeof site, " at %s%s%s", base ? base + 1 : info.dli_fname,
                 info.dli_sname ? ":" : "", info.dli_sname ? info.dli_sname : "");
    }
    size_t n = strlen(op) + strlen(site) + 1;
    r->name = cs_xmalloc(n);
    snprintf(r->name, n, "%s%s", op, site);
    cs_batch_init(&r->par_data);
    cs_context_add_rdd(sc, r);
    return r;
}

void cs_rdd_free(cspark_rdd *r)
{
    free(r->name);
    cs_fn_ref_free(&r->fn);
    cs_batch_free(&r->par_data);
    free(r->par_offsets);
    free(r->splits);
    for (int i = 0; i < r->num_paths; i++)
        free(r->paths[i]);
    free(r->paths);
    free(r->union_parent);
    free(r->union_index);
    free(r->group_start);
    cs_fn_ref_free(&r->agg_create);
    cs_fn_ref_free(&r->agg_merge_value);
    cs_fn_ref_free(&r->agg_merge_combiners);
    free(r->agg_zero);
    free(r);
}

void cs_shuffle_dep_free(shuffle_dep *d)
{
    cs_fn_ref_free(&d->agg_create);
    cs_fn_ref_free(&d->agg_merge_value);
    cs_fn_ref_free(&d->agg_merge_combiners);
    free(d->agg_zero);
    free(d->range_bounds);
    free(d->range_bound_data);
    free(d);
}
