/* frame.c — length-prefixed Envelope framing: the incremental decoder every rpc connection runs
 * its received bytes through, and the encoder that packs into caller buffers. See frame.h.
 * Called by connection.c, block_server.c and the frame fuzz target; no I/O, no globals.
 */
#include "rpc/frame.h"

#include <stdlib.h>
#include <string.h>

#include "common/err.h"

void cs_frame_decoder_init(frame_decoder *d, size_t max_frame)
{
    memset(d, 0, sizeof *d);
    d->max_frame = max_frame ? max_frame : (size_t)128 * 1024 * 1024;
    d->too_large = "frame larger than spark.rpc.message.maxSize";
}

void cs_frame_decoder_set_limit(frame_decoder *d, size_t max_frame, int trusted,
                                const char *too_large)
{
    d->max_frame = max_frame ? max_frame : (size_t)128 * 1024 * 1024;
    d->trusted = trusted;
    if (too_large) d->too_large = too_large;
}

void cs_frame_decoder_free(frame_decoder *d)
{
    free(d->body);
    d->body = NULL;
    d->body_len = d->body_cap = d->body_have = d->hdr_have = 0;
}

/* Room for at least `need` body bytes: doubles the buffer (never past the frame's length), so
 * what is allocated stays within twice what arrived plus the initial reservation. */
static int grow_body(frame_decoder *d, size_t need)
{
    if (d->body_cap >= need) return 0;
    size_t cap = d->body_cap * 2;
    if (cap < need) cap = need;
    if (cap > d->body_len) cap = d->body_len;
    uint8_t *b = realloc(d->body, cap);
    if (!b) return -1;
    d->body = b;
    d->body_cap = cap;
    return 0;
}

uint8_t *cs_frame_decoder_direct(frame_decoder *d, size_t *room)
{
    if (d->failed || !d->body || d->body_have >= d->body_len) return NULL;
    if (d->body_have == d->body_cap && grow_body(d, d->body_have + 1) < 0) return NULL;
    *room = d->body_cap - d->body_have;
    return d->body + d->body_have;
}

static int fail(frame_decoder *d, const char **reason, const char *why)
{
    d->failed = 1;
    free(d->body);
    d->body = NULL;
    if (reason) *reason = why;
    return -1;
}

/* The body is complete: unpack it and reset for the next frame. */
static int finish(frame_decoder *d, Cspark__Envelope **out, const char **reason)
{
    Cspark__Envelope *env = cspark__envelope__unpack(NULL, d->body_len, d->body);
    free(d->body);
    d->body = NULL;
    d->body_len = d->body_cap = d->body_have = d->hdr_have = 0;
    if (!env) return fail(d, reason, "envelope does not unpack");
    if (env->body_case == CSPARK__ENVELOPE__BODY__NOT_SET) {
        cspark__envelope__free_unpacked(env, NULL);
        return fail(d, reason, "envelope has no known body");
    }
    *out = env;
    return 1;
}

int cs_frame_decoder_feed(frame_decoder *d, const uint8_t *data, size_t len, size_t *consumed,
                          Cspark__Envelope **out, const char **reason)
{
    size_t used = 0;
    *out = NULL;
    if (d->failed) {
        *consumed = 0;
        if (reason) *reason = "decoder failed earlier";
        return -1;
    }
    while (used < len) {
        if (d->hdr_have < FRAME_HEADER) {
            size_t k = FRAME_HEADER - d->hdr_have;
            if (k > len - used) k = len - used;
            memcpy(d->hdr + d->hdr_have, data + used, k);
            d->hdr_have += k;
            used += k;
            if (d->hdr_have < FRAME_HEADER) break;
            uint32_t n = ((uint32_t)d->hdr[0] << 24) | ((uint32_t)d->hdr[1] << 16) |
                         ((uint32_t)d->hdr[2] << 8) | (uint32_t)d->hdr[3];
            if (n == 0) {
                *consumed = used;
                return fail(d, reason, "empty frame");
            }
            if ((size_t)n > d->max_frame) {
                *consumed = used;
                return fail(d, reason, d->too_large);
            }
            size_t reserve = n;
            if (!d->trusted && reserve > FRAME_INITIAL_RESERVE) reserve = FRAME_INITIAL_RESERVE;
            d->body = malloc(reserve);
            if (!d->body) {
                *consumed = used;
                return fail(d, reason, "out of memory for frame");
            }
            d->body_len = n;
            d->body_cap = reserve;
            d->body_have = 0;
            continue;
        }
        size_t k = d->body_len - d->body_have;
        if (k > len - used) k = len - used;
        /* bytes read straight into the body (cs_frame_decoder_direct) are already in place */
        if (data + used != d->body + d->body_have) {
            if (grow_body(d, d->body_have + k) < 0) {
                *consumed = used;
                return fail(d, reason, "out of memory for frame");
            }
            memcpy(d->body + d->body_have, data + used, k);
        }
        d->body_have += k;
        used += k;
        if (d->body_have == d->body_len) {
            *consumed = used;
            return finish(d, out, reason);
        }
    }
    *consumed = used;
    return 0;
}

size_t cs_frame_size(const Cspark__Envelope *msg)
{
    return FRAME_HEADER + cspark__envelope__get_packed_size(msg);
}

void cs_frame_put_header(uint8_t *buf, uint32_t n)
{
    buf[0] = (uint8_t)(n >> 24);
    buf[1] = (uint8_t)(n >> 16);
    buf[2] = (uint8_t)(n >> 8);
    buf[3] = (uint8_t)n;
}

size_t cs_frame_encode(const Cspark__Envelope *msg, uint8_t *buf)
{
    size_t n = cspark__envelope__pack(msg, buf + FRAME_HEADER);
    cs_frame_put_header(buf, (uint32_t)n);
    return FRAME_HEADER + n;
}

size_t cs_frame_put_varint(uint8_t *buf, uint64_t v)
{
    size_t i = 0;
    while (v >= 0x80) {
        buf[i++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    buf[i++] = (uint8_t)v;
    return i;
}

size_t cs_frame_varint_size(uint64_t v)
{
    size_t i = 1;
    while (v >= 0x80) {
        v >>= 7;
        i++;
    }
    return i;
}

const char *cs_frame_body_name(const Cspark__Envelope *msg)
{
    if (!msg) return "null";
    const ProtobufCFieldDescriptor *f =
        protobuf_c_message_descriptor_get_field(&cspark__envelope__descriptor, msg->body_case);
    return f && msg->body_case != CSPARK__ENVELOPE__BODY__NOT_SET ? f->name : "unset";
}
