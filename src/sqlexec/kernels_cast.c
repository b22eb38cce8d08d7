/*
 * kernels_cast.c — cast kernels (none yet: cs_pexpr_compile refuses every cast with "no cast
 * kernel from X to Y"). Called through cs_px_cast_lookup.
 */
#include "sqlexec/pexpr_internal.h"

cs_px_kernel cs_px_cast_lookup(const cs_col_type *from, const cs_col_type *to)
{
    (void)from;
    (void)to;
    return NULL;
}
