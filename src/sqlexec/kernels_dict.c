/*
 * kernels_dict.c — a string predicate against a literal over a dictionary-encoded column
 * (column.h: int32 indices into a plain dictionary without nulls, as the Parquet scan leaves a
 * top-level string column whose pages are dictionary-encoded): the predicate is evaluated once
 * per dictionary entry by the kernel, and the rows take their entry's result by index.
 * `l_returnflag = 'R'` or `l_shipmode IN (...)` then compares three or seven entries per row
 * group, not six million rows. The kernels of kernels_compare.c and kernels_string.c ask
 * cs_px_dict_pays first (a dictionary larger than the batch would cost more than the rows).
 * Nulls stay the kernel's: the rows' validity is set by it (cs_px_and_validity), this file only
 * writes value bits.
 */
#include "sqlexec/pexpr_internal.h"

bool cs_px_dict_pays(const cs_column *x, int64_t n)
{
    return x->dictionary && x->length == n && x->dictionary->length <= n;
}

void cs_px_dict_spread(cs_column *r, const cs_column *x, const uint8_t *entry, int64_t n)
{
    const int32_t *ix = (const int32_t *)(const void *)x->values;
    for (int64_t base = 0; base < n; base += 8) {
        unsigned byte = 0;
        int lim = n - base < 8 ? (int)(n - base) : 8;
        for (int j = 0; j < lim; j++) {
            int64_t i = base + j;
            /* a null row's index may be anything: its bit stays 0 under its null */
            if (cs_column_is_valid(x, i)) byte |= (unsigned)(entry[ix[i]] & 1) << j;
        }
        r->values[base >> 3] = (uint8_t)byte;
    }
}
