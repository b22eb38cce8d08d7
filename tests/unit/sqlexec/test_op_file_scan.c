/*
 * test_op_file_scan.c — src/sqlexec/op_file_scan.c and operator.c: a file scan over Parquet
 * part files written by the Parquet format (two splits, one with partition values appended as
 * constant columns), the projected columns only, a missing file's error naming it, the open /
 * next / close protocol with metrics, cancellation between batches, and a leaf's EXPLAIN line.
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
#include "sqlexec/operator.h"
#include "sqlexec/sql_ops_scan.h"

static char dir[] = "/tmp/cs_scan_XXXXXX";

static cs_col_type *schema_id_name(void)
{
    cs_col_field f[2] = {{"id", cs_col_type_primitive(CS_TYPE_LONG), true},
                         {"name", cs_col_type_primitive(CS_TYPE_STRING), true}};
    return cs_col_type_struct(f, 2);
}

/* Writes rows first..first+n-1 (name "n<i>", null for multiples of 7) to path as Parquet. */
static void write_part(const char *path, int64_t first, int64_t n)
{
    const cs_file_format *pq = cs_file_format_find("parquet");
    assert_non_null(pq);
    cs_col_type *schema = schema_id_name();
    cs_col_builder *ids = cs_col_builder_new(NULL, schema->fields[0].type);
    cs_col_builder *names = cs_col_builder_new(NULL, schema->fields[1].type);
    for (int64_t i = first; i < first + n; i++) {
        cs_col_builder_append_values(ids, &i, 1, NULL);
        if (i % 7 == 0) {
            cs_col_builder_append_nulls(names, 1);
        } else {
            char s[32];
            int len = snprintf(s, sizeof s, "n%lld", (long long)i);
            cs_col_builder_append_string(names, s, (size_t)len);
        }
    }
    cs_column *cols[2] = {cs_col_builder_finish(ids), cs_col_builder_finish(names)};
    cs_col_builder_free(ids);
    cs_col_builder_free(names);
    cs_error err = {0};
    cs_col_batch *b = cs_col_batch_new(cs_col_type_ref(schema), cols, 2, n, &err);
    assert_non_null(b);
    cs_format_options none = {0};
    void *w = NULL;
    assert_int_equal(pq->open_writer(path, schema, &none, &w, &err), 0);
    assert_int_equal(pq->write_batch(w, b, &err), 0);
    assert_int_equal(pq->close_writer(w, true, &err), 0);
    cs_col_batch_unref(b);
    cs_col_type_unref(schema);
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

static int setup(void **state)
{
    (void)state;
    if (!mkdtemp(dir)) return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cs_remove_tree(dir);
    return 0;
}

static cs_col_batch *partition_rows(void)
{
    cs_col_field f[1] = {{"day", cs_col_type_primitive(CS_TYPE_INT), true}};
    cs_col_type *ps = cs_col_type_struct(f, 1);
    cs_col_builder *b = cs_col_builder_new(NULL, ps->fields[0].type);
    int32_t days[2] = {10, 20};
    cs_col_builder_append_values(b, days, 2, NULL);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_error err = {0};
    cs_col_batch *batch = cs_col_batch_new(ps, &c, 1, 2, &err);
    assert_non_null(batch);
    return batch;
}

static void test_scan_two_splits_with_partition_values(void **state)
{
    (void)state;
    char a[256], b[256];
    snprintf(a, sizeof a, "%s/a.parquet", dir);
    snprintf(b, sizeof b, "%s/b.parquet", dir);
    write_part(a, 0, 5000);
    write_part(b, 5000, 3000);
    cs_col_type *data = schema_id_name();
    cs_col_field rf[1] = {{"name", cs_col_type_primitive(CS_TYPE_STRING), true}};
    cs_col_type *read = cs_col_type_struct(rf, 1);
    cs_col_batch *parts = partition_rows();
    cs_file_split splits[2] = {{a, 0, 0, 0}, {b, 0, 0, 0}};
    splits[0].length = splits[0].file_size = file_size(a);
    splits[1].length = splits[1].file_size = file_size(b);
    int split_partition[2] = {1, 0};
    cs_format_options none = {0};
    cs_sql_file_scan_spec spec = {
        .format = cs_file_format_find("parquet"),
        .options = &none,
        .data_schema = data,
        .read_schema = read,
        .partition_values = parts,
        .splits = splits,
        .split_partition = split_partition,
        .n_splits = 2,
    };
    cs_sql_op *scan = cs_sql_op_file_scan(&spec);
    /* the spec is copied: the caller's memory may go */
    cs_col_type_unref(data);
    cs_col_type_unref(read);
    cs_col_batch_unref(parts);
    assert_int_equal(scan->schema->n_fields, 2);
    assert_string_equal(scan->schema->fields[0].name, "name");
    assert_string_equal(scan->schema->fields[1].name, "day");

    cs_sql_exec_ctx ctx = {.alloc = cs_col_default_allocator(), .batch_rows = 1024};
    cs_error err = {0};
    assert_int_equal(cs_sql_op_open(scan, &ctx, &err), CS_OK);
    int64_t row = 0, nulls = 0;
    cs_col_batch *out;
    while (cs_sql_op_next(scan, &out, &err) == CS_OK && out) {
        assert_true(out->num_rows <= 1024);
        const cs_column *names = out->columns[0], *days = out->columns[1];
        for (int64_t i = 0; i < out->num_rows; i++, row++) {
            int32_t want_day = row < 5000 ? 20 : 10;
            assert_int_equal(((const int32_t *)(const void *)days->values)[i], want_day);
            if (row % 7 == 0) {
                assert_false(cs_column_is_valid(names, i));
                nulls++;
                continue;
            }
            char s[32];
            int len = snprintf(s, sizeof s, "n%lld", (long long)row);
            int32_t got_len;
            const uint8_t *got = cs_column_bytes(names, i, &got_len);
            assert_int_equal(got_len, len);
            assert_memory_equal(got, s, (size_t)len);
        }
        cs_col_batch_unref(out);
    }
    assert_int_equal(err.code, CS_OK);
    assert_int_equal(row, 8000);
    assert_int_equal(nulls, (4999 / 7 + 1) + (7999 / 7 - 4999 / 7));
    assert_int_equal(scan->metrics.rows_out, 8000);
    assert_true(scan->metrics.batches_out >= 8);
    cs_sql_op_free(scan);
}

static void test_missing_file_is_named(void **state)
{
    (void)state;
    char missing[256];
    snprintf(missing, sizeof missing, "%s/gone.parquet", dir);
    cs_col_type *data = schema_id_name();
    cs_file_split split = {missing, 0, 100, 100};
    cs_format_options none = {0};
    cs_sql_file_scan_spec spec = {.format = cs_file_format_find("parquet"),
                                  .options = &none,
                                  .data_schema = data,
                                  .read_schema = data,
                                  .splits = &split,
                                  .n_splits = 1};
    cs_sql_op *scan = cs_sql_op_file_scan(&spec);
    cs_col_type_unref(data);
    cs_sql_exec_ctx ctx = {.alloc = cs_col_default_allocator()};
    cs_error err = {0};
    assert_int_equal(cs_sql_op_open(scan, &ctx, &err), CS_OK);
    cs_col_batch *out = NULL;
    assert_true(cs_sql_op_next(scan, &out, &err) < 0);
    assert_null(out);
    assert_non_null(strstr(err.msg, "gone.parquet"));
    cs_sql_op_free(scan);
}

static cs_col_batch *long_batch(int64_t first, int64_t n)
{
    cs_col_field f[1] = {{"x", cs_col_type_primitive(CS_TYPE_LONG), false}};
    cs_col_type *s = cs_col_type_struct(f, 1);
    cs_col_builder *b = cs_col_builder_new(NULL, s->fields[0].type);
    for (int64_t i = first; i < first + n; i++)
        cs_col_builder_append_values(b, &i, 1, NULL);
    cs_column *c = cs_col_builder_finish(b);
    cs_col_builder_free(b);
    cs_error err = {0};
    return cs_col_batch_new(s, &c, 1, n, &err);
}

static void test_cancel_between_batches(void **state)
{
    (void)state;
    cs_col_batch *b[2] = {long_batch(0, 3), long_batch(3, 3)};
    cs_sql_op *leaf = cs_sql_op_batches(cs_col_type_ref(b[0]->schema), b, 2);
    cs_col_batch_unref(b[0]);
    cs_col_batch_unref(b[1]);
    atomic_int cancelled = 0;
    cs_sql_exec_ctx ctx = {.alloc = cs_col_default_allocator(), .cancelled = &cancelled};
    cs_error err = {0};
    assert_int_equal(cs_sql_op_open(leaf, &ctx, &err), CS_OK);
    cs_col_batch *out = NULL;
    assert_int_equal(cs_sql_op_next(leaf, &out, &err), CS_OK);
    assert_int_equal(out->num_rows, 3);
    cs_col_batch_unref(out);
    atomic_store(&cancelled, 1);
    assert_int_equal(cs_sql_op_next(leaf, &out, &err), CS_ECANCELLED);
    assert_null(out);
    cs_sql_op_free(leaf);
}

static void test_explain_layout(void **state)
{
    (void)state;
    cs_col_batch *b = long_batch(0, 1);
    cs_sql_op *l1 = cs_sql_op_batches(cs_col_type_ref(b->schema), &b, 1);
    cs_col_batch_unref(b);
    cs_sbuf out = {0};
    cs_sql_op_explain(l1, &out);
    assert_string_equal(cs_sbuf_str(&out), "LocalTableScan [1 batches]\n");
    cs_sbuf_free(&out);
    cs_sql_op_free(l1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_two_splits_with_partition_values),
        cmocka_unit_test(test_missing_file_is_named),
        cmocka_unit_test(test_cancel_between_batches),
        cmocka_unit_test(test_explain_layout),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
