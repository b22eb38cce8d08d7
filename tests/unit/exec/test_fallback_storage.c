/*
 * test_fallback_storage.c — decommissioning's fallback storage (src/exec/fallback_storage.c) on a
 * file: path: real map outputs written with shuffle_writer are copied to
 * <path><appId>/<shuffleId>/shuffle_<s>_<m>_0.{data,index} (Spark's layout, byte-identical to the
 * local files); every reduce block read back through the fallback source equals the local
 * source's; an output that is not there fails naming it and leaves nothing; a path without a
 * trailing separator is refused naming the key; no path means no storage; cleanUp removes the
 * application's directory only when asked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/fsutil.h"
#include "exec/fallback_storage.h"
#include "records/batch.h"
#include "shuffle/memory.h"
#include "shuffle/shuffle.h"

#define NMAPS 2
#define NRED 8

static char g_src[256], g_fb[256];
static cs_map_status g_st[NMAPS];

static void write_output(int m, int nkeys, int nrec)
{
    cs_partitioner p = {.kind = PART_HASH, .num_partitions = NRED};
    cs_error err = {0};
    cs_task_memory mem;
    cs_task_memory_init(&mem, 64 * CS_MiB);
    shuffle_write_spec spec = {.shuffle_id = 5,
                               .map_id = m,
                               .attempt_id = m,
                               .partitioner = &p,
                               .compress = m == 0,
                               .checksum = CS_CHECKSUM_CRC32,
                               .dir = g_src,
                               .mem = &mem};
    shuffle_writer *w = cs_shuffle_writer_new(&spec, &err);
    assert_non_null(w);
    cs_batch b;
    cs_batch_init(&b);
    for (int i = 0; i < nrec; i++) {
        char key[32], val[64];
        int kl = snprintf(key, sizeof key, "key-%d", i % nkeys);
        int vl = snprintf(val, sizeof val, "value-%d-%d", m, i);
        cs_batch_append_record(&b, key, (uint32_t)kl, val, (uint32_t)vl);
    }
    assert_int_equal(cs_shuffle_writer_write(w, &b, &err), 0);
    cs_batch_free(&b);
    assert_int_equal(cs_shuffle_writer_commit(w, &g_st[m], &err), 0);
    cs_shuffle_writer_free(w);
    snprintf(g_st[m].executor_id, sizeof g_st[m].executor_id, CS_FALLBACK_EXECUTOR_ID);
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_src, sizeof g_src, "/tmp/cspark-fb-src-XXXXXX");
    snprintf(g_fb, sizeof g_fb, "/tmp/cspark-fb-XXXXXX");
    if (!mkdtemp(g_src) || !mkdtemp(g_fb)) return -1;
    write_output(0, 300, 5000);
    write_output(1, 3, 20); /* some of its blocks are empty */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cs_remove_tree(g_src);
    cs_remove_tree(g_fb);
    for (int m = 0; m < NMAPS; m++)
        cs_map_status_free(&g_st[m]);
    return 0;
}

static cs_conf *conf_with(const char *path, const char *clean)
{
    cs_conf *c = cs_conf_new();
    if (path) cs_conf_set(c, "spark.storage.decommission.fallbackStorage.path", path);
    if (clean) cs_conf_set(c, "spark.storage.decommission.fallbackStorage.cleanUp", clean);
    return c;
}

static void assert_same_file(const char *a, const char *b)
{
    uint8_t *x = NULL, *y = NULL;
    size_t nx = 0, ny = 0;
    cs_error err = {0};
    assert_int_equal(cs_read_file(a, &x, &nx, &err), 0);
    assert_int_equal(cs_read_file(b, &y, &ny, &err), 0);
    assert_int_equal(nx, ny);
    assert_memory_equal(x, y, nx);
    free(x);
    free(y);
}

static void test_copy_and_read_back(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "file:%s/", g_fb);
    cs_conf *c = conf_with(path, NULL);
    cs_error err = {0};
    cs_fallback_storage *fb = NULL;
    assert_int_equal(cs_fallback_storage_open(c, "app-1", &fb, &err), 0);
    assert_non_null(fb);
    shuffle_block_source local = cs_shuffle_local_source(g_src);
    shuffle_block_source remote = cs_fallback_storage_source(fb);
    for (int m = 0; m < NMAPS; m++) {
        assert_int_equal(cs_fallback_storage_copy(fb, g_src, &g_st[m], &err), 0);
        char data[512], index[512], copied[600];
        cs_shuffle_file_paths(g_src, 5, m, data, index, sizeof data);
        snprintf(copied, sizeof copied, "%s/app-1/5/shuffle_5_%d_0.data", g_fb, m);
        assert_same_file(data, copied);
        snprintf(copied, sizeof copied, "%s/app-1/5/shuffle_5_%d_0.index", g_fb, m);
        assert_same_file(index, copied);
        for (int r = 0; r < NRED; r++) {
            uint8_t *want = NULL, *got = NULL;
            size_t nwant = 0, ngot = 0;
            assert_int_equal(local.fetch(local.arg, &g_st[m], r, &want, &nwant, &err), 0);
            assert_int_equal(remote.fetch(remote.arg, &g_st[m], r, &got, &ngot, &err), 0);
            assert_int_equal(ngot, nwant);
            if (nwant) assert_memory_equal(got, want, nwant);
            free(want);
            free(got);
        }
    }
    cs_fallback_storage_free(fb);
    /* without cleanUp the files stay; with it the application's directory goes */
    char app_dir[300];
    snprintf(app_dir, sizeof app_dir, "%s/app-1", g_fb);
    struct stat sb;
    assert_int_equal(cs_fallback_storage_clean_up(c, "app-1", &err), 0);
    assert_int_equal(stat(app_dir, &sb), 0);
    cs_conf_set(c, "spark.storage.decommission.fallbackStorage.cleanUp", "true");
    assert_int_equal(cs_fallback_storage_clean_up(c, "app-1", &err), 0);
    assert_int_not_equal(stat(app_dir, &sb), 0);
    cs_conf_free(c);
}

static void test_missing_output_fails(void **state)
{
    (void)state;
    char path[300];
    snprintf(path, sizeof path, "file:%s/", g_fb);
    cs_conf *c = conf_with(path, NULL);
    cs_error err = {0};
    cs_fallback_storage *fb = NULL;
    assert_int_equal(cs_fallback_storage_open(c, "app-2", &fb, &err), 0);
    cs_map_status st = g_st[0];
    st.map_id = 9;
    assert_int_equal(cs_fallback_storage_copy(fb, g_src, &st, &err), CS_ENOTFOUND);
    assert_non_null(strstr(err.msg, "shuffle 5 map 9 not copied to the fallback storage"));
    char app_dir[300];
    snprintf(app_dir, sizeof app_dir, "%s/app-2/5/shuffle_5_9_0.data", g_fb);
    assert_int_not_equal(access(app_dir, F_OK), 0);
    /* a block of an output that is not there: an error naming it, nothing returned */
    shuffle_block_source remote = cs_fallback_storage_source(fb);
    uint8_t *got = NULL;
    size_t n = 0;
    cs_error_clear(&err);
    assert_true(remote.fetch(remote.arg, &st, 0, &got, &n, &err) < 0);
    assert_null(got);
    assert_non_null(strstr(err.msg, "shuffle 5 map 9 reduce 0 from the fallback storage"));
    cs_fallback_storage_free(fb);
    cs_conf_free(c);
}

static void test_bad_or_no_path(void **state)
{
    (void)state;
    cs_error err = {0};
    cs_fallback_storage *fb = NULL;
    cs_conf *c = conf_with("file:/tmp/no-separator", NULL);
    assert_int_equal(cs_fallback_storage_open(c, "app-3", &fb, &err), CS_EINVAL);
    assert_null(fb);
    assert_string_equal(err.msg,
                        "invalid value for spark.storage.decommission.fallbackStorage.path: "
                        "'file:/tmp/no-separator' (Path should end with separator.)");
    cs_conf_free(c);
    c = conf_with(NULL, "true");
    assert_int_equal(cs_fallback_storage_open(c, "app-3", &fb, &err), 0);
    assert_null(fb);
    assert_int_equal(cs_fallback_storage_clean_up(c, "app-3", &err), 0);
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_copy_and_read_back),
        cmocka_unit_test(test_missing_output_fails),
        cmocka_unit_test(test_bad_or_no_path),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
