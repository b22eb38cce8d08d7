/*
 * fn_ref.h — function references: how a lineage names a user (or built-in) function so that any
 * process can call it. The driver resolves an address to its exported symbol name (dladdr; a
 * static function is refused); an executor resolves the name back to an address (libcspark's
 * built-ins first, then the application's .so, then every loaded object). Closure bytes travel
 * with the reference.
 *
 * Ownership: a fn_ref owns its name and closure copy (cs_fn_ref_free); ptr is an address in this
 * process. Pure data, no threads.
 */
#ifndef CSPARK_PLAN_FN_REF_H
#define CSPARK_PLAN_FN_REF_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct fn_ref {
    char *name;       /* exported symbol name; owned by the fn_ref */
    void *ptr;        /* resolved address (dladdr on the driver, dlsym elsewhere) */
    uint8_t *closure; /* owned copy, may be NULL */
    size_t closure_len;
} fn_ref;

/* Driver side: resolves fn to its exported symbol name (dladdr, or libcspark's built-in table);
 * refuses static functions and addresses that are not the start of a symbol. Copies the closure.
 * CS_EINVAL naming `what` with a clear message. */
int cs_fn_ref_init(fn_ref *ref, void *fn, const void *closure, size_t len, const char *what,
                   cs_error *err);
/* Executor side: the address of name in libcspark's built-ins, the application (app_handle, may
 * be NULL) or any loaded object. CS_ENOTFOUND "function 'x' not found in the application or
 * libcspark". Copies the closure. */
int cs_fn_ref_resolve(fn_ref *ref, const char *name, void *app_handle, const void *closure,
                      size_t len, cs_error *err);
/* A reference to one of libcspark's own functions (no dladdr needed). */
void cs_fn_ref_builtin(fn_ref *ref, const char *name, void *fn);
void cs_fn_ref_copy_closure(fn_ref *ref, const void *closure, size_t len);
void cs_fn_ref_free(fn_ref *ref);

#endif
