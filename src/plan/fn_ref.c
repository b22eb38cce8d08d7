/*
 * fn_ref.c — function references by name (see fn_ref.h). Called by the API when a
 * transformation or action takes a function (driver), and by the stage plan decoder (executors).
 */
#define _GNU_SOURCE
#include "plan/fn_ref.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "common/elf_symbols.h"
#include "plan/builtins.h"

int cs_fn_ref_init(fn_ref *ref, void *fn, const void *closure, size_t len, const char *what,
                   cs_error *err)
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
        /* a static (or hidden) function: its name is only in the object's symbol table */
        cs_elf_location loc;
        bool known = cs_elf_locate(fn, &loc);
        if (known && loc.function[0] && loc.offset == 0)
            return cs_error_set(err, CS_EINVAL,
                                "%s: function '%s' in %s is not an exported symbol; cspark "
                                "references functions by name, so it must not be static (remove "
                                "'static', and build without -fvisibility=hidden for it)",
                                what, loc.function, loc.object);
        return cs_error_set(err, CS_EINVAL,
                            "%s: the function at %p%s%s is not an exported symbol; cspark "
                            "references functions by name, so it must not be static",
                            what, fn, known ? " in " : "", known ? loc.object : "");
    }
    ref->name = cs_xstrdup(info.dli_sname);
    ref->ptr = fn;
    cs_fn_ref_copy_closure(ref, closure, len);
    return 0;
}

int cs_fn_ref_resolve(fn_ref *ref, const char *name, void *app_handle, const void *closure,
                      size_t len, cs_error *err)
{
    memset(ref, 0, sizeof *ref);
    void *p = cs_builtin_lookup(name);
    if (!p && app_handle) p = dlsym(app_handle, name);
    if (!p) p = dlsym(RTLD_DEFAULT, name);
    if (!p)
        return cs_error_set(err, CS_ENOTFOUND,
                            "function '%s' not found in the application or libcspark", name);
    ref->name = cs_xstrdup(name);
    ref->ptr = p;
    cs_fn_ref_copy_closure(ref, closure, len);
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
