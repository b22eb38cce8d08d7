/*
 * test_encodings.c — src/formats/parquet/parquet_{plain,rle,delta,dict}.c: every encoder's output
 * decodes to its input (RLE/bit-packed at every bit width 0..32 with runs and noise, levels,
 * DELTA_BINARY_PACKED at the INT32 and INT64 extremes where deltas wrap, PLAIN of every physical
 * type, dictionary indices); DELTA_LENGTH_BYTE_ARRAY, DELTA_BYTE_ARRAY (BYTE_ARRAY and
 * FIXED_LEN_BYTE_ARRAY) and BYTE_STREAM_SPLIT decode hand-built input; and lying input fails
 * with a message (values above the maximum, truncated runs, lengths past the end, bad headers).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/parquet/parquet_encoding.h"
#include "formats/parquet/parquet_meta.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next_rand(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_rle_every_width(void **state)
{
    enum { N = 3001 };
    uint32_t *v = malloc(N * sizeof *v), *out = malloc(N * sizeof *out);
    for (int bw = 0; bw <= 32; bw++) {
        uint64_t mask = bw == 32 ? 0xffffffffu : (1ull << bw) - 1;
        for (int i = 0; i < N; i++) /* runs of equal values with noise in between */
            v[i] = (i / 37) % 3 == 0 ? (uint32_t)(next_rand() & mask) : (uint32_t)((i / 37) & mask);
        cs_sbuf b = CS_SBUF_INIT;
        cs_parquet_rle_encode_u32(v, N, bw, &b);
        cs_parquet_rle_decoder d;
        cs_error err;
        cs_parquet_rle_decoder_init(&d, (const uint8_t *)b.data, b.len, bw);
        assert_int_equal(cs_parquet_rle_decode_u32(&d, out, 1000, (uint32_t)mask, &err), 0);
        assert_int_equal(cs_parquet_rle_decode_u32(&d, out + 1000, N - 1000, (uint32_t)mask, &err),
                         0);
        assert_memory_equal(v, out, N * sizeof *v);
        if (bw > 0) { /* a maximum below the values is refused */
            uint32_t mx = 0;
            for (int i = 0; i < N; i++)
                mx = v[i] > mx ? v[i] : mx;
            cs_parquet_rle_decoder_init(&d, (const uint8_t *)b.data, b.len, bw);
            assert_int_equal(cs_parquet_rle_decode_u32(&d, out, N, mx - 1, &err), CS_EPROTO);
            assert_non_null(strstr(err.msg, "above the maximum"));
        }
        /* asking for more values than encoded (beyond the padding) fails */
        cs_parquet_rle_decoder_init(&d, (const uint8_t *)b.data, b.len, bw);
        uint32_t *big = malloc((N + 64) * sizeof *big);
        assert_int_equal(cs_parquet_rle_decode_u32(&d, big, N + 64, (uint32_t)mask, &err),
                         CS_EPROTO);
        free(big);
        cs_sbuf_free(&b);
    }
    free(v);
    free(out);
}

/* Long bit-packed runs (every value random) at every width 1..32, read in pieces of uneven
 * sizes so that the group-at-a-time path starts on and off group boundaries and hands the end
 * of each run to the value-at-a-time path; the encoded bytes in a buffer of their exact size,
 * so that a read past them shows under ASan. A value above the maximum is still refused. */
static void test_bit_packed_groups_at_every_width_and_offset(void **state)
{
    enum { N = 4099 };
    static const uint32_t pieces[] = {1, 3, 8, 13, 64, 5, 1000, 7, 2048};
    uint32_t *v = malloc(N * sizeof *v), *out = malloc(N * sizeof *out);
    for (int bw = 1; bw <= 32; bw++) {
        uint64_t mask = bw == 32 ? 0xffffffffu : (1ull << bw) - 1;
        uint32_t mx = 0;
        for (int i = 0; i < N; i++) {
            v[i] = (uint32_t)(next_rand() & mask);
            v[i] = i > 0 && v[i] == v[i - 1] ? v[i] ^ 1 : v[i]; /* no repeated runs */
            mx = v[i] > mx ? v[i] : mx;
        }
        cs_sbuf b = CS_SBUF_INIT;
        cs_parquet_rle_encode_u32(v, N, bw, &b);
        uint8_t *exact = malloc(b.len);
        memcpy(exact, b.data, b.len);
        cs_parquet_rle_decoder d;
        cs_error err;
        cs_parquet_rle_decoder_init(&d, exact, b.len, bw);
        memset(out, 0xAB, N * sizeof *out);
        for (uint32_t at = 0, p = 0; at < N; p++) {
            uint32_t k = pieces[p % (sizeof pieces / sizeof *pieces)];
            k = k < N - at ? k : N - at;
            assert_int_equal(cs_parquet_rle_decode_u32(&d, out + at, k, (uint32_t)mask, &err), 0);
            at += k;
        }
        assert_memory_equal(v, out, N * sizeof *v);
        cs_parquet_rle_decoder_init(&d, exact, b.len, bw);
        assert_int_equal(cs_parquet_rle_decode_u32(&d, out, N, mx - 1, &err), CS_EPROTO);
        assert_non_null(strstr(err.msg, "above the maximum"));
        free(exact);
        cs_sbuf_free(&b);
    }
    free(v);
    free(out);
}

static void test_levels_round_trip(void **state)
{
    int16_t lv[1000], out[1000];
    for (int i = 0; i < 1000; i++)
        lv[i] = (int16_t)(i % 50 < 30 ? 3 : next_rand() % 4);
    cs_sbuf b = CS_SBUF_INIT;
    cs_parquet_rle_encode_levels(lv, 1000, cs_parquet_bit_width(3), &b);
    cs_parquet_rle_decoder d;
    cs_error err;
    cs_parquet_rle_decoder_init(&d, (const uint8_t *)b.data, b.len, 2);
    assert_int_equal(cs_parquet_rle_decode_levels(&d, out, 1000, 3, &err), 0);
    assert_memory_equal(lv, out, sizeof lv);
    cs_parquet_rle_decoder_init(&d, (const uint8_t *)b.data, b.len, 2);
    assert_int_equal(cs_parquet_rle_decode_levels(&d, out, 1000, 2, &err), CS_EPROTO);
    cs_sbuf_free(&b);
    /* a bit-packed run header promising more groups than bytes: the values the bytes hold */
    static const uint8_t trimmed[] = {0x05, 0xff}; /* 2 groups of 8 at width 1, one byte */
    cs_parquet_rle_decoder_init(&d, trimmed, sizeof trimmed, 1);
    assert_int_equal(cs_parquet_rle_decode_levels(&d, out, 8, 1, &err), 0);
    assert_int_equal(cs_parquet_rle_decode_levels(&d, out, 1, 1, &err), CS_EPROTO);
    assert_non_null(strstr(err.msg, "ends before"));
}

static void check_delta(int type, const void *v, uint32_t n)
{
    size_t w = type == CS_PQ_INT32 ? 4 : 8, used;
    cs_sbuf b = CS_SBUF_INIT;
    cs_parquet_delta_encode_ints(v, type, n, &b);
    cs_sbuf_append(&b, "tail", 4);
    void *out = malloc(n * w + 8);
    cs_error err;
    assert_int_equal(
        cs_parquet_delta_decode_ints((const uint8_t *)b.data, b.len, type, n, out, &used, &err), 0);
    assert_memory_equal(out, v, n * w);
    assert_int_equal(used, b.len - 4); /* it stops where its values end */
    uint32_t count;
    assert_int_equal(cs_parquet_delta_count((const uint8_t *)b.data, b.len, &count, &err), 0);
    assert_int_equal(count, n);
    if (n > 0) /* a count that differs from the header's is refused */
        assert_int_equal(cs_parquet_delta_decode_ints((const uint8_t *)b.data, b.len, type, n - 1,
                                                      out, &used, &err),
                         CS_EPROTO);
    /* truncations fail, or (cutting only the last miniblock's padding) decode the same values;
     * never an overread (ASan) */
    for (size_t cut = 0; cut + 4 < b.len && n > 1; cut++) {
        uint8_t *copy = malloc(cut + 1);
        memcpy(copy, b.data, cut);
        int rc = cs_parquet_delta_decode_ints(copy, cut, type, n, out, &used, &err);
        if (rc == 0)
            assert_memory_equal(out, v, n * w);
        else
            assert_int_equal(rc, CS_EPROTO);
        free(copy);
    }
    free(out);
    cs_sbuf_free(&b);
}

static void test_delta_binary_packed(void **state)
{
    int32_t a[1000];
    int64_t l[1000];
    uint32_t sizes[] = {0, 1, 2, 128, 129, 1000};
    for (int s = 0; s < 6; s++) {
        uint32_t n = sizes[s];
        for (uint32_t i = 0; i < n; i++) { /* extremes and random jumps: deltas wrap */
            a[i] = i % 3 == 0 ? INT32_MIN : i % 3 == 1 ? INT32_MAX : (int32_t)next_rand();
            l[i] = i % 3 == 0 ? INT64_MIN : i % 3 == 1 ? INT64_MAX : (int64_t)next_rand();
        }
        check_delta(CS_PQ_INT32, a, n);
        check_delta(CS_PQ_INT64, l, n);
        for (uint32_t i = 0; i < n; i++) { /* sorted, small deltas */
            a[i] = (int32_t)(i * 3);
            l[i] = (int64_t)i * 1000000007;
        }
        check_delta(CS_PQ_INT32, a, n);
        check_delta(CS_PQ_INT64, l, n);
    }
    /* bad headers: block size not a multiple of 128; an INT32 miniblock 33 bits wide */
    static const uint8_t bad_block[] = {0x64, 0x04, 0x02, 0x00};
    static const uint8_t wide[] = {0x80, 0x01, 0x04, 0x02, 0x00, 0x00, 33, 0, 0, 0};
    int32_t out[4];
    size_t used;
    cs_error err;
    assert_int_equal(
        cs_parquet_delta_decode_ints(bad_block, sizeof bad_block, CS_PQ_INT32, 2, out, &used, &err),
        CS_EPROTO);
    assert_non_null(strstr(err.msg, "block size"));
    assert_int_equal(
        cs_parquet_delta_decode_ints(wide, sizeof wide, CS_PQ_INT32, 2, out, &used, &err),
        CS_EPROTO);
    assert_non_null(strstr(err.msg, "bit width 33"));
}

static void test_plain_every_type(void **state)
{
    static const int types[] = {
        CS_PQ_BOOLEAN, CS_PQ_INT32,  CS_PQ_INT64,      CS_PQ_INT96,
        CS_PQ_FLOAT,   CS_PQ_DOUBLE, CS_PQ_BYTE_ARRAY, CS_PQ_FIXED_LEN_BYTE_ARRAY};
    for (int t = 0; t < 8; t++) {
        cs_parquet_values v = {0}, out = {0};
        cs_parquet_values_reset(&v, types[t], 7);
        cs_error err;
        for (int i = 0; i < 203; i++) {
            if (types[t] == CS_PQ_BYTE_ARRAY) {
                char s[32];
                int n = snprintf(s, sizeof s, "value-%d", i * i);
                assert_int_equal(
                    cs_parquet_values_append_bytes(&v, (uint8_t *)s, (size_t)(i % 5 ? n : 0), &err),
                    0);
            } else {
                size_t w = cs_parquet_value_width(types[t], 7);
                uint8_t *p = cs_parquet_values_reserve_fixed(&v, 1);
                for (size_t k = 0; k < w; k++)
                    p[k] = types[t] == CS_PQ_BOOLEAN ? (uint8_t)(next_rand() & 1)
                                                     : (uint8_t)next_rand();
                v.count++;
            }
        }
        cs_sbuf b = CS_SBUF_INIT;
        cs_parquet_plain_encode(&v, 0, v.count, &b);
        cs_parquet_values_reset(&out, types[t], 7);
        size_t used;
        assert_int_equal(
            cs_parquet_plain_decode((const uint8_t *)b.data, b.len, v.count, &out, &used, &err), 0);
        assert_int_equal(used, b.len);
        assert_int_equal(out.count, v.count);
        if (types[t] == CS_PQ_BYTE_ARRAY) {
            assert_memory_equal(out.offsets, v.offsets, (v.count + 1) * sizeof *v.offsets);
            assert_memory_equal(out.data, v.data, v.data_len);
        } else {
            assert_memory_equal(out.fixed, v.fixed, v.count * cs_parquet_value_width(types[t], 7));
        }
        /* one value more than the bytes hold fails */
        cs_parquet_values_reset(&out, types[t], 7);
        assert_int_equal(
            cs_parquet_plain_decode((const uint8_t *)b.data, b.len - 1, v.count, &out, &used, &err),
            CS_EPROTO);
        cs_sbuf_free(&b);
        cs_parquet_values_free(&v);
        cs_parquet_values_free(&out);
    }
    /* a BYTE_ARRAY length past the end */
    static const uint8_t lying[] = {0x10, 0, 0, 0, 'a', 'b'};
    cs_parquet_values out = {0};
    cs_parquet_values_reset(&out, CS_PQ_BYTE_ARRAY, 0);
    size_t used;
    cs_error err;
    assert_int_equal(cs_parquet_plain_decode(lying, sizeof lying, 1, &out, &used, &err), CS_EPROTO);
    assert_non_null(strstr(err.msg, "says 16 bytes"));
    cs_parquet_values_free(&out);
}

static void test_dictionary(void **state)
{
    cs_parquet_values v = {0}, out = {0};
    cs_parquet_values_reset(&v, CS_PQ_BYTE_ARRAY, 0);
    static const char *words[] = {"spark", "", "parquet", "arrow", "spark!"};
    cs_error err;
    for (int i = 0; i < 5000; i++)
        cs_parquet_values_append_bytes(&v, (const uint8_t *)words[i % 5 == 4 ? (i / 5) % 5 : i % 4],
                                       strlen(words[i % 5 == 4 ? (i / 5) % 5 : i % 4]), &err);
    cs_parquet_dict_builder db;
    cs_parquet_dict_builder_init(&db, CS_PQ_BYTE_ARRAY, 0);
    uint32_t *idx = malloc(5000 * sizeof *idx), *back = malloc(5000 * sizeof *back);
    cs_parquet_dict_builder_add(&db, &v, 0, 5000, idx);
    assert_int_equal(db.dict.count, 5);
    cs_sbuf b = CS_SBUF_INIT;
    cs_parquet_dict_indices_encode(idx, 5000, db.dict.count, &b);
    assert_int_equal(b.data[0], 3); /* bit width for 0..4 */
    cs_parquet_rle_decoder d;
    cs_parquet_rle_decoder_init(&d, (const uint8_t *)b.data + 1, b.len - 1, b.data[0]);
    assert_int_equal(cs_parquet_rle_decode_u32(&d, back, 5000, db.dict.count - 1, &err), 0);
    cs_parquet_values_reset(&out, CS_PQ_BYTE_ARRAY, 0);
    assert_int_equal(cs_parquet_dict_gather(&db.dict, back, 5000, &out, &err), 0);
    assert_memory_equal(out.offsets, v.offsets, 5001 * sizeof *v.offsets);
    assert_memory_equal(out.data, v.data, v.data_len);
    assert_int_equal(cs_parquet_dict_builder_bytes(&db), 5 * 4 + strlen("sparkparquetarrowspark!"));
    /* many distinct INT64 values: the table grows */
    cs_parquet_dict_builder db2;
    cs_parquet_dict_builder_init(&db2, CS_PQ_INT64, 0);
    cs_parquet_values ints = {0};
    cs_parquet_values_reset(&ints, CS_PQ_INT64, 0);
    int64_t *p = (int64_t *)cs_parquet_values_reserve_fixed(&ints, 5000);
    for (int i = 0; i < 5000; i++)
        p[i] = i % 3000;
    ints.count = 5000;
    cs_parquet_dict_builder_add(&db2, &ints, 0, 5000, idx);
    assert_int_equal(db2.dict.count, 3000);
    assert_int_equal(idx[3500], 500);
    /* a wide FIXED_LEN_BYTE_ARRAY dictionary value repeated past 2 GiB is refused, not allocated */
    cs_parquet_values wide = {0}, wide_out = {0};
    cs_parquet_values_reset(&wide, CS_PQ_FIXED_LEN_BYTE_ARRAY, 1 << 20);
    memset(cs_parquet_values_reserve_fixed(&wide, 1), 7, 1 << 20);
    wide.count = 1;
    cs_parquet_values_reset(&wide_out, CS_PQ_FIXED_LEN_BYTE_ARRAY, 1 << 20);
    uint32_t *zeros = calloc(4096, sizeof *zeros);
    assert_int_equal(cs_parquet_dict_gather(&wide, zeros, 4096, &wide_out, &err), CS_EPROTO);
    assert_non_null(strstr(err.msg, "exceed 2 GiB"));
    assert_int_equal(cs_parquet_dict_gather(&wide, zeros, 3, &wide_out, &err), 0);
    assert_int_equal(wide_out.count, 3);
    free(zeros);
    cs_parquet_values_free(&wide);
    cs_parquet_values_free(&wide_out);
    cs_parquet_dict_builder_free(&db);
    cs_parquet_dict_builder_free(&db2);
    cs_parquet_values_free(&v);
    cs_parquet_values_free(&out);
    cs_parquet_values_free(&ints);
    cs_sbuf_free(&b);
    free(idx);
    free(back);
}

static void test_delta_byte_arrays(void **state)
{
    /* DELTA_LENGTH_BYTE_ARRAY of "ab", "", "cde" */
    int32_t lens[] = {2, 0, 3};
    cs_sbuf b = CS_SBUF_INIT;
    cs_parquet_delta_encode_ints(lens, CS_PQ_INT32, 3, &b);
    cs_sbuf_append(&b, "abcde", 5);
    cs_parquet_values out = {0};
    cs_error err;
    cs_parquet_values_reset(&out, CS_PQ_BYTE_ARRAY, 0);
    assert_int_equal(cs_parquet_delta_length_decode((const uint8_t *)b.data, b.len, 3, &out, &err),
                     0);
    assert_int_equal(out.count, 3);
    assert_int_equal(out.offsets[3], 5);
    assert_int_equal(out.offsets[1], 2);
    cs_parquet_values_reset(&out, CS_PQ_BYTE_ARRAY, 0);
    assert_int_equal(
        cs_parquet_delta_length_decode((const uint8_t *)b.data, b.len - 1, 3, &out, &err),
        CS_EPROTO);
    assert_non_null(strstr(err.msg, "says 3 bytes"));
    cs_sbuf_free(&b);

    /* DELTA_BYTE_ARRAY of "apple", "apply", "ape", "banana" (prefixes 0, 4, 2, 0) */
    int32_t prefix[] = {0, 4, 2, 0}, suffix[] = {5, 1, 1, 6};
    cs_parquet_delta_encode_ints(prefix, CS_PQ_INT32, 4, &b);
    cs_parquet_delta_encode_ints(suffix, CS_PQ_INT32, 4, &b);
    cs_sbuf_append(&b, "appleyebanana", 13);
    cs_parquet_values_reset(&out, CS_PQ_BYTE_ARRAY, 0);
    assert_int_equal(
        cs_parquet_delta_byte_array_decode((const uint8_t *)b.data, b.len, 4, &out, &err), 0);
    assert_int_equal(out.count, 4);
    assert_memory_equal(out.data, "appleapplyapebanana", 19);
    cs_sbuf_free(&b);

    /* FIXED_LEN_BYTE_ARRAY(3): "abc", "abd", "xyz" */
    int32_t fp[] = {0, 2, 0}, fs[] = {3, 1, 3};
    cs_parquet_delta_encode_ints(fp, CS_PQ_INT32, 3, &b);
    cs_parquet_delta_encode_ints(fs, CS_PQ_INT32, 3, &b);
    cs_sbuf_append(&b, "abcdxyz", 7);
    cs_parquet_values_reset(&out, CS_PQ_FIXED_LEN_BYTE_ARRAY, 3);
    assert_int_equal(
        cs_parquet_delta_byte_array_decode((const uint8_t *)b.data, b.len, 3, &out, &err), 0);
    assert_memory_equal(out.fixed, "abcabdxyz", 9);
    cs_sbuf_free(&b);

    /* a prefix longer than the previous value */
    int32_t bp[] = {0, 9}, bs[] = {1, 1};
    cs_parquet_delta_encode_ints(bp, CS_PQ_INT32, 2, &b);
    cs_parquet_delta_encode_ints(bs, CS_PQ_INT32, 2, &b);
    cs_sbuf_append(&b, "ab", 2);
    cs_parquet_values_reset(&out, CS_PQ_BYTE_ARRAY, 0);
    assert_int_equal(
        cs_parquet_delta_byte_array_decode((const uint8_t *)b.data, b.len, 2, &out, &err),
        CS_EPROTO);
    assert_non_null(strstr(err.msg, "prefix 9"));
    cs_sbuf_free(&b);
    cs_parquet_values_free(&out);
}

/* The writer's DELTA_BYTE_ARRAY: the prefix each value shares with the one before, decoded back
 * to the same values (byte arrays with empty and repeated values; fixed-length decimals). */
static void test_delta_byte_array_encode(void **state)
{
    (void)state;
    cs_error err = {0};
    cs_parquet_values in = {0}, out = {0};
    cs_parquet_values_reset(&in, CS_PQ_BYTE_ARRAY, 0);
    cs_parquet_values_reset(&out, CS_PQ_BYTE_ARRAY, 0);
    const char *words[] = {"apple", "apply", "ape", "", "banana", "banana", "band", "b"};
    uint32_t n = 300;
    for (uint32_t i = 0; i < n; i++) {
        const char *w = words[i % 8];
        assert_int_equal(cs_parquet_values_append_bytes(&in, (const uint8_t *)w, strlen(w), &err),
                         0);
    }
    cs_sbuf b = CS_SBUF_INIT;
    cs_parquet_delta_byte_array_encode(&in, n, &b);
    assert_true(b.len < in.data_len); /* the shared prefixes are not repeated */
    assert_int_equal(
        cs_parquet_delta_byte_array_decode((const uint8_t *)b.data, b.len, n, &out, &err), 0);
    assert_int_equal(out.count, n);
    assert_int_equal(out.data_len, in.data_len);
    assert_memory_equal(out.data, in.data, in.data_len);
    assert_memory_equal(out.offsets, in.offsets, (n + 1) * sizeof *in.offsets);
    cs_sbuf_free(&b);

    cs_parquet_values_reset(&in, CS_PQ_FIXED_LEN_BYTE_ARRAY, 4);
    cs_parquet_values_reset(&out, CS_PQ_FIXED_LEN_BYTE_ARRAY, 4);
    const uint8_t dec[] = {0, 0, 1, 2, 0, 0, 1, 3, 0xff, 0xff, 0xff, 0xfe, 0, 0, 1, 3};
    memcpy(cs_parquet_values_reserve_fixed(&in, 4), dec, sizeof dec);
    in.count = 4;
    cs_parquet_delta_byte_array_encode(&in, 4, &b);
    assert_int_equal(
        cs_parquet_delta_byte_array_decode((const uint8_t *)b.data, b.len, 4, &out, &err), 0);
    assert_int_equal(out.count, 4);
    assert_memory_equal(out.fixed, dec, sizeof dec);
    cs_sbuf_free(&b);

    cs_parquet_values_reset(&in, CS_PQ_BYTE_ARRAY, 0); /* no value: two empty headers */
    cs_parquet_delta_byte_array_encode(&in, 0, &b);
    cs_parquet_values_reset(&out, CS_PQ_BYTE_ARRAY, 0);
    assert_int_equal(
        cs_parquet_delta_byte_array_decode((const uint8_t *)b.data, b.len, 0, &out, &err), 0);
    assert_int_equal(out.count, 0);
    cs_sbuf_free(&b);
    cs_parquet_values_free(&in);
    cs_parquet_values_free(&out);
}

static void test_byte_stream_split(void **state)
{
    static const uint8_t split[] = {1, 5, 2, 6, 3, 7, 4, 8}; /* two FLOATs: 01020304, 05060708 */
    cs_parquet_values out = {0};
    cs_error err;
    cs_parquet_values_reset(&out, CS_PQ_FLOAT, 0);
    assert_int_equal(cs_parquet_byte_stream_split_decode(split, 8, 2, &out, &err), 0);
    static const uint8_t want[] = {1, 2, 3, 4, 5, 6, 7, 8};
    assert_memory_equal(out.fixed, want, 8);
    cs_parquet_values_reset(&out, CS_PQ_FLOAT, 0);
    assert_int_equal(cs_parquet_byte_stream_split_decode(split, 7, 2, &out, &err), CS_EPROTO);
    cs_parquet_values_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rle_every_width),
        cmocka_unit_test(test_levels_round_trip),
        cmocka_unit_test(test_delta_binary_packed),
        cmocka_unit_test(test_plain_every_type),
        cmocka_unit_test(test_dictionary),
        cmocka_unit_test(test_delta_byte_arrays),
        cmocka_unit_test(test_byte_stream_split),
        cmocka_unit_test(test_delta_byte_array_encode),
        cmocka_unit_test(test_bit_packed_groups_at_every_width_and_offset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
