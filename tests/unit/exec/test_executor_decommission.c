/*
 * test_executor_decommission.c — the executor side of decommissioning against a scripted driver
 * (an rpc endpoint in this test): a real cs_executor_run registers, the driver's
 * DecommissionExecutor is answered with ExecutorDrained (no task: at once), a MigrateShuffle of
 * outputs held by a "leaving" executor (a block server over a directory written with
 * shuffle_writer) is answered with ShuffleMigrated naming the copied outputs with their source
 * and the one that could not be copied, the copies are byte-identical in the executor's local
 * dir; a MigrateRddBlocks of a cached partition the leaving executor's block manager serves and
 * one it does not hold is answered with RddBlocksMigrated (the stored block's status, the missing
 * one failed) and the executor's block server then serves the same bytes; and StopExecutor ends
 * cs_executor_run with 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <libgen.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "records/batch.h"
#include "common/conf.h"
#include "common/fsutil.h"
#include "blocktransfer/block_fetcher.h"
#include "blocktransfer/block_server.h"
#include "exec/executor.h"
#include "storage/block_manager.h"
#include "storage/memory_store.h"
#include "shuffle/memory.h"
#include "shuffle/shuffle.h"

#define NRED 6

typedef struct fake_driver {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    rpc_conn *exec; /* referenced once registered */
    char app_file[PATH_MAX];
    char local_dir[256];
    int drained;
    int migrated_msgs;
    int n_migrated, n_failed;
    char migrated_from[64];
    char error[512];
    int block_port; /* the executor's block server */
    int rdd_msgs, rdd_migrated, rdd_failed;
    Cspark__BlockStatus rdd_status; /* the first migrated block's */
    char rdd_source[64];
} fake_driver;

static void reply_config(fake_driver *d, rpc_conn *c, uint64_t id)
{
    Cspark__ConfEntry e1 = CSPARK__CONF_ENTRY__INIT, e2 = CSPARK__CONF_ENTRY__INIT;
    e1.key = "spark.decommission.enabled";
    e1.value = "true";
    e2.key = "spark.local.dir";
    e2.value = d->local_dir;
    Cspark__ConfEntry *entries[] = {&e1, &e2};
    Cspark__SparkAppConfig ac = CSPARK__SPARK_APP_CONFIG__INIT;
    ac.n_conf = 2;
    ac.conf = entries;
    ac.app_id = "app-decom";
    ac.app_file = d->app_file;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_APP_CONFIG;
    env.app_config = &ac;
    cs_rpc_reply(c, id, &env);
}

static void on_message(void *arg, rpc_conn *c, const Cspark__Envelope *msg)
{
    fake_driver *d = arg;
    switch (msg->body_case) {
    case CSPARK__ENVELOPE__BODY_RETRIEVE_APP_CONFIG:
        reply_config(d, c, msg->request_id);
        return;
    case CSPARK__ENVELOPE__BODY_REGISTER_EXECUTOR: {
        Cspark__RegisteredExecutor re = CSPARK__REGISTERED_EXECUTOR__INIT;
        Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
        env.body_case = CSPARK__ENVELOPE__BODY_REGISTERED_EXECUTOR;
        env.registered_executor = &re;
        cs_rpc_conn_ref(c);
        pthread_mutex_lock(&d->lock);
        d->exec = c;
        d->block_port = msg->register_executor->block_port;
        pthread_mutex_unlock(&d->lock);
        cs_rpc_reply(c, msg->request_id, &env);
        break;
    }
    case CSPARK__ENVELOPE__BODY_EXECUTOR_DRAINED:
        pthread_mutex_lock(&d->lock);
        d->drained++;
        pthread_mutex_unlock(&d->lock);
        break;
    case CSPARK__ENVELOPE__BODY_SHUFFLE_MIGRATED: {
        const Cspark__ShuffleMigrated *sm = msg->shuffle_migrated;
        pthread_mutex_lock(&d->lock);
        d->migrated_msgs++;
        d->n_migrated = (int)sm->n_migrated;
        d->n_failed = (int)sm->n_failed;
        if (sm->n_migrated)
            snprintf(d->migrated_from, sizeof d->migrated_from, "%s", sm->migrated[0]->executor_id);
        snprintf(d->error, sizeof d->error, "%s", sm->error ? sm->error : "");
        pthread_mutex_unlock(&d->lock);
        break;
    }
    case CSPARK__ENVELOPE__BODY_RDD_BLOCKS_MIGRATED: {
        const Cspark__RddBlocksMigrated *rm = msg->rdd_blocks_migrated;
        pthread_mutex_lock(&d->lock);
        d->rdd_msgs++;
        d->rdd_migrated = (int)rm->n_migrated;
        d->rdd_failed = (int)rm->n_failed;
        if (rm->n_migrated) d->rdd_status = *rm->migrated[0];
        snprintf(d->rdd_source, sizeof d->rdd_source, "%s", rm->source_executor_id);
        pthread_mutex_unlock(&d->lock);
        break;
    }
    default:
        return; /* heartbeats */
    }
    pthread_mutex_lock(&d->lock);
    pthread_cond_broadcast(&d->cond);
    pthread_mutex_unlock(&d->lock);
}

static void send_to(rpc_conn *c, Cspark__Envelope *env)
{
    assert_int_equal(cs_rpc_send(c, env), 0);
}

typedef struct run_arg {
    executor_options opt;
    int rc;
} run_arg;

static void *run_executor(void *arg)
{
    run_arg *r = arg;
    r->rc = cs_executor_run(&r->opt);
    return NULL;
}

static void write_output(const char *dir, int m, cs_map_status *st)
{
    cs_partitioner p = {.kind = PART_HASH, .num_partitions = NRED};
    cs_error err = {0};
    cs_task_memory mem;
    cs_task_memory_init(&mem, 64 * CS_MiB);
    shuffle_write_spec spec = {
        .shuffle_id = 5, .map_id = m, .partitioner = &p, .compress = true, .dir = dir, .mem = &mem};
    shuffle_writer *w = cs_shuffle_writer_new(&spec, &err);
    assert_non_null(w);
    cs_batch b;
    cs_batch_init(&b);
    for (int i = 0; i < 3000; i++) {
        char key[32];
        int kl = snprintf(key, sizeof key, "key-%d-%d", m, i);
        cs_batch_append_record(&b, key, (uint32_t)kl, "value", 5);
    }
    assert_int_equal(cs_shuffle_writer_write(w, &b, &err), 0);
    cs_batch_free(&b);
    assert_int_equal(cs_shuffle_writer_commit(w, st, &err), 0);
    cs_shuffle_writer_free(w);
}

static int serve_cached(void *arg, int rdd_id, int partition, uint8_t **data, size_t *len,
                        cs_error *err)
{
    return cs_block_manager_get_bytes(arg, rdd_id, partition, data, len, err);
}

/* rdd_7_0 in bm: 2000 records, stored in memory. */
static void cache_block(block_manager *bm)
{
    block_writer *w = cs_block_manager_writer(bm, 7, 0, CSPARK_MEMORY_ONLY);
    cs_batch b;
    cs_batch_init(&b);
    for (int i = 0; i < 2000; i++) {
        char key[32];
        int kl = snprintf(key, sizeof key, "cached-%d", i);
        cs_batch_append_record(&b, key, (uint32_t)kl, "v", 1);
    }
    cs_block_writer_add(w, &b);
    cs_batch_free(&b);
    cs_block_status st;
    assert_true(cs_block_writer_commit(w, &st));
}

/* The executor's local dir: the one entry under d->local_dir. */
static void executor_dir(const fake_driver *d, char *out, size_t cap)
{
    DIR *dir = opendir(d->local_dir);
    assert_non_null(dir);
    struct dirent *e;
    out[0] = 0;
    while ((e = readdir(dir)))
        if (strncmp(e->d_name, "cspark-executor-9", 17) == 0)
            snprintf(out, cap, "%s/%s", d->local_dir, e->d_name);
    closedir(dir);
    assert_true(out[0] != 0);
}

static void test_decommission_drain_migrate_stop(void **state)
{
    (void)state;
    static fake_driver d;
    memset(&d, 0, sizeof d);
    pthread_mutex_init(&d.lock, NULL);
    pthread_cond_init(&d.cond, NULL);
    /* the job .so the executor loads: the test jobs built next to this test */
    unsetenv("SPARK_LOCAL_DIRS"); /* spark.local.dir below decides */
    char self[PATH_MAX] = {0};
    assert_true(readlink("/proc/self/exe", self, sizeof self - 1) > 0);
    snprintf(d.app_file, sizeof d.app_file, "%s/jobs/testjobs.so", dirname(self));
    snprintf(d.local_dir, sizeof d.local_dir, "/tmp/cspark-decom-exec-XXXXXX");
    assert_non_null(mkdtemp(d.local_dir));
    char leaving[256];
    snprintf(leaving, sizeof leaving, "/tmp/cspark-decom-leaving-XXXXXX");
    assert_non_null(mkdtemp(leaving));

    cs_error err = {0};
    rpc_options ro = {.name = "driver", .app_id = "app-decom"};
    rpc_handlers h = {.on_message = on_message, .arg = &d};
    rpc_endpoint *ep = cs_rpc_endpoint_new(&ro, &h, &err);
    assert_non_null(ep);
    int port = 0;
    assert_int_equal(cs_rpc_listen(ep, "127.0.0.1", 0, &port, &err), 0);

    /* the leaving executor's outputs and block server */
    cs_map_status st[2];
    for (int m = 0; m < 2; m++)
        write_output(leaving, m, &st[m]);
    rpc_options bo = {.name = "block-server", .app_id = "app-decom"};
    int bport = 0;
    block_server *bs = cs_block_server_start("127.0.0.1", leaving, &bo, &bport, &err);
    assert_non_null(bs);
    block_manager_options bmo = {.local_dir = leaving, .executor_memory = 64 * CS_MiB, .slots = 1};
    assert_int_equal(cs_block_manager_options_read(NULL, &bmo, &err), 0);
    block_manager *bm = cs_block_manager_new(&bmo);
    cache_block(bm);
    cs_block_server_serve_rdd_blocks(bs, serve_cached, bm);

    char url[128];
    snprintf(url, sizeof url, "spark://CoarseGrainedScheduler@127.0.0.1:%d", port);
    run_arg ra = {.opt = {.driver_url = url,
                          .executor_id = "9",
                          .hostname = "127.0.0.1",
                          .app_id = "app-decom",
                          .cores = 1}};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, run_executor, &ra), 0);

    pthread_mutex_lock(&d.lock);
    while (!d.exec)
        pthread_cond_wait(&d.cond, &d.lock);
    pthread_mutex_unlock(&d.lock);

    /* the driver decommissions it: nothing runs, so it is drained at once */
    Cspark__DecommissionExecutor de = CSPARK__DECOMMISSION_EXECUTOR__INIT;
    de.executor_id = "9";
    de.reason = "idle executor";
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_DECOMMISSION_EXECUTOR;
    env.decommission_executor = &de;
    send_to(d.exec, &env);
    pthread_mutex_lock(&d.lock);
    while (!d.drained)
        pthread_cond_wait(&d.cond, &d.lock);
    pthread_mutex_unlock(&d.lock);

    /* as a live peer: copy two outputs of the leaving executor, and one it does not have */
    Cspark__MapStatus pbs[3], *pbp[3];
    for (int i = 0; i < 3; i++) {
        cspark__map_status__init(&pbs[i]);
        const cs_map_status *s = &st[i < 2 ? i : 1];
        pbs[i].shuffle_id = 5;
        pbs[i].map_id = i;
        pbs[i].num_reduces = s->num_reduces;
        pbs[i].sizes_kind = s->sizes_kind;
        pbs[i].blocks.data = s->blocks;
        pbs[i].blocks.len = cs_map_status_blocks_len(s->sizes_kind, s->num_reduces);
        pbs[i].executor_id = "leaving-1";
        pbs[i].host = "127.0.0.1";
        pbs[i].port = bport;
        pbp[i] = &pbs[i];
    }
    Cspark__MigrateShuffle ms = CSPARK__MIGRATE_SHUFFLE__INIT;
    ms.n_outputs = 3;
    ms.outputs = pbp;
    env.body_case = CSPARK__ENVELOPE__BODY_MIGRATE_SHUFFLE;
    env.migrate_shuffle = &ms;
    send_to(d.exec, &env);
    pthread_mutex_lock(&d.lock);
    while (!d.migrated_msgs)
        pthread_cond_wait(&d.cond, &d.lock);
    pthread_mutex_unlock(&d.lock);
    assert_int_equal(d.n_migrated, 2);
    assert_int_equal(d.n_failed, 1);
    assert_string_equal(d.migrated_from, "leaving-1");
    assert_non_null(strstr(d.error, "map 2"));

    /* the copies are in the executor's local dir, identical */
    char xdir[512];
    executor_dir(&d, xdir, sizeof xdir);
    shuffle_block_source a = cs_shuffle_local_source(leaving), b = cs_shuffle_local_source(xdir);
    for (int m = 0; m < 2; m++)
        for (int r = 0; r < NRED; r++) {
            uint8_t *x = NULL, *y = NULL;
            size_t xl = 0, yl = 0;
            assert_int_equal(a.fetch(a.arg, &st[m], r, &x, &xl, &err), 0);
            assert_int_equal(b.fetch(b.arg, &st[m], r, &y, &yl, &err), 0);
            assert_int_equal(xl, yl);
            if (xl) assert_memory_equal(x, y, xl);
            free(x);
            free(y);
        }

    /* as a live peer: store a cached partition of the leaving executor, and one it does not hold */
    Cspark__CachedBlock cbs[2], *cbp[2];
    int32_t levels[2] = {CSPARK_MEMORY_ONLY, CSPARK_MEMORY_ONLY};
    for (int i = 0; i < 2; i++) {
        cspark__cached_block__init(&cbs[i]);
        cbs[i].rdd_id = 7;
        cbs[i].partition = i;
        cbs[i].executor_id = "leaving-1";
        cbs[i].host = "127.0.0.1";
        cbs[i].port = bport;
        cbp[i] = &cbs[i];
    }
    Cspark__MigrateRddBlocks mr = CSPARK__MIGRATE_RDD_BLOCKS__INIT;
    mr.n_blocks = mr.n_storage_levels = 2;
    mr.blocks = cbp;
    mr.storage_levels = levels;
    env.body_case = CSPARK__ENVELOPE__BODY_MIGRATE_RDD_BLOCKS;
    env.migrate_rdd_blocks = &mr;
    send_to(d.exec, &env);
    pthread_mutex_lock(&d.lock);
    while (!d.rdd_msgs)
        pthread_cond_wait(&d.cond, &d.lock);
    pthread_mutex_unlock(&d.lock);
    assert_int_equal(d.rdd_migrated, 1);
    assert_int_equal(d.rdd_failed, 1);
    assert_string_equal(d.rdd_source, "leaving-1");
    assert_int_equal(d.rdd_status.rdd_id, 7);
    assert_int_equal(d.rdd_status.partition, 0);
    assert_int_equal(d.rdd_status.storage_level, CSPARK_MEMORY_ONLY);
    assert_true(d.rdd_status.memory_size > 0);
    /* the executor serves the block now: the leaving executor's records, in order */
    rpc_options fo = {.name = "fetcher", .app_id = "app-decom"};
    cs_conf *fconf = cs_conf_new();
    block_fetcher *f = cs_block_fetcher_new("test", NULL, &fo, fconf, &err);
    assert_non_null(f);
    uint8_t *want = NULL, *got = NULL;
    size_t nwant = 0, ngot = 0;
    assert_int_equal(cs_block_manager_get_bytes(bm, 7, 0, &want, &nwant, &err), 0);
    assert_int_equal(cs_block_fetcher_fetch_rdd_block(f, "127.0.0.1", d.block_port, "9", 7, 0, &got,
                                                      &ngot, &err),
                     0);
    cs_block_data dw = {0}, dg = {0};
    assert_int_equal(cs_block_data_decode(want, nwant, &dw, &err), 0);
    assert_int_equal(cs_block_data_decode(got, ngot, &dg, &err), 0);
    assert_int_equal(dg.records, dw.records);
    assert_int_equal(dg.records, 2000);
    cs_batch all_w, all_g;
    cs_batch_init(&all_w);
    cs_batch_init(&all_g);
    for (int i = 0; i < dw.n; i++)
        cs_batch_append_batch(&all_w, &dw.batches[i]);
    for (int i = 0; i < dg.n; i++)
        cs_batch_append_batch(&all_g, &dg.batches[i]);
    for (size_t i = 0; i < all_w.n; i++) {
        cspark_record a = batch_get(&all_w, i), b = batch_get(&all_g, i);
        assert_int_equal(a.key.len, b.key.len);
        assert_memory_equal(a.key.ptr, b.key.ptr, a.key.len);
    }
    cs_batch_free(&all_w);
    cs_batch_free(&all_g);
    cs_block_data_free(&dw);
    cs_block_data_free(&dg);
    free(want);
    free(got);
    cs_block_fetcher_free(f);
    cs_conf_free(fconf);

    Cspark__StopExecutor stop = CSPARK__STOP_EXECUTOR__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_STOP_EXECUTOR;
    env.stop_executor = &stop;
    send_to(d.exec, &env);
    pthread_join(th, NULL);
    assert_int_equal(ra.rc, 0);
    assert_int_equal(d.drained, 1);

    cs_rpc_conn_unref(d.exec);
    cs_rpc_endpoint_free(ep);
    cs_block_server_stop(bs);
    cs_block_manager_free(bm);
    for (int m = 0; m < 2; m++)
        cs_map_status_free(&st[m]);
    cs_remove_tree(leaving);
    cs_remove_tree(d.local_dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decommission_drain_migrate_stop),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
