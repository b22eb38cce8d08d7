/*
 * test_shuffle_recovery.c — an executor taking over the shuffle files an earlier executor of its
 * application left on a reused volume (src/exec/shuffle_recovery.c). Beside the new executor's
 * directory: an earlier executor's directory marked with the same application id, holding two
 * complete outputs (one with empty blocks), an output whose index disagrees with its data file, an
 * output without its data file and a spill file; another application's executor directory; a
 * directory of the same application not named like an executor's. The complete outputs move (with
 * their sizes reported exactly as the index gives them), the rest of the earlier directory is
 * removed, the other application's, a live executor's (its marker locked) and the foreign
 * directory are untouched. An output found in
 * two earlier directories is taken once. Off unless spark.shuffle.sort.io.plugin.class names
 * Spark's KubernetesLocalDiskShuffleDataIO.
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
#include "exec/shuffle_recovery.h"
#include "shuffle/shuffle.h"

static char g_parent[256];

static void path_of(char *buf, size_t cap, const char *dir, const char *name)
{
    snprintf(buf, cap, "%s/%s/%s", g_parent, dir, name);
}

static void write_bytes(const char *path, const void *data, size_t len);

/* A local directory marked for app, by this process (live: its lock held) or as an executor
 * gone would have left it. */
static void make_dir(const char *dir, const char *app, int live)
{
    char p[512], m[600];
    snprintf(p, sizeof p, "%s/%s", g_parent, dir);
    assert_int_equal(mkdir(p, 0755), 0);
    if (live) {
        assert_int_equal(cs_shuffle_recovery_mark(p, app, NULL), 0);
    } else {
        snprintf(m, sizeof m, "%s/.cspark-app-id", p);
        write_bytes(m, app, strlen(app));
    }
}

static void write_bytes(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* An output whose reduce blocks have the given sizes; data_len overrides the data file's size
 * (< 0: the sum), no_data leaves the data file out. */
static void write_output(const char *dir, int sid, int mid, const uint64_t *sizes, int n,
                         long data_len, int no_data)
{
    char d[512], ix[512], base[512];
    snprintf(base, sizeof base, "%s/%s", g_parent, dir);
    cs_shuffle_file_paths(base, sid, mid, d, ix, sizeof d);
    uint8_t idx[8 * 64] = {0};
    uint64_t off = 0;
    for (int i = 0; i <= n; i++) {
        for (int b = 0; b < 8; b++)
            idx[i * 8 + b] = (uint8_t)(off >> (56 - 8 * b));
        if (i < n) off += sizes[i];
    }
    write_bytes(ix, idx, (size_t)(n + 1) * 8);
    if (no_data) return;
    size_t len = data_len >= 0 ? (size_t)data_len : (size_t)off;
    char *data = calloc(1, len + 1);
    write_bytes(d, data, len);
    free(data);
}

static int exists(const char *dir, const char *name)
{
    char p[512];
    path_of(p, sizeof p, dir, name);
    return access(p, F_OK) == 0;
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_parent, sizeof g_parent, "/tmp/cspark-recovery-test-XXXXXX");
    assert_non_null(mkdtemp(g_parent));
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cs_remove_tree(g_parent);
    return 0;
}

static const cs_map_status *find(const cs_map_status *outs, int n, int sid, int mid)
{
    for (int i = 0; i < n; i++)
        if (outs[i].shuffle_id == sid && outs[i].map_id == mid) return &outs[i];
    return NULL;
}

static void test_recover(void **state)
{
    (void)state;
    make_dir("cspark-executor-3-new", "app-1", 1);
    make_dir("cspark-executor-1-old", "app-1", 0);
    make_dir("cspark-executor-2-older", "app-1", 0);
    make_dir("cspark-executor-4-alive", "app-1", 1); /* a running executor sharing the parent */
    make_dir("cspark-executor-7-other", "app-2", 0);
    make_dir("not-an-executor", "app-1", 0);
    const uint64_t a[3] = {10, 0, 300}, b[2] = {5, 7};
    write_output("cspark-executor-1-old", 0, 2, a, 3, -1, 0);
    write_output("cspark-executor-1-old", 1, 0, b, 2, -1, 0);
    write_output("cspark-executor-1-old", 0, 3, a, 3, 200, 0); /* index beyond the data */
    write_output("cspark-executor-1-old", 0, 4, b, 2, -1, 1);  /* no data file */
    char spill[512];
    path_of(spill, sizeof spill, "cspark-executor-1-old", "spill-0001");
    write_bytes(spill, "x", 1);
    write_output("cspark-executor-2-older", 0, 2, a, 3, -1, 0); /* the same output again */
    write_output("cspark-executor-7-other", 0, 1, a, 3, -1, 0);
    write_output("cspark-executor-4-alive", 2, 0, a, 3, -1, 0);
    write_output("not-an-executor", 0, 0, a, 3, -1, 0);

    char own[512];
    snprintf(own, sizeof own, "%s/cspark-executor-3-new", g_parent);
    cs_map_status *outs = NULL;
    int n = cs_shuffle_recover(own, "app-1", &cs_map_status_default_opts, &outs);
    assert_int_equal(n, 2);
    const cs_map_status *s02 = find(outs, n, 0, 2), *s10 = find(outs, n, 1, 0);
    assert_non_null(s02);
    assert_non_null(s10);
    assert_int_equal(s02->num_reduces, 3);
    assert_int_equal(cs_map_status_size(s02, 0), 10);
    assert_int_equal(cs_map_status_size(s02, 1), 0);
    assert_true(cs_map_status_size(s02, 2) >= 270 && cs_map_status_size(s02, 2) <= 330);
    assert_int_equal(s02->bytes_written, 310);
    assert_int_equal(s10->num_reduces, 2);
    assert_int_equal(s10->executor_id[0], '\0'); /* the caller's to fill */
    /* moved into the new directory, servable as a map task's files */
    uint64_t off = 0, len = 0;
    assert_int_equal(cs_shuffle_index_read(own, 0, 2, 2, &off, &len, NULL), 0);
    assert_int_equal(off, 10);
    assert_int_equal(len, 300);
    assert_true(exists("cspark-executor-3-new", "shuffle_1_0_0.data"));
    assert_false(exists("cspark-executor-3-new", "shuffle_0_3_0.index"));
    assert_false(exists("cspark-executor-3-new", "shuffle_0_4_0.index"));
    /* the earlier directories are gone, the others untouched */
    assert_false(exists("cspark-executor-1-old", ""));
    assert_false(exists("cspark-executor-2-older", ""));
    assert_true(exists("cspark-executor-7-other", "shuffle_0_1_0.index"));
    assert_true(exists("cspark-executor-4-alive", "shuffle_2_0_0.index"));
    assert_true(exists("not-an-executor", "shuffle_0_0_0.index"));
    for (int i = 0; i < n; i++)
        cs_map_status_free(&outs[i]);
    free(outs);
    /* nothing left to take */
    n = cs_shuffle_recover(own, "app-1", &cs_map_status_default_opts, &outs);
    assert_int_equal(n, 0);
    free(outs);
}

static void test_enabled_by_plugin_class(void **state)
{
    (void)state;
    cs_conf *c = cs_conf_new();
    assert_false(cs_shuffle_recovery_enabled(c));
    cs_conf_set(c, "spark.shuffle.sort.io.plugin.class",
                "org.apache.spark.shuffle.sort.io.LocalDiskShuffleDataIO");
    assert_false(cs_shuffle_recovery_enabled(c));
    cs_conf_set(c, "spark.shuffle.sort.io.plugin.class", CS_SHUFFLE_IO_K8S_LOCAL_DISK);
    assert_true(cs_shuffle_recovery_enabled(c));
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_recover, setup, teardown),
        cmocka_unit_test(test_enabled_by_plugin_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
