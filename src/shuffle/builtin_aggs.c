/*
 * builtin_aggs.c — list reduce functions for group_by_key / cogroup (see builtin_aggs.h).
 * Growth goes through cspark_value_resize, which doubles capacity, so appending n items costs
 * amortised O(total bytes); lengths are summed in size_t, so a group over the record limit fails
 * its task there instead of wrapping around 4 GiB.
 */
#include "shuffle/builtin_aggs.h"

#include <string.h>

void cs_list_wrap(cspark_value *acc, cspark_slice v, cspark_task_context *tc)
{
    (void)tc;
    uint8_t *p = cspark_value_resize(acc, 4 + (size_t)v.len);
    uint32_t n = v.len;
    uint8_t le[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
    memcpy(p, le, 4);
    if (v.len) memcpy(p + 4, v.ptr, v.len);
}

void cs_list_append(cspark_value *acc, cspark_slice v, cspark_task_context *tc)
{
    (void)tc;
    uint32_t old = acc->len;
    uint8_t *p = cspark_value_resize(acc, (size_t)old + 4 + v.len) + old;
    uint32_t n = v.len;
    uint8_t le[4] = {(uint8_t)n, (uint8_t)(n >> 8), (uint8_t)(n >> 16), (uint8_t)(n >> 24)};
    memcpy(p, le, 4);
    if (v.len) memcpy(p + 4, v.ptr, v.len);
}

void cs_list_concat(cspark_value *acc, cspark_slice other, cspark_task_context *tc)
{
    (void)tc;
    uint32_t old = acc->len;
    uint8_t *p = cspark_value_resize(acc, (size_t)old + other.len) + old;
    if (other.len) memcpy(p, other.ptr, other.len);
}
