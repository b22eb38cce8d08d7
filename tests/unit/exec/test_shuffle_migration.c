/*
 * test_shuffle_migration.c — copying a map output from a decommissioning executor
 * (src/exec/shuffle_migration.c): real outputs written with shuffle_writer in a source
 * directory are migrated into a target directory, through the local source and through a real
 * block server + block fetcher over loopback; every reduce segment read back from the target
 * (index and bytes) equals the source's, and empty blocks are not fetched. A block of the wrong
 * size, a block damaged on the wire (checksum), a status that disagrees with the index, a
 * failing source and a cancelled copy each fail cleanly, leaving no file in the target. The
 * migrator thread reports copied and failed outputs of one request together, in submit order.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "records/batch.h"
#include "common/conf.h"
#include "blocktransfer/block_fetcher.h"
#include "blocktransfer/block_server.h"
#include "exec/shuffle_migration.h"
#include "shuffle/memory.h"
#include "shuffle/shuffle.h"

#define NMAPS 2
#define NRED 12 /* more partitions than keys of map 1: some of its blocks are empty */

static char g_src[256], g_dst[256];
static cs_map_status g_st[NMAPS];

static void write_output(int m, int nkeys, int nrec)
{
    cs_partitioner p = {.kind = PART_HASH, .num_partitions = NRED};
    cs_error err = {0};
    cs_task_memory mem;
    cs_task_memory_init(&mem, 256 * CS_MiB);
    shuffle_write_spec spec = {.shuffle_id = 3,
                               .map_id = m,
                               .attempt_id = m,
                               .partitioner = &p,
                               .compress = m == 0,
                               .checksum = m == 0 ? CS_CHECKSUM_XXH3 : CS_CHECKSUM_CRC32,
                               .dir = g_src,
                               .mem = &mem};
    shuffle_writer *w = cs_shuffle_writer_new(&spec, &err);
    assert_non_null(w);
    cs_batch b;
    cs_batch_init(&b);
    for (int i = 0; i < nrec; i++) {
        char key[32], val[64];
        int kl = snprintf(key, sizeof key, "key-%d", i % nkeys);
        int vl = snprintf(val, sizeof val, "value-%d-%d-abcdefghijklmnopqrstuvwxyz", m, i);
        cs_batch_append_record(&b, key, (uint32_t)kl, val, (uint32_t)vl);
        if (batch_full(&b)) {
            assert_int_equal(cs_shuffle_writer_write(w, &b, &err), 0);
            cs_batch_reset(&b);
        }
    }
    assert_int_equal(cs_shuffle_writer_write(w, &b, &err), 0);
    cs_batch_free(&b);
    assert_int_equal(cs_shuffle_writer_commit(w, &g_st[m], &err), 0);
    cs_shuffle_writer_free(w);
    snprintf(g_st[m].executor_id, sizeof g_st[m].executor_id, "leaving-1");
    snprintf(g_st[m].host, sizeof g_st[m].host, "127.0.0.1");
}

static void empty_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char p[512];
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        unlink(p);
    }
    if (d) closedir(d);
}

static int count_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    if (d) closedir(d);
    return n;
}

static int setup(void **state)
{
    (void)state;
    snprintf(g_src, sizeof g_src, "/tmp/cspark-migr-src-XXXXXX");
    snprintf(g_dst, sizeof g_dst, "/tmp/cspark-migr-dst-XXXXXX");
    if (!mkdtemp(g_src) || !mkdtemp(g_dst)) return -1;
    write_output(0, 5000, 40000);
    write_output(1, 5, 100);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    empty_dir(g_src);
    empty_dir(g_dst);
    rmdir(g_src);
    rmdir(g_dst);
    for (int m = 0; m < NMAPS; m++)
        cs_map_status_free(&g_st[m]);
    return 0;
}

static int per_test_clean(void **state)
{
    (void)state;
    empty_dir(g_dst);
    return 0;
}

/* A source that forwards to another and counts fetches; with `short_by` (a percentage), it
 * returns every block that much shorter (map statuses give sizes within 10%); with `fail_at` >= 0
 * the fetch of that reduce id fails; with `flip_at` >= 0 that reduce id's block arrives with one
 * bit flipped in its middle (damaged on the wire). */
typedef struct wrap {
    shuffle_block_source inner;
    int fetches;
    size_t short_by;
    int fail_at;
    int flip_at;
} wrap;

static int wrap_fetch(void *arg, const cs_map_status *st, int reduce_id, uint8_t **out, size_t *len,
                      cs_error *err)
{
    wrap *w = arg;
    w->fetches++;
    if (reduce_id == w->fail_at) return cs_error_set(err, CS_EIO, "peer went away");
    int rc = w->inner.fetch(w->inner.arg, st, reduce_id, out, len, err);
    if (rc == 0) *len -= *len * w->short_by / 100;
    if (rc == 0 && reduce_id == w->flip_at && *len > 0) (*out)[*len / 2] ^= 0x10;
    return rc;
}

static shuffle_block_source wrap_source(wrap *w)
{
    shuffle_block_source s = {.fetch = wrap_fetch, .arg = w};
    return s;
}

/* Every segment of map m in g_dst equals the one in g_src (index entries and bytes). */
static void assert_same_output(int m)
{
    cs_error err = {0};
    shuffle_block_source a = cs_shuffle_local_source(g_src), b = cs_shuffle_local_source(g_dst);
    for (int r = 0; r < NRED; r++) {
        uint64_t ao, al, bo, bl;
        assert_int_equal(cs_shuffle_index_read(g_src, 3, m, r, &ao, &al, &err), 0);
        assert_int_equal(cs_shuffle_index_read(g_dst, 3, m, r, &bo, &bl, &err), 0);
        assert_int_equal(ao, bo);
        assert_int_equal(al, bl);
        uint8_t *x = NULL, *y = NULL;
        size_t xl = 0, yl = 0;
        assert_int_equal(a.fetch(a.arg, &g_st[m], r, &x, &xl, &err), 0);
        assert_int_equal(b.fetch(b.arg, &g_st[m], r, &y, &yl, &err), 0);
        assert_int_equal(xl, yl);
        if (xl) assert_memory_equal(x, y, xl);
        free(x);
        free(y);
    }
    /* and nothing past the last partition */
    uint64_t o, l;
    assert_int_not_equal(cs_shuffle_index_read(g_dst, 3, m, NRED, &o, &l, &err), 0);
}

static int nonempty_blocks(int m)
{
    int n = 0;
    for (int r = 0; r < NRED; r++)
        n += !cs_map_status_block_empty(&g_st[m], r);
    return n;
}

static void test_migrated_output_equals_source(void **state)
{
    (void)state;
    cs_error err = {0};
    assert_true(nonempty_blocks(1) < NRED); /* the test covers empty blocks */
    for (int m = 0; m < NMAPS; m++) {
        wrap w = {.inner = cs_shuffle_local_source(g_src), .fail_at = -1, .flip_at = -1};
        shuffle_block_source src = wrap_source(&w);
        assert_int_equal(cs_shuffle_migrate_output(&src, &g_st[m], g_dst, NULL, &err), 0);
        assert_int_equal(w.fetches, nonempty_blocks(m)); /* empty blocks are not fetched */
        assert_same_output(m);
    }
    assert_int_equal(count_files(g_dst), 2 * NMAPS); /* data + index each, no temp file */
}

static void test_migration_replaces_existing_output(void **state)
{
    (void)state;
    cs_error err = {0};
    shuffle_block_source src = cs_shuffle_local_source(g_src);
    assert_int_equal(cs_shuffle_migrate_output(&src, &g_st[0], g_dst, NULL, &err), 0);
    assert_int_equal(cs_shuffle_migrate_output(&src, &g_st[0], g_dst, NULL, &err), 0);
    assert_same_output(0);
    assert_int_equal(count_files(g_dst), 2);
}

static void test_wrong_size_block_fails_leaving_no_files(void **state)
{
    (void)state;
    cs_error err = {0};
    wrap w = {
        .inner = cs_shuffle_local_source(g_src), .short_by = 50, .fail_at = -1, .flip_at = -1};
    shuffle_block_source src = wrap_source(&w);
    assert_int_equal(cs_shuffle_migrate_output(&src, &g_st[0], g_dst, NULL, &err), CS_EPROTO);
    assert_non_null(strstr(err.msg, "shuffle 3 map 0 reduce 0 from executor leaving-1"));
    assert_non_null(strstr(err.msg, "the map status says"));
    assert_int_equal(w.fetches, 1); /* stops at the first bad block */
    assert_int_equal(count_files(g_dst), 0);
}

/* A block damaged on its way (one bit) is refused by its checksum before anything is written:
 * the copy fails naming the block, no file is left, and the output stays where it was. */
static void test_damaged_block_fails_leaving_no_files(void **state)
{
    (void)state;
    for (int m = 0; m < NMAPS; m++) {
        cs_error err = {0};
        int r = NRED - 1;
        while (r > 0 && cs_map_status_block_empty(&g_st[m], r))
            r--;
        wrap w = {.inner = cs_shuffle_local_source(g_src), .fail_at = -1, .flip_at = r};
        shuffle_block_source src = wrap_source(&w);
        assert_int_equal(cs_shuffle_migrate_output(&src, &g_st[m], g_dst, NULL, &err), CS_EPROTO);
        char where[128];
        snprintf(where, sizeof where, "shuffle 3 map %d reduce %d from executor leaving-1", m, r);
        assert_non_null(strstr(err.msg, where));
        assert_non_null(strstr(err.msg, "checksum mismatch"));
        assert_int_equal(count_files(g_dst), 0);
    }
}

static void test_status_disagreeing_with_index_fails(void **state)
{
    (void)state;
    cs_error err = {0};
    cs_map_status st = g_st[0];
    uint64_t sizes[NRED];
    for (int r = 0; r < NRED; r++) {
        uint64_t off = 0;
        assert_int_equal(
            cs_shuffle_index_read(g_src, st.shuffle_id, st.map_id, r, &off, &sizes[r], &err), 0);
    }
    int last = NRED - 1;
    while (last > 0 && sizes[last] == 0)
        last--;
    sizes[last] *= 3; /* the source refuses a status that does not match its index */
    cs_map_status_set_sizes(&st, sizes, NRED, NULL);
    shuffle_block_source src = cs_shuffle_local_source(g_src);
    assert_true(cs_shuffle_migrate_output(&src, &st, g_dst, NULL, &err) < 0);
    assert_int_equal(count_files(g_dst), 0);
    cs_map_status_free(&st);
}

static void test_failing_source_leaves_no_files(void **state)
{
    (void)state;
    cs_error err = {0};
    int r = NRED - 1;
    while (r > 0 && cs_map_status_block_empty(&g_st[0], r))
        r--;
    wrap w = {.inner = cs_shuffle_local_source(g_src), .fail_at = r, .flip_at = -1};
    shuffle_block_source src = wrap_source(&w);
    assert_int_equal(cs_shuffle_migrate_output(&src, &g_st[0], g_dst, NULL, &err), CS_EIO);
    assert_non_null(strstr(err.msg, "peer went away"));
    assert_int_equal(count_files(g_dst), 0);
}

static void test_cancelled_copy_leaves_no_files(void **state)
{
    (void)state;
    cs_error err = {0};
    atomic_int cancel = 1;
    wrap w = {.inner = cs_shuffle_local_source(g_src), .fail_at = -1, .flip_at = -1};
    shuffle_block_source src = wrap_source(&w);
    assert_int_equal(cs_shuffle_migrate_output(&src, &g_st[0], g_dst, &cancel, &err),
                     CS_ECANCELLED);
    assert_int_equal(w.fetches, 0);
    assert_int_equal(count_files(g_dst), 0);
}

/* The executor's path: blocks come from the leaving executor's block server, through the
 * block fetcher, to the address in the map status. */
static void test_migration_over_the_network(void **state)
{
    (void)state;
    cs_error err = {0};
    rpc_options so = {.name = "block-server", .app_id = "app-m", .secret = "migr-secret"};
    int port = 0;
    block_server *bs = cs_block_server_start("127.0.0.1", g_src, &so, &port, &err);
    assert_non_null(bs);
    rpc_options co = {.name = "peer", .app_id = "app-m", .secret = "migr-secret"};
    cs_conf *conf = cs_conf_new();
    cs_conf_set(conf, "spark.shuffle.io.maxRetries", "1");
    cs_conf_set(conf, "spark.shuffle.io.retryWait", "10ms");
    block_fetcher *f = cs_block_fetcher_new("peer-2", g_dst, &co, conf, &err);
    assert_non_null(f);
    shuffle_block_source src = cs_block_fetcher_source(f);
    for (int m = 0; m < NMAPS; m++) {
        g_st[m].port = port;
        assert_int_equal(cs_shuffle_migrate_output(&src, &g_st[m], g_dst, NULL, &err), 0);
        assert_same_output(m);
    }
    cs_block_fetcher_free(f);
    cs_block_server_stop(bs);
    cs_conf_free(conf);
}

/* ---- the migrator thread ---- */

typedef struct done_log {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int calls;
    int rc[2][4];
    int map_ids[2][4];
    int num[2];
    char error[2][1024];
} done_log;

static void on_done(void *arg, const shuffle_migration *m)
{
    done_log *d = arg;
    pthread_mutex_lock(&d->lock);
    int c = d->calls;
    d->num[c] = m->num_items;
    for (int i = 0; i < m->num_items && i < 4; i++) {
        d->rc[c][i] = m->items[i].rc;
        d->map_ids[c][i] = m->items[i].st.map_id;
    }
    snprintf(d->error[c], sizeof d->error[c], "%s", m->error);
    d->calls++;
    pthread_cond_broadcast(&d->cond);
    pthread_mutex_unlock(&d->lock);
}

static void copy_status(cs_map_status *dst, const cs_map_status *src)
{
    cs_map_status_copy(dst, src);
}

static void test_migrator_reports_each_request(void **state)
{
    (void)state;
    cs_error err = {0};
    done_log d = {.calls = 0};
    pthread_mutex_init(&d.lock, NULL);
    pthread_cond_init(&d.cond, NULL);
    shuffle_block_source local = cs_shuffle_local_source(g_src);
    shuffle_migrator *mg = cs_shuffle_migrator_new(&local, g_dst, "peer-2", on_done, &d, &err);
    assert_non_null(mg);

    /* request 1: map 0 copies; a map the source does not have fails; one arrives failed */
    shuffle_migration *m1 = cs_shuffle_migration_new(3);
    copy_status(&m1->items[0].st, &g_st[0]);
    copy_status(&m1->items[1].st, &g_st[1]);
    m1->items[1].st.map_id = 9;
    copy_status(&m1->items[2].st, &g_st[1]);
    m1->items[2].rc = CS_EPROTO;
    /* request 2: map 1 */
    shuffle_migration *m2 = cs_shuffle_migration_new(1);
    copy_status(&m2->items[0].st, &g_st[1]);
    cs_shuffle_migrator_submit(mg, m1);
    cs_shuffle_migrator_submit(mg, m2);

    pthread_mutex_lock(&d.lock);
    while (d.calls < 2)
        pthread_cond_wait(&d.cond, &d.lock);
    pthread_mutex_unlock(&d.lock);
    cs_shuffle_migrator_free(mg);

    assert_int_equal(d.num[0], 3);
    assert_int_equal(d.rc[0][0], 0);
    assert_true(d.rc[0][1] < 0);
    assert_int_equal(d.rc[0][2], CS_EPROTO);
    assert_non_null(strstr(d.error[0], "shuffle 3 map 9"));
    assert_int_equal(d.num[1], 1);
    assert_int_equal(d.map_ids[1][0], 1);
    assert_int_equal(d.rc[1][0], 0);
    assert_string_equal(d.error[1], "");
    assert_same_output(0);
    assert_same_output(1);
    assert_int_equal(count_files(g_dst), 4);
    pthread_mutex_destroy(&d.lock);
    pthread_cond_destroy(&d.cond);
}

static void test_migrator_free_drops_pending_requests(void **state)
{
    (void)state;
    cs_error err = {0};
    done_log d = {.calls = 0};
    shuffle_block_source local = cs_shuffle_local_source(g_src);
    shuffle_migrator *mg = cs_shuffle_migrator_new(&local, g_dst, "peer-2", on_done, &d, &err);
    assert_non_null(mg);
    cs_shuffle_migrator_free(mg); /* nothing queued: stops at once */
    assert_int_equal(d.calls, 0);
    cs_shuffle_migrator_free(NULL);
    cs_shuffle_migration_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_migrated_output_equals_source, per_test_clean),
        cmocka_unit_test_setup(test_migration_replaces_existing_output, per_test_clean),
        cmocka_unit_test_setup(test_wrong_size_block_fails_leaving_no_files, per_test_clean),
        cmocka_unit_test_setup(test_damaged_block_fails_leaving_no_files, per_test_clean),
        cmocka_unit_test_setup(test_status_disagreeing_with_index_fails, per_test_clean),
        cmocka_unit_test_setup(test_failing_source_leaves_no_files, per_test_clean),
        cmocka_unit_test_setup(test_cancelled_copy_leaves_no_files, per_test_clean),
        cmocka_unit_test_setup(test_migration_over_the_network, per_test_clean),
        cmocka_unit_test_setup(test_migrator_reports_each_request, per_test_clean),
        cmocka_unit_test_setup(test_migrator_free_drops_pending_requests, per_test_clean),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
