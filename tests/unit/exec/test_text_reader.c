/*
 * test_text_reader.c — the lines text_reader.c hands out for text splits: every line of the file
 * exactly once over the splits of a file (Hadoop's LineRecordReader rule), '\r' before '\n'
 * dropped, a last line without terminator kept, lines longer than the 1 MiB read chunk, batches
 * of many tiny lines. The reader's batches are views into its read buffer, so each batch is
 * checked as soon as it is returned (valid until the next call), copied with
 * cs_batch_append_batch as a collecting sink does, and the copies compared at the end.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "plan/rdd.h"
#include "exec/part_iter.h"

static char g_dir[64];

typedef struct line_list {
    const uint8_t **ptr;
    uint32_t *len;
    size_t n, cap;
} line_list;

static void line_add(line_list *l, const uint8_t *p, uint32_t len)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->ptr = realloc(l->ptr, l->cap * sizeof *l->ptr);
        l->len = realloc(l->len, l->cap * sizeof *l->len);
        assert_non_null(l->ptr);
        assert_non_null(l->len);
    }
    l->ptr[l->n] = p;
    l->len[l->n++] = len;
}

/* The lines of a whole file, as the reader must produce them over any set of splits. */
static void expected_lines(const uint8_t *data, size_t size, line_list *out)
{
    size_t lo = 0;
    while (lo < size) {
        const uint8_t *nl = memchr(data + lo, '\n', size - lo);
        size_t end = nl ? (size_t)(nl - data) : size;
        size_t len = end - lo;
        if (len && data[lo + len - 1] == '\r') len--;
        line_add(out, data + lo, (uint32_t)len);
        lo = nl ? end + 1 : size;
    }
}

static uint64_t g_rng = 88172645463325252ULL;
static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

/* A file of mixed lines: empty, tiny (many per batch), ~100 bytes, one of 3 MiB; some end in
 * "\r\n"; `tail` is appended last (the file's ending). */
static uint8_t *make_content(size_t *size, const char *tail)
{
    size_t cap = 16u << 20, n = 0;
    uint8_t *d = malloc(cap);
    assert_non_null(d);
    for (int i = 0; i < 60000; i++) {
        uint64_t r = rnd();
        size_t len = (r % 4 == 0) ? 0 : (r % 4 == 1) ? 1 + r % 5 : 50 + r % 100;
        if (i == 30000) len = 3u << 20; /* longer than the read chunk */
        for (size_t j = 0; j < len; j++)
            d[n++] = (uint8_t)('a' + (rnd() % 26));
        if (r % 7 == 0) d[n++] = '\r';
        d[n++] = '\n';
        assert_true(n + 64 < cap);
    }
    size_t tl = strlen(tail);
    memcpy(d + n, tail, tl);
    *size = n + tl;
    return d;
}

/* Reads the file through splits of split_size bytes and checks the lines against expected. */
/* A text iterator over one split, with the task context and result it reports to (s must not
 * move while open). */
typedef struct split_reader {
    text_split split;
    task_result res;
    cspark_task_context tc;
    part_iter *it;
} split_reader;

static void split_open(split_reader *s, const char *path, uint64_t start, uint64_t len,
                       uint64_t size)
{
    s->split = (text_split){path, start, len, size};
    cs_task_result_init(&s->res);
    memset(&s->tc, 0, sizeof s->tc);
    s->tc.result = &s->res;
    cs_error err;
    cs_error_clear(&err);
    s->it = cs_text_iter_open(&s->tc, &s->split, &err);
    assert_non_null(s->it);
}

static void split_close(split_reader *s)
{
    s->it->free(s->it);
    cs_task_result_free(&s->res);
}

static void read_with_splits(const char *path, size_t size, uint64_t split_size,
                             const line_list *expected)
{
    size_t next = 0; /* index of the next expected line */
    int64_t records = 0, bytes = 0;
    cs_batch copy;
    cs_batch_init(&copy);
    for (uint64_t start = 0; start < size; start += split_size) {
        uint64_t len = size - start < split_size ? size - start : split_size;
        split_reader sr;
        split_open(&sr, path, start, len, size);
        part_iter *it = sr.it;
        cs_error err;
        const cs_batch *b;
        int rc;
        while ((rc = it->next(it, &b, &err)) == 1) {
            assert_true(b->n > 0);
            assert_true(b->n <= CS_BATCH_TARGET_RECORDS);
            for (size_t i = 0; i < b->n; i++) {
                cspark_record r = batch_get(b, i);
                assert_true(next < expected->n);
                assert_int_equal(r.key.len, expected->len[next]);
                assert_int_equal(r.value.len, 0);
                assert_memory_equal(r.key.ptr, expected->ptr[next], r.key.len);
                next++;
            }
            cs_batch_append_batch(&copy, b);
        }
        assert_int_equal(rc, 0);
        records += sr.res.metrics.records_read;
        it->free(it); /* counts the bytes read */
        bytes += sr.res.metrics.bytes_read;
        cs_task_result_free(&sr.res);
    }
    assert_int_equal(next, expected->n);
    assert_int_equal(records, (int64_t)expected->n);
    assert_true(bytes >= (int64_t)size);
    assert_int_equal(copy.n, expected->n);
    for (size_t i = 0; i < copy.n; i++) {
        cspark_record r = batch_get(&copy, i);
        assert_int_equal(r.key.len, expected->len[i]);
        assert_memory_equal(r.key.ptr, expected->ptr[i], r.key.len);
    }
    cs_batch_free(&copy);
}

static void check_file(const char *tail)
{
    size_t size;
    uint8_t *data = make_content(&size, tail);
    char path[128];
    snprintf(path, sizeof path, "%s/in.txt", g_dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
    line_list expected = {0};
    expected_lines(data, size, &expected);
    const uint64_t split_sizes[] = {size, 1u << 20, 777777, 100003};
    for (size_t i = 0; i < sizeof split_sizes / sizeof *split_sizes; i++)
        read_with_splits(path, size, split_sizes[i], &expected);
    unlink(path);
    free(expected.ptr);
    free(expected.len);
    free(data);
}

static void test_lines_ending_with_newline(void **state)
{
    (void)state;
    check_file("last line\n");
}

static void test_last_line_without_newline(void **state)
{
    (void)state;
    check_file("last line without terminator");
}

static void test_last_line_is_carriage_return(void **state)
{
    (void)state;
    check_file("x\r\n\r");
}

static void test_empty_file(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/empty.txt", g_dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fclose(f), 0);
    split_reader sr;
    split_open(&sr, path, 0, 0, 0);
    cs_error err;
    const cs_batch *b;
    assert_int_equal(sr.it->next(sr.it, &b, &err), 0);
    assert_int_equal(sr.it->next(sr.it, &b, &err), 0);
    assert_int_equal(sr.res.metrics.records_read, 0);
    split_close(&sr);
    unlink(path);
}

/* A line longer than CSPARK_MAX_RECORD_BYTES (a sparse file of zeros without a newline) fails
 * naming the file, the offset and the limit, instead of being cut to a 32-bit length. */
static void test_line_over_record_limit(void **state)
{
    (void)state;
    char path[128];
    snprintf(path, sizeof path, "%s/long.txt", g_dir);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    uint64_t size = CSPARK_MAX_RECORD_BYTES + (2u << 20);
    assert_int_equal(ftruncate(fileno(f), (off_t)size), 0);
    assert_int_equal(fclose(f), 0);
    split_reader sr;
    split_open(&sr, path, 0, size, size);
    cs_error err;
    const cs_batch *b;
    assert_int_equal(sr.it->next(sr.it, &b, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "the line at byte 0 is longer than the record limit"));
    split_close(&sr);
    /* a line just over the limit whose newline arrives in the same read that passes the limit,
     * after a short line: "ab\n", then limit + 100 zeros, then "\nnext\n" */
    f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite("ab\n", 1, 3, f), 3);
    assert_int_equal(fseek(f, (long)(3 + CSPARK_MAX_RECORD_BYTES + 100), SEEK_SET), 0);
    assert_int_equal(fwrite("\nnext\n", 1, 6, f), 6);
    size = (uint64_t)ftell(f);
    assert_int_equal(fclose(f), 0);
    split_open(&sr, path, 0, size, size);
    int rc, lines = 0;
    while ((rc = sr.it->next(sr.it, &b, &err)) == 1)
        lines += (int)b->n;
    assert_int_equal(rc, CS_EINVAL);
    assert_int_equal(lines, 1); /* "ab" */
    assert_non_null(strstr(err.msg, "the line at byte 3 is longer than the record limit"));
    assert_non_null(strstr(err.msg, "it has 268435556 bytes"));
    split_close(&sr);
    unlink(path);
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_dir, sizeof g_dir, "/tmp/cspark-test-text-XXXXXX");
    return mkdtemp(g_dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    return rmdir(g_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines_ending_with_newline),
        cmocka_unit_test(test_last_line_without_newline),
        cmocka_unit_test(test_last_line_is_carriage_return),
        cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_line_over_record_limit),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
