/*
 * rpc_bench.c — loopback micro-benchmark of the transport (moved here from the unit tests: a
 * benchmark is no test), run by hand:
 *   build/bin/rpc_bench [--quick]
 * prints small-envelope messages/s (LaunchTask-sized, one sender thread and two) and MB/s for
 * 4 MiB shuffle blocks fetched through block_fetcher from a block_server (1 and 4 fetching
 * threads, and a prefetching reader over two servers; CSPARK_RPC_BENCH_INFLIGHT sets
 * spark.reducer.maxSizeInFlight). --quick runs a tiny version. Exits 1 naming the check that
 * failed when a transfer goes wrong.
 */
#include <stddef.h>
#include <stdint.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/conf.h"
#include "common/log.h"
#include "blocktransfer/block_fetcher.h"
#include "blocktransfer/block_server.h"
#include "rpc/endpoint.h"

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "rpc_bench: check failed at line %d: %s\n", __LINE__, #cond);          \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CHECK_EQ(a, b) CHECK((a) == (b))
#define CHECK_NOT_NULL(p) CHECK((p) != NULL)

static int g_full;
static atomic_long g_count;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void on_msg(void *arg, rpc_conn *c, const Cspark__Envelope *m)
{
    if (m->body_case == CSPARK__ENVELOPE__BODY_HEARTBEAT) {
        Cspark__HeartbeatResponse hr = CSPARK__HEARTBEAT_RESPONSE__INIT;
        Cspark__Envelope r = CSPARK__ENVELOPE__INIT;
        r.body_case = CSPARK__ENVELOPE__BODY_HEARTBEAT_RESPONSE;
        r.heartbeat_response = &hr;
        cs_rpc_reply(c, m->request_id, &r);
        return;
    }
    atomic_fetch_add(&g_count, 1);
}

typedef struct snd {
    rpc_conn *c;
    long n;
} snd;

static void *sender(void *arg)
{
    snd *s = arg;
    for (long i = 0; i < s->n; i++) {
        Cspark__LaunchTask lt = CSPARK__LAUNCH_TASK__INIT;
        lt.task_id = i;
        lt.job_id = 1;
        lt.stage_id = 3;
        lt.partition = (int32_t)(i % 1000);
        Cspark__Envelope m = CSPARK__ENVELOPE__INIT;
        m.body_case = CSPARK__ENVELOPE__BODY_LAUNCH_TASK;
        m.launch_task = &lt;
        if (cs_rpc_send(s->c, &m) < 0) abort();
    }
    return NULL;
}

static void barrier(rpc_conn *c)
{
    Cspark__Heartbeat hb = CSPARK__HEARTBEAT__INIT;
    hb.executor_id = "b";
    Cspark__Envelope req = CSPARK__ENVELOPE__INIT;
    req.body_case = CSPARK__ENVELOPE__BODY_HEARTBEAT;
    req.heartbeat = &hb;
    Cspark__Envelope *rep = NULL;
    cs_error err = {0};
    CHECK_EQ(cs_rpc_call(c, &req, &rep, 60000, &err), 0);
    cspark__envelope__free_unpacked(rep, NULL);
}

static void bench_messages(int threads)
{
    long per = g_full ? 1000000 : 2000;
    rpc_options so = {.name = "bench-server", .app_id = "b", .secret = "k"};
    rpc_handlers h = {.on_message = on_msg};
    cs_error err = {0};
    rpc_endpoint *s = cs_rpc_endpoint_new(&so, &h, &err);
    int port;
    CHECK_EQ(cs_rpc_listen(s, "127.0.0.1", 0, &port, &err), 0);
    rpc_options co = {.name = "bench-client", .app_id = "b", .secret = "k"};
    rpc_endpoint *ce = cs_rpc_endpoint_new(&co, NULL, &err);
    rpc_conn *c = cs_rpc_connect(ce, "127.0.0.1", port, 5000, &err);
    CHECK_NOT_NULL(c);
    atomic_store(&g_count, 0);
    double t0 = now_s();
    pthread_t th[4];
    snd sd = {c, per};
    for (int i = 0; i < threads; i++)
        pthread_create(&th[i], NULL, sender, &sd);
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    barrier(c);
    double dt = now_s() - t0;
    CHECK_EQ(atomic_load(&g_count), per * threads);
    if (g_full)
        printf("messages: %d sender thread(s), %ld LaunchTask envelopes in %.3f s = %.0f msgs/s\n",
               threads, per * threads, dt, (double)(per * threads) / dt);
    cs_rpc_conn_unref(c);
    cs_rpc_endpoint_free(ce);
    cs_rpc_endpoint_free(s);
}

static void bench_all_messages(void)
{
    bench_messages(1);
    bench_messages(2);
}

#define BLK (4 * 1024 * 1024)
#define NPART 16

typedef struct fetch_arg {
    shuffle_block_source src;
    cs_map_status *st;
    int n;
} fetch_arg;

static void *fetcher_thread(void *arg)
{
    fetch_arg *a = arg;
    cs_error err = {0};
    for (int i = 0; i < a->n; i++) {
        uint8_t *b = NULL;
        size_t len = 0;
        if (a->src.fetch(a->src.arg, a->st, i % NPART, &b, &len, &err) < 0 || len != BLK) abort();
        free(b);
    }
    return NULL;
}

static void bench_blocks(void)
{
    char dir[] = "/tmp/cspark-rpc-bench-XXXXXX";
    CHECK_NOT_NULL(mkdtemp(dir));
    char data[512], index[512];
    cs_shuffle_file_paths(dir, 1, 0, data, index, sizeof data);
    int fd = open(data, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    uint8_t *buf = malloc(BLK);
    memset(buf, 0x5a, BLK);
    for (int i = 0; i < NPART; i++)
        CHECK_EQ(write(fd, buf, BLK), BLK);
    close(fd);
    free(buf);
    fd = open(index, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int i = 0; i <= NPART; i++) {
        uint64_t off = (uint64_t)i * BLK;
        uint8_t be[8];
        for (int k = 0; k < 8; k++)
            be[k] = (uint8_t)(off >> (56 - 8 * k));
        CHECK_EQ(write(fd, be, 8), 8);
    }
    close(fd);
    cs_error err = {0};
    int port = 0;
    rpc_options o = {.name = "bench-bs", .app_id = "b", .secret = "k"};
    block_server *bs = cs_block_server_start("127.0.0.1", dir, &o, &port, &err);
    CHECK_NOT_NULL(bs);
    uint8_t blocks[NPART]; /* one log-scale size byte per block (shuffle/map_status.h) */
    memset(blocks, cs_map_status_compress_size(BLK), sizeof blocks);
    cs_map_status st = {
        .shuffle_id = 1, .map_id = 0, .num_reduces = NPART, .blocks = blocks, .port = port};
    snprintf(st.executor_id, sizeof st.executor_id, "remote");
    snprintf(st.host, sizeof st.host, "127.0.0.1");
    for (int threads = 1; threads <= 4; threads *= 4) {
        block_fetcher *f = cs_block_fetcher_new("local", dir, &o, NULL, &err);
        CHECK_NOT_NULL(f);
        int per = g_full ? 256 / threads : 2;
        fetch_arg a = {cs_block_fetcher_source(f), &st, per};
        pthread_t th[4];
        double t0 = now_s();
        for (int i = 0; i < threads; i++)
            pthread_create(&th[i], NULL, fetcher_thread, &a);
        for (int i = 0; i < threads; i++)
            pthread_join(th[i], NULL);
        double dt = now_s() - t0;
        if (g_full)
            printf("blocks: %d fetching thread(s), %d x 4 MiB in %.3f s = %.0f MB/s\n", threads,
                   per * threads, dt, (double)per * threads * BLK / 1e6 / dt);
        cs_block_fetcher_free(f);
    }
    /* a reduce-side reader's pattern: the same partition of 16 map outputs (links to one file
     * pair), through the prefetching source, from two block servers */
    int port2 = 0;
    block_server *bs2 = cs_block_server_start("127.0.0.1", dir, &o, &port2, &err);
    CHECK_NOT_NULL(bs2);
    cs_map_status ms[NPART];
    const cs_map_status *maps[NPART];
    char d2[512], i2[512];
    for (int m = 0; m < NPART; m++) {
        ms[m] = st;
        ms[m].map_id = m;
        ms[m].port = m % 2 ? port2 : port;
        maps[m] = &ms[m];
        if (m == 0) continue;
        cs_shuffle_file_paths(dir, 1, m, d2, i2, sizeof d2);
        CHECK_EQ(link(data, d2), 0);
        CHECK_EQ(link(index, i2), 0);
    }
    {
        cs_conf *conf = cs_conf_new();
        const char *inflight = getenv("CSPARK_RPC_BENCH_INFLIGHT");
        cs_conf_set(conf, "spark.reducer.maxSizeInFlight", inflight ? inflight : "48m");
        block_fetcher *f = cs_block_fetcher_new("local", dir, &o, conf, &err);
        cs_conf_free(conf);
        int reduces = g_full ? 8 : 1;
        double t0 = now_s();
        for (int r = 0; r < reduces; r++) {
            block_prefetch *p = cs_block_fetcher_prefetch(f, maps, NPART, r);
            shuffle_block_source src = cs_block_prefetch_source(p);
            for (int m = 0; m < NPART; m++) {
                uint8_t *b = NULL;
                size_t len = 0;
                CHECK_EQ(src.fetch(src.arg, maps[m], r, &b, &len, &err), 0);
                CHECK_EQ(len, BLK);
                free(b);
            }
            cs_block_prefetch_free(p);
        }
        double dt = now_s() - t0;
        if (g_full)
            printf("blocks: prefetching reader (%s in flight, 2 peers), %d x 4 MiB in %.3f s = "
                   "%.0f MB/s\n",
                   inflight ? inflight : "48m", reduces * NPART, dt,
                   (double)reduces * NPART * BLK / 1e6 / dt);
        cs_block_fetcher_free(f);
    }
    for (int m = 1; m < NPART; m++) {
        cs_shuffle_file_paths(dir, 1, m, d2, i2, sizeof d2);
        unlink(d2);
        unlink(i2);
    }
    cs_block_server_stop(bs2);
    cs_block_server_stop(bs);
    unlink(data);
    unlink(index);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    g_full = !(argc > 1 && strcmp(argv[1], "--quick") == 0);
    cs_log_set_level(CS_LOG_WARN);
    bench_all_messages();
    bench_blocks();
    return 0;
}
