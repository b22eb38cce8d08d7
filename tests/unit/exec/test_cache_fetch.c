/*
 * test_cache_fetch.c — a cached partition fetched from the executor holding it (Spark's
 * getRemoteValues): a block manager's blocks (memory and disk) are served by a block server over
 * loopback, with authentication and a frame size small enough to cut a block into several
 * parts, fetched with the block fetcher and decoded to the same records; a block the server does
 * not hold fails the fetch at once with a message naming it (the task then computes it).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/conf.h"
#include "common/fsutil.h"
#include "blocktransfer/block_fetcher.h"
#include "blocktransfer/block_server.h"
#include "storage/block_manager.h"
#include "storage/memory_store.h"

#define SECRET "cache-secret"

static int serve(void *arg, int rdd_id, int partition, uint8_t **data, size_t *len, cs_error *err)
{
    return cs_block_manager_get_bytes(arg, rdd_id, partition, data, len, err);
}

static void put(block_manager *bm, int rdd, int level, int nrec)
{
    block_writer *w = cs_block_manager_writer(bm, rdd, 0, level);
    cs_batch b;
    cs_batch_init(&b);
    for (int i = 0; i < nrec; i++) {
        char k[32], v[200];
        int kl = snprintf(k, sizeof k, "key-%d", i);
        memset(v, 'a' + i % 26, sizeof v);
        cs_batch_append_record(&b, k, (uint32_t)kl, v, sizeof v);
        if (batch_full(&b)) {
            cs_block_writer_add(w, &b);
            cs_batch_reset(&b);
        }
    }
    cs_block_writer_add(w, &b);
    cs_batch_free(&b);
    assert_true(cs_block_writer_commit(w, NULL));
}

static void test_fetch_cached_blocks(void **state)
{
    (void)state;
    char dir[] = "/tmp/cspark-test-cachefetch-XXXXXX";
    assert_non_null(mkdtemp(dir));
    block_manager_options bo = {.local_dir = dir,
                                .executor_memory = 256 << 20,
                                .memory_fraction = 0.6,
                                .storage_fraction = 0.5,
                                .slots = 1,
                                .checksum = CS_CHECKSUM_XXH3};
    block_manager *bm = cs_block_manager_new(&bo);
    put(bm, 4, CSPARK_MEMORY_ONLY, 20000); /* ~4 MB: several 1 MiB parts */
    put(bm, 5, CSPARK_DISK_ONLY, 3000);

    cs_error err = {0};
    rpc_options so = {.name = "bs", .app_id = "app", .secret = SECRET, .max_frame = 2 << 20};
    int port = 0;
    block_server *bs = cs_block_server_start("127.0.0.1", dir, &so, &port, &err);
    assert_non_null(bs);
    cs_block_server_serve_rdd_blocks(bs, serve, bm);
    rpc_options co = {.name = "fetcher", .app_id = "app", .secret = SECRET, .max_frame = 2 << 20};
    cs_conf *conf = cs_conf_new();
    block_fetcher *f = cs_block_fetcher_new("exec-2", NULL, &co, conf, &err);
    assert_non_null(f);

    for (int rdd = 4; rdd <= 5; rdd++) {
        uint8_t *bytes = NULL;
        size_t len = 0;
        assert_int_equal(cs_block_fetcher_fetch_rdd_block(f, "127.0.0.1", port, "exec-1", rdd, 0,
                                                          &bytes, &len, &err),
                         0);
        cs_block_data d = {0};
        assert_int_equal(cs_block_data_decode(bytes, len, &d, &err), 0);
        int want = rdd == 4 ? 20000 : 3000;
        assert_int_equal(d.records, want);
        int i = 0;
        for (int b = 0; b < d.n; b++)
            for (size_t j = 0; j < d.batches[b].n; j++, i++) {
                cspark_record r = batch_get(&d.batches[b], j);
                char k[32];
                int kl = snprintf(k, sizeof k, "key-%d", i);
                assert_int_equal(r.key.len, kl);
                assert_memory_equal(r.key.ptr, k, (size_t)kl);
                assert_int_equal(r.value.len, 200);
                assert_int_equal(r.value.ptr[199], 'a' + i % 26);
            }
        cs_block_data_free(&d);
        free(bytes);
    }
    /* not held there: fails at once, naming the block */
    uint8_t *none = NULL;
    size_t nlen = 0;
    assert_int_equal(
        cs_block_fetcher_fetch_rdd_block(f, "127.0.0.1", port, "exec-1", 4, 9, &none, &nlen, &err),
        CS_EIO);
    assert_non_null(strstr(err.msg, "rdd_4_9"));
    assert_null(none);
    /* an executor declared lost is not asked */
    cs_block_fetcher_executor_lost(f, "exec-1", "killed");
    assert_int_equal(
        cs_block_fetcher_fetch_rdd_block(f, "127.0.0.1", port, "exec-1", 4, 0, &none, &nlen, &err),
        CS_EIO);
    assert_non_null(strstr(err.msg, "lost"));

    cs_block_fetcher_free(f);
    cs_conf_free(conf);
    cs_block_server_stop(bs);
    cs_block_manager_free(bm);
    cs_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fetch_cached_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
