/*
 * test_arrow_ipc.c — Arrow IPC streams (src/formats/arrow_ipc*.c) and the FlatBuffers code under
 * them (flatbuf.c), without pyarrow (tests/formats/arrow_ipc_pyarrow.sh compares with pyarrow):
 * a table written by the builder reads back field by field and bad offsets mark the reader bad;
 * batches of every type survive a round trip through memory, with LZ4 and zstd bodies too; the
 * framing is Arrow's (continuation marker, 8-byte padded metadata, end-of-stream); a dictionary
 * goes out once while batches share it and again when it changes; every truncation of a stream and
 * every byte flipped in it ends in an error naming the stream or in fewer batches, never a crash
 * (and the same error code without an error record: it once read as the end of the stream); a body
 * that claims more than the input holds costs no memory; an unsigned integer field is refused
 * naming the field; columns read are charged to the reader's allocator.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "../../formats/ipc_sample.h"
#include "formats/arrow_ipc.h"
#include "formats/flatbuf.h"

static void test_flatbuffer_round_trip_and_bounds(void **state)
{
    cs_fb_builder b;
    cs_fb_builder_init(&b);
    cs_fb_ref s = cs_fb_string(&b, "hello", 5);
    cs_fb_table_start(&b);
    cs_fb_add_i32(&b, 0, 42);
    cs_fb_ref kid = cs_fb_table_end(&b);
    cs_fb_ref kids = cs_fb_vector_refs(&b, (cs_fb_ref[]){kid, kid}, 2);
    int64_t pairs[4] = {1, 2, 3, 4};
    cs_fb_ref structs = cs_fb_vector_structs(&b, pairs, 16, 2, 8);
    cs_fb_table_start(&b);
    cs_fb_add_i16(&b, 0, -7);
    cs_fb_add_ref(&b, 1, s);
    cs_fb_add_i64(&b, 3, INT64_MIN);
    cs_fb_add_ref(&b, 4, kids);
    cs_fb_add_ref(&b, 5, structs);
    cs_fb_add_u8(&b, 6, 1);
    size_t len;
    const uint8_t *buf = cs_fb_finish(&b, cs_fb_table_end(&b), &len);
    assert_int_equal(len % 8, 0);

    cs_fb_reader r = {buf, len, false};
    cs_fb_table t = cs_fb_root(&r);
    assert_int_equal(cs_fb_i16(&t, 0, 0), -7);
    size_t n;
    const char *str = cs_fb_string_field(&t, 1, &n);
    assert_int_equal(n, 5);
    assert_memory_equal(str, "hello", 5);
    assert_false(cs_fb_has(&t, 2));
    assert_int_equal(cs_fb_i32(&t, 2, 99), 99); /* absent: the default */
    assert_true(cs_fb_i64(&t, 3, 0) == INT64_MIN);
    cs_fb_vector v = cs_fb_vector_field(&t, 4, 4);
    assert_int_equal(v.n, 2);
    cs_fb_table k1 = cs_fb_vector_table(&v, 1);
    assert_int_equal(cs_fb_i32(&k1, 0, 0), 42);
    cs_fb_vector sv = cs_fb_vector_field(&t, 5, 16);
    assert_true(cs_fb_read_i64(cs_fb_vector_elem(&sv, 1, 16) + 8) == 4);
    assert_int_equal(cs_fb_u8(&t, 6, 0), 1);
    assert_int_equal(cs_fb_u8(&t, 40, 3), 3); /* past the vtable */
    assert_false(r.bad);

    /* a vector claiming more elements than the buffer holds */
    uint8_t *copy = malloc(len);
    memcpy(copy, buf, len);
    cs_fb_reader r2 = {copy, len, false};
    cs_fb_table t2 = cs_fb_root(&r2);
    const uint8_t *vec = copy + (cs_fb_vector_field(&t2, 4, 4).pos - 4);
    memcpy((uint8_t *)vec, &(uint32_t){1u << 30}, 4);
    cs_fb_vector bad = cs_fb_vector_field(&t2, 4, 4);
    assert_int_equal(bad.n, 0);
    assert_true(r2.bad);
    /* a root offset past the end */
    memcpy(copy, &(uint32_t){(uint32_t)len}, 4);
    cs_fb_reader r3 = {copy, len, false};
    cs_fb_table t3 = cs_fb_root(&r3);
    assert_null(t3.r);
    assert_true(r3.bad);
    free(copy);
    cs_fb_builder_free(&b);
}

/* Writes `n` sample batches into *out (caller frees out->data), bodies compressed with codec. */
static void write_sample_compressed(cs_sbuf *out, int n, int64_t rows, const char *codec)
{
    cs_col_type *schema = sample_schema();
    cs_ipc_writer *w = cs_ipc_writer_new(schema, cs_ipc_write_sbuf, out);
    assert_int_equal(cs_ipc_writer_set_compression(w, codec, NULL), CS_OK);
    for (int k = 0; k < n; k++) {
        cs_col_batch *b = sample_batch(NULL, rows + k, (uint64_t)k + 1);
        assert_int_equal(cs_ipc_writer_write(w, b, NULL), CS_OK);
        cs_col_batch_unref(b);
    }
    assert_int_equal(cs_ipc_writer_close(w, NULL), CS_OK);
    cs_ipc_writer_free(w);
    cs_col_type_unref(schema);
}

static void write_sample(cs_sbuf *out, int n, int64_t rows)
{
    write_sample_compressed(out, n, rows, NULL);
}

/* Reads a stream from memory: the number of batches, or a negative code (err filled). */
static int read_all(const uint8_t *p, size_t len, cs_col_allocator *alloc, cs_error *err,
                    bool compare)
{
    cs_ipc_mem_source src = {p, len, 0};
    cs_ipc_reader *r;
    int rc = cs_ipc_reader_open(alloc, cs_ipc_read_mem, &src, "test", &r, err);
    if (rc) return rc;
    int k = 0;
    cs_col_batch *b;
    while ((rc = cs_ipc_reader_next(r, &b, err)) == 1) {
        if (compare) {
            cs_col_batch *want = sample_batch(NULL, 20 + k, (uint64_t)k + 1);
            assert_true(cs_col_batch_equal(b, want));
            assert_non_null(b->columns[18]->dictionary); /* stays encoded */
            cs_col_batch_unref(want);
        }
        cs_col_batch_unref(b);
        k++;
    }
    cs_ipc_reader_free(r);
    return rc < 0 ? rc : k;
}

static void test_round_trip_every_type(void **state)
{
    cs_sbuf out = CS_SBUF_INIT;
    write_sample(&out, 3, 20);
    cs_task_memory tm;
    cs_task_memory_init(&tm, 0);
    cs_col_allocator a;
    cs_col_allocator_init(&a, &tm);
    assert_int_equal(read_all((const uint8_t *)out.data, out.len, &a, NULL, true), 3);
    assert_true(tm.peak > 0); /* the columns were charged to the task */
    assert_int_equal(tm.used, 0);
    /* compressed bodies: smaller, the same batches */
    const char *codecs[] = {"lz4", "zstd"};
    for (int c = 0; c < 2; c++) {
        cs_sbuf z = CS_SBUF_INIT;
        write_sample_compressed(&z, 3, 20, codecs[c]);
        assert_true(z.len < out.len);
        assert_int_equal(read_all((const uint8_t *)z.data, z.len, NULL, NULL, true), 3);
        cs_sbuf_free(&z);
    }
    /* a dictionary field whose column comes plain (with nulls) in a later batch */
    cs_col_batch *first = sample_batch(NULL, 9, 1), *plain = sample_batch(NULL, 9, 2);
    cs_column *decoded = cs_column_decode(plain->columns[18], NULL);
    assert_true(decoded->null_count > 0);
    cs_column_unref(plain->columns[18]);
    plain->columns[18] = decoded;
    cs_sbuf mixed = CS_SBUF_INIT;
    cs_ipc_writer *mw = cs_ipc_writer_new(first->schema, cs_ipc_write_sbuf, &mixed);
    assert_int_equal(cs_ipc_writer_write(mw, first, NULL), CS_OK);
    assert_int_equal(cs_ipc_writer_write(mw, plain, NULL), CS_OK);
    assert_int_equal(cs_ipc_writer_close(mw, NULL), CS_OK);
    cs_ipc_writer_free(mw);
    cs_ipc_mem_source src = {(const uint8_t *)mixed.data, mixed.len, 0};
    cs_ipc_reader *r;
    cs_error err;
    assert_int_equal(cs_ipc_reader_open(NULL, cs_ipc_read_mem, &src, "mixed", &r, &err), CS_OK);
    for (int k = 0; k < 2; k++) {
        cs_col_batch *got;
        assert_int_equal(cs_ipc_reader_next(r, &got, &err), 1);
        assert_true(cs_col_batch_equal(got, k ? plain : first));
        cs_col_batch_unref(got);
    }
    cs_ipc_reader_free(r);
    cs_sbuf_free(&mixed);
    cs_col_batch_unref(first);
    cs_col_batch_unref(plain);

    cs_col_type *schema = sample_schema();
    cs_ipc_writer *w = cs_ipc_writer_new(schema, cs_ipc_write_sbuf, &out);
    assert_int_equal(cs_ipc_writer_set_compression(w, "snappy", &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "'snappy': expected none, lz4 or zstd"));
    cs_ipc_writer_free(w);
    cs_col_type_unref(schema);
    cs_sbuf_free(&out);
}

static void test_framing_is_arrows(void **state)
{
    cs_sbuf out = CS_SBUF_INIT;
    write_sample(&out, 2, 5);
    const uint8_t *p = (const uint8_t *)out.data;
    size_t pos = 0;
    int dictionaries = 0, batches = 0, messages = 0;
    for (;;) {
        uint32_t marker, len;
        memcpy(&marker, p + pos, 4);
        memcpy(&len, p + pos + 4, 4);
        assert_int_equal(marker, 0xFFFFFFFFu);
        assert_int_equal(pos % 8, 0);
        if (len == 0) break; /* end-of-stream */
        assert_int_equal(len % 8, 0);
        cs_fb_reader r = {p + pos + 8, len, false};
        cs_fb_table m = cs_fb_root(&r);
        assert_int_equal(cs_fb_i16(&m, 0, 0), 4); /* V5 */
        uint8_t type = cs_fb_u8(&m, 1, 0);
        int64_t body = cs_fb_i64(&m, 3, -1);
        assert_int_equal(body % 8, 0);
        assert_int_equal(type, messages == 0 ? 1 : type);
        dictionaries += type == 2;
        batches += type == 3;
        messages++;
        pos += 8 + len + (size_t)body;
    }
    assert_int_equal(pos + 8, out.len);
    assert_int_equal(batches, 2);
    assert_int_equal(dictionaries, 2); /* each sample batch brings its own dictionary */
    cs_sbuf_free(&out);

    /* batches sharing one dictionary send it once */
    cs_col_batch *b = sample_batch(NULL, 4, 1);
    cs_sbuf s2 = CS_SBUF_INIT;
    cs_ipc_writer *w = cs_ipc_writer_new(b->schema, cs_ipc_write_sbuf, &s2);
    for (int k = 0; k < 3; k++)
        assert_int_equal(cs_ipc_writer_write(w, b, NULL), CS_OK);
    assert_int_equal(cs_ipc_writer_close(w, NULL), CS_OK);
    cs_ipc_writer_free(w);
    int dict_messages = 0;
    for (size_t at = 0; at + 8 <= s2.len;) {
        uint32_t len;
        memcpy(&len, s2.data + at + 4, 4);
        if (!len) break;
        cs_fb_reader r = {(const uint8_t *)s2.data + at + 8, len, false};
        cs_fb_table m = cs_fb_root(&r);
        dict_messages += cs_fb_u8(&m, 1, 0) == 2;
        at += 8 + len + (size_t)cs_fb_i64(&m, 3, 0);
    }
    assert_int_equal(dict_messages, 1);
    cs_col_batch_unref(b);
    cs_sbuf_free(&s2);
}

static void test_truncated_and_damaged_streams_fail_cleanly(void **state)
{
    cs_sbuf out = CS_SBUF_INIT;
    write_sample(&out, 2, 3);
    const uint8_t *p = (const uint8_t *)out.data;
    int errors = 0;
    for (size_t cut = 0; cut < out.len - 8; cut++) {
        cs_error err = {0};
        int rc = read_all(p, cut, NULL, &err, false);
        /* the same verdict without an error record (the code is not lost with the message) */
        assert_int_equal(read_all(p, cut, NULL, NULL, false), rc);
        if (rc < 0) {
            errors++;
            assert_non_null(strstr(err.msg, "Arrow stream test"));
        } else {
            assert_true(rc <= 2); /* cut between messages: the batches before the cut */
        }
    }
    assert_true(errors > (int)out.len / 2);
    uint8_t *copy = malloc(out.len);
    for (size_t i = 0; i < out.len; i++) {
        for (int bit = 0; bit < 8; bit += 3) {
            memcpy(copy, p, out.len);
            copy[i] ^= (uint8_t)(1u << bit);
            cs_error err = {0};
            int rc = read_all(copy, out.len, NULL, &err, false);
            if (rc < 0) assert_true(err.msg[0] != 0);
        }
    }
    free(copy);
    cs_sbuf_free(&out);
}

static void test_body_length_lie_costs_no_memory(void **state)
{
    cs_sbuf out = CS_SBUF_INIT;
    write_sample(&out, 1, 3);
    /* the schema message's body length claims 1 TB */
    uint32_t len;
    memcpy(&len, out.data + 4, 4);
    cs_fb_reader r = {(const uint8_t *)out.data + 8, len, false};
    cs_fb_table m = cs_fb_root(&r);
    size_t field = m.pos + 0;
    (void)field;
    /* find field 3 (bodyLength) in the vtable and rewrite its value */
    uint16_t off;
    memcpy(&off, out.data + 8 + m.vt + 4 + 2 * 3, 2);
    int64_t huge = (int64_t)1 << 40;
    memcpy(out.data + 8 + m.pos + off, &huge, 8);
    cs_error err = {0};
    assert_true(read_all((const uint8_t *)out.data, out.len, NULL, &err, false) < 0);
    assert_non_null(strstr(err.msg, "truncated"));
    cs_sbuf_free(&out);
}

static void test_unsigned_field_refused_naming_it(void **state)
{
    cs_fb_builder b;
    cs_fb_builder_init(&b);
    cs_fb_table_start(&b); /* Int { bitWidth: 32, is_signed: false } */
    cs_fb_add_i32(&b, 0, 32);
    cs_fb_add_u8(&b, 1, 0);
    cs_fb_ref int_t = cs_fb_table_end(&b);
    cs_fb_ref name = cs_fb_string(&b, "counter", 7);
    cs_fb_table_start(&b);
    cs_fb_add_ref(&b, 0, name);
    cs_fb_add_u8(&b, 1, 1);
    cs_fb_add_u8(&b, 2, 2); /* Type.Int */
    cs_fb_add_ref(&b, 3, int_t);
    cs_fb_ref field = cs_fb_table_end(&b);
    cs_fb_ref fields = cs_fb_vector_refs(&b, &field, 1);
    cs_fb_table_start(&b);
    cs_fb_add_ref(&b, 1, fields);
    cs_fb_ref schema = cs_fb_table_end(&b);
    cs_fb_table_start(&b);
    cs_fb_add_i16(&b, 0, 4);
    cs_fb_add_u8(&b, 1, 1);
    cs_fb_add_ref(&b, 2, schema);
    cs_fb_add_i64(&b, 3, 0);
    size_t len;
    const uint8_t *meta = cs_fb_finish(&b, cs_fb_table_end(&b), &len);
    cs_sbuf s = CS_SBUF_INIT;
    uint32_t prefix[2] = {0xFFFFFFFFu, (uint32_t)len};
    cs_sbuf_append(&s, prefix, 8);
    cs_sbuf_append(&s, meta, len);
    cs_error err = {0};
    assert_int_equal(read_all((const uint8_t *)s.data, s.len, NULL, &err, false), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "Arrow stream test: field 'counter': unsigned"));
    cs_sbuf_free(&s);
    cs_fb_builder_free(&b);
}

/* ANSI intervals as Spark's ArrowUtils writes them: year-month as Interval(YEAR_MONTH) of int32
 * months, day-time as Duration(MICROSECOND) of int64 microseconds; read back as Spark's default
 * interval types (YEAR TO MONTH, DAY TO SECOND). */
static void test_interval_types_round_trip(void **state)
{
    (void)state;
    cs_col_field f[2] = {
        {"ym", cs_col_type_interval(CS_TYPE_INTERVAL_YM, CS_INTERVAL_YEAR, CS_INTERVAL_MONTH, NULL),
         true},
        {"dt", cs_col_type_interval(CS_TYPE_INTERVAL_DT, CS_INTERVAL_DAY, CS_INTERVAL_SECOND, NULL),
         true}};
    cs_col_type *schema = cs_col_type_struct(f, 2);
    cs_col_builder *ym = cs_col_builder_new(NULL, schema->fields[0].type);
    cs_col_builder *dt = cs_col_builder_new(NULL, schema->fields[1].type);
    int32_t months[3] = {14, -1, 0};
    int64_t micros[3] = {86400000000LL + 1, INT64_MIN, 0};
    uint8_t valid[3] = {1, 1, 0};
    cs_col_builder_append_values(ym, months, 3, valid);
    cs_col_builder_append_values(dt, micros, 3, valid);
    cs_column *cols[2] = {cs_col_builder_finish(ym), cs_col_builder_finish(dt)};
    cs_col_builder_free(ym);
    cs_col_builder_free(dt);
    cs_error err = {0};
    cs_col_batch *b = cs_col_batch_new(cs_col_type_ref(schema), cols, 2, 3, &err);
    assert_non_null(b);
    cs_sbuf out = CS_SBUF_INIT;
    cs_ipc_writer *w = cs_ipc_writer_new(schema, cs_ipc_write_sbuf, &out);
    assert_int_equal(cs_ipc_writer_write(w, b, &err), 0);
    assert_int_equal(cs_ipc_writer_close(w, &err), 0);
    cs_ipc_writer_free(w);
    cs_ipc_mem_source src = {(const uint8_t *)out.data, out.len, 0};
    cs_ipc_reader *r = NULL;
    assert_int_equal(cs_ipc_reader_open(NULL, cs_ipc_read_mem, &src, "intervals", &r, &err), 0);
    cs_sbuf types = CS_SBUF_INIT;
    cs_col_type_simple_string(cs_ipc_reader_schema(r), &types);
    assert_string_equal(cs_sbuf_str(&types),
                        "struct<ym:interval year to month,dt:interval day to second>");
    cs_col_batch *back = NULL;
    assert_int_equal(cs_ipc_reader_next(r, &back, &err), 1);
    assert_true(cs_col_batch_equal(back, b));
    cs_col_batch_unref(back);
    cs_ipc_reader_free(r);
    cs_sbuf_free(&types);
    cs_sbuf_free(&out);
    cs_col_batch_unref(b);
    cs_col_type_unref(schema);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flatbuffer_round_trip_and_bounds),
        cmocka_unit_test(test_round_trip_every_type),
        cmocka_unit_test(test_framing_is_arrows),
        cmocka_unit_test(test_truncated_and_damaged_streams_fail_cleanly),
        cmocka_unit_test(test_body_length_lie_costs_no_memory),
        cmocka_unit_test(test_unsigned_field_refused_naming_it),
        cmocka_unit_test(test_interval_types_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
