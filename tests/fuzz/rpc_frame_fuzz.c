/* libFuzzer target for the rpc frame decoder (src/rpc/frame.c): the input bytes are fed to one
 * decoder in pieces whose sizes come from the first byte (so headers and bodies split at every
 * position), every envelope that comes out is re-encoded with cs_frame_encode and decoded again
 * (it must round-trip or be refused gracefully), and the decoder must either produce envelopes or
 * fail with a reason — never crash, leak or allocate more than its max_frame (64 KiB here). Built
 * and run by rpc_frame.sh. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/frame.h"

#define MAX_FRAME (64 * 1024)

static void roundtrip(const Cspark__Envelope *e)
{
    size_t n = cs_frame_size(e);
    if (n - FRAME_HEADER > MAX_FRAME) return;
    uint8_t *buf = malloc(n);
    if (cs_frame_encode(e, buf) != n) abort();
    frame_decoder d;
    cs_frame_decoder_init(&d, MAX_FRAME);
    size_t used = 0;
    Cspark__Envelope *again = NULL;
    const char *why = NULL;
    int rc = cs_frame_decoder_feed(&d, buf, n, &used, &again, &why);
    if (rc < 0) {
        /* protobuf-c keeps unknown fields it accepted in odd encodings (say, an overlong tag of
         * field 0) and re-packs them canonically, which it then refuses: a graceful refusal is
         * fine, anything else is not */
        if (!why || again) abort();
        cs_frame_decoder_free(&d);
        free(buf);
        return;
    }
    if (rc != 1 || used != n || again->body_case != e->body_case ||
        again->request_id != e->request_id)
        abort();
    cspark__envelope__free_unpacked(again, NULL);
    cs_frame_decoder_free(&d);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t piece = (size_t)data[0] % 17 + 1;
    data++;
    size--;
    frame_decoder d;
    cs_frame_decoder_init(&d, MAX_FRAME);
    size_t pos = 0;
    while (pos < size) {
        size_t n = size - pos < piece ? size - pos : piece;
        size_t off = 0;
        int rc = 0;
        while (off < n) {
            size_t used = 0;
            Cspark__Envelope *e = NULL;
            const char *why = NULL;
            rc = cs_frame_decoder_feed(&d, data + pos + off, n - off, &used, &e, &why);
            if (used > n - off) abort();
            off += used;
            if (rc < 0) {
                if (!why || e) abort();
                break;
            }
            if (rc == 1) {
                if (!e || e->body_case == CSPARK__ENVELOPE__BODY__NOT_SET) abort();
                (void)cs_frame_body_name(e);
                roundtrip(e);
                cspark__envelope__free_unpacked(e, NULL);
            } else if (off != n) {
                abort();
            }
        }
        if (rc < 0) break;
        pos += n;
    }
    cs_frame_decoder_free(&d);
    return 0;
}
