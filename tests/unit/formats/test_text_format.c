/*
 * test_text_format.c — the `text` format (src/formats/text/text_format.c) through the registry:
 * a file cut into two splits at every byte gives each line exactly once (\n, \r\n, a last line
 * without a separator; lineSep of two bytes), wholetext reads the file as one value, a gzip
 * file is not splittable and reads decompressed, a read schema without columns counts rows, and
 * the writer (compression gzip, lineSep, nulls as empty lines) round-trips and refuses what
 * Spark refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "columnar/col_builder.h"
#include "common/fsutil.h"
#include "formats/file_format.h"

static char dir[] = "/tmp/cspark-textfmt-XXXXXX";

static const cs_file_format *text(void)
{
    const cs_file_format *f = cs_file_format_find("TEXT");
    assert_non_null(f);
    return f;
}

static uint64_t size_of(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

static void put(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    fclose(f);
}

/* Reads [start, start + len) of path; appends each value and "\x01" to out; returns rows. */
static int64_t read_split(const char *path, uint64_t start, uint64_t len, uint64_t size,
                          const cs_format_options *o, bool columns, cs_sbuf *out)
{
    const cs_file_format *f = text();
    cs_col_type *schema;
    cs_error err;
    assert_int_equal(f->infer_schema(&path, 1, o, &schema, &err), 0);
    cs_col_type *none = cs_col_type_struct(NULL, 0);
    cs_scan_request req = {.data_schema = schema,
                           .read_schema = columns ? schema : none,
                           .batch_rows = 3,
                           .alloc = cs_col_default_allocator(),
                           .options = o};
    cs_file_split split = {path, start, len, size};
    void *r;
    assert_int_equal(f->open_reader(&split, &req, &r, &err), 0);
    cs_col_batch *b;
    int rc;
    int64_t rows = 0;
    while ((rc = f->next_batch(r, &b, &err)) > 0) {
        assert_true(b->num_rows <= 3);
        for (int64_t i = 0; columns && i < b->num_rows; i++) {
            int32_t n;
            const uint8_t *p = cs_column_bytes(b->columns[0], i, &n);
            cs_sbuf_append(out, p, (size_t)n);
            cs_sbuf_putc(out, '\x01');
        }
        rows += b->num_rows;
        cs_col_batch_unref(b);
    }
    assert_int_equal(rc, 0);
    f->close_reader(r);
    cs_col_type_unref(schema);
    cs_col_type_unref(none);
    return rows;
}

static void check_every_cut(const char *content, const char *sep, const char *want)
{
    char path[256];
    snprintf(path, sizeof path, "%s/cut.txt", dir);
    size_t n = strlen(content);
    put(path, content, n);
    const char *k[] = {"lineSep"}, *v[] = {sep};
    cs_format_options o = {k, v, sep ? 1 : 0};
    for (size_t cut = 1; cut < n; cut++) { /* splits are never empty */
        cs_sbuf got = CS_SBUF_INIT;
        read_split(path, 0, cut, n, &o, true, &got);
        read_split(path, cut, n - cut, n, &o, true, &got);
        assert_string_equal(cs_sbuf_str(&got), want);
        cs_sbuf_free(&got);
    }
}

static void test_splits(void **state)
{
    (void)state;
    check_every_cut("a\nbb\r\n\nccc\ndddd", NULL,
                    "a\x01"
                    "bb\x01\x01"
                    "ccc\x01"
                    "dddd\x01");
    /* a separator that cannot overlap itself (with "||", "||||" is ambiguous to a split
     * starting inside it, in Hadoop's reader as here) */
    check_every_cut("one<>two<><>three<>", "<>", "one\x01two\x01\x01three\x01");
}

static void test_whole_and_compressed(void **state)
{
    (void)state;
    char path[256], gz[300], cmd[700];
    snprintf(path, sizeof path, "%s/w.txt", dir);
    put(path, "x\ny\n", 4);
    const char *k[] = {"wholetext"}, *v[] = {"true"};
    cs_format_options whole = {k, v, 1};
    assert_false(text()->is_splittable(path, &whole));
    cs_sbuf got = CS_SBUF_INIT;
    assert_int_equal(read_split(path, 0, 4, 4, &whole, true, &got), 1);
    assert_string_equal(cs_sbuf_str(&got), "x\ny\n\x01");
    cs_sbuf_free(&got);

    snprintf(gz, sizeof gz, "%s.gz", path);
    snprintf(cmd, sizeof cmd, "gzip -k %s", path);
    assert_int_equal(system(cmd), 0);
    cs_format_options none = {0};
    assert_false(text()->is_splittable(gz, &none));
    assert_true(text()->is_splittable(path, &none));
    got = (cs_sbuf)CS_SBUF_INIT;
    assert_int_equal(read_split(gz, 0, size_of(gz), size_of(gz), &none, true, &got), 2);
    assert_string_equal(cs_sbuf_str(&got), "x\x01y\x01");
    cs_sbuf_free(&got);
    /* rows counted without reading a column */
    assert_int_equal(read_split(path, 0, 4, 4, &none, false, NULL), 2);
}

static void test_writer(void **state)
{
    (void)state;
    const cs_file_format *f = text();
    const char *k[] = {"compression", "lineSep"}, *v[] = {"gzip", "|"};
    cs_format_options o = {k, v, 2};
    cs_sbuf ext = CS_SBUF_INIT;
    f->extension(&o, &ext);
    assert_string_equal(cs_sbuf_str(&ext), "txt.gz");
    cs_sbuf_free(&ext);

    cs_col_field field = {
        .name = "value", .type = cs_col_type_primitive(CS_TYPE_STRING), .nullable = true};
    cs_col_type *schema = cs_col_type_struct(&field, 1);
    cs_col_builder *b = cs_col_builder_new(NULL, schema->fields[0].type);
    cs_col_builder_append_string(b, "a", 1);
    cs_col_builder_append_nulls(b, 1);
    cs_col_builder_append_string(b, "c", 1);
    cs_column *col = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_error err;
    cs_col_batch *batch = cs_col_batch_new(cs_col_type_ref(schema), &col, 1, 3, &err);
    assert_non_null(batch);

    char path[256], dropped[256];
    snprintf(path, sizeof path, "%s/out.txt.gz", dir);
    void *w;
    assert_int_equal(f->open_writer(path, schema, &o, &w, &err), 0);
    assert_int_equal(f->write_batch(w, batch, &err), 0);
    assert_int_equal(f->close_writer(w, true, &err), 0);
    cs_format_options plain_sep = {&k[1], &v[1], 1};
    cs_sbuf got = CS_SBUF_INIT;
    assert_int_equal(read_split(path, 0, size_of(path), size_of(path), &plain_sep, true, &got), 3);
    assert_string_equal(cs_sbuf_str(&got), "a\x01\x01"
                                           "c\x01");
    cs_sbuf_free(&got);

    /* a writer closed without commit leaves nothing */
    snprintf(dropped, sizeof dropped, "%s/dropped.txt", dir);
    assert_int_equal(f->open_writer(dropped, schema, &o, &w, &err), 0);
    assert_int_equal(f->write_batch(w, batch, &err), 0);
    f->close_writer(w, false, &err);
    assert_int_not_equal(access(dropped, F_OK), 0);

    /* Spark's refusals */
    cs_col_field two[] = {{"a", cs_col_type_primitive(CS_TYPE_STRING), true},
                          {"b", cs_col_type_primitive(CS_TYPE_STRING), true}};
    cs_col_type *s2 = cs_col_type_struct(two, 2);
    assert_int_not_equal(f->open_writer(dropped, s2, &o, &w, &err), 0);
    assert_string_equal(err.msg,
                        "Text data source supports only a single column, and you have 2 columns.");
    cs_col_field num = {"n", cs_col_type_primitive(CS_TYPE_INT), true};
    cs_col_type *s3 = cs_col_type_struct(&num, 1);
    assert_int_not_equal(f->open_writer(dropped, s3, &o, &w, &err), 0);
    assert_non_null(strstr(err.msg, "[UNSUPPORTED_DATA_TYPE_FOR_DATASOURCE]"));
    const char *bk[] = {"compression"}, *bv[] = {"rar"};
    cs_format_options bad = {bk, bv, 1};
    assert_int_not_equal(f->open_writer(dropped, schema, &bad, &w, &err), 0);
    assert_non_null(strstr(err.msg, "option compression = 'rar'"));
    cs_col_type_unref(s2);
    cs_col_type_unref(s3);
    cs_col_batch_unref(batch);
    cs_col_type_unref(schema);
}

static int setup(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cs_remove_tree(dir);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_splits),
        cmocka_unit_test(test_whole_and_compressed),
        cmocka_unit_test(test_writer),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
