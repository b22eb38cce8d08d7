/*
 * test_codec_pages.c — src/formats/parquet/parquet_codec.c and parquet_pages.c. Codecs: each
 * round-trips compressible and random data; a page whose header lies about its uncompressed size
 * fails naming the codec and both sizes; Hadoop-framed LZ4 in several frames, the LZ4 frame format
 * and a bare block all read as LZ4; LZO is refused by name. Pages: a column chunk built here
 * (dictionary page, data page v1 with levels, data page v2, an index page to skip) reads back
 * level for level and value for value, with the dictionary kept or materialized; a peek leaves
 * the next page in place and lazy indices unpack what is asked past a gap; and each lie a
 * chunk can tell (compressed size past the chunk, uncompressed size past the chunk's, more values
 * than the chunk, a v2 null count that the levels contradict, an index past the dictionary, a
 * dictionary-encoded page without a dictionary, a chunk that ends short) is one message naming
 * the file, the column and the page.
 */
#include <lz4.h>
#include <lz4frame.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/parquet/parquet_codec.h"
#include "formats/parquet/parquet_encoding.h"
#include "formats/parquet/parquet_meta.h"
#include "formats/parquet/parquet_pages.h"

static const int codecs[] = {CS_PQ_CODEC_UNCOMPRESSED, CS_PQ_CODEC_SNAPPY, CS_PQ_CODEC_GZIP,
                             CS_PQ_CODEC_ZSTD,         CS_PQ_CODEC_LZ4,    CS_PQ_CODEC_LZ4_RAW};

static void test_codecs_round_trip_and_lies(void **state)
{
    enum { N = 100000 };
    uint8_t *src = malloc(N), *dst = malloc(N + 16);
    uint64_t x = 1;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        src[i] = i < N / 2 ? (uint8_t)("parquet pages "[i % 14]) : (uint8_t)(x >> 56);
    }
    for (size_t c = 0; c < sizeof codecs / sizeof *codecs; c++) {
        cs_sbuf b = CS_SBUF_INIT;
        cs_error err;
        assert_int_equal(cs_parquet_compress(codecs[c], src, N, &b, &err), 0);
        assert_int_equal(cs_parquet_decompress(codecs[c], (uint8_t *)b.data, b.len, dst, N, &err),
                         0);
        assert_memory_equal(src, dst, N);
        /* the header says one byte less, or one more, than the data holds */
        assert_int_equal(
            cs_parquet_decompress(codecs[c], (uint8_t *)b.data, b.len, dst, N - 1, &err),
            CS_EPROTO);
        assert_int_equal(
            cs_parquet_decompress(codecs[c], (uint8_t *)b.data, b.len, dst, N + 1, &err),
            CS_EPROTO);
        if (codecs[c] != CS_PQ_CODEC_UNCOMPRESSED) { /* damaged: an error or bytes, never a crash */
            b.data[b.len / 2] ^= 0x5a;
            b.data[b.len / 3] ^= 0x33;
            int rc = cs_parquet_decompress(codecs[c], (uint8_t *)b.data, b.len, dst, N, &err);
            assert_true(rc == CS_EPROTO || rc == 0);
            assert_int_not_equal(
                cs_parquet_decompress(codecs[c], (uint8_t *)b.data, b.len / 2, dst, N, &err), 0);
        }
        cs_sbuf_free(&b);
    }
    cs_error err;
    static const uint8_t snappy_lie[] = {0x80, 0x80, 0x04, 0x00}; /* says 65536 bytes */
    assert_int_equal(cs_parquet_decompress(CS_PQ_CODEC_SNAPPY, snappy_lie, 4, dst, 10, &err),
                     CS_EPROTO);
    assert_non_null(strstr(err.msg, "SNAPPY page decompresses to 65536 bytes, its header says 10"));
    assert_int_equal(cs_parquet_decompress(CS_PQ_CODEC_LZO, src, 10, dst, 10, &err),
                     CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "LZO"));

    /* Hadoop framing in two frames; the LZ4 frame format; a bare block */
    uint8_t frames[2 * (LZ4_COMPRESSBOUND(N / 2) + 8)];
    size_t pos = 0;
    for (int f = 0; f < 2; f++) {
        int n = LZ4_compress_default((const char *)src + f * (N / 2), (char *)frames + pos + 8,
                                     N / 2, LZ4_COMPRESSBOUND(N / 2));
        uint32_t v[2] = {N / 2, (uint32_t)n};
        for (int k = 0; k < 2; k++)
            for (int i = 0; i < 4; i++)
                frames[pos + (size_t)k * 4 + (size_t)i] = (uint8_t)(v[k] >> (24 - 8 * i));
        pos += 8 + (size_t)n;
    }
    memset(dst, 0, N);
    assert_int_equal(cs_parquet_decompress(CS_PQ_CODEC_LZ4, frames, pos, dst, N, &err), 0);
    assert_memory_equal(src, dst, N);
    size_t fcap = LZ4F_compressFrameBound(N, NULL);
    uint8_t *frame = malloc(fcap);
    size_t fl = LZ4F_compressFrame(frame, fcap, src, N, NULL);
    memset(dst, 0, N);
    assert_int_equal(cs_parquet_decompress(CS_PQ_CODEC_LZ4, frame, fl, dst, N, &err), 0);
    assert_memory_equal(src, dst, N);
    int bl = LZ4_compress_default((const char *)src, (char *)frame, N, (int)fcap);
    memset(dst, 0, N);
    assert_int_equal(cs_parquet_decompress(CS_PQ_CODEC_LZ4, frame, (size_t)bl, dst, N, &err), 0);
    assert_memory_equal(src, dst, N);
    free(frame);
    free(src);
    free(dst);
}

/* ---- pages ---- */

/* An optional INT32 column: rows 0..n-1, every third null; value of row i is i * 10 % 7. */
static const cs_parquet_column_desc optional_int = {.path = "c", .type = CS_PQ_INT32, .max_def = 1};

static void put_page(cs_sbuf *chunk, cs_parquet_page_header *h, const cs_sbuf *body, int codec)
{
    cs_sbuf comp = CS_SBUF_INIT;
    cs_error err;
    if (h->type == CS_PQ_PAGE_DATA_V2) { /* levels stay uncompressed in front */
        size_t lv = (size_t)h->def_levels_len + (size_t)h->rep_levels_len;
        cs_sbuf_append(&comp, body->data, lv);
        assert_int_equal(
            cs_parquet_compress(codec, (uint8_t *)body->data + lv, body->len - lv, &comp, &err), 0);
    } else {
        assert_int_equal(cs_parquet_compress(codec, (uint8_t *)body->data, body->len, &comp, &err),
                         0);
    }
    h->uncompressed_size = (int32_t)body->len;
    h->compressed_size = (int32_t)comp.len;
    cs_parquet_page_header_encode(h, chunk);
    cs_sbuf_append(chunk, comp.data, comp.len);
    cs_sbuf_free(&comp);
}

typedef struct built {
    cs_sbuf chunk;
    uint32_t rows;
} built;

/* dictionary page (values 0..6) + index page + v1 page (rows 0..99, dictionary) + v2 page (rows
 * 100..199, PLAIN); returns the chunk. lie: 0 none, else which field to falsify. */
static void build_chunk(built *out, int codec, int v2_null_lie, int index_lie)
{
    memset(out, 0, sizeof *out);
    cs_sbuf *chunk = &out->chunk;
    cs_parquet_values dict = {0};
    cs_parquet_values_reset(&dict, CS_PQ_INT32, 0);
    int32_t *dv = (int32_t *)cs_parquet_values_reserve_fixed(&dict, 7);
    for (int i = 0; i < 7; i++)
        dv[i] = i;
    dict.count = 7;
    cs_sbuf body = CS_SBUF_INIT;
    cs_parquet_plain_encode(&dict, 0, 7, &body);
    cs_parquet_page_header h = {
        .type = CS_PQ_PAGE_DICTIONARY, .num_values = 7, .encoding = CS_PQ_ENC_PLAIN};
    put_page(chunk, &h, &body, codec);
    body.len = 0;
    cs_sbuf_append(&body, "idx", 3);
    h = (cs_parquet_page_header){.type = CS_PQ_PAGE_INDEX};
    put_page(chunk, &h, &body, CS_PQ_CODEC_UNCOMPRESSED);

    int16_t def[100];
    uint32_t idx[100], n = 0;
    for (uint32_t i = 0; i < 100; i++) {
        def[i] = i % 3 != 0;
        if (def[i]) idx[n++] = i * 10 % 7;
    }
    if (index_lie) idx[5] = 7;
    cs_sbuf levels = CS_SBUF_INIT;
    cs_parquet_rle_encode_levels(def, 100, 1, &levels);
    body.len = 0;
    uint8_t l4[4] = {(uint8_t)levels.len, (uint8_t)(levels.len >> 8), 0, 0};
    cs_sbuf_append(&body, l4, 4);
    cs_sbuf_append(&body, levels.data, levels.len);
    cs_parquet_dict_indices_encode(idx, n, 7 + (index_lie ? 1 : 0), &body);
    h = (cs_parquet_page_header){.type = CS_PQ_PAGE_DATA,
                                 .num_values = 100,
                                 .encoding = CS_PQ_ENC_RLE_DICTIONARY,
                                 .def_encoding = CS_PQ_ENC_RLE,
                                 .rep_encoding = CS_PQ_ENC_RLE};
    put_page(chunk, &h, &body, codec);

    cs_parquet_values vals = {0};
    cs_parquet_values_reset(&vals, CS_PQ_INT32, 0);
    n = 0;
    for (uint32_t i = 100; i < 200; i++) {
        def[i - 100] = i % 3 != 0;
        if (def[i - 100]) {
            *(int32_t *)cs_parquet_values_reserve_fixed(&vals, 1) = (int32_t)(i * 10 % 7);
            vals.count++;
            n++;
        }
    }
    levels.len = 0;
    cs_parquet_rle_encode_levels(def, 100, 1, &levels);
    body.len = 0;
    cs_sbuf_append(&body, levels.data, levels.len);
    cs_parquet_plain_encode(&vals, 0, n, &body);
    h = (cs_parquet_page_header){.type = CS_PQ_PAGE_DATA_V2,
                                 .num_values = 100,
                                 .num_rows = 100,
                                 .num_nulls = (int32_t)(100 - n) + v2_null_lie,
                                 .encoding = CS_PQ_ENC_PLAIN,
                                 .def_levels_len = (int32_t)levels.len,
                                 .is_compressed = true};
    put_page(chunk, &h, &body, codec);
    out->rows = 200;
    cs_sbuf_free(&body);
    cs_sbuf_free(&levels);
    cs_parquet_values_free(&dict);
    cs_parquet_values_free(&vals);
}

static int read_all(const uint8_t *chunk, size_t len, int codec, int64_t num_values,
                    int64_t max_page, bool keep_dictionary, cs_error *err)
{
    cs_parquet_page_reader r;
    cs_parquet_page_reader_init(&r, "f.parquet: column c, row group 0", &optional_int, codec, chunk,
                                len, num_values, max_page);
    r.keep_dictionary = keep_dictionary;
    cs_parquet_page p;
    int rc, pages = 0;
    uint32_t row = 0;
    while ((rc = cs_parquet_page_reader_next(&r, &p, err)) > 0) {
        pages++;
        assert_int_equal(p.type, pages == 1 ? CS_PQ_PAGE_DATA : CS_PQ_PAGE_DATA_V2);
        assert_int_equal(p.num_values, 100);
        assert_int_equal(p.num_rows, 100);
        assert_null(p.rep_levels);
        uint32_t k = 0;
        for (uint32_t i = 0; i < p.num_values; i++, row++) {
            assert_int_equal(p.def_levels[i], row % 3 != 0);
            if (!p.def_levels[i]) continue;
            int32_t v;
            if (p.dict_indices)
                memcpy(&v, p.dictionary->fixed + 4 * p.dict_indices[k], 4);
            else
                memcpy(&v, p.values->fixed + 4 * k, 4);
            assert_int_equal(v, (int32_t)(row * 10 % 7));
            k++;
        }
        assert_int_equal(k, p.num_nonnull);
    }
    if (rc == 0) assert_int_equal(pages, 2);
    cs_parquet_page_reader_free(&r);
    return rc;
}

static void test_pages_read_back(void **state)
{
    for (size_t c = 0; c < sizeof codecs / sizeof *codecs; c++) {
        built b;
        build_chunk(&b, codecs[c], 0, 0);
        cs_error err;
        assert_int_equal(
            read_all((uint8_t *)b.chunk.data, b.chunk.len, codecs[c], 200, 1 << 20, false, &err),
            0);
        assert_int_equal(
            read_all((uint8_t *)b.chunk.data, b.chunk.len, codecs[c], 200, 1 << 20, true, &err), 0);
        /* every truncation of the chunk fails with the file and column named, never overreads */
        for (size_t n = 0; n < b.chunk.len; n++) {
            uint8_t *copy = malloc(n + 1);
            memcpy(copy, b.chunk.data, n);
            err.msg[0] = 0;
            assert_int_equal(read_all(copy, n, codecs[c], 200, 1 << 20, false, &err) < 0, 1);
            assert_non_null(strstr(err.msg, "f.parquet: column c, row group 0, page at byte"));
            free(copy);
        }
        cs_sbuf_free(&b.chunk);
    }
}

static void expect_lie(const built *b, int64_t num_values, int64_t max_page, const char *words)
{
    cs_error err = {0};
    int rc = read_all((uint8_t *)b->chunk.data, b->chunk.len, CS_PQ_CODEC_SNAPPY, num_values,
                      max_page, false, &err);
    assert_int_equal(rc, CS_EPROTO);
    if (!strstr(err.msg, words) ||
        !strstr(err.msg, "f.parquet: column c, row group 0, page at byte"))
        fail_msg("message '%s' lacks '%s'", err.msg, words);
}

static void test_pages_that_lie(void **state)
{
    built b;
    build_chunk(&b, CS_PQ_CODEC_SNAPPY, 0, 0);
    expect_lie(&b, 150, 1 << 20, "the page says 100 values, the column chunk has 50 left");
    expect_lie(&b, 300, 1 << 20, "ends 100 values short");
    expect_lie(&b, 200, 20, "uncompressed bytes, more than its chunk's 20");
    cs_sbuf_free(&b.chunk);

    build_chunk(&b, CS_PQ_CODEC_SNAPPY, 3, 0);
    expect_lie(&b, 200, 1 << 20, "the header says 36 nulls, the definition levels 33");
    cs_sbuf_free(&b.chunk);

    build_chunk(&b, CS_PQ_CODEC_SNAPPY, 0, 1);
    expect_lie(&b, 200, 1 << 20, "above the maximum 6");
    cs_sbuf_free(&b.chunk);

    /* the first page (the dictionary) says it is longer than the chunk */
    build_chunk(&b, CS_PQ_CODEC_SNAPPY, 0, 0);
    cs_parquet_page_header h;
    size_t hlen;
    cs_error err;
    assert_int_equal(
        cs_parquet_page_header_decode((uint8_t *)b.chunk.data, b.chunk.len, &h, &hlen, &err), 0);
    cs_sbuf lying = CS_SBUF_INIT;
    h.compressed_size = 1 << 30;
    cs_parquet_page_header_encode(&h, &lying);
    cs_sbuf_append(&lying, b.chunk.data + hlen, b.chunk.len - hlen);
    cs_sbuf_free(&b.chunk);
    b.chunk = lying;
    expect_lie(&b, 200, 1 << 20, "the page says 1073741824 compressed bytes");
    cs_sbuf_free(&b.chunk);
    /* without the dictionary page, the dictionary-encoded page has no dictionary */
    build_chunk(&b, CS_PQ_CODEC_SNAPPY, 0, 0);
    assert_int_equal(
        cs_parquet_page_header_decode((uint8_t *)b.chunk.data, b.chunk.len, &h, &hlen, &err), 0);
    built nodict = {.rows = 200};
    cs_sbuf_append(&nodict.chunk, b.chunk.data + hlen + (size_t)h.compressed_size,
                   b.chunk.len - hlen - (size_t)h.compressed_size);
    expect_lie(&nodict, 200, 1 << 20, "dictionary-encoded page without a dictionary page");
    cs_sbuf_free(&nodict.chunk);
    cs_sbuf_free(&b.chunk);
}

/* peek leaves the page where it is; lazy indices are unpacked as asked, passing over a gap,
 * and asking behind the last one is refused */
static void test_peek_and_lazy_indices(void **state)
{
    (void)state;
    built b;
    build_chunk(&b, CS_PQ_CODEC_UNCOMPRESSED, 0, 0);
    cs_parquet_page_reader r;
    cs_parquet_page_reader_init(&r, "f.parquet: column c, row group 0", &optional_int,
                                CS_PQ_CODEC_UNCOMPRESSED, (const uint8_t *)b.chunk.data,
                                b.chunk.len, 200, 1 << 20);
    r.keep_dictionary = r.lazy_indices = true;
    cs_error err = {0};
    uint32_t nv = 0;
    assert_int_equal(cs_parquet_page_reader_peek(&r, &nv, &err), 1);
    assert_int_equal(nv, 100);
    assert_int_equal(cs_parquet_page_reader_peek(&r, &nv, &err), 1); /* still the first page */
    assert_int_equal(nv, 100);
    cs_parquet_page p;
    assert_int_equal(cs_parquet_page_reader_next(&r, &p, &err), 1);
    assert_true(p.dict_lazy);
    assert_null(p.dict_indices);
    uint32_t want[100], n = 0; /* the page's non-null values, in order */
    for (uint32_t row = 0; row < 100; row++)
        if (row % 3 != 0) want[n++] = row * 10 % 7;
    assert_int_equal(n, p.num_nonnull);
    const uint32_t *ix = cs_parquet_page_reader_indices(&r, 0, 10, &err);
    assert_non_null(ix);
    for (uint32_t k = 0; k < 10; k++)
        assert_int_equal(ix[k], want[k]);
    ix = cs_parquet_page_reader_indices(&r, 40, n - 40, &err); /* 10..40 passed over */
    assert_non_null(ix);
    for (uint32_t k = 40; k < n; k++)
        assert_int_equal(ix[k - 40], want[k]);
    assert_null(cs_parquet_page_reader_indices(&r, 20, 1, &err));
    assert_non_null(strstr(err.msg, "f.parquet: column c"));
    assert_int_equal(cs_parquet_page_reader_next(&r, &p, &err), 1); /* the plain v2 page */
    assert_false(p.dict_lazy);
    assert_int_equal(cs_parquet_page_reader_peek(&r, &nv, &err), 0);
    cs_parquet_page_reader_free(&r);
    cs_sbuf_free(&b.chunk);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_codecs_round_trip_and_lies),
        cmocka_unit_test(test_pages_read_back),
        cmocka_unit_test(test_pages_that_lie),
        cmocka_unit_test(test_peek_and_lazy_indices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
