/*
 * test_recio.c — record stream round trips (memory, fd and pulled parts, with and without lz4,
 * records larger than a block, empty keys/values), rejection of corrupt input without
 * crashing, and block checksums: every single-bit flip detected by every reader with every
 * algorithm, known answers, verified raw-block copies.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "records/batch.h"
#include "records/recio.h"

static uint64_t rng_state = 88172645463325252ULL;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A reference batch: n records with varied sizes; some compressible, some not. */
static void make_records(cs_batch *b, size_t n, uint32_t maxk, uint32_t maxv)
{
    uint8_t kbuf[70000], vbuf[70000];
    for (size_t i = 0; i < n; i++) {
        uint32_t kl = (uint32_t)(rnd() % (maxk + 1)), vl = (uint32_t)(rnd() % (maxv + 1));
        for (uint32_t j = 0; j < kl; j++)
            kbuf[j] = (uint8_t)(i % 3 ? 'a' + j % 7 : rnd());
        for (uint32_t j = 0; j < vl; j++)
            vbuf[j] = (uint8_t)(i % 2 ? rnd() : j);
        cs_batch_append_record(b, kbuf, kl, vbuf, vl);
    }
}

static void assert_batches_equal(const cs_batch *a, const cs_batch *b)
{
    assert_int_equal(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        cspark_record x = batch_get(a, i), y = batch_get(b, i);
        assert_int_equal(x.key.len, y.key.len);
        assert_int_equal(x.value.len, y.value.len);
        assert_memory_equal(x.key.ptr, y.key.ptr, x.key.len);
        assert_memory_equal(x.value.ptr, y.value.ptr, x.value.len);
    }
}

static void roundtrip_mem(bool compress)
{
    cs_batch in, out;
    cs_batch_init(&in);
    cs_batch_init(&out);
    make_records(&in, 5000, 40, 300);
    cs_batch_append_record(&in, "", 0, "", 0);
    /* a record larger than a block */
    uint8_t *big = malloc(200000);
    for (int i = 0; i < 200000; i++)
        big[i] = (uint8_t)(i * 7);
    cs_batch_append_record(&in, "big", 3, big, 200000);
    make_records(&in, 100, 10, 10);
    recio_writer *w = cs_recio_writer_new(-1, compress, 0);
    cs_error err = {0};
    assert_int_equal(cs_recio_writer_add_batch(w, &in, &err), 0);
    assert_int_equal(cs_recio_writer_records(w), in.n);
    size_t len;
    uint8_t *enc = cs_recio_writer_take(w, &len, &err);
    assert_non_null(enc);
    assert_int_equal(cs_recio_writer_offset(w), len);
    assert_true(len > 0);
    /* blocks are bounded: several blocks were made */
    assert_int_equal(cs_recio_decode_all(enc, len, &out, &err), 0);
    assert_batches_equal(&in, &out);
    /* record-at-a-time reader agrees */
    recio_reader *r = cs_recio_reader_mem(enc, len);
    cspark_record rec;
    size_t i = 0;
    while (cs_recio_reader_next(r, &rec, &err) == 1) {
        cspark_record ref = batch_get(&in, i++);
        assert_int_equal(rec.key.len, ref.key.len);
        assert_int_equal(rec.value.len, ref.value.len);
        assert_memory_equal(rec.value.ptr, ref.value.ptr, ref.value.len);
    }
    assert_int_equal(i, in.n);
    cs_recio_reader_free(r);
    cs_recio_writer_free(w);
    free(enc);
    free(big);
    cs_batch_free(&in);
    cs_batch_free(&out);
}

static void test_roundtrip_mem_lz4(void **state)
{
    (void)state;
    roundtrip_mem(true);
}

static void test_roundtrip_mem_plain(void **state)
{
    (void)state;
    roundtrip_mem(false);
}

static void test_lz4_compresses(void **state)
{
    (void)state;
    recio_writer *wl = cs_recio_writer_new(-1, true, 0), *wp = cs_recio_writer_new(-1, false, 0);
    cs_error err = {0};
    for (int i = 0; i < 20000; i++) {
        char k[32];
        int kl = snprintf(k, sizeof k, "word%d", i % 100);
        assert_int_equal(cs_recio_writer_add(wl, k, (uint32_t)kl, "\0\0\0\0\0\0\0\1", 8, &err), 0);
        assert_int_equal(cs_recio_writer_add(wp, k, (uint32_t)kl, "\0\0\0\0\0\0\0\1", 8, &err), 0);
    }
    size_t ll, pl;
    uint8_t *a = cs_recio_writer_take(wl, &ll, &err), *b = cs_recio_writer_take(wp, &pl, &err);
    assert_true(ll * 3 < pl);
    /* each block header says lz4 */
    assert_int_equal(a[8] & 0x0f, RECIO_CODEC_LZ4);
    assert_int_equal(b[8] & 0x0f, RECIO_CODEC_NONE);
    free(a);
    free(b);
    cs_recio_writer_free(wl);
    cs_recio_writer_free(wp);
}

static void test_roundtrip_fd_range(void **state)
{
    (void)state;
    char path[] = "/tmp/cspark-recio-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    assert_int_equal(write(fd, "PREFIX", 6), 6);
    cs_batch in, in2, out;
    cs_batch_init(&in);
    cs_batch_init(&in2);
    cs_batch_init(&out);
    make_records(&in, 20000, 30, 100);
    make_records(&in2, 300, 5, 5);
    cs_error err = {0};
    /* small write buffer so writes happen mid-stream */
    recio_writer *w = cs_recio_writer_new(fd, true, 8192);
    assert_int_equal(cs_recio_writer_add_batch(w, &in, &err), 0);
    assert_int_equal(cs_recio_writer_end_block(w, &err), 0);
    uint64_t mid = cs_recio_writer_offset(w);
    assert_int_equal(cs_recio_writer_add_batch(w, &in2, &err), 0);
    assert_int_equal(cs_recio_writer_flush(w, &err), 0);
    uint64_t end = cs_recio_writer_offset(w);
    cs_recio_writer_free(w);
    assert_int_equal(lseek(fd, 0, SEEK_END), (off_t)(6 + end));
    /* first segment, through a tiny read buffer (grown for big blocks) */
    recio_reader *r = cs_recio_reader_fd(fd, 6, mid, 4096);
    int rc;
    while ((rc = cs_recio_reader_next_block(r, &out, &err)) == 1) {
    }
    if (rc) fprintf(stderr, "err: %s\n", err.msg);
    assert_int_equal(rc, 0);
    assert_batches_equal(&in, &out);
    cs_recio_reader_free(r);
    cs_batch_reset(&out);
    r = cs_recio_reader_fd(fd, 6 + mid, end - mid, 0);
    while ((rc = cs_recio_reader_next_block(r, &out, &err)) == 1) {
    }
    assert_int_equal(rc, 0);
    assert_batches_equal(&in2, &out);
    cs_recio_reader_free(r);
    /* a range past the end of the file is truncated input */
    cs_batch_reset(&out);
    r = cs_recio_reader_fd(fd, 6 + mid, end - mid + 100, 0);
    while ((rc = cs_recio_reader_next_block(r, &out, &err)) == 1) {
    }
    assert_int_equal(rc, CS_EPROTO);
    cs_recio_reader_free(r);
    close(fd);
    cs_batch_free(&in);
    cs_batch_free(&in2);
    cs_batch_free(&out);
}

static int decode(const uint8_t *p, size_t n, cs_error *err)
{
    cs_batch out;
    cs_batch_init(&out);
    int rc = cs_recio_decode_all(p, n, &out, err);
    cs_batch_free(&out);
    return rc;
}

static void test_corrupt_rejected(void **state)
{
    (void)state;
    cs_batch in;
    cs_batch_init(&in);
    make_records(&in, 3000, 20, 50);
    cs_error err = {0};
    for (int compress = 0; compress < 2; compress++) {
        recio_writer *w = cs_recio_writer_new(-1, compress, 0);
        cs_recio_writer_set_block_target(w, 4096);
        assert_int_equal(cs_recio_writer_add_batch(w, &in, &err), 0);
        size_t len;
        uint8_t *enc = cs_recio_writer_take(w, &len, &err);
        cs_recio_writer_free(w);
        /* every truncation that does not end on a block boundary is an error */
        int errors = 0;
        for (size_t cut = 1; cut < len; cut += 1 + len / 500) {
            uint8_t *copy = malloc(cut); /* exact size: ASan catches overreads */
            memcpy(copy, enc, cut);
            int rc = decode(copy, cut, &err);
            assert_true(rc == 0 || rc == CS_EPROTO);
            errors += rc == CS_EPROTO;
            free(copy);
        }
        assert_true(errors > 0);
        /* random byte flips: an error or a clean decode, never a crash */
        uint8_t *copy = malloc(len);
        for (int t = 0; t < 2000; t++) {
            memcpy(copy, enc, len);
            for (int f = 0; f < 1 + t % 4; f++)
                copy[rnd() % len] ^= (uint8_t)(1 + rnd() % 255);
            int rc = decode(copy, len, &err);
            assert_true(rc == 0 || rc == CS_EPROTO);
        }
        /* specific headers */
        memcpy(copy, enc, len);
        copy[8] = 7; /* unknown codec */
        assert_int_equal(decode(copy, len, &err), CS_EPROTO);
        memcpy(copy, enc, len);
        copy[3] = 0x7f; /* raw_len huge */
        assert_int_equal(decode(copy, len, &err), CS_EPROTO);
        memcpy(copy, enc, len);
        copy[4] ^= 0x01; /* stored length off by one */
        assert_int_equal(decode(copy, len, &err), CS_EPROTO);
        free(copy);
        free(enc);
    }
    /* a block whose record header runs past the block */
    uint8_t bad[13 + 3] = {3, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0x05, 0x00, 'x'};
    assert_int_equal(decode(bad, sizeof bad, &err), CS_EPROTO);
    assert_int_equal(err.code, CS_EPROTO);
    /* varint longer than 5 bytes */
    uint8_t bad2[13 + 7] = {7, 0, 0, 0,    7,    0,    0,    0,    0,    0,
                            0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    assert_int_equal(decode(bad2, sizeof bad2, &err), CS_EPROTO);
    /* an lz4 block claiming more than lz4 can expand to is refused before allocating */
    uint8_t bad3[13 + 4] = {0, 0, 0, 1, 4,    0, 0, 0, 1,
                            0, 0, 0, 0, 0x10, 0, 0, 0}; /* 16 MB from 4 */
    assert_int_equal(decode(bad3, sizeof bad3, &err), CS_EPROTO);
    /* a highly compressible block (zeros) still decodes */
    {
        uint8_t *zeros = calloc(1, 60000);
        recio_writer *w = cs_recio_writer_new(-1, true, 0);
        assert_int_equal(cs_recio_writer_add(w, "z", 1, zeros, 60000, &err), 0);
        size_t zl;
        uint8_t *enc = cs_recio_writer_take(w, &zl, &err);
        assert_true(zl < 1000);
        assert_int_equal(decode(enc, zl, &err), 0);
        free(enc);
        free(zeros);
        cs_recio_writer_free(w);
    }
    /* empty input is an empty stream */
    assert_int_equal(decode(NULL, 0, &err), 0);
    cs_batch_free(&in);
}

/* Pull source over a memory buffer cut into parts: sizes cycle through `cuts` (0 = an empty
 * part); each part is a fresh malloc'd copy freed at the next call, so a reader keeping a
 * pointer past it is caught by ASan. fail_at >= 0: the pull fails once that many bytes went. */
typedef struct parts_src {
    const uint8_t *data;
    size_t len, pos;
    const size_t *cuts;
    int ncuts, k;
    uint8_t *cur;
    long fail_at;
    int pulls;
} parts_src;

static int pull_parts(void *arg, const uint8_t **data, size_t *len, cs_error *err)
{
    parts_src *s = arg;
    free(s->cur);
    s->cur = NULL;
    s->pulls++;
    if (s->fail_at >= 0 && s->pos >= (size_t)s->fail_at)
        return cs_error_set(err, CS_EIO, "peer went away");
    if (s->pos >= s->len) return 0;
    size_t n = s->cuts[s->k++ % s->ncuts];
    if (n > s->len - s->pos) n = s->len - s->pos;
    s->cur = malloc(n ? n : 1);
    memcpy(s->cur, s->data + s->pos, n);
    s->pos += n;
    *data = s->cur;
    *len = n;
    return 1;
}

static void test_roundtrip_pulled_parts(void **state)
{
    (void)state;
    cs_batch in;
    cs_batch_init(&in);
    make_records(&in, 3000, 30, 200);
    uint8_t *big = calloc(1, 150000);
    cs_batch_append_record(&in, "big", 3, big, 150000);
    make_records(&in, 50, 10, 10);
    for (int compress = 0; compress < 2; compress++) {
        recio_writer *w = cs_recio_writer_new(-1, compress, 0);
        cs_error err = {0};
        assert_int_equal(cs_recio_writer_add_batch(w, &in, &err), 0);
        size_t len;
        uint8_t *enc = cs_recio_writer_take(w, &len, &err);
        /* parts cutting headers, payloads and varints anywhere; one part; empty parts */
        static const size_t cuts_a[] = {1, 3, 0, 7, 9, 4096, 5, 65536, 2};
        static const size_t cuts_b[] = {1u << 20};
        static const size_t cuts_c[] = {100000, 0, 33333};
        const size_t *cuts[] = {cuts_a, cuts_b, cuts_c};
        int ncuts[] = {9, 1, 3};
        for (int c = 0; c < 3; c++) {
            parts_src src = {enc, len, 0, cuts[c], ncuts[c], 0, NULL, -1, 0};
            recio_reader *r = cs_recio_reader_pull(pull_parts, &src);
            cs_batch out;
            cs_batch_init(&out);
            int rc;
            while ((rc = cs_recio_reader_next_block(r, &out, &err)) > 0) {
            }
            assert_int_equal(rc, 0);
            assert_batches_equal(&in, &out);
            cs_recio_reader_free(r);
            free(src.cur);
            cs_batch_free(&out);
        }
        /* a stream cut short is corrupt; a failing pull is its error */
        {
            parts_src src = {enc, len - 5, 0, cuts_a, 9, 0, NULL, -1, 0};
            recio_reader *r = cs_recio_reader_pull(pull_parts, &src);
            cs_batch out;
            cs_batch_init(&out);
            int rc;
            while ((rc = cs_recio_reader_next_block(r, &out, &err)) > 0) {
            }
            assert_int_equal(rc, CS_EPROTO);
            cs_recio_reader_free(r);
            free(src.cur);
            cs_batch_free(&out);
        }
        {
            parts_src src = {enc, len, 0, cuts_a, 9, 0, NULL, (long)len / 2, 0};
            recio_reader *r = cs_recio_reader_pull(pull_parts, &src);
            cs_batch out;
            cs_batch_init(&out);
            int rc;
            while ((rc = cs_recio_reader_next_block(r, &out, &err)) > 0) {
            }
            assert_int_equal(rc, CS_EIO);
            assert_non_null(strstr(err.msg, "peer went away"));
            cs_recio_reader_free(r);
            free(src.cur);
            cs_batch_free(&out);
        }
        {
            parts_src src = {enc, 0, 0, cuts_a, 9, 0, NULL, -1, 0};
            recio_reader *r = cs_recio_reader_pull(pull_parts, &src);
            cs_batch out;
            cs_batch_init(&out);
            assert_int_equal(cs_recio_reader_next_block(r, &out, &err), 0);
            assert_int_equal(out.n, 0);
            cs_recio_reader_free(r);
            cs_batch_free(&out);
        }
        cs_recio_writer_free(w);
        free(enc);
    }
    free(big);
    cs_batch_free(&in);
}

/* ---- checksums ------------------------------------------------------------------------------ */

static const cs_checksum_algo ALGOS[] = {CS_CHECKSUM_ADLER32, CS_CHECKSUM_CRC32, CS_CHECKSUM_CRC32C,
                                         CS_CHECKSUM_XXH3};

static uint8_t *encode_with(const cs_batch *in, bool compress, cs_checksum_algo algo,
                            size_t block_target, size_t *len)
{
    cs_error err = {0};
    recio_writer *w = cs_recio_writer_new(-1, compress, 0);
    cs_recio_writer_set_checksum(w, algo);
    cs_recio_writer_set_block_target(w, block_target);
    assert_int_equal(cs_recio_writer_add_batch(w, in, &err), 0);
    uint8_t *enc = cs_recio_writer_take(w, len, &err);
    cs_recio_writer_free(w);
    return enc;
}

/* Decodes through a pull reader whose parts are cut every `cut` bytes. */
static int decode_pulled(const uint8_t *p, size_t n, size_t cut, cs_error *err)
{
    size_t cuts[] = {cut};
    parts_src src = {p, n, 0, cuts, 1, 0, NULL, -1, 0};
    recio_reader *r = cs_recio_reader_pull(pull_parts, &src);
    cs_batch out;
    cs_batch_init(&out);
    int rc;
    while ((rc = cs_recio_reader_next_block(r, &out, err)) > 0) {
    }
    cs_recio_reader_free(r);
    free(src.cur);
    cs_batch_free(&out);
    return rc;
}

/* Decodes the bytes from a file through an fd reader. */
static int decode_fd(const uint8_t *p, size_t n, cs_error *err)
{
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    fflush(f);
    recio_reader *r = cs_recio_reader_fd(fileno(f), 0, n, 4096);
    cs_batch out;
    cs_batch_init(&out);
    int rc;
    while ((rc = cs_recio_reader_next_block(r, &out, err)) > 0) {
    }
    cs_recio_reader_free(r);
    cs_batch_free(&out);
    fclose(f);
    return rc;
}

/* One flipped bit anywhere in a stream (header, checksum field, payload; stored or lz4) is
 * CS_EPROTO for every reader and for cs_recio_verify, with every algorithm: damaged shuffle
 * bytes never decode into records. Flips inside a payload are named a checksum mismatch. */
static void test_every_bit_flip_detected(void **state)
{
    (void)state;
    cs_batch in;
    cs_batch_init(&in);
    make_records(&in, 60, 12, 40);
    for (size_t a = 0; a < sizeof ALGOS / sizeof *ALGOS; a++) {
        for (int compress = 0; compress < 2; compress++) {
            size_t len;
            uint8_t *enc = encode_with(&in, compress, ALGOS[a], 1024, &len);
            cs_error err = {0};
            assert_int_equal(decode(enc, len, &err), 0);
            assert_int_equal(cs_recio_verify(enc, len, &err), 0);
            assert_true(len > 2 * RECIO_HEADER_LEN);
            uint8_t *copy = malloc(len);
            int mismatches = 0;
            for (size_t bit = 0; bit < len * 8; bit++) {
                memcpy(copy, enc, len);
                copy[bit / 8] ^= (uint8_t)(1u << (bit % 8));
                int rc = decode(copy, len, &err);
                if (rc != CS_EPROTO)
                    fail_msg("%s compress=%d: bit %zu flipped decoded (rc %d)",
                             cs_checksum_name(ALGOS[a]), compress, bit, rc);
                mismatches += strstr(err.msg, "checksum mismatch") != NULL;
                assert_int_equal(cs_recio_verify(copy, len, &err), CS_EPROTO);
                if (bit % 13 == 0) {
                    assert_int_equal(decode_pulled(copy, len, 1 + bit % 97, &err), CS_EPROTO);
                    assert_int_equal(decode_fd(copy, len, &err), CS_EPROTO);
                }
            }
            assert_true(mismatches > (int)len * 4); /* most bits are payload */
            free(copy);
            free(enc);
        }
    }
    cs_batch_free(&in);
}

/* Known answers of each algorithm (the standard check values) and the ids' bit patterns. */
static void test_checksum_algorithms(void **state)
{
    (void)state;
    const char *s = "123456789";
    assert_int_equal(
        cs_checksum_update(CS_CHECKSUM_CRC32, cs_checksum_init(CS_CHECKSUM_CRC32), s, 9),
        0xCBF43926u);
    assert_int_equal(
        cs_checksum_update(CS_CHECKSUM_CRC32C, cs_checksum_init(CS_CHECKSUM_CRC32C), s, 9),
        0xE3069283u);
    assert_int_equal(cs_checksum_update(CS_CHECKSUM_ADLER32, cs_checksum_init(CS_CHECKSUM_ADLER32),
                                        "Wikipedia", 9),
                     0x11E60398u);
    /* CRC32C in pieces (hardware path: 8-byte steps and a tail) equals one pass */
    uint8_t buf[1000];
    for (int i = 0; i < 1000; i++)
        buf[i] = (uint8_t)(i * 31 + 7);
    for (size_t a = 0; a < sizeof ALGOS / sizeof *ALGOS; a++) {
        if (ALGOS[a] == CS_CHECKSUM_XXH3) continue; /* seeded chaining, not a stream */
        uint32_t one = cs_checksum_update(ALGOS[a], cs_checksum_init(ALGOS[a]), buf, 1000);
        uint32_t two = cs_checksum_update(ALGOS[a], cs_checksum_init(ALGOS[a]), buf, 333);
        two = cs_checksum_update(ALGOS[a], two, buf + 333, 667);
        assert_int_equal(one, two);
    }
    /* ids: two bits each, so one flip never yields NONE or another id */
    for (size_t a = 0; a < sizeof ALGOS / sizeof *ALGOS; a++) {
        assert_int_equal(__builtin_popcount(ALGOS[a]), 2);
        assert_true(cs_checksum_known(ALGOS[a]));
        for (int b = 0; b < 4; b++)
            assert_false(cs_checksum_known(ALGOS[a] ^ (1u << b)));
        cs_checksum_algo back;
        char lower[16];
        snprintf(lower, sizeof lower, "%s", cs_checksum_name(ALGOS[a]));
        for (char *c = lower; *c; c++)
            *c = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
        assert_int_equal(cs_checksum_parse(lower, &back, NULL), 0);
        assert_int_equal(back, ALGOS[a]);
    }
    cs_error err = {0};
    cs_checksum_algo x;
    assert_int_equal(cs_checksum_parse("MD5", &x, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.shuffle.checksum.algorithm"));
    assert_non_null(strstr(err.msg, "'MD5'"));
}

/* next_raw hands out whole blocks verified (copying them keeps the stream byte for byte);
 * cs_recio_verify checks a range; NONE blocks carry no checksum and mix with checksummed ones;
 * a zeroed header is not an empty block but corrupt input; a sealed in-place block decodes. */
static void test_raw_blocks_and_mixed_streams(void **state)
{
    (void)state;
    cs_batch in, out;
    cs_batch_init(&in);
    cs_batch_init(&out);
    make_records(&in, 2000, 20, 80);
    cs_error err = {0};
    size_t la, lb;
    uint8_t *a = encode_with(&in, true, CS_CHECKSUM_CRC32C, 4096, &la);
    uint8_t *b = encode_with(&in, false, CS_CHECKSUM_NONE, 4096, &lb);
    assert_int_equal(b[8] >> 4, CS_CHECKSUM_NONE);
    assert_memory_equal(b + 9, "\0\0\0\0", 4);
    /* copied block by block through an fd reader: the same bytes */
    FILE *f = tmpfile();
    assert_int_equal(fwrite(a, 1, la, f), la);
    fflush(f);
    recio_reader *r = cs_recio_reader_fd(fileno(f), 0, la, 4096);
    recio_writer *w = cs_recio_writer_new(-1, false, 0);
    const uint8_t *blk;
    size_t n;
    int rc, blocks = 0;
    while ((rc = cs_recio_reader_next_raw(r, &blk, &n, &err)) > 0) {
        assert_int_equal(cs_recio_writer_add_raw(w, blk, n, &err), 0);
        blocks++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(cs_recio_reader_offset(r), la);
    assert_true(blocks > 3);
    cs_recio_reader_free(r);
    size_t lc;
    uint8_t *c = cs_recio_writer_take(w, &lc, &err);
    assert_int_equal(lc, la);
    assert_memory_equal(c, a, la);
    free(c);
    cs_recio_writer_free(w);
    /* a damaged block stops the copy */
    uint8_t flipped = 0x20;
    fseek(f, (long)(la / 2), SEEK_SET);
    assert_int_equal(fwrite(&flipped, 1, 1, f), 1);
    fflush(f);
    r = cs_recio_reader_fd(fileno(f), 0, la, 4096);
    while ((rc = cs_recio_reader_next_raw(r, &blk, &n, &err)) > 0) {
    }
    assert_int_equal(rc, CS_EPROTO);
    cs_recio_reader_free(r);
    fclose(f);
    /* mixed: a checksummed stream then an unchecked one */
    uint8_t *ab = malloc(la + lb);
    memcpy(ab, a, la);
    memcpy(ab + la, b, lb);
    assert_int_equal(cs_recio_verify(ab, la + lb, &err), 0);
    assert_int_equal(cs_recio_decode_all(ab, la + lb, &out, &err), 0);
    assert_int_equal(out.n, 2 * in.n);
    /* zeros where a block should be */
    uint8_t zeros[RECIO_HEADER_LEN * 3] = {0};
    assert_int_equal(decode(zeros, sizeof zeros, &err), CS_EPROTO);
    assert_non_null(strstr(err.msg, "empty block"));
    /* next_raw only at a block boundary */
    r = cs_recio_reader_mem(a, la);
    cspark_record rec;
    assert_int_equal(cs_recio_reader_next(r, &rec, &err), 1);
    assert_int_equal(cs_recio_reader_next_raw(r, &blk, &n, &err), CS_EINVAL);
    cs_recio_reader_free(r);
    /* a block serialized in place, then sealed */
    uint8_t sealed[RECIO_HEADER_LEN + 16];
    size_t hl = recio_put_header(sealed + RECIO_HEADER_LEN, 3, 5);
    memcpy(sealed + RECIO_HEADER_LEN + hl, "keyvalue", 8);
    size_t sl = cs_recio_seal_stored_block(sealed, (uint32_t)(hl + 8), CS_CHECKSUM_XXH3);
    cs_batch_reset(&out);
    assert_int_equal(cs_recio_decode_all(sealed, sl, &out, &err), 0);
    assert_int_equal(out.n, 1);
    sealed[sl - 1] ^= 1;
    assert_int_equal(decode(sealed, sl, &err), CS_EPROTO);
    free(ab);
    free(a);
    free(b);
    cs_batch_free(&in);
    cs_batch_free(&out);
}

/* The record limit: key + value up to CSPARK_MAX_RECORD_BYTES, sums that would wrap refused, and
 * a record at the limit fits a block (header included). */
static void test_record_limit(void **state)
{
    (void)state;
    cs_error err = {0};
    const size_t max = CSPARK_MAX_RECORD_BYTES;
    assert_int_equal(cs_recio_check_record(max, 0, "x", &err), 0);
    assert_int_equal(cs_recio_check_record(max - 5, 5, "x", &err), 0);
    assert_int_equal(cs_recio_check_record(max, 1, "emit", &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "emit: a record of 268435456 key + 1 value bytes"));
    assert_non_null(strstr(err.msg, "CSPARK_MAX_RECORD_BYTES"));
    assert_int_equal(cs_recio_check_record(SIZE_MAX, 2, "x", &err), CS_EINVAL);
    assert_int_equal(cs_recio_check_record(2, SIZE_MAX - 1, "x", &err), CS_EINVAL);
    assert_int_equal(cs_recio_check_record((size_t)1 << 32, 0, "x", &err), CS_EINVAL);
    assert_true(recio_record_size((uint32_t)max / 2, (uint32_t)max / 2) <= RECIO_MAX_BLOCK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_mem_lz4),
        cmocka_unit_test(test_roundtrip_mem_plain),
        cmocka_unit_test(test_lz4_compresses),
        cmocka_unit_test(test_roundtrip_fd_range),
        cmocka_unit_test(test_corrupt_rejected),
        cmocka_unit_test(test_roundtrip_pulled_parts),
        cmocka_unit_test(test_every_bit_flip_detected),
        cmocka_unit_test(test_checksum_algorithms),
        cmocka_unit_test(test_raw_blocks_and_mixed_streams),
        cmocka_unit_test(test_record_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
