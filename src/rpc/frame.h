/* frame.h — the wire framing of every rpc connection: a 4-byte big-endian length followed by
 * one serialized Cspark__Envelope (proto/cspark.proto).
 *
 * The decoder is incremental and pure (no I/O, no globals): feed it whatever bytes arrived and
 * it returns complete envelopes one at a time. It refuses frames larger than its limit
 * (spark.rpc.message.maxSize, default 128 MiB; a few KiB while a peer is not authenticated)
 * before allocating anything, frames that do not unpack, and envelopes whose body is not a known
 * oneof member. A length is a claim, not a fact: unless the decoder is told the peer is trusted
 * (authenticated), the body buffer grows with the bytes that actually arrived — at most twice
 * those plus FRAME_INITIAL_RESERVE — so a peer announcing 128 MiB and sending nothing costs
 * nothing. A trusted decoder reserves the whole body at the header (large frames are then read
 * straight into their final buffer). It holds at most one frame body at a time.
 * The encoder packs straight into a caller buffer.
 * Used by connection.c (one decoder per connection), the block server (hand-built BlockData
 * frames) and tests/fuzz/rpc_frame_fuzz.c.
 *
 * Ownership: a frame_decoder is a caller-owned value; cs_frame_decoder_free releases its body
 * buffer. Envelopes returned by cs_frame_decoder_feed belong to the caller
 * (cspark__envelope__free_unpacked(env, NULL)). Reason strings are static.
 */
#ifndef CSPARK_RPC_FRAME_H
#define CSPARK_RPC_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "cspark.pb-c.h"

#define FRAME_HEADER 4
/* What an untrusted decoder reserves when a header arrives (less when the frame is smaller). */
#define FRAME_INITIAL_RESERVE ((size_t)64 * 1024)

typedef struct frame_decoder {
    size_t max_frame;      /* largest accepted envelope size (bytes after the header) */
    int trusted;           /* reserve a whole body at its header (else grow with the bytes) */
    const char *too_large; /* the refusal reason of a frame over max_frame */
    uint8_t hdr[FRAME_HEADER];
    size_t hdr_have; /* header bytes received of the current frame */
    uint8_t *body;   /* body of the current frame (malloc'd once its length is known) */
    size_t body_len; /* its length, from the header */
    size_t body_cap; /* bytes allocated at body (body_have <= body_cap <= body_len) */
    size_t body_have;
    int failed; /* sticky: after an error every feed fails */
} frame_decoder;

/* max_frame 0 = 128 MiB; untrusted, refusing larger frames as "frame larger than
 * spark.rpc.message.maxSize". */
void cs_frame_decoder_init(frame_decoder *d, size_t max_frame);
/* Changes the limit and the reservation policy for the frames whose header has not been read
 * yet (the frame being assembled keeps its length). too_large: a static reason for refusals
 * (NULL keeps the current one). */
void cs_frame_decoder_set_limit(frame_decoder *d, size_t max_frame, int trusted,
                                const char *too_large);
void cs_frame_decoder_free(frame_decoder *d);

/* Consumes bytes of data[0..len) into the current frame; *consumed gets how many were used.
 * Returns 1 when a frame completed (*out = the envelope, caller-owned; feed again with the rest),
 * 0 when every byte was consumed without completing a frame, or -1 on malformed input with
 * *reason set (static text); the decoder is then unusable (the connection must be dropped). */
int cs_frame_decoder_feed(frame_decoder *d, const uint8_t *data, size_t len, size_t *consumed,
                          Cspark__Envelope **out, const char **reason);

/* Where the next bytes of the current frame's body may be read straight into (to avoid a copy
 * for large frames): returns the write position and *room (bytes that fit there, at most the
 * bytes still missing; an untrusted decoder whose buffer is full grows it first), or NULL when
 * no body is being assembled. Bytes read there must then be passed to cs_frame_decoder_feed
 * with data == that pointer (the decoder does not copy them again). */
uint8_t *cs_frame_decoder_direct(frame_decoder *d, size_t *room);

/* Bytes of the frame for msg (header included). */
size_t cs_frame_size(const Cspark__Envelope *msg);
/* Writes header + envelope into buf (cs_frame_size(msg) bytes); returns the bytes written. */
size_t cs_frame_encode(const Cspark__Envelope *msg, uint8_t *buf);
/* Writes a 4-byte big-endian length. */
void cs_frame_put_header(uint8_t *buf, uint32_t body_len);

/* Protobuf helpers for hand-built frames (block server): varint encoding into buf, returns the
 * number of bytes written (<= 10). */
size_t cs_frame_put_varint(uint8_t *buf, uint64_t v);
size_t cs_frame_varint_size(uint64_t v);

/* Name of an envelope's body for logs ("launch_task", "unset", ...). */
const char *cs_frame_body_name(const Cspark__Envelope *msg);

#endif /* CSPARK_RPC_FRAME_H */
