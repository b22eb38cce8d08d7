/*
 * test_fs_local.c — src/fs/fs.c and fs_local.c: the scheme table (bare paths, file:, s3a:, and
 * a scheme nobody serves), listing files, directories (hidden names skipped, sorted) and globs
 * with braces, refusing a FIFO instead of hanging on it, reading byte ranges, writers that are
 * invisible until finished and leave nothing when aborted; and the glob matcher the object store
 * uses, component by component.
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

#include "common/fsutil.h"
#include "fs/fs.h"
#include "fs/fs_internal.h"

static char dir[] = "/tmp/cspark-fslocal-XXXXXX";

static void mk(const char *rel, const char *content)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    char *slash = strrchr(p, '/');
    *slash = 0;
    cs_make_dirs(p);
    *slash = '/';
    FILE *f = fopen(p, "w");
    fputs(content, f);
    fclose(f);
}

static void test_schemes(void **state)
{
    (void)state;
    cs_error err;
    assert_true(cs_fs_is_local("/a/b"));
    assert_true(cs_fs_is_local("file:/a/b"));
    assert_true(cs_fs_is_local("file:///a/b"));
    assert_true(cs_fs_is_local("rel/x:y"));
    assert_false(cs_fs_is_local("s3a://b/k"));
    assert_string_equal(cs_fs_local_path("file:///a/b"), "/a/b");
    assert_string_equal(cs_fs_local_path("file:/a/b"), "/a/b");
    assert_int_equal(cs_fs_check_uri("s3a://bucket/key", &err), 0);
    assert_int_equal(cs_fs_check_uri("gs://bucket/key", &err), CS_EINVAL);
    assert_string_equal(err.msg, "No FileSystem for scheme \"gs\" in gs://bucket/key (cspark "
                                 "reads file: and s3a://)");
    assert_int_equal(cs_fs_check_uri("s3://bucket/key", &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "(use s3a://)"));
    assert_int_equal(cs_fs_check_uri("s3a://ab/k", &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "not a valid S3 bucket name"));
}

static void test_expand(void **state)
{
    (void)state;
    mk("in/b.txt", "bb\n");
    mk("in/a.txt", "a\n");
    mk("in/_SUCCESS", "");
    mk("in/.crc", "");
    mk("in/sub/x.txt", "x\n");
    mk("g/2024-01/x.log", "1\n");
    mk("g/2024-02/y.log", "2\n");
    mk("g/2025-01/z.log", "3\n");
    char spec[512];
    cs_fs_listing l = {0};
    cs_error err;
    snprintf(spec, sizeof spec, "file://%s/in", dir);
    assert_int_equal(cs_fs_expand(spec, &l, &err), 0);
    assert_int_equal(l.n, 2);
    assert_non_null(strstr(l.v[0].uri, "/in/a.txt"));
    assert_int_equal(l.v[1].size, 3);
    cs_fs_listing_free(&l);
    snprintf(spec, sizeof spec, "%s/g/{2024-02,2025-01}/*.log", dir);
    assert_int_equal(cs_fs_expand(spec, &l, &err), 0);
    assert_int_equal(l.n, 2);
    cs_fs_listing_free(&l);
    snprintf(spec, sizeof spec, "%s/none", dir);
    assert_int_equal(cs_fs_expand(spec, &l, &err), CS_ENOTFOUND);
    assert_non_null(strstr(err.msg, "Input path does not exist: file:"));
    snprintf(spec, sizeof spec, "%s/g/19*", dir);
    assert_int_equal(cs_fs_expand(spec, &l, &err), CS_ENOTFOUND);
    assert_non_null(strstr(err.msg, "matches 0 files"));
    /* a FIFO is refused, not opened (opening it would block) */
    snprintf(spec, sizeof spec, "%s/fifo", dir);
    assert_int_equal(mkfifo(spec, 0600), 0);
    assert_int_equal(cs_fs_expand(spec, &l, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "is not a regular file"));
    assert_int_equal(l.n, 0);
}

static void test_read_range_and_writers(void **state)
{
    (void)state;
    mk("r.txt", "0123456789");
    char p[512], q[512];
    snprintf(p, sizeof p, "%s/r.txt", dir);
    cs_error err;
    cs_fs_reader *r = cs_fs_open(p, 3, 4, 10, &err);
    char buf[16];
    ssize_t n = cs_fs_read(r, buf, sizeof buf, &err);
    assert_int_equal(n, 7); /* past the range: to the end of the file */
    assert_memory_equal(buf, "3456789", 7);
    assert_int_equal(cs_fs_read(r, buf, sizeof buf, &err), 0);
    assert_int_equal(cs_fs_reader_bytes(r), 7);
    cs_fs_reader_close(r);

    snprintf(p, sizeof p, "%s/out/part-00000", dir);
    snprintf(q, sizeof q, "%s/out/_temporary/attempt_1", dir);
    cs_make_dirs(q);
    strcat(q, "/part-00000");
    cs_fs_writer *w = cs_fs_create(p, q, NULL, &err);
    assert_non_null(w);
    assert_int_equal(cs_fs_write(w, "abc", 3, &err), 0);
    assert_int_equal(access(p, F_OK), -1); /* not visible yet */
    assert_int_equal(access(q, F_OK), 0);
    cs_fs_pending *pend = (cs_fs_pending *)1;
    assert_int_equal(cs_fs_writer_finish(w, &pend, &err), 0);
    assert_null(pend); /* local files need no second step */
    assert_int_equal(access(p, F_OK), 0);
    assert_int_equal(access(q, F_OK), -1);
    w = cs_fs_create(p, q, NULL, &err);
    assert_int_equal(cs_fs_write(w, "zzz", 3, &err), 0);
    cs_fs_writer_abort(w);
    assert_int_equal(access(q, F_OK), -1);
    uint8_t *data;
    size_t len;
    assert_int_equal(cs_fs_get(p, &data, &len, &err), 0); /* the committed one stays */
    assert_memory_equal(data, "abc", 3);
    free(data);
    cs_fs_status st;
    assert_int_equal(cs_fs_stat(p, &st, &err), 0);
    assert_true(st.exists && st.size == 3);
    snprintf(p, sizeof p, "%s/out", dir);
    assert_int_equal(cs_fs_delete(p, true, &err), 0);
    assert_int_equal(cs_fs_stat(p, &st, &err), 0);
    assert_false(st.exists);
}

static void test_glob_match(void **state)
{
    (void)state;
    assert_int_equal(cs_fs_glob_match("logs/2024-*", "logs/2024-01/x.log"), 2);
    assert_int_equal(cs_fs_glob_match("logs/2024-*/*.log", "logs/2024-01/x.log"), 3);
    assert_int_equal(cs_fs_glob_match("logs/*.log", "logs/2024-01/x.log"), 0); /* no '/' in * */
    assert_int_equal(cs_fs_glob_match("logs/{a,b{1,2}}/f", "logs/b2/f"), 3);
    assert_int_equal(cs_fs_glob_match("logs/{a,b{1,2}}/f", "logs/b3/f"), 0);
    assert_int_equal(cs_fs_glob_match("d/part-0000[0-4]", "d/part-00003"), 2);
    assert_int_equal(cs_fs_glob_match("d/part-0000[!0-4]", "d/part-00003"), 0);
    assert_int_equal(cs_fs_glob_match("d/?.txt", "d/a.txt"), 2);
    assert_true(cs_fs_has_glob("a/*"));
    assert_false(cs_fs_has_glob("a/b"));
}

/* Hadoop's Path: repeated slashes become one and a trailing one goes, for every scheme; the
 * scheme and the authority stay as given. */
static void test_normalize(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"s3a://b/out/", "s3a://b/out"},
        {"s3a://b/out//part-*", "s3a://b/out/part-*"},
        {"s3a://b//in///x/", "s3a://b/in/x"},
        {"s3a://b/", "s3a://b/"},
        {"s3a://b", "s3a://b"},
        {"S3A://b/k//", "S3A://b/k"},
        {"file:///tmp//x/", "file:///tmp/x"},
        {"file:/tmp/x//*/", "file:/tmp/x/*"},
        {"file://host//x", "file://host/x"},
        {"/tmp//a///b/", "/tmp/a/b"},
        {"//x", "/x"},
        {"/", "/"},
        {"///", "/"},
        {"out/", "out"},
        {"a//{b,c}/*/", "a/{b,c}/*"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *n = cs_fs_normalize(cases[i][0]);
        assert_string_equal(n, cases[i][1]);
        free(n);
    }
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_schemes),
        cmocka_unit_test(test_expand),
        cmocka_unit_test(test_read_range_and_writers),
        cmocka_unit_test(test_glob_match),
        cmocka_unit_test(test_normalize),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cs_remove_tree(dir);
    return rc;
}
