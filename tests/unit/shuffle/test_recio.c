/*
 * test_recio.c — record stream round trips (memory, fd and pulled parts, with and without lz4,
 * records larger than a block, empty keys/values) and rejection of corrupt input without
 * crashing.
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

#include "common/batch.h"
#include "common/recio.h"

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
    assert_int_equal(a[8], RECIO_CODEC_LZ4);
    assert_int_equal(b[8], RECIO_CODEC_NONE);
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
    uint8_t bad[9 + 3] = {3, 0, 0, 0, 3, 0, 0, 0, 0, 0x05, 0x00, 'x'};
    assert_int_equal(decode(bad, sizeof bad, &err), CS_EPROTO);
    assert_int_equal(err.code, CS_EPROTO);
    /* varint longer than 5 bytes */
    uint8_t bad2[9 + 7] = {7, 0, 0, 0, 7, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    assert_int_equal(decode(bad2, sizeof bad2, &err), CS_EPROTO);
    /* an lz4 block claiming more than lz4 can expand to is refused before allocating */
    uint8_t bad3[9 + 4] = {0, 0, 0, 1, 4, 0, 0, 0, 1, 0x10, 0, 0, 0}; /* raw 16 MB from 4 bytes */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_mem_lz4), cmocka_unit_test(test_roundtrip_mem_plain),
        cmocka_unit_test(test_lz4_compresses),    cmocka_unit_test(test_roundtrip_fd_range),
        cmocka_unit_test(test_corrupt_rejected),  cmocka_unit_test(test_roundtrip_pulled_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
