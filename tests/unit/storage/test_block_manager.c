/* test_block_manager.c — the block manager (storage/block_manager.c, memory_store.c,
 * disk_store.c): blocks round-trip at every level; a full memory evicts the least recently used
 * blocks of other RDDs (MEMORY_AND_DISK ones to disk, MEMORY_ONLY ones dropped) and never those
 * of the RDD being stored; a MEMORY_ONLY partition larger than memory is not stored (no failure),
 * a MEMORY_AND_DISK one goes to disk; pinned blocks survive eviction and removal until read;
 * execution memory takes back storage above its region (unified memory); a block file damaged
 * on disk is refused by its checksum; unpersisting frees memory and files; the wire encoding
 * round-trips; every change is queued for the driver. Write locks (issue 20 item 7): a block being
 * computed by one task is waited for by another, which then reads it (or computes it itself when
 * the writer aborted); a wait that would close a cycle, or of the same task, or of a cancelled one
 * is not taken. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/fsutil.h"
#include "cspark.h"
#include "storage/block_manager.h"
#include "storage/disk_store.h"
#include "storage/memory_store.h"

#define KiB 1024

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/cspark-test-bm-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    cs_remove_tree(dir);
    return 0;
}

/* n records "<tag>-<i>" with a value of vlen bytes of i's low byte */
static void fill(cs_batch *b, const char *tag, int first, int n, uint32_t vlen)
{
    cs_batch_reset(b);
    uint8_t v[4096];
    for (int i = first; i < first + n; i++) {
        char k[64];
        int kl = snprintf(k, sizeof k, "%s-%d", tag, i);
        memset(v, i & 0xff, vlen);
        cs_batch_append_record(b, k, (uint32_t)kl, v, vlen);
    }
}

/* Stores rdd_<rdd>_<part> as `batches` batches of 100 records of vlen bytes; returns whether it
 * was stored. */
static bool store(block_manager *bm, int rdd, int part, int level, int batches, uint32_t vlen)
{
    block_writer *w = cs_block_manager_writer(bm, rdd, part, level);
    cs_batch b;
    cs_batch_init(&b);
    for (int i = 0; i < batches; i++) {
        fill(&b, "r", i * 100, 100, vlen);
        cs_block_writer_add(w, &b);
    }
    cs_batch_free(&b);
    return cs_block_writer_commit(w, NULL);
}

/* Reads the block back and checks its records are those store() wrote. */
static void check_block(block_manager *bm, int rdd, int part, int batches, uint32_t vlen)
{
    block_reader *r = cs_block_manager_get(bm, rdd, part);
    assert_non_null(r);
    const cs_batch *b;
    cs_error err;
    int i = 0, rc;
    while ((rc = cs_block_reader_next(r, &b, &err)) > 0) {
        for (size_t j = 0; j < b->n; j++, i++) {
            cspark_record rec = batch_get(b, j);
            char k[64];
            int kl = snprintf(k, sizeof k, "r-%d", i);
            assert_int_equal(rec.key.len, kl);
            assert_memory_equal(rec.key.ptr, k, (size_t)kl);
            assert_int_equal(rec.value.len, vlen);
            if (vlen) assert_int_equal(rec.value.ptr[vlen - 1], i & 0xff);
        }
    }
    assert_int_equal(rc, 0);
    assert_int_equal(i, batches * 100);
    cs_block_reader_free(r);
}

static block_manager *new_bm(int64_t memory, double storage_fraction)
{
    block_manager_options o = {.local_dir = dir,
                               .executor_memory = memory,
                               .memory_fraction = 1.0,
                               .storage_fraction = storage_fraction,
                               .slots = 2,
                               .checksum = CS_CHECKSUM_XXH3};
    return cs_block_manager_new(&o);
}

static int count_level(const cs_block_status *u, int n, int rdd, int part, int level)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        k += u[i].rdd_id == rdd && u[i].partition == part && u[i].level == level;
    return k;
}

static void test_round_trip_every_level(void **state)
{
    (void)state;
    block_manager *bm = new_bm(64 << 20, 0.5);
    assert_true(store(bm, 1, 0, CSPARK_MEMORY_ONLY, 3, 100));
    assert_true(store(bm, 2, 0, CSPARK_MEMORY_AND_DISK, 3, 100));
    assert_true(store(bm, 3, 0, CSPARK_DISK_ONLY, 3, 100));
    assert_true(store(bm, 4, 0, CSPARK_DISK_ONLY, 0, 100)); /* an empty partition */
    for (int rdd = 1; rdd <= 3; rdd++)
        check_block(bm, rdd, 0, 3, 100);
    check_block(bm, 4, 0, 0, 100);
    assert_null(cs_block_manager_get(bm, 1, 1));
    block_manager_usage u;
    cs_block_manager_usage(bm, &u);
    assert_int_equal(u.blocks_in_memory, 3); /* the empty DISK_ONLY one has nothing to write */
    assert_int_equal(u.blocks_on_disk, 1);
    assert_true(u.memory_used > 2 * 300 * 100);
    assert_true(u.disk_used > 300 * 100);
    char path[512];
    cs_disk_store_path(dir, 3, 0, path, sizeof path);
    assert_int_equal(access(path, F_OK), 0);
    cs_block_status *up;
    int n = cs_block_manager_drain_updates(bm, &up);
    assert_int_equal(n, 4);
    assert_int_equal(count_level(up, n, 3, 0, CSPARK_DISK_ONLY), 1);
    assert_int_equal(up[2].memory_size, 0);
    assert_true(up[2].disk_size > 0);
    free(up);
    assert_int_equal(cs_block_manager_drain_updates(bm, &up), 0);
    /* the same block stored again (a retried task) keeps the first */
    assert_false(store(bm, 1, 0, CSPARK_MEMORY_ONLY, 1, 100));
    check_block(bm, 1, 0, 3, 100);
    cs_block_manager_free(bm);
    assert_int_equal(access(path, F_OK), -1); /* files go with the manager */
}

static void test_lru_eviction_and_levels(void **state)
{
    (void)state;
    /* 1 MiB for storage and execution; each block ~ 100 KiB x 4 = ~ 410 KiB */
    block_manager *bm = new_bm(1 << 20, 0.5);
    assert_true(store(bm, 1, 0, CSPARK_MEMORY_ONLY, 4, KiB));
    assert_true(store(bm, 2, 0, CSPARK_MEMORY_AND_DISK, 4, KiB));
    check_block(bm, 1, 0, 4, KiB); /* rdd 1 is now the most recently used */
    cs_block_status *up;
    free(cs_block_manager_drain_updates(bm, &up) ? up : NULL);
    assert_true(store(bm, 3, 0, CSPARK_MEMORY_ONLY, 4, KiB));
    /* rdd 2 went to disk, and reads back from there */
    int n = cs_block_manager_drain_updates(bm, &up);
    assert_int_equal(count_level(up, n, 2, 0, CSPARK_MEMORY_AND_DISK), 1);
    free(up);
    block_manager_usage u;
    cs_block_manager_usage(bm, &u);
    assert_int_equal(u.blocks_in_memory, 2);
    assert_int_equal(u.blocks_on_disk, 1);
    check_block(bm, 2, 0, 4, KiB);
    /* the next one evicts rdd 1 (least recently used now), a MEMORY_ONLY block: dropped */
    assert_true(store(bm, 4, 0, CSPARK_MEMORY_ONLY, 4, KiB));
    assert_null(cs_block_manager_get(bm, 1, 0));
    n = cs_block_manager_drain_updates(bm, &up);
    assert_int_equal(count_level(up, n, 1, 0, CSPARK_STORAGE_NONE), 1);
    free(up);
    cs_block_manager_free(bm);
}

static void test_too_large_and_own_rdd(void **state)
{
    (void)state;
    block_manager *bm = new_bm(1 << 20, 0.5);
    /* ~2 MiB in a 1 MiB pool: MEMORY_ONLY gives up (no failure), MEMORY_AND_DISK goes to disk */
    assert_false(store(bm, 1, 0, CSPARK_MEMORY_ONLY, 20, KiB));
    block_manager_usage u;
    cs_block_manager_usage(bm, &u);
    assert_int_equal(u.memory_used, 0);
    assert_null(cs_block_manager_get(bm, 1, 0));
    assert_true(store(bm, 2, 0, CSPARK_MEMORY_AND_DISK, 20, KiB));
    cs_block_manager_usage(bm, &u);
    assert_int_equal(u.memory_used, 0);
    assert_int_equal(u.blocks_on_disk, 1);
    check_block(bm, 2, 0, 20, KiB);
    /* partitions of one RDD never evict each other: the third does not fit */
    assert_true(store(bm, 5, 0, CSPARK_MEMORY_ONLY, 4, KiB));
    assert_true(store(bm, 5, 1, CSPARK_MEMORY_ONLY, 4, KiB));
    assert_false(store(bm, 5, 2, CSPARK_MEMORY_ONLY, 4, KiB));
    check_block(bm, 5, 0, 4, KiB);
    check_block(bm, 5, 1, 4, KiB);
    cs_block_manager_free(bm);
}

static void test_pinned_blocks(void **state)
{
    (void)state;
    block_manager *bm = new_bm(1 << 20, 0.5);
    assert_true(store(bm, 1, 0, CSPARK_MEMORY_ONLY, 4, KiB));
    block_reader *r = cs_block_manager_get(bm, 1, 0);
    assert_non_null(r);
    assert_true(store(bm, 2, 0, CSPARK_MEMORY_ONLY, 4, KiB));
    /* rdd 1 is the least recently used but pinned: rdd 2 goes instead */
    assert_true(store(bm, 3, 0, CSPARK_MEMORY_ONLY, 4, KiB));
    assert_null(cs_block_manager_get(bm, 2, 0));
    block_reader *again = cs_block_manager_get(bm, 1, 0);
    assert_non_null(again);
    cs_block_reader_free(again);
    /* removing a pinned block: it stays readable until its reader is done */
    cs_block_manager_remove_rdd(bm, 1);
    assert_null(cs_block_manager_get(bm, 1, 0));
    const cs_batch *b;
    cs_error err;
    int batches = 0;
    while (cs_block_reader_next(r, &b, &err) > 0)
        batches++;
    assert_int_equal(batches, 4);
    cs_block_reader_free(r);
    cs_block_manager_free(bm);
}

static void test_execution_takes_back_storage(void **state)
{
    (void)state;
    block_manager *bm = new_bm(16 << 20, 0.25); /* 16 MiB, of which 4 MiB storage's own */
    assert_true(store(bm, 1, 0, CSPARK_MEMORY_ONLY, 10, 4 * KiB)); /* ~4.1 MB each */
    assert_true(store(bm, 2, 0, CSPARK_MEMORY_AND_DISK, 10, 4 * KiB));
    assert_true(store(bm, 3, 0, CSPARK_MEMORY_ONLY, 10, 4 * KiB));
    cs_memory_pool *pool = cs_block_manager_pool(bm);
    int64_t before = atomic_load(&pool->storage_used);
    assert_true(before > 12 * 1000 * 1000);
    cs_task_memory mem;
    cs_task_memory_init(&mem, 0);
    cs_task_memory_attach(&mem, pool);
    cs_task_memory_acquire(&mem, 7 << 20); /* 7 MiB + 12.3 MB > 16 MiB: storage gives back */
    int64_t after = atomic_load(&pool->storage_used);
    assert_true(after < before);
    assert_true(after + (7 << 20) <= 16 << 20);
    /* the oldest (rdd 1) went first; rdd 2 stayed */
    assert_null(cs_block_manager_get(bm, 1, 0));
    check_block(bm, 2, 0, 10, 4 * KiB);
    check_block(bm, 3, 0, 10, 4 * KiB);
    /* a task's share: the pool less the storage it cannot evict (its 4 MiB region), per slot
     * (2): 6 MiB */
    assert_true(cs_task_memory_over(&mem));
    cs_task_memory_release(&mem, 2 << 20);
    assert_false(cs_task_memory_over(&mem));
    /* more execution: storage gives back what it holds above its region, whole blocks at a
     * time (least recently used first: rdd 2), so rdd 3 stays */
    cs_task_memory_acquire(&mem, 12 << 20);
    after = atomic_load(&pool->storage_used);
    assert_true(after > 0 && after < 8 * 1000 * 1000);
    block_reader *r3 = cs_block_manager_get(bm, 3, 0);
    assert_non_null(r3);
    cs_block_reader_free(r3);
    /* rdd 2 (MEMORY_AND_DISK) was evicted to disk, not dropped */
    check_block(bm, 2, 0, 10, 4 * KiB);
    cs_task_memory_release(&mem, 17 << 20);
    assert_int_equal(atomic_load(&pool->execution_used), 0);
    cs_task_memory_acquire(&mem, 100);
    cs_task_memory_detach(&mem);
    assert_int_equal(atomic_load(&pool->execution_used), 0);
    cs_block_manager_free(bm);
}

static void test_pool_arithmetic(void **state)
{
    (void)state;
    cs_memory_pool p = {.max = 1000, .storage_region = 500, .slots = 2};
    atomic_init(&p.execution_used, 300);
    atomic_init(&p.storage_used, 600);
    assert_int_equal(cs_memory_pool_storage_shortfall(&p, 100), 0);
    assert_int_equal(cs_memory_pool_storage_shortfall(&p, 150), 50);
    assert_int_equal(cs_memory_pool_execution_excess(&p), 0);
    atomic_store(&p.execution_used, 600); /* 1200 used: 200 over, 100 above the region */
    assert_int_equal(cs_memory_pool_execution_excess(&p), 100);
    atomic_store(&p.storage_used, 450); /* inside its region: nothing to take back */
    assert_int_equal(cs_memory_pool_execution_excess(&p), 0);
}

static void test_corrupt_disk_block_and_wire(void **state)
{
    (void)state;
    block_manager *bm = new_bm(64 << 20, 0.5);
    assert_true(store(bm, 7, 3, CSPARK_DISK_ONLY, 3, 200));
    assert_true(store(bm, 8, 0, CSPARK_MEMORY_ONLY, 3, 200));
    /* the wire form of both decodes to the same records */
    for (int rdd = 7; rdd <= 8; rdd++) {
        uint8_t *bytes;
        size_t len;
        cs_error err;
        assert_int_equal(cs_block_manager_get_bytes(bm, rdd, rdd == 7 ? 3 : 0, &bytes, &len, &err),
                         0);
        cs_block_data d = {0};
        assert_int_equal(cs_block_data_decode(bytes, len, &d, &err), 0);
        assert_int_equal(d.records, 300);
        /* one flipped bit is refused by the checksum */
        bytes[len / 2] ^= 0x10;
        cs_block_data bad = {0};
        assert_int_equal(cs_block_data_decode(bytes, len, &bad, &err), CS_EPROTO);
        free(bytes);
        cs_block_data_free(&d);
    }
    uint8_t *none;
    size_t nlen;
    cs_error err;
    assert_int_equal(cs_block_manager_get_bytes(bm, 9, 0, &none, &nlen, &err), CS_ENOTFOUND);
    /* flip a bit in the middle of the file on disk */
    char path[512];
    cs_disk_store_path(dir, 7, 3, path, sizeof path);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, size / 2, SEEK_SET);
    int c = fgetc(f);
    fseek(f, size / 2, SEEK_SET);
    fputc(c ^ 0x04, f);
    fclose(f);
    block_reader *r = cs_block_manager_get(bm, 7, 3);
    assert_non_null(r);
    const cs_batch *b;
    int rc;
    while ((rc = cs_block_reader_next(r, &b, &err)) > 0) {
    }
    assert_int_equal(rc, CS_EPROTO);
    cs_block_reader_free(r);
    cs_block_manager_remove(bm, 7, 3);
    assert_null(cs_block_manager_get(bm, 7, 3));
    assert_int_equal(access(path, F_OK), -1);
    cs_block_manager_free(bm);
}

static void test_unpersist_frees(void **state)
{
    (void)state;
    block_manager *bm = new_bm(64 << 20, 0.5);
    for (int p = 0; p < 4; p++) {
        assert_true(store(bm, 1, p, CSPARK_MEMORY_ONLY, 2, 100));
        assert_true(store(bm, 2, p, CSPARK_DISK_ONLY, 2, 100));
        assert_true(store(bm, 3, p, CSPARK_MEMORY_ONLY, 2, 100));
    }
    block_manager_usage u;
    cs_block_manager_remove_rdd(bm, 1);
    cs_block_manager_remove_rdd(bm, 2);
    cs_block_manager_usage(bm, &u);
    assert_int_equal(u.blocks_in_memory, 4);
    assert_int_equal(u.blocks_on_disk, 0);
    assert_int_equal(u.disk_used, 0);
    int64_t rdd3 = u.memory_used;
    cs_block_manager_remove_rdd(bm, 3);
    cs_block_manager_usage(bm, &u);
    assert_true(rdd3 > 0);
    assert_int_equal(u.memory_used, 0);
    assert_int_equal(u.blocks_in_memory, 0);
    char path[512];
    cs_disk_store_path(dir, 2, 0, path, sizeof path);
    assert_int_equal(access(path, F_OK), -1);
    cs_block_manager_free(bm);
}

static void test_options(void **state)
{
    (void)state;
    cs_conf *c = cs_conf_new();
    block_manager_options o = {0};
    cs_error err;
    assert_int_equal(cs_block_manager_options_read(c, &o, &err), 0);
    assert_true(o.memory_fraction == 0.6 && o.storage_fraction == 0.5 && !o.compress);
    cs_conf_set(c, "spark.memory.storageFraction", "1.5");
    assert_int_equal(cs_block_manager_options_read(c, &o, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.memory.storageFraction"));
    cs_conf_set(c, "spark.memory.storageFraction", "0.3");
    cs_conf_set(c, "spark.memory.fraction", "0");
    assert_int_equal(cs_block_manager_options_read(c, &o, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.memory.fraction"));
    cs_conf_free(c);
}

/* ---- write locks ---- */

typedef struct claimer {
    block_manager *bm;
    int64_t task;
    int rdd, part;
    block_writer *own; /* committed after the claim (NULL: none) */
    cs_block_claim got;
    block_reader *r;
    block_writer *w;
    const atomic_int *cancelled;
} claimer;

static void *claim_main(void *arg)
{
    claimer *c = arg;
    c->got = cs_block_manager_claim(c->bm, c->rdd, c->part, CSPARK_MEMORY_ONLY, c->task,
                                    c->cancelled, &c->w, &c->r);
    if (c->own) {
        cs_batch b;
        cs_batch_init(&b);
        fill(&b, "own", 0, 10, 8);
        cs_block_writer_add(c->own, &b);
        cs_batch_free(&b);
        assert_true(cs_block_writer_commit(c->own, NULL));
        c->own = NULL;
    }
    return NULL;
}

static int count_records(block_reader *r)
{
    const cs_batch *b;
    int n = 0;
    cs_error err = {0};
    while (cs_block_reader_next(r, &b, &err) > 0)
        n += (int)b->n;
    cs_block_reader_free(r);
    return n;
}

static void test_claim_waits_for_writer(void **state)
{
    (void)state;
    block_manager *bm = new_bm(64 * KiB * KiB, 0.5);
    for (int abort_first = 0; abort_first < 2; abort_first++) {
        int part = abort_first;
        block_writer *w = NULL;
        block_reader *r = NULL;
        assert_int_equal(cs_block_manager_claim(bm, 1, part, CSPARK_MEMORY_ONLY, 100, NULL, &w, &r),
                         CS_BLOCK_CLAIM_WRITE);
        assert_non_null(w);
        claimer c = {.bm = bm, .task = 200, .rdd = 1, .part = part};
        pthread_t th;
        pthread_create(&th, NULL, claim_main, &c);
        cs_batch b;
        cs_batch_init(&b);
        fill(&b, "blk", 0, 50, 8);
        cs_block_writer_add(w, &b);
        cs_batch_free(&b);
        if (abort_first)
            cs_block_writer_abort(w); /* the writer failed: the waiter computes it */
        else
            assert_true(cs_block_writer_commit(w, NULL));
        pthread_join(th, NULL);
        if (abort_first) {
            assert_int_equal(c.got, CS_BLOCK_CLAIM_WRITE);
            cs_block_writer_abort(c.w);
        } else {
            /* never a second writer: the waiter reads what the first one stored */
            assert_int_equal(c.got, CS_BLOCK_CLAIM_READ);
            assert_int_equal(count_records(c.r), 50);
        }
    }
    /* the same task claiming a block it writes does not wait for itself */
    block_writer *w = NULL;
    block_reader *r = NULL;
    assert_int_equal(cs_block_manager_claim(bm, 2, 0, CSPARK_MEMORY_ONLY, 7, NULL, &w, &r),
                     CS_BLOCK_CLAIM_WRITE);
    block_writer *w2 = NULL;
    assert_int_equal(cs_block_manager_claim(bm, 2, 0, CSPARK_MEMORY_ONLY, 7, NULL, &w2, &r),
                     CS_BLOCK_CLAIM_COMPUTE);
    assert_null(w2);
    /* a cancelled task does not wait */
    atomic_int cancelled = 1;
    assert_int_equal(cs_block_manager_claim(bm, 2, 0, CSPARK_MEMORY_ONLY, 8, &cancelled, &w2, &r),
                     CS_BLOCK_CLAIM_COMPUTE);
    cs_block_writer_abort(w);
    cs_block_manager_free(bm);
}

/* Task 1 writes X and wants Y; task 2 writes Y and wants X: the second of them to ask computes
 * without waiting, the first reads the block the other stored. Neither hangs. */
static void test_claim_cycle_not_waited(void **state)
{
    (void)state;
    block_manager *bm = new_bm(64 * KiB * KiB, 0.5);
    block_writer *wx = NULL, *wy = NULL;
    block_reader *r = NULL;
    assert_int_equal(cs_block_manager_claim(bm, 3, 0, CSPARK_MEMORY_ONLY, 1, NULL, &wx, &r),
                     CS_BLOCK_CLAIM_WRITE);
    assert_int_equal(cs_block_manager_claim(bm, 4, 0, CSPARK_MEMORY_ONLY, 2, NULL, &wy, &r),
                     CS_BLOCK_CLAIM_WRITE);
    claimer c1 = {.bm = bm, .task = 1, .rdd = 4, .part = 0, .own = wx};
    claimer c2 = {.bm = bm, .task = 2, .rdd = 3, .part = 0, .own = wy};
    pthread_t t1, t2;
    pthread_create(&t1, NULL, claim_main, &c1);
    pthread_create(&t2, NULL, claim_main, &c2);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    assert_int_equal((c1.got == CS_BLOCK_CLAIM_COMPUTE) + (c2.got == CS_BLOCK_CLAIM_COMPUTE), 1);
    claimer *reader = c1.got == CS_BLOCK_CLAIM_READ ? &c1 : &c2;
    assert_int_equal(reader->got, CS_BLOCK_CLAIM_READ);
    assert_int_equal(count_records(reader->r), 10);
    cs_block_manager_free(bm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip_every_level, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lru_eviction_and_levels, setup, teardown),
        cmocka_unit_test_setup_teardown(test_too_large_and_own_rdd, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pinned_blocks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_execution_takes_back_storage, setup, teardown),
        cmocka_unit_test(test_pool_arithmetic),
        cmocka_unit_test_setup_teardown(test_corrupt_disk_block_and_wire, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unpersist_frees, setup, teardown),
        cmocka_unit_test(test_options),
        cmocka_unit_test_setup_teardown(test_claim_waits_for_writer, setup, teardown),
        cmocka_unit_test_setup_teardown(test_claim_cycle_not_waited, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
