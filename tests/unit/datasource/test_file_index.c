/*
 * test_file_index.c — src/datasource/file_index.c: Spark's FilePartition planning with the
 * numbers Spark's algorithm gives (maxSplitBytes from the default parallelism, files cut at it,
 * "next fit decreasing" packing with the open cost), and the listing of a table on the local file
 * system: directories at every depth, hidden names, globs matching folders, pathGlobFilter,
 * recursiveFileLookup, basePath, several paths, a missing path, and files outside the partition
 * folders left out.
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
#include "datasource/file_index.h"

#define MiB (1LL << 20)

static void test_max_split_bytes(void **state)
{
    (void)state;
    uint64_t big[] = {200 * MiB, 50 * MiB, 10 * MiB, 1 * MiB};
    /* total 261 MiB + 4 x 4 MiB = 277 MiB over 2 cores: 138.5 MiB, capped at 128 MiB */
    assert_int_equal(cs_ds_max_split_bytes(128 * MiB, 4 * MiB, 2, big, 4), 128 * MiB);
    uint64_t small[10];
    for (int i = 0; i < 10; i++)
        small[i] = 1 * MiB;
    /* 10 x (1 + 4) MiB = 50 MiB over 4 cores = 12.5 MiB */
    assert_int_equal(cs_ds_max_split_bytes(128 * MiB, 4 * MiB, 4, small, 10), 13107200);
    /* tiny input: the open cost is the floor */
    uint64_t tiny[] = {100};
    assert_int_equal(cs_ds_max_split_bytes(128 * MiB, 4 * MiB, 8, tiny, 1), 4 * MiB);
}

static void test_plan_partitions(void **state)
{
    (void)state;
    uint64_t sizes[] = {200 * MiB, 50 * MiB, 10 * MiB, 1 * MiB};
    bool splittable[] = {true, true, true, true};
    int ns, np, *gs;
    cs_ds_split *s = cs_ds_plan_partitions(sizes, splittable, 4, 128 * MiB, 4 * MiB, &ns, &gs, &np);
    /* file 0 in two equal splits (Spark's cut makes two: 128 and 72), then 50, 10, 1, packed as
     * Spark's: [100] [100] [50, 10, 1] */
    assert_int_equal(ns, 5);
    assert_int_equal(np, 3);
    int want_gs[] = {0, 1, 2, 5};
    for (int i = 0; i <= np; i++)
        assert_int_equal(gs[i], want_gs[i]);
    assert_int_equal(s[0].file, 0);
    assert_int_equal(s[0].start, 0);
    assert_int_equal(s[0].length, 100 * MiB);
    assert_int_equal(s[1].file, 0);
    assert_int_equal(s[1].start, 100 * MiB);
    assert_int_equal(s[1].length, 100 * MiB);
    assert_int_equal(s[2].file, 1);
    assert_int_equal(s[3].file, 2);
    assert_int_equal(s[4].file, 3);
    free(s);
    free(gs);

    /* a file that may not be split stays whole */
    bool whole[] = {false, true, true, true};
    s = cs_ds_plan_partitions(sizes, whole, 4, 128 * MiB, 4 * MiB, &ns, &gs, &np);
    assert_int_equal(ns, 4);
    assert_int_equal(s[0].length, 200 * MiB);
    assert_int_equal(np, 2); /* [200] [50, 10, 1] */
    assert_int_equal(gs[1], 1);
    free(s);
    free(gs);

    /* 10 files of 1 MiB with maxSplitBytes 12.5 MiB: 3 per partition (each adds 5 MiB) */
    uint64_t small[10];
    bool sp[10];
    for (int i = 0; i < 10; i++) {
        small[i] = 1 * MiB;
        sp[i] = true;
    }
    s = cs_ds_plan_partitions(small, sp, 10, 13107200, 4 * MiB, &ns, &gs, &np);
    assert_int_equal(np, 4);
    int want_small[] = {0, 3, 6, 9, 10};
    for (int i = 0; i <= np; i++)
        assert_int_equal(gs[i], want_small[i]);
    for (int i = 0; i < 10; i++)
        assert_int_equal(s[i].file, i); /* equal lengths keep the listing's order */
    free(s);
    free(gs);

    /* 10 bytes at most 4 a split: three splits, of 3, 3 and 4 bytes, covering the file */
    uint64_t ten[] = {10};
    bool t_sp[] = {true};
    s = cs_ds_plan_partitions(ten, t_sp, 1, 4, 0, &ns, &gs, &np);
    assert_int_equal(ns, 3);
    uint64_t covered = 0;
    for (int i = 0; i < ns; i++) {
        assert_true(s[i].length == 3 || s[i].length == 4);
        covered += s[i].length;
    }
    assert_int_equal(covered, 10);
    free(s);
    free(gs);

    /* empty files make no split */
    uint64_t empty[] = {0, 5};
    bool e_sp[] = {true, true};
    s = cs_ds_plan_partitions(empty, e_sp, 2, 128 * MiB, 4 * MiB, &ns, &gs, &np);
    assert_int_equal(ns, 1);
    assert_int_equal(s[0].file, 1);
    assert_int_equal(np, 1);
    free(s);
    free(gs);
}

static char dir[] = "/tmp/cspark-dsindex-XXXXXX";

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

/* Builds the index of one path (relative to dir; a glob allowed) with options kv (NULL-ended). */
static int build(const char *rel, const char *const *kv, cs_ds_file_index *ix, cs_error *err)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    const char *paths[] = {p};
    const char *keys[8], *values[8];
    int n = 0;
    for (; kv && kv[2 * n]; n++) {
        keys[n] = kv[2 * n];
        values[n] = kv[2 * n + 1];
    }
    cs_format_options o = {keys, values, n};
    cs_error_clear(err);
    return cs_ds_file_index_build(paths, 1, &o, true, ix, err);
}

/* The index's files relative to dir, joined by spaces. */
static char *names(const cs_ds_file_index *ix)
{
    static char buf[2048];
    buf[0] = 0;
    size_t dl = strlen(dir);
    for (int i = 0; i < ix->n_files; i++) {
        strcat(buf, i ? " " : "");
        strcat(buf, ix->files[i].uri + dl + 1);
    }
    return buf;
}

static int setup(void **state)
{
    (void)state;
    assert_non_null(mkdtemp(dir));
    mk("t/year=2024/a.txt", "1\n");
    mk("t/year=2024/month=1/b.txt", "x\n"); /* deeper than year=2025's: conflicting names */
    mk("u/year=2024/a.txt", "1\n");
    mk("u/year=2024/_SUCCESS", "");
    mk("u/year=2024/.a.txt.crc", "");
    mk("u/year=2025/b.txt", "22\n");
    mk("u/year=2025/c.csv", "3\n");
    mk("u/_temporary/0/x.txt", "stale\n");
    mk("u/top.txt", "outside every partition\n");
    mk("u/year=2026/_hidden/d.txt", "hidden folder\n");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cs_remove_tree(dir);
    return 0;
}

static void test_listing(void **state)
{
    (void)state;
    cs_ds_file_index ix;
    cs_error err;
    assert_int_equal(build("u", NULL, &ix, &err), 0);
    /* hidden names skipped at every level; top.txt has no partition and is left out */
    assert_string_equal(names(&ix), "u/year=2024/a.txt u/year=2025/b.txt u/year=2025/c.csv");
    assert_int_equal(ix.parts.schema->n_fields, 1);
    assert_string_equal(ix.parts.schema->fields[0].name, "year");
    assert_int_not_equal(ix.files[0].partition, ix.files[1].partition);
    assert_int_equal(ix.files[1].partition, ix.files[2].partition);
    cs_ds_file_index_free(&ix);

    const char *glob_filter[] = {"pathGlobFilter", "*.txt", NULL};
    assert_int_equal(build("u", glob_filter, &ix, &err), 0);
    assert_string_equal(names(&ix), "u/year=2024/a.txt u/year=2025/b.txt");
    cs_ds_file_index_free(&ix);

    const char *recursive[] = {"recursiveFileLookup", "true", NULL};
    assert_int_equal(build("u", recursive, &ix, &err), 0);
    assert_int_equal(ix.parts.schema->n_fields, 0); /* no partition discovery */
    assert_string_equal(names(&ix),
                        "u/top.txt u/year=2024/a.txt u/year=2025/b.txt u/year=2025/c.csv");
    cs_ds_file_index_free(&ix);

    /* a glob matching folders: each match is a root, so no partition column without basePath */
    assert_int_equal(build("u/year=202[45]", NULL, &ix, &err), 0);
    assert_string_equal(names(&ix), "u/year=2024/a.txt u/year=2025/b.txt u/year=2025/c.csv");
    assert_int_equal(ix.parts.schema->n_fields, 0);
    cs_ds_file_index_free(&ix);

    char bp[512];
    snprintf(bp, sizeof bp, "%s/u", dir);
    const char *base[] = {"basePath", bp, NULL};
    assert_int_equal(build("u/year=*", base, &ix, &err), 0);
    assert_int_equal(ix.parts.schema->n_fields, 1);
    cs_ds_file_index_free(&ix);

    assert_int_equal(build("u/year=2025/b.txt", NULL, &ix, &err), 0); /* one file */
    assert_string_equal(names(&ix), "u/year=2025/b.txt");
    cs_ds_file_index_free(&ix);

    assert_int_not_equal(build("nothing", NULL, &ix, &err), 0);
    assert_non_null(strstr(err.msg, "[PATH_NOT_FOUND] Path does not exist: file:"));
    assert_int_not_equal(build("nothing*", NULL, &ix, &err), 0);
    assert_non_null(strstr(err.msg, "[PATH_NOT_FOUND]"));

    assert_int_not_equal(build("t", NULL, &ix, &err), 0);
    assert_non_null(strstr(err.msg, "CONFLICTING_PARTITION_COLUMN_NAMES"));
}

static void test_several_paths(void **state)
{
    (void)state;
    char a[512], b[512];
    snprintf(a, sizeof a, "%s/u/year=2024", dir);
    snprintf(b, sizeof b, "file:%s/u/year=2025/b.txt", dir);
    const char *paths[] = {a, b};
    cs_ds_file_index ix;
    cs_error err;
    cs_format_options none = {0};
    assert_int_equal(cs_ds_file_index_build(paths, 2, &none, true, &ix, &err), 0);
    assert_string_equal(names(&ix), "u/year=2024/a.txt u/year=2025/b.txt");
    cs_ds_file_index_free(&ix);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_max_split_bytes),
        cmocka_unit_test(test_plan_partitions),
        cmocka_unit_test(test_listing),
        cmocka_unit_test(test_several_paths),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
