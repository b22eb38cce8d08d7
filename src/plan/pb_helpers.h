/*
 * pb_helpers.h — private to the codecs of src/plan/: small conversions between cspark's values and
 * protobuf-c fields (strings that may be protobuf-c's empty string, owned byte copies).
 */
#ifndef CSPARK_PLAN_PB_HELPERS_H
#define CSPARK_PLAN_PB_HELPERS_H

#include <protobuf-c/protobuf-c.h>
#include <string.h>

#include "common/err.h"
#include "records/recio.h"

/* A protobuf string field as a C string ("" for NULL). */
static inline const char *cs_pb_str(const char *s)
{
    return s ? s : "";
}

/* An owned copy of n bytes (never NULL). */
static inline void *cs_pb_memdup(const void *p, size_t n)
{
    void *q = cs_xmalloc(n ? n : 1);
    if (n) memcpy(q, p, n);
    return q;
}

/* A bytes field holding an owned copy (empty when n is 0). */
static inline ProtobufCBinaryData cs_pb_bin_dup(const void *p, size_t n)
{
    ProtobufCBinaryData b = {0, NULL};
    if (p && n) {
        b.data = cs_pb_memdup(p, n);
        b.len = n;
    }
    return b;
}

/* Records as uncompressed recio blocks in one exact-size buffer (no copy per record); empty for
 * no records. */
static inline ProtobufCBinaryData cs_pb_records(const cs_batch *b)
{
    ProtobufCBinaryData d = {0, NULL};
    if (!b || b->n == 0) return d;
    d.len = cs_recio_encode_batch(b, CS_CHECKSUM_DEFAULT, NULL);
    d.data = cs_xmalloc(d.len);
    cs_recio_encode_batch(b, CS_CHECKSUM_DEFAULT, d.data);
    return d;
}

#endif
