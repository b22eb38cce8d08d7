/*
 * test_codec.c — src/fs/codec.c: every codec round-trips through the writer and reader layers
 * over local files, concatenated members/streams/frames are read one after another (as files
 * made by `cat a.gz b.gz` are), the extension and Hadoop class names find the codec, and damaged
 * or truncated input fails with one line naming the file and the codec instead of returning
 * garbage. Files made by the command-line tools (gzip, bzip2, zstd, lz4; installed by
 * scripts/install-deps.sh) read back as their content.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/fsutil.h"
#include "fs/codec.h"
#include "fs/fs.h"

static char dir[] = "/tmp/cspark-codec-XXXXXX";
static const char *names[] = {"gzip", "deflate", "bzip2", "zstd", "lz4"};

static void write_file(const char *path, const cs_codec *c, const char *text, size_t reps)
{
    cs_error err;
    cs_fs_writer *w = cs_fs_create(path, NULL, c, &err);
    assert_non_null(w);
    for (size_t i = 0; i < reps; i++)
        assert_int_equal(cs_fs_write(w, text, strlen(text), &err), 0);
    assert_int_equal(cs_fs_writer_finish(w, NULL, &err), 0);
}

/* Reads a whole input through cs_fs_open_input; returns its bytes (malloc'd) or NULL + err. */
static char *read_all(const char *path, size_t *len, cs_error *err)
{
    cs_fs_reader *r = cs_fs_open_input(path, 0, UINT64_MAX, UINT64_MAX, NULL, err);
    if (!r) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    ssize_t k;
    while ((k = cs_fs_read(r, b + n, cap - n, err)) > 0) {
        n += (size_t)k;
        if (n == cap) b = realloc(b, cap *= 2);
    }
    cs_fs_reader_close(r);
    if (k < 0) {
        free(b);
        return NULL;
    }
    *len = n;
    return b;
}

static void test_lookup(void **state)
{
    (void)state;
    assert_string_equal(cs_codec_for_path("s3a://b/logs.gz")->name, "gzip");
    assert_string_equal(cs_codec_for_path("/x/a.txt.bz2")->name, "bzip2");
    assert_string_equal(cs_codec_for_path("a.zst")->name, "zstd");
    assert_string_equal(cs_codec_for_path("a.lz4")->name, "lz4");
    assert_string_equal(cs_codec_for_path("a.deflate")->name, "deflate");
    assert_null(cs_codec_for_path("a.txt"));
    assert_null(cs_codec_for_path("a.GZ")); /* case-sensitive, as Hadoop */
    assert_null(cs_codec_for_path(".gz"));
    assert_string_equal(cs_codec_for_name("org.apache.hadoop.io.compress.GzipCodec")->name, "gzip");
    assert_string_equal(cs_codec_for_name("BZip2Codec")->name, "bzip2");
    assert_string_equal(cs_codec_for_name("ZSTD")->name, "zstd");
    assert_string_equal(cs_codec_for_name("org.apache.hadoop.io.compress.DefaultCodec")->name,
                        "deflate");
    assert_null(cs_codec_for_name("snappy"));
}

static void test_round_trip_and_concatenation(void **state)
{
    (void)state;
    char path[256], one[256];
    const char *text = "to be or not to be that is the question\n";
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const cs_codec *c = cs_codec_for_name(names[i]);
        snprintf(path, sizeof path, "%s/big%s", dir, c->extension);
        write_file(path, c, text, 100000); /* 4 MB: several buffers of every layer */
        cs_error err;
        size_t n;
        char *got = read_all(path, &n, &err);
        assert_non_null(got);
        assert_int_equal(n, strlen(text) * 100000);
        for (size_t k = 0; k < n; k += strlen(text))
            assert_memory_equal(got + k, text, strlen(text));
        free(got);
        /* two members back to back, and an empty one between them */
        snprintf(one, sizeof one, "%s/one%s", dir, c->extension);
        write_file(one, c, "first\n", 1);
        char empty[256];
        snprintf(empty, sizeof empty, "%s/empty%s", dir, c->extension);
        write_file(empty, c, "", 0);
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "cat %s %s %s > %s/cat%s", one, empty, one, dir, c->extension);
        assert_int_equal(system(cmd), 0);
        snprintf(path, sizeof path, "%s/cat%s", dir, c->extension);
        got = read_all(path, &n, &err);
        assert_non_null(got);
        assert_int_equal(n, 12);
        assert_memory_equal(got, "first\nfirst\n", 12);
        free(got);
        got = read_all(empty, &n, &err);
        assert_non_null(got);
        assert_int_equal(n, 0);
        free(got);
    }
}

static void test_corrupt_and_truncated_fail_naming_the_file(void **state)
{
    (void)state;
    char path[256], bad[256], cmd[1024];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const cs_codec *c = cs_codec_for_name(names[i]);
        snprintf(path, sizeof path, "%s/good%s", dir, c->extension);
        write_file(path, c, "some words here and there\n", 20000);
        /* truncated: the first half */
        snprintf(bad, sizeof bad, "%s/trunc%s", dir, c->extension);
        snprintf(cmd, sizeof cmd, "head -c $(( $(stat -c %%s %s) / 2 )) %s > %s", path, path, bad);
        assert_int_equal(system(cmd), 0);
        cs_error err;
        size_t n;
        char *t = read_all(bad, &n, &err);
        if (t) fail_msg("%s: truncated input read without an error (%zu bytes)", c->name, n);
        assert_non_null(strstr(err.msg, bad));
        assert_non_null(strstr(err.msg, c->name));
        /* damaged: bytes in the middle overwritten */
        snprintf(bad, sizeof bad, "%s/bad%s", dir, c->extension);
        snprintf(cmd, sizeof cmd,
                 "cp %s %s && printf 'XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX' | dd of=%s bs=1 seek=30 "
                 "conv=notrunc status=none",
                 path, bad, bad);
        assert_int_equal(system(cmd), 0);
        char *got = read_all(bad, &n, &err);
        if (got) { /* a codec without a checksum over the damaged spot must still differ */
            fail_msg("%s: damaged input read without an error (%zu bytes)", c->name, n);
        }
        assert_non_null(strstr(err.msg, "cannot decompress"));
        assert_non_null(strstr(err.msg, bad));
        /* plain text with a codec's extension */
        snprintf(bad, sizeof bad, "%s/plain%s", dir, c->extension);
        FILE *f = fopen(bad, "w");
        fputs("this is not compressed at all\n", f);
        fclose(f);
        assert_null(read_all(bad, &n, &err));
        assert_non_null(strstr(err.msg, bad));
    }
}

/* Files made by the standard tools read back as their content. */
static void test_files_from_the_tools(void **state)
{
    (void)state;
    const char *tools[][2] = {
        {"gzip", ".gz"}, {"bzip2", ".bz2"}, {"zstd -q", ".zst"}, {"lz4 -q", ".lz4"}};
    char cmd[1024], path[256];
    snprintf(path, sizeof path, "%s/plain.txt", dir);
    FILE *f = fopen(path, "w");
    for (int i = 0; i < 5000; i++)
        fprintf(f, "line %d of the file\n", i);
    fclose(f);
    size_t want_n;
    cs_error err;
    char *want = read_all(path, &want_n, &err);
    for (size_t i = 0; i < 4; i++) {
        char tool[32];
        sscanf(tools[i][0], "%31s", tool);
        snprintf(cmd, sizeof cmd, "command -v %s >/dev/null", tool);
        if (system(cmd) != 0)
            fail_msg("%s is not installed (scripts/install-deps.sh installs it)", tool);
        snprintf(cmd, sizeof cmd, "%s -c %s > %s%s", tools[i][0], path, path, tools[i][1]);
        assert_int_equal(system(cmd), 0);
        char in[300];
        snprintf(in, sizeof in, "%s%s", path, tools[i][1]);
        size_t n;
        char *got = read_all(in, &n, &err);
        assert_non_null(got);
        assert_int_equal(n, want_n);
        assert_memory_equal(got, want, n);
        free(got);
    }
    free(want);
}

int main(void)
{
    if (!mkdtemp(dir)) return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_round_trip_and_concatenation),
        cmocka_unit_test(test_corrupt_and_truncated_fail_naming_the_file),
        cmocka_unit_test(test_files_from_the_tools),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    cs_remove_tree(dir);
    return rc;
}
