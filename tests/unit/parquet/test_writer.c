/*
 * test_writer.c — src/formats/parquet/parquet_writer*.c, read back with cspark's own file layer
 * (parquet_file.c, parquet_pages.c): nested columns shred into the definition and repetition
 * levels Dremel gives (a null, an empty and a sparse list; a null struct over a list of
 * strings); statistics in each type's order (signed ints, unsigned bytewise strings, doubles
 * without NaN and with -0.0 as the minimum, signed big-endian decimals); a dictionary that
 * outgrows parquet.dictionary.page.size turns into PLAIN pages within the chunk, and row groups
 * close at parquet.block.size; every chunk's page index (pages on row boundaries, each page's
 * bounds and null count, long strings' bounds truncated) reads back; a void column, a bad option
 * and a batch of the wrong shape are one message each, and a failed writer leaves no file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <unistd.h>

#include <cmocka.h>

#include "columnar/col_builder.h"
#include "formats/parquet/parquet_file.h"
#include "formats/parquet/parquet_page_index.h"
#include "formats/parquet/parquet_pages.h"
#include "formats/parquet/parquet_writer.h"

static char path[64];

static int setup(void **state)
{
    (void)state;
    snprintf(path, sizeof path, "/tmp/cspark-test-writer-%d.parquet", (int)getpid());
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

static cs_col_type *field_struct(const char **names, cs_col_type **types, int n)
{
    cs_col_field f[8];
    for (int i = 0; i < n; i++)
        f[i] = (cs_col_field){(char *)names[i], types[i], true};
    return cs_col_type_struct(f, n);
}

static void write_file(cs_col_batch *b, const char *const *keys, const char *const *values, int n)
{
    cs_format_options o = {keys, values, n};
    cs_error err = {0};
    void *w;
    assert_int_equal(cs_parquet_writer_open(path, b->schema, &o, &w, &err), 0);
    assert_int_equal(cs_parquet_writer_write(w, b, &err), 0);
    assert_int_equal(cs_parquet_writer_close(w, true, &err), 0);
}

/* Reads every page of row group rg's chunk of leaf col; calls fn on each. */
typedef void (*page_fn)(const cs_parquet_page *p, void *arg);
static void read_chunk(const cs_parquet_file *f, uint32_t rg, uint32_t col, page_fn fn, void *arg)
{
    cs_error err = {0};
    uint8_t *buf;
    size_t len;
    assert_int_equal(cs_parquet_file_read_chunk(f, rg, col, &buf, &len, &err), 0);
    const cs_parquet_column_meta *m = &f->meta.row_groups[rg].columns[col].meta;
    cs_parquet_page_reader r;
    cs_parquet_page_reader_init(&r, "t", &f->columns[col], m->codec, buf, len, m->num_values,
                                m->total_uncompressed_size);
    cs_parquet_page page;
    int rc;
    while ((rc = cs_parquet_page_reader_next(&r, &page, &err)) == 1)
        fn(&page, arg);
    if (rc) fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    cs_parquet_page_reader_free(&r);
    free(buf);
}

typedef struct levels {
    int16_t def[32], rep[32];
    int32_t ints[32];
    char strs[32][8];
    uint32_t n, nvals;
} levels;

static void collect(const cs_parquet_page *p, void *arg)
{
    levels *l = arg;
    for (uint32_t i = 0; i < p->num_values; i++) {
        l->def[l->n + i] = p->def_levels ? p->def_levels[i] : 0;
        l->rep[l->n + i] = p->rep_levels ? p->rep_levels[i] : 0;
    }
    l->n += p->num_values;
    for (uint32_t i = 0; i < p->num_nonnull; i++, l->nvals++) {
        const cs_parquet_values *v = p->values;
        if (v->type == CS_PQ_INT32) {
            memcpy(&l->ints[l->nvals], v->fixed + 4 * i, 4);
        } else {
            int32_t len = v->offsets[i + 1] - v->offsets[i];
            memcpy(l->strs[l->nvals], v->data + v->offsets[i], (size_t)len);
            l->strs[l->nvals][len] = 0;
        }
    }
}

static void test_nested_levels(void **state)
{
    (void)state;
    /* li: null, [], [1, null, 3], [4]; st: {1, ["x"]}, null, {2, null}, {3, ["y", null]} */
    cs_col_type *li_t = cs_col_type_array(cs_col_type_primitive(CS_TYPE_INT), true);
    const char *st_names[] = {"a", "b"};
    cs_col_type *st_types[] = {cs_col_type_primitive(CS_TYPE_INT),
                               cs_col_type_array(cs_col_type_primitive(CS_TYPE_STRING), true)};
    cs_col_type *st_t = field_struct(st_names, st_types, 2);
    const char *names[] = {"li", "st"};
    cs_col_type *types[] = {cs_col_type_ref(li_t), cs_col_type_ref(st_t)};
    cs_col_type *schema = field_struct(names, types, 2);

    cs_col_builder *li = cs_col_builder_new(NULL, li_t);
    cs_col_builder_append_lists(li, (const int32_t[]){0, 0, 3, 1}, 4,
                                (const uint8_t[]){0, 1, 1, 1});
    cs_col_builder_append_values(cs_col_builder_child(li, 0), (const int32_t[]){1, 0, 3, 4}, 4,
                                 (const uint8_t[]){1, 0, 1, 1});
    cs_col_builder *st = cs_col_builder_new(NULL, st_t);
    cs_col_builder_append_structs(st, 4, (const uint8_t[]){1, 0, 1, 1});
    cs_col_builder_append_values(cs_col_builder_child(st, 0), (const int32_t[]){1, 0, 2, 3}, 4,
                                 (const uint8_t[]){1, 0, 1, 1});
    cs_col_builder *b = cs_col_builder_child(st, 1);
    cs_col_builder_append_lists(b, (const int32_t[]){1, 0, 0, 2}, 4, (const uint8_t[]){1, 0, 0, 1});
    cs_col_builder_append_string(cs_col_builder_child(b, 0), "x", 1);
    cs_col_builder_append_string(cs_col_builder_child(b, 0), "y", 1);
    cs_col_builder_append_nulls(cs_col_builder_child(b, 0), 1);
    cs_column *cols[] = {cs_col_builder_finish(li), cs_col_builder_finish(st)};
    cs_error err = {0};
    cs_col_batch *batch = cs_col_batch_new(schema, cols, 2, 4, &err);
    assert_non_null(batch);
    write_file(batch, (const char *const[]){"compression"}, (const char *const[]){"none"}, 1);

    cs_parquet_file *f;
    assert_int_equal(cs_parquet_file_open(path, &f, &err), 0);
    assert_int_equal(f->num_columns, 3);
    assert_string_equal(f->columns[0].path, "li.list.element");
    assert_string_equal(f->columns[2].path, "st.b.list.element");
    assert_int_equal(f->columns[2].max_def, 4);
    levels l = {0};
    read_chunk(f, 0, 0, collect, &l);
    int16_t def0[] = {0, 1, 3, 2, 3, 3}, rep0[] = {0, 0, 0, 1, 1, 0};
    assert_int_equal(l.n, 6);
    assert_memory_equal(l.def, def0, sizeof def0);
    assert_memory_equal(l.rep, rep0, sizeof rep0);
    assert_int_equal(l.nvals, 3);
    assert_int_equal(l.ints[0], 1), assert_int_equal(l.ints[1], 3), assert_int_equal(l.ints[2], 4);
    l = (levels){0};
    read_chunk(f, 0, 1, collect, &l);
    int16_t def1[] = {2, 0, 2, 2};
    assert_int_equal(l.n, 4);
    assert_memory_equal(l.def, def1, sizeof def1);
    l = (levels){0};
    read_chunk(f, 0, 2, collect, &l);
    int16_t def2[] = {4, 0, 1, 4, 3}, rep2[] = {0, 0, 0, 0, 1};
    assert_int_equal(l.n, 5);
    assert_memory_equal(l.def, def2, sizeof def2);
    assert_memory_equal(l.rep, rep2, sizeof rep2);
    assert_string_equal(l.strs[0], "x");
    assert_string_equal(l.strs[1], "y");
    cs_parquet_file_free(f);
    cs_col_batch_unref(batch);
    cs_col_builder_free(li);
    cs_col_builder_free(st);
    cs_col_type_unref(li_t);
    cs_col_type_unref(st_t);
}

static void test_statistics_order(void **state)
{
    (void)state;
    cs_error err = {0};
    const char *names[] = {"i", "s", "d", "dec"};
    cs_col_type *types[] = {
        cs_col_type_primitive(CS_TYPE_INT), cs_col_type_primitive(CS_TYPE_STRING),
        cs_col_type_primitive(CS_TYPE_DOUBLE), cs_col_type_decimal(20, 2, &err)};
    cs_col_type *schema = field_struct(names, types, 4);
    const uint8_t valid[] = {1, 1, 1, 0, 1};
    cs_column *cols[4];
    cs_col_builder *b = cs_col_builder_new(NULL, types[0]);
    cs_col_builder_append_values(b, (const int32_t[]){5, -7, 3, 0, 100}, 5, valid);
    cols[0] = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    b = cs_col_builder_new(NULL, types[1]);
    const char *strs[] = {"z", "\xc3\xa9", "a", NULL, "m"};
    for (int i = 0; i < 5; i++)
        if (strs[i])
            cs_col_builder_append_string(b, strs[i], strlen(strs[i]));
        else
            cs_col_builder_append_nulls(b, 1);
    cols[1] = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    b = cs_col_builder_new(NULL, types[2]);
    cs_col_builder_append_values(b, (const double[]){0.0 / 0.0, 0.0, 2.5, 0, -0.0}, 5, valid);
    cols[2] = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    b = cs_col_builder_new(NULL, types[3]);
    __int128 dec[] = {-100, 200, 150, 0, -300};
    cs_col_builder_append_values(b, dec, 5, valid);
    cols[3] = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_col_batch *batch = cs_col_batch_new(schema, cols, 4, 5, &err);
    write_file(batch, NULL, NULL, 0);

    cs_parquet_file *f;
    assert_int_equal(cs_parquet_file_open(path, &f, &err), 0);
    const cs_parquet_column_chunk *c = f->meta.row_groups[0].columns;
    int32_t i32;
    memcpy(&i32, c[0].meta.statistics.min_value.ptr, 4);
    assert_int_equal(i32, -7);
    memcpy(&i32, c[0].meta.statistics.max.ptr, 4);
    assert_int_equal(i32, 100);
    assert_int_equal(c[0].meta.statistics.null_count, 1);
    const cs_parquet_statistics *s = &c[1].meta.statistics;
    assert_memory_equal(s->min_value.ptr, "a", 1);
    assert_memory_equal(s->max_value.ptr, "\xc3\xa9", 2); /* unsigned bytes: é after z */
    assert_false(s->has_min);                             /* no legacy signed min for strings */
    double d;
    memcpy(&d, c[2].meta.statistics.min_value.ptr, 8);
    assert_true(d == 0 && signbit(d));
    memcpy(&d, c[2].meta.statistics.max_value.ptr, 8);
    assert_true(d == 2.5);
    s = &c[3].meta.statistics;
    assert_int_equal(f->columns[3].type, CS_PQ_FIXED_LEN_BYTE_ARRAY);
    assert_int_equal(s->min_value.len, 9);
    const uint8_t min300[9] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xd4};
    const uint8_t max200[9] = {0, 0, 0, 0, 0, 0, 0, 0, 200};
    assert_memory_equal(s->min_value.ptr, min300, 9);
    assert_memory_equal(s->max_value.ptr, max200, 9);
    cs_parquet_file_free(f);
    cs_col_batch_unref(batch);
}

/* 10,000 sorted longs (every tenth null) and 100-byte strings in small pages: the page index
 * places each page on its rows, with its null count and bounds; string bounds are cut to 64
 * bytes (the max's last byte raised). Before the writer had a page index: no pages. */
static void test_page_index(void **state)
{
    (void)state;
    cs_error err = {0};
    enum { N = 10000 };
    const char *names[] = {"k", "s"};
    cs_col_type *types[] = {cs_col_type_primitive(CS_TYPE_LONG),
                            cs_col_type_primitive(CS_TYPE_STRING)};
    cs_col_type *schema = field_struct(names, types, 2);
    int64_t *ks = malloc(N * sizeof *ks);
    uint8_t *valid = malloc(N);
    for (int i = 0; i < N; i++)
        ks[i] = i, valid[i] = i % 10 != 0;
    cs_column *cols[2];
    cs_col_builder *b = cs_col_builder_new(NULL, types[0]);
    cs_col_builder_append_values(b, ks, N, valid);
    cols[0] = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    b = cs_col_builder_new(NULL, types[1]);
    char str[128];
    memset(str, 'x', 100);
    for (int i = 0; i < N; i++) {
        snprintf(str + 100, sizeof str - 100, "%05d", i);
        cs_col_builder_append_string(b, str, 105);
    }
    cols[1] = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_col_batch *batch = cs_col_batch_new(schema, cols, 2, N, &err);
    const char *keys[] = {"parquet.page.size", "parquet.enable.dictionary"};
    const char *values[] = {"4096", "false"};
    write_file(batch, keys, values, 2);

    cs_parquet_file *f;
    assert_int_equal(cs_parquet_file_open(path, &f, &err), 0);
    cs_pq_page_index pi;
    assert_int_equal(cs_pq_page_index_read(f, 0, 0, true, &pi, &err), 0);
    assert_true(pi.num_pages > 10);
    assert_true(pi.has_column_index);
    assert_non_null(pi.null_counts);
    for (uint32_t p = 0; p < pi.num_pages; p++) {
        int64_t a = pi.first_row[p], e = pi.first_row[p + 1];
        assert_true(a < e);
        int64_t first = a % 10 ? a : a + 1, last = (e - 1) % 10 ? e - 1 : e - 2, mn, mx;
        assert_int_equal(pi.min[p].len, 8);
        memcpy(&mn, pi.min[p].ptr, 8);
        memcpy(&mx, pi.max[p].ptr, 8);
        assert_int_equal(mn, first);
        assert_int_equal(mx, last);
        assert_int_equal(pi.null_counts[p], (e + 9) / 10 - (a + 9) / 10);
        assert_false(pi.null_pages[p]);
    }
    assert_int_equal(pi.first_row[pi.num_pages], N);
    cs_pq_page_index_free(&pi);
    assert_int_equal(cs_pq_page_index_read(f, 0, 1, true, &pi, &err), 0);
    assert_true(pi.num_pages > 10 && pi.has_column_index);
    char cut[64];
    memset(cut, 'x', 64);
    assert_int_equal(pi.min[0].len, 64);
    assert_memory_equal(pi.min[0].ptr, cut, 64);
    cut[63] = 'y';
    assert_int_equal(pi.max[0].len, 64);
    assert_memory_equal(pi.max[0].ptr, cut, 64);
    cs_pq_page_index_free(&pi);
    cs_parquet_file_free(f);
    cs_col_batch_unref(batch);
    free(ks);
    free(valid);
}

typedef struct encodings {
    int seq[64];
    int n;
    uint32_t values;
} encodings;

static void note_encoding(const cs_parquet_page *p, void *arg)
{
    encodings *e = arg;
    if (e->n < 64) e->seq[e->n++] = p->encoding;
    e->values += p->num_values;
}

static void test_dictionary_fallback_and_row_groups(void **state)
{
    (void)state;
    enum { ROWS = 6000 };
    const char *names[] = {"k"};
    cs_col_type *types[] = {cs_col_type_primitive(CS_TYPE_STRING)};
    cs_col_type *schema = field_struct(names, types, 1);
    cs_col_builder *b = cs_col_builder_new(NULL, types[0]);
    for (int i = 0; i < ROWS; i++) {
        char s[16];
        int n = snprintf(s, sizeof s, "k%05d", i / 4);
        cs_col_builder_append_string(b, s, (size_t)n);
    }
    cs_column *col = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_error err = {0};
    cs_col_batch *batch = cs_col_batch_new(schema, &col, 1, ROWS, &err);
    const char *keys[] = {"parquet.page.size", "parquet.dictionary.page.size",
                          "parquet.block.size"};
    const char *values[] = {"2048", "1500", "4000"};
    write_file(batch, keys, values, 3);
    cs_parquet_file *f;
    assert_int_equal(cs_parquet_file_open(path, &f, &err), 0);
    assert_true(f->meta.num_row_groups >= 2);
    int64_t rows = 0;
    for (uint32_t g = 0; g < f->meta.num_row_groups; g++)
        rows += f->meta.row_groups[g].num_rows;
    assert_int_equal(rows, ROWS);
    encodings e = {0};
    read_chunk(f, 0, 0, note_encoding, &e);
    assert_true(f->meta.row_groups[0].columns[0].meta.has_dictionary_page_offset);
    assert_int_equal(e.seq[0], CS_PQ_ENC_PLAIN_DICTIONARY);
    assert_int_equal(e.seq[e.n - 1], CS_PQ_ENC_PLAIN);
    cs_parquet_file_free(f);
    cs_col_batch_unref(batch);
}

static void test_errors_leave_no_file(void **state)
{
    (void)state;
    cs_error err = {0};
    void *w;
    const char *names[] = {"v"};
    cs_col_type *types[] = {cs_col_type_primitive(CS_TYPE_NULL)};
    cs_col_type *schema = field_struct(names, types, 1);
    assert_int_equal(cs_parquet_writer_open(path, schema, NULL, &w, &err), CS_EUNSUPPORTED);
    assert_non_null(strstr(err.msg, "column `v` of the type \"VOID\""));
    assert_non_null(strstr(err.msg, path));
    cs_col_type_unref(schema);
    assert_int_equal(access(path, F_OK), -1);

    types[0] = cs_col_type_primitive(CS_TYPE_INT);
    schema = field_struct(names, types, 1);
    cs_format_options o = {(const char *const[]){"parquet.writer.version"},
                           (const char *const[]){"v3"}, 1};
    assert_int_equal(cs_parquet_writer_open(path, schema, &o, &w, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "option parquet.writer.version: expected v1, v2"));

    /* a batch of another shape fails the writer; close(commit) then reports it and removes all */
    assert_int_equal(cs_parquet_writer_open(path, schema, NULL, &w, &err), 0);
    const char *names2[] = {"v", "w"};
    cs_col_type *types2[] = {cs_col_type_primitive(CS_TYPE_INT),
                             cs_col_type_primitive(CS_TYPE_INT)};
    cs_col_type *schema2 = field_struct(names2, types2, 2);
    cs_column *cols[] = {cs_column_new_raw(NULL, cs_col_type_primitive(CS_TYPE_INT), 0),
                         cs_column_new_raw(NULL, cs_col_type_primitive(CS_TYPE_INT), 0)};
    cs_col_batch *batch = cs_col_batch_new(schema2, cols, 2, 0, &err);
    assert_int_equal(cs_parquet_writer_write(w, batch, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "a batch of 2 columns for a file of 1"));
    assert_int_not_equal(cs_parquet_writer_close(w, true, &err), 0);
    assert_int_equal(access(path, F_OK), -1);
    cs_col_batch_unref(batch);
    cs_col_type_unref(schema);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_nested_levels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_statistics_order, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dictionary_fallback_and_row_groups, setup, teardown),
        cmocka_unit_test_setup_teardown(test_errors_leave_no_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_page_index, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
