/* libFuzzer target for the shuffle block readers (src/records/recio.c, the shuffle_reader of
 * src/shuffle/shuffle.c): the input after its first byte is a shuffle segment as it comes from a
 * data file or a peer. The first byte chooses the part size of the pulled stream (low 7 bits)
 * and, with bit 0x80, re-seals every plausible block's checksum first, so that the fuzzer also
 * reaches the decoders (lz4, varints) behind a valid checksum rather than stopping at every
 * mismatch. The same bytes then go through every reader — memory, fd range, pulled parts,
 * record by record, block views, raw blocks, cs_recio_verify, and a shuffle_reader over a
 * fetching and over a streaming source — which must agree: the same records, or the same
 * verdict (end or an error, never a crash, leak or read out of bounds; a stream that decodes
 * must also verify). Built and run by shuffle_block.sh. With -DSHUFFLE_BLOCK_SEEDS it is
 * instead a program writing seed segments (each codec x checksum) into the directory argv[1].
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "records/recio.h"
#include "shuffle/shuffle.h"

static uint32_t get_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Recomputes the checksum field of every block whose lengths fit the buffer. */
static void reseal(uint8_t *d, size_t n)
{
    size_t pos = 0;
    while (pos + RECIO_HEADER_LEN <= n) {
        size_t stored = get_u32le(d + pos + 4);
        if (stored > n - pos - RECIO_HEADER_LEN) return;
        unsigned algo = d[pos + 8] >> 4;
        if (cs_checksum_known(algo)) {
            uint32_t c = cs_checksum_update(algo, cs_checksum_init(algo), d + pos, 9);
            c = cs_checksum_update(algo, c, d + pos + RECIO_HEADER_LEN, stored);
            for (int i = 0; i < 4; i++)
                d[pos + 9 + (size_t)i] = (uint8_t)(c >> (8 * i));
        }
        pos += RECIO_HEADER_LEN + stored;
    }
}

/* Every record of r appended to out through next_block; returns the final rc. */
static int drain_blocks(recio_reader *r, cs_batch *out)
{
    cs_error err;
    int rc;
    while ((rc = cs_recio_reader_next_block(r, out, &err)) > 0) {
    }
    if (rc < 0 && (err.code != rc || !err.msg[0])) abort();
    cs_recio_reader_free(r);
    return rc;
}

static void same_records(const cs_batch *a, const cs_batch *b)
{
    if (a->n != b->n || a->len != b->len || (a->len && memcmp(a->data, b->data, a->len) != 0))
        abort();
    for (size_t i = 0; i < a->n; i++)
        if (a->recs[i].klen != b->recs[i].klen || a->recs[i].vlen != b->recs[i].vlen) abort();
}

/* ---- pulled parts ---- */

typedef struct parts {
    const uint8_t *data;
    size_t len, pos, piece;
    uint8_t *cur; /* a fresh copy per part: a reader keeping a pointer past it is caught */
} parts;

static int pull(void *arg, const uint8_t **data, size_t *len, cs_error *err)
{
    (void)err;
    parts *p = arg;
    free(p->cur);
    p->cur = NULL;
    if (p->pos >= p->len) return 0;
    size_t n = p->len - p->pos < p->piece ? p->len - p->pos : p->piece;
    p->cur = malloc(n);
    memcpy(p->cur, p->data + p->pos, n);
    p->pos += n;
    *data = p->cur;
    *len = n;
    return 1;
}

/* ---- a shuffle_block_source serving the segment ---- */

typedef struct seg_src {
    const uint8_t *data;
    size_t len, piece;
} seg_src;

static int seg_fetch(void *arg, const cs_map_status *st, int reduce_id, uint8_t **out, size_t *len,
                     cs_error *err)
{
    (void)st;
    (void)reduce_id;
    (void)err;
    seg_src *s = arg;
    *out = malloc(s->len ? s->len : 1);
    if (s->len) memcpy(*out, s->data, s->len);
    *len = s->len;
    return 0;
}

static int seg_open_stream(void *arg, const cs_map_status *st, int reduce_id, void **stream,
                           cs_error *err)
{
    (void)st;
    (void)reduce_id;
    (void)err;
    seg_src *s = arg;
    parts *p = calloc(1, sizeof *p);
    p->data = s->data;
    p->len = s->len;
    p->piece = s->piece;
    *stream = p;
    return 0;
}

static void seg_stream_close(void *stream)
{
    parts *p = stream;
    free(p->cur);
    free(p);
}

/* Reads the segment as map 3's output for reduce 0 through a shuffle_reader; returns rc. */
static int shuffle_read(const uint8_t *d, size_t n, size_t piece, int stream, cs_batch *out)
{
    uint8_t blocks[1] = {cs_map_status_compress_size(n)};
    cs_map_status st = {.shuffle_id = 1, .map_id = 3, .num_reduces = 1, .blocks = blocks};
    const cs_map_status *maps[1] = {&st};
    seg_src s = {d, n, piece};
    shuffle_block_source src = {.fetch = seg_fetch, .arg = &s};
    if (stream) {
        src.open_stream = seg_open_stream;
        src.stream_next = pull;
        src.stream_close = seg_stream_close;
    }
    cs_error err;
    shuffle_reader *r = cs_shuffle_reader_new(maps, 1, 0, &src, &err);
    int rc, failed = -1;
    while ((rc = cs_shuffle_reader_next(r, out, &failed, &err)) > 0) {
    }
    if (rc < 0 && (rc != CS_EIO || failed != 3)) abort(); /* a fetch failure naming the map */
    cs_shuffle_reader_free(r);
    return rc;
}

#ifndef SHUFFLE_BLOCK_SEEDS

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    size_t piece = (size_t)(data[0] & 0x7f) + 1;
    size_t n = size - 1;
    uint8_t *d = malloc(n ? n : 1); /* exact size: ASan sees any overread */
    if (n) memcpy(d, data + 1, n);
    if (data[0] & 0x80) reseal(d, n);
    cs_error err;

    /* memory: next_block */
    cs_batch ref;
    cs_batch_init(&ref);
    int rc = drain_blocks(cs_recio_reader_mem(d, n), &ref);
    int ok = rc == 0;
    if (ok && cs_recio_verify(d, n, &err) != 0) abort(); /* what decodes also verifies */

    /* pulled parts of `piece` bytes */
    parts p = {d, n, 0, piece, NULL};
    cs_batch b;
    cs_batch_init(&b);
    if ((drain_blocks(cs_recio_reader_pull(pull, &p), &b) == 0) != ok) abort();
    free(p.cur);
    if (ok) same_records(&ref, &b);

    /* an fd range after a prefix */
    FILE *f = tmpfile();
    if (f) {
        fwrite("PREFIX", 1, 6, f);
        if (n) fwrite(d, 1, n, f);
        fflush(f);
        cs_batch_reset(&b);
        if ((drain_blocks(cs_recio_reader_fd(fileno(f), 6, n, 4096), &b) == 0) != ok) abort();
        if (ok) same_records(&ref, &b);
        fclose(f);
    }

    /* record by record, and block views */
    recio_reader *r = cs_recio_reader_mem(d, n);
    cspark_record rec;
    size_t count = 0;
    while ((rc = cs_recio_reader_next(r, &rec, &err)) > 0)
        count++;
    if ((rc == 0) != ok || (ok && count != ref.n)) abort();
    cs_recio_reader_free(r);
    r = cs_recio_reader_mem(d, n);
    cs_batch view;
    cs_batch_init(&view);
    count = 0;
    while ((rc = cs_recio_reader_view_block(r, &view, &err)) > 0)
        count += view.n;
    if ((rc == 0) != ok || (ok && count != ref.n)) abort();
    view.data = NULL;
    cs_batch_free(&view);
    cs_recio_reader_free(r);

    /* raw blocks copied into a writer decode to the same records */
    r = cs_recio_reader_mem(d, n);
    recio_writer *w = cs_recio_writer_new(-1, false, 0);
    const uint8_t *blk;
    size_t blen;
    while ((rc = cs_recio_reader_next_raw(r, &blk, &blen, &err)) > 0)
        if (cs_recio_writer_add_raw(w, blk, blen, &err) < 0) abort();
    cs_recio_reader_free(r);
    if (ok && rc != 0) abort();
    size_t clen;
    uint8_t *copy = cs_recio_writer_take(w, &clen, &err);
    cs_recio_writer_free(w);
    if (ok) {
        cs_batch_reset(&b);
        if (cs_recio_decode_all(copy, clen, &b, &err) != 0) abort();
        same_records(&ref, &b);
    }
    free(copy);

    /* the shuffle reader, fetching and streaming */
    for (int stream = 0; stream < 2; stream++) {
        cs_batch_reset(&b);
        if ((shuffle_read(d, n, piece, stream, &b) == 0) != ok) abort();
        if (ok) same_records(&ref, &b);
    }
    cs_batch_free(&b);
    cs_batch_free(&ref);
    free(d);
    return 0;
}

#else /* SHUFFLE_BLOCK_SEEDS: writes seed segments into argv[1] */

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    static const cs_checksum_algo algos[] = {CS_CHECKSUM_NONE, CS_CHECKSUM_ADLER32,
                                             CS_CHECKSUM_CRC32, CS_CHECKSUM_CRC32C,
                                             CS_CHECKSUM_XXH3};
    cs_batch in;
    cs_batch_init(&in);
    for (int i = 0; i < 40; i++) {
        char k[16], v[64];
        int kl = snprintf(k, sizeof k, "key%d", i % 7);
        int vl = snprintf(v, sizeof v, "value %d value %d value", i, i * i);
        cs_batch_append_record(&in, k, (uint32_t)kl, v, (uint32_t)(i % 5 ? vl : 0));
    }
    for (size_t a = 0; a < sizeof algos / sizeof *algos; a++)
        for (int compress = 0; compress < 2; compress++) {
            cs_error err;
            recio_writer *w = cs_recio_writer_new(-1, compress, 0);
            cs_recio_writer_set_checksum(w, algos[a]);
            cs_recio_writer_set_block_target(w, 1024);
            cs_recio_writer_add_batch(w, &in, &err);
            size_t len;
            uint8_t *enc = cs_recio_writer_take(w, &len, &err);
            cs_recio_writer_free(w);
            char path[4096];
            snprintf(path, sizeof path, "%s/%s-%s", argv[1], cs_checksum_name(algos[a]),
                     compress ? "lz4" : "stored");
            FILE *f = fopen(path, "wb");
            if (!f) return 1;
            fputc(compress ? 0x85 : 0x10, f); /* re-sealed 6-byte parts / 17-byte parts */
            fwrite(enc, 1, len, f);
            fclose(f);
            free(enc);
        }
    cs_batch_free(&in);
    return 0;
}

#endif
