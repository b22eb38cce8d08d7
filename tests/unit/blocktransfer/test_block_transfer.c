/*
 * test_block_transfer.c — the block server and the network block fetcher over loopback: real
 * shuffle files written with shuffle_writer are fetched for every (map, reduce) and compared
 * byte for byte with local reads (with and without authentication, and with a frame size small
 * enough to force multi-part blocks); a shuffle_reader over the fetcher yields the same records
 * as over local files, also when the reader streams remote blocks part by part and local ones
 * from disk; a missing block fails at once naming it; indirect task results are
 * fetched once; a stopped server makes the fetch fail after the configured retries, naming the
 * peer and the block. A bit flipped on the wire (a proxy between fetcher and server) is a fetch
 * failure with a checksum mismatch. An executor the driver declared lost is not fetched from
 * nor retried: its fetches fail at once, and one already waiting to retry stops waiting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "records/batch.h"
#include "common/conf.h"
#include "blocktransfer/block_fetcher.h"
#include "blocktransfer/block_server.h"
#include "shuffle/memory.h"
#include "shuffle/shuffle.h"

#define NMAPS 3
#define NRED 4
#define SECRET "block-secret-xyz"

static char g_dir[256];
static cs_map_status g_st[NMAPS];

static void write_outputs(const char *dir, int nrec, int vlen)
{
    cs_partitioner p = {.kind = PART_HASH, .num_partitions = NRED};
    cs_error err = {0};
    for (int m = 0; m < NMAPS; m++) {
        cs_task_memory mem;
        cs_task_memory_init(&mem, 256 * CS_MiB);
        shuffle_write_spec spec = {.shuffle_id = 7,
                                   .map_id = m,
                                   .attempt_id = m,
                                   .partitioner = &p,
                                   .compress = m % 2 == 0,
                                   .checksum = CS_CHECKSUM_DEFAULT,
                                   .dir = dir,
                                   .mem = &mem};
        shuffle_writer *w = cs_shuffle_writer_new(&spec, &err);
        assert_non_null(w);
        cs_batch b;
        cs_batch_init(&b);
        char *val = malloc((size_t)vlen);
        for (int i = 0; i < nrec; i++) {
            char key[32];
            int kl = snprintf(key, sizeof key, "k%d-%d", m, i);
            for (int j = 0; j < vlen; j++)
                val[j] = (char)('a' + (i + j) % 26);
            cs_batch_append_record(&b, key, (uint32_t)kl, val, (uint32_t)vlen);
            if (batch_full(&b)) {
                assert_int_equal(cs_shuffle_writer_write(w, &b, &err), 0);
                cs_batch_reset(&b);
            }
        }
        assert_int_equal(cs_shuffle_writer_write(w, &b, &err), 0);
        cs_batch_free(&b);
        free(val);
        assert_int_equal(cs_shuffle_writer_commit(w, &g_st[m], &err), 0);
        cs_shuffle_writer_free(w);
        snprintf(g_st[m].executor_id, sizeof g_st[m].executor_id, "exec-1");
        snprintf(g_st[m].host, sizeof g_st[m].host, "127.0.0.1");
    }
}

static int setup(void **state)
{
    snprintf(g_dir, sizeof g_dir, "/tmp/cspark-blocks-XXXXXX");
    if (!mkdtemp(g_dir)) return -1;
    write_outputs(g_dir, 20000, 100);
    return 0;
}

static int teardown(void **state)
{
    DIR *d = opendir(g_dir);
    struct dirent *e;
    char p[512];
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        snprintf(p, sizeof p, "%s/%s", g_dir, e->d_name);
        unlink(p);
    }
    if (d) closedir(d);
    rmdir(g_dir);
    for (int m = 0; m < NMAPS; m++)
        cs_map_status_free(&g_st[m]);
    return 0;
}

static cs_conf *fast_conf(void)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.shuffle.io.maxRetries", "2");
    cs_conf_set(c, "spark.shuffle.io.retryWait", "10ms");
    cs_conf_set(c, "spark.network.timeout", "10s");
    return c;
}

static void fetch_all_compare(const char *secret, size_t max_frame)
{
    rpc_options so = {
        .name = "block-server", .app_id = "app-b", .secret = secret, .max_frame = max_frame};
    cs_error err = {0};
    int port = 0;
    block_server *bs = cs_block_server_start("127.0.0.1", g_dir, &so, &port, &err);
    assert_non_null(bs);
    for (int m = 0; m < NMAPS; m++)
        g_st[m].port = port;
    rpc_options co = {
        .name = "fetcher", .app_id = "app-b", .secret = secret, .max_frame = max_frame};
    cs_conf *conf = fast_conf();
    block_fetcher *f = cs_block_fetcher_new("exec-2", "/nonexistent", &co, conf, &err);
    assert_non_null(f);
    shuffle_block_source net = cs_block_fetcher_source(f);
    shuffle_block_source local = cs_shuffle_local_source(g_dir);
    uint64_t total = 0;
    for (int m = 0; m < NMAPS; m++) {
        for (int r = 0; r < NRED; r++) {
            uint8_t *a = NULL, *b = NULL;
            size_t al = 0, bl = 0;
            assert_int_equal(net.fetch(net.arg, &g_st[m], r, &a, &al, &err), 0);
            assert_int_equal(local.fetch(local.arg, &g_st[m], r, &b, &bl, &err), 0);
            assert_int_equal(al, bl);
            assert_true(cs_map_status_size_agrees(&g_st[m], r, al));
            assert_int_equal(al == 0, cs_map_status_block_empty(&g_st[m], r));
            if (al) assert_memory_equal(a, b, al);
            total += al;
            free(a);
            free(b);
        }
    }
    assert_true(total > 1000000);
    /* the whole reduce side through a shuffle_reader */
    const cs_map_status *maps[NMAPS];
    for (int m = 0; m < NMAPS; m++)
        maps[m] = &g_st[m];
    size_t nrec_net = 0, nrec_local = 0;
    for (int r = 0; r < NRED; r++) {
        for (int pass = 0; pass < 2; pass++) {
            shuffle_reader *rd = cs_shuffle_reader_new(maps, NMAPS, r, pass ? &local : &net, &err);
            assert_non_null(rd);
            cs_batch out;
            cs_batch_init(&out);
            int rc, failed = -1;
            while ((rc = cs_shuffle_reader_next(rd, &out, &failed, &err)) > 0) {
                *(pass ? &nrec_local : &nrec_net) += out.n;
                cs_batch_reset(&out);
            }
            assert_int_equal(rc, 0);
            cs_batch_free(&out);
            cs_shuffle_reader_free(rd);
        }
    }
    assert_int_equal(nrec_net, nrec_local);
    assert_int_equal(nrec_net, NMAPS * 20000);
    cs_block_fetcher_free(f);
    cs_conf_free(conf);
    cs_block_server_stop(bs);
}

static void test_fetch_all_plain(void **state)
{
    fetch_all_compare(NULL, 0);
}

static void test_fetch_all_auth(void **state)
{
    fetch_all_compare(SECRET, 0);
}

static void test_fetch_all_multipart(void **state)
{
    fetch_all_compare(SECRET, 64 * 1024); /* 32 KiB parts */
}

static void test_local_blocks_read_from_disk(void **state)
{
    cs_error err = {0};
    cs_conf *conf = fast_conf();
    block_fetcher *f = cs_block_fetcher_new("exec-1", g_dir, NULL, conf, &err);
    assert_non_null(f);
    shuffle_block_source src = cs_block_fetcher_source(f);
    int saved = g_st[0].port;
    g_st[0].port = 1; /* nothing listens there: must not be used */
    uint8_t *a = NULL;
    size_t al = 0;
    assert_int_equal(src.fetch(src.arg, &g_st[0], 1, &a, &al, &err), 0);
    assert_true(al > 0 && cs_map_status_size_agrees(&g_st[0], 1, al));
    free(a);
    g_st[0].port = saved;
    cs_block_fetcher_free(f);
    cs_conf_free(conf);
}

static void test_missing_block_named(void **state)
{
    cs_error err = {0};
    int port = 0;
    block_server *bs = cs_block_server_start("127.0.0.1", g_dir, NULL, &port, &err);
    assert_non_null(bs);
    cs_conf *conf = fast_conf();
    block_fetcher *f = cs_block_fetcher_new("exec-2", NULL, NULL, conf, &err);
    shuffle_block_source src = cs_block_fetcher_source(f);
    cs_map_status st = g_st[0];
    st.map_id = 42;   /* no such output */
    st.blocks = NULL; /* no sizes: nothing skipped, nothing checked */
    st.port = port;
    uint8_t *a = NULL;
    size_t al = 0;
    assert_int_equal(src.fetch(src.arg, &st, 0, &a, &al, &err), CS_EIO);
    assert_null(a);
    assert_non_null(strstr(err.msg, "shuffle 7 map 42 reduce 0"));
    assert_non_null(strstr(err.msg, "exec-1"));
    assert_null(strstr(err.msg, "retries")); /* not a connection error: no retry */
    cs_block_fetcher_free(f);
    cs_conf_free(conf);
    cs_block_server_stop(bs);
}

/* A task result kept by the block server (TaskResultBlockId) is fetched in parts, so one larger
 * than a whole frame (spark.rpc.message.maxSize) arrives whole; it is removed once fetched. */
static void test_indirect_result_larger_than_a_frame(void **state)
{
    cs_error err = {0};
    int port = 0;
    rpc_options o = {.name = "bs", .app_id = "a", .secret = SECRET, .max_frame = 1024 * 1024};
    block_server *bs = cs_block_server_start("127.0.0.1", g_dir, &o, &port, &err);
    assert_non_null(bs);
    size_t n = 3 * 1024 * 1024;
    uint8_t *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        data[i] = (uint8_t)(i * 7);
    cs_block_server_put_result(bs, 99, data, n);
    assert_int_equal(cs_block_server_pending_results(bs), 1);
    rpc_options co = {.name = "driver", .app_id = "a", .secret = SECRET, .max_frame = 1024 * 1024};
    rpc_endpoint *e = cs_rpc_endpoint_new(&co, NULL, &err);
    rpc_conn *c = cs_rpc_connect(e, "127.0.0.1", port, 5000, &err);
    assert_non_null(c);
    uint8_t *got = NULL;
    size_t len = 0;
    assert_int_equal(cs_block_fetch_task_result(c, 99, 5000, &got, &len, &err), 0);
    assert_int_equal(len, n);
    for (size_t i = 0; i < n; i += 4099)
        assert_int_equal(got[i], (uint8_t)(i * 7));
    free(got);
    /* removed once fetched */
    assert_int_equal(cs_block_fetch_task_result(c, 99, 5000, &got, &len, &err), CS_EIO);
    assert_null(got);
    assert_non_null(strstr(err.msg, "task 99"));
    assert_int_equal(cs_block_server_pending_results(bs), 0);
    cs_block_server_put_result(bs, 100, malloc(10), 10); /* freed by stop */
    cs_rpc_conn_unref(c);
    cs_rpc_endpoint_free(e);
    cs_block_server_stop(bs);
}

static void test_stopped_server_fails_after_retries(void **state)
{
    cs_error err = {0};
    int port = 0;
    block_server *bs = cs_block_server_start("127.0.0.1", g_dir, NULL, &port, &err);
    assert_non_null(bs);
    cs_conf *conf = fast_conf();
    block_fetcher *f = cs_block_fetcher_new("exec-2", NULL, NULL, conf, &err);
    shuffle_block_source src = cs_block_fetcher_source(f);
    cs_map_status st = g_st[1];
    st.port = port;
    uint8_t *a = NULL;
    size_t al = 0;
    assert_int_equal(src.fetch(src.arg, &st, 2, &a, &al, &err), 0); /* connection now cached */
    free(a);
    a = NULL;
    cs_block_server_stop(bs);
    assert_int_equal(src.fetch(src.arg, &st, 2, &a, &al, &err), CS_EIO);
    assert_null(a);
    char hp[64];
    snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
    assert_non_null(strstr(err.msg, hp));
    assert_non_null(strstr(err.msg, "shuffle 7 map 1 reduce 2"));
    assert_non_null(strstr(err.msg, "after 2 retries"));
    /* a reader reports the failed map */
    const cs_map_status *maps[1] = {&st};
    shuffle_reader *rd = cs_shuffle_reader_new(maps, 1, 2, &src, &err);
    cs_batch out;
    cs_batch_init(&out);
    int failed = -1;
    assert_true(cs_shuffle_reader_next(rd, &out, &failed, &err) < 0);
    assert_int_equal(failed, 1);
    cs_batch_free(&out);
    cs_shuffle_reader_free(rd);
    cs_block_fetcher_free(f);
    cs_conf_free(conf);
}

/* All records of reduce partition r read through src (appended to out). */
static void read_partition(const cs_map_status *const *maps, int n, int r,
                           const shuffle_block_source *src, cs_batch *out)
{
    cs_error err = {0};
    shuffle_reader *rd = cs_shuffle_reader_new(maps, n, r, src, &err);
    assert_non_null(rd);
    int rc, failed = -1;
    while ((rc = cs_shuffle_reader_next(rd, out, &failed, &err)) > 0) {
    }
    assert_int_equal(rc, 0);
    cs_shuffle_reader_free(rd);
}

/* Two block servers on the same files: map 1 is "on" the second one. Every reduce partition is
 * read through a prefetching source and compared with the local bytes; then through readers
 * (blocks streamed part by part), record by record. With with_local = 1 the fetcher is "exec-1",
 * whose blocks (maps 0 and 2) are read from disk, and map 1 is on "exec-3". */
static void prefetch_compare(const char *in_flight, size_t max_frame, int consume_all,
                             int with_local)
{
    rpc_options so = {.name = "bs", .app_id = "app-p", .secret = SECRET, .max_frame = max_frame};
    cs_error err = {0};
    int port[2] = {0, 0};
    block_server *bs[2];
    for (int k = 0; k < 2; k++) {
        bs[k] = cs_block_server_start("127.0.0.1", g_dir, &so, &port[k], &err);
        assert_non_null(bs[k]);
    }
    for (int m = 0; m < NMAPS; m++)
        g_st[m].port = port[m == 1];
    cs_conf *conf = fast_conf();
    cs_conf_set(conf, "spark.reducer.maxSizeInFlight", in_flight);
    if (with_local) snprintf(g_st[1].executor_id, sizeof g_st[1].executor_id, "exec-3");
    block_fetcher *f = cs_block_fetcher_new(with_local ? "exec-1" : "exec-2",
                                            with_local ? g_dir : NULL, &so, conf, &err);
    assert_non_null(f);
    const cs_map_status *maps[NMAPS + 1];
    for (int m = 0; m < NMAPS; m++)
        maps[m] = &g_st[m];
    maps[NMAPS] = &g_st[0]; /* the same output twice: fine */
    shuffle_block_source local = cs_shuffle_local_source(g_dir);
    for (int r = 0; r < NRED; r++) {
        block_prefetch *p = cs_block_fetcher_prefetch(f, maps, NMAPS + 1, r);
        shuffle_block_source src = cs_block_prefetch_source(p);
        int upto = consume_all ? NMAPS + 1 : 1;
        for (int m = 0; m < upto; m++) {
            uint8_t *a = NULL, *b = NULL;
            size_t al = 0, bl = 0;
            assert_int_equal(src.fetch(src.arg, maps[m], r, &a, &al, &err), 0);
            assert_int_equal(local.fetch(local.arg, maps[m], r, &b, &bl, &err), 0);
            assert_int_equal(al, bl);
            if (al) assert_memory_equal(a, b, al);
            free(a);
            free(b);
        }
        cs_block_prefetch_free(p); /* unconsumed blocks dropped, in flight or not */
    }
    /* and through readers: the same records in the same order as from the local files */
    size_t nrec = 0;
    for (int r = 0; r < NRED; r++) {
        block_prefetch *p = cs_block_fetcher_prefetch(f, maps, NMAPS, r);
        shuffle_block_source src = cs_block_prefetch_source(p);
        cs_batch got, want;
        cs_batch_init(&got);
        cs_batch_init(&want);
        read_partition(maps, NMAPS, r, &src, &got);
        read_partition(maps, NMAPS, r, &local, &want);
        assert_int_equal(got.n, want.n);
        assert_int_equal(got.len, want.len);
        assert_memory_equal(got.data, want.data, got.len);
        for (size_t i = 0; i < got.n; i++) {
            assert_int_equal(got.recs[i].klen, want.recs[i].klen);
            assert_int_equal(got.recs[i].vlen, want.recs[i].vlen);
        }
        nrec += got.n;
        cs_batch_free(&got);
        cs_batch_free(&want);
        cs_block_prefetch_free(p);
    }
    assert_int_equal(nrec, NMAPS * 20000);
    if (with_local) snprintf(g_st[1].executor_id, sizeof g_st[1].executor_id, "exec-1");
    cs_block_fetcher_free(f);
    cs_conf_free(conf);
    for (int k = 0; k < 2; k++)
        cs_block_server_stop(bs[k]);
}

static void test_prefetch_two_peers(void **state)
{
    prefetch_compare("48m", 0, 1, 0);
}

static void test_prefetch_small_budget_multipart(void **state)
{
    prefetch_compare("100k", 64 * 1024, 1, 0);
}

static void test_prefetch_freed_early(void **state)
{
    prefetch_compare("48m", 64 * 1024, 0, 0);
}

/* Local blocks streamed from disk between remote ones streamed part by part. */
static void test_prefetch_local_and_remote_streamed(void **state)
{
    prefetch_compare("100k", 64 * 1024, 1, 1);
}

static void test_prefetch_server_gone(void **state)
{
    cs_error err = {0};
    int port = 0;
    block_server *bs = cs_block_server_start("127.0.0.1", g_dir, NULL, &port, &err);
    assert_non_null(bs);
    for (int m = 0; m < NMAPS; m++)
        g_st[m].port = port;
    cs_conf *conf = fast_conf();
    block_fetcher *f = cs_block_fetcher_new("exec-2", NULL, NULL, conf, &err);
    const cs_map_status *maps[NMAPS];
    for (int m = 0; m < NMAPS; m++)
        maps[m] = &g_st[m];
    block_prefetch *p = cs_block_fetcher_prefetch(f, maps, NMAPS, 3);
    shuffle_block_source src = cs_block_prefetch_source(p);
    uint8_t *a = NULL;
    size_t al = 0;
    /* the first fetch connects; then the server goes away */
    cs_block_server_stop(bs);
    int rc = src.fetch(src.arg, maps[0], 3, &a, &al, &err);
    free(a);
    a = NULL;
    if (rc == 0) rc = src.fetch(src.arg, maps[1], 3, &a, &al, &err);
    assert_int_equal(rc, CS_EIO);
    char hp[64];
    snprintf(hp, sizeof hp, "127.0.0.1:%d", port);
    assert_non_null(strstr(err.msg, hp));
    assert_non_null(strstr(err.msg, "after 2 retries"));
    cs_block_prefetch_free(p);
    cs_block_fetcher_free(f);
    cs_conf_free(conf);
}

/* ---- damage on the wire ------------------------------------------------------------------ */

/* A TCP proxy to 127.0.0.1:to_port that flips one bit of the server-to-client stream at byte
 * flip_at of the first connection (later connections pass through untouched). */
typedef struct flip_proxy {
    int listen_fd, port, to_port;
    uint64_t flip_at;
    int flipped, conns;
    pthread_t thread;
    atomic_int stop;
} flip_proxy;

static void proxy_pump(flip_proxy *p, int client, int server, int damage)
{
    uint8_t buf[65536];
    uint64_t down = 0; /* server -> client bytes so far */
    struct pollfd fds[2] = {{client, POLLIN, 0}, {server, POLLIN, 0}};
    while (!p->stop) {
        if (poll(fds, 2, 100) <= 0) continue;
        for (int k = 0; k < 2; k++) {
            if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            ssize_t n = read(fds[k].fd, buf, sizeof buf);
            if (n <= 0) return;
            if (k == 1 && damage && !p->flipped && down + (uint64_t)n > p->flip_at) {
                buf[p->flip_at - down] ^= 0x08;
                p->flipped = 1;
            }
            if (k == 1) down += (uint64_t)n;
            for (ssize_t off = 0; off < n;) {
                ssize_t w = write(fds[1 - k].fd, buf + off, (size_t)(n - off));
                if (w <= 0) return;
                off += w;
            }
        }
    }
}

static void *proxy_main(void *arg)
{
    flip_proxy *p = arg;
    while (!p->stop) {
        struct pollfd pf = {p->listen_fd, POLLIN, 0};
        if (poll(&pf, 1, 100) <= 0) continue;
        int client = accept(p->listen_fd, NULL, NULL);
        if (client < 0) continue;
        int server = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p->to_port)};
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (connect(server, (struct sockaddr *)&a, sizeof a) == 0)
            proxy_pump(p, client, server, p->conns++ == 0);
        close(server);
        close(client);
    }
    return NULL;
}

static void proxy_start(flip_proxy *p, int to_port, uint64_t flip_at)
{
    memset(p, 0, sizeof *p);
    p->to_port = to_port;
    p->flip_at = flip_at;
    p->listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(p->listen_fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(p->listen_fd, 8), 0);
    socklen_t len = sizeof a;
    getsockname(p->listen_fd, (struct sockaddr *)&a, &len);
    p->port = ntohs(a.sin_port);
    pthread_create(&p->thread, NULL, proxy_main, p);
}

static void proxy_stop(flip_proxy *p)
{
    p->stop = 1;
    pthread_join(p->thread, NULL);
    close(p->listen_fd);
}

/* A bit flipped between the block server and the fetcher is caught by the block checksum: the
 * reader fails with a fetch failure naming the map (the scheduler recomputes it), never
 * returning the damaged records. */
static void test_bit_flipped_on_the_wire_is_fetch_failure(void **state)
{
    rpc_options so = {.name = "bs", .app_id = "app-w", .secret = SECRET};
    cs_error err = {0};
    int port = 0;
    block_server *bs = cs_block_server_start("127.0.0.1", g_dir, &so, &port, &err);
    assert_non_null(bs);
    flip_proxy px;
    proxy_start(&px, port, 300000); /* well inside the blocks, past the handshake */
    for (int m = 0; m < NMAPS; m++)
        g_st[m].port = px.port;
    cs_conf *conf = fast_conf();
    block_fetcher *f = cs_block_fetcher_new("exec-2", NULL, &so, conf, &err);
    const cs_map_status *maps[NMAPS];
    for (int m = 0; m < NMAPS; m++)
        maps[m] = &g_st[m];
    block_prefetch *p = cs_block_fetcher_prefetch(f, maps, NMAPS, 0);
    shuffle_block_source src = cs_block_prefetch_source(p);
    shuffle_reader *rd = cs_shuffle_reader_new(maps, NMAPS, 0, &src, &err);
    cs_batch out;
    cs_batch_init(&out);
    int rc, failed = -1;
    while ((rc = cs_shuffle_reader_next(rd, &out, &failed, &err)) > 0)
        cs_batch_reset(&out);
    assert_true(px.flipped);
    assert_int_equal(rc, CS_EIO);
    assert_true(failed >= 0 && failed < NMAPS);
    assert_non_null(strstr(err.msg, "checksum mismatch"));
    cs_batch_free(&out);
    cs_shuffle_reader_free(rd);
    cs_block_prefetch_free(p);
    cs_block_fetcher_free(f);
    cs_conf_free(conf);
    proxy_stop(&px);
    cs_block_server_stop(bs);
}

/* ---- executors declared lost ------------------------------------------------------------- */

/* A conf whose retries would outlast the test's timeout: a fetch that retried would fail it. */
static cs_conf *patient_conf(void)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.shuffle.io.maxRetries", "3");
    cs_conf_set(c, "spark.shuffle.io.retryWait", "1h");
    return c;
}

/* The driver said exec-1 is lost: its blocks fail at once, through the direct source and
 * through a prefetching reader (which reports the map), without a retry. */
static void test_lost_executor_fails_at_once(void **state)
{
    cs_error err = {0};
    int port = 0;
    block_server *bs = cs_block_server_start("127.0.0.1", g_dir, NULL, &port, &err);
    cs_block_server_stop(bs); /* nothing listens on port any more */
    for (int m = 0; m < NMAPS; m++)
        g_st[m].port = port;
    cs_conf *conf = patient_conf();
    block_fetcher *f = cs_block_fetcher_new("exec-2", NULL, NULL, conf, &err);
    cs_block_fetcher_executor_lost(f, "exec-1", "Command exited with code 137");
    cs_block_fetcher_executor_lost(f, "exec-1", "again"); /* a repeat changes nothing */
    shuffle_block_source src = cs_block_fetcher_source(f);
    uint8_t *a = NULL;
    size_t al = 0;
    assert_int_equal(src.fetch(src.arg, &g_st[1], 2, &a, &al, &err), CS_EIO);
    assert_null(a);
    assert_non_null(strstr(err.msg, "shuffle 7 map 1 reduce 2"));
    assert_non_null(strstr(err.msg, "executor exec-1 is lost (Command exited with code 137)"));
    const cs_map_status *maps[NMAPS];
    for (int m = 0; m < NMAPS; m++)
        maps[m] = &g_st[m];
    block_prefetch *p = cs_block_fetcher_prefetch(f, maps, NMAPS, 3);
    shuffle_block_source psrc = cs_block_prefetch_source(p);
    shuffle_reader *rd = cs_shuffle_reader_new(maps, NMAPS, 3, &psrc, &err);
    cs_batch out;
    cs_batch_init(&out);
    int failed = -1;
    assert_int_equal(cs_shuffle_reader_next(rd, &out, &failed, &err), CS_EIO);
    assert_int_equal(failed, 0);
    assert_non_null(strstr(err.msg, "is lost"));
    cs_batch_free(&out);
    cs_shuffle_reader_free(rd);
    cs_block_prefetch_free(p);
    cs_block_fetcher_free(f);
    cs_conf_free(conf);
}

typedef struct fetch_thread {
    shuffle_block_source src;
    const cs_map_status *st;
    int rc;
    cs_error err;
} fetch_thread;

static void *fetch_main(void *arg)
{
    fetch_thread *t = arg;
    uint8_t *a = NULL;
    size_t al = 0;
    t->rc = t->src.fetch(t->src.arg, t->st, 1, &a, &al, &t->err);
    free(a);
    return NULL;
}

/* A fetch waiting out spark.shuffle.io.retryWait (an hour here) before retrying a dead peer
 * returns as soon as the driver declares that peer lost. */
static void test_lost_executor_ends_retry_wait(void **state)
{
    cs_error err = {0};
    int port = 0;
    block_server *bs = cs_block_server_start("127.0.0.1", g_dir, NULL, &port, &err);
    cs_block_server_stop(bs);
    cs_conf *conf = patient_conf();
    block_fetcher *f = cs_block_fetcher_new("exec-2", NULL, NULL, conf, &err);
    cs_map_status st = g_st[0];
    st.port = port;
    fetch_thread t = {.src = cs_block_fetcher_source(f), .st = &st};
    pthread_t th;
    pthread_create(&th, NULL, fetch_main, &t);
    usleep(200 * 1000); /* lets the first attempt fail and the wait begin (not required) */
    cs_block_fetcher_executor_lost(f, "exec-1", "heartbeat timed out");
    pthread_join(th, NULL);
    assert_int_equal(t.rc, CS_EIO);
    assert_non_null(strstr(t.err.msg, "executor exec-1 is lost (heartbeat timed out)"));
    cs_block_fetcher_free(f);
    cs_conf_free(conf);
}

static void test_bad_conf_named(void **state)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, "spark.shuffle.io.retryWait", "soon");
    cs_error err = {0};
    assert_null(cs_block_fetcher_new("e", NULL, NULL, c, &err));
    assert_non_null(strstr(err.msg, "spark.shuffle.io.retryWait"));
    cs_conf_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fetch_all_plain),
        cmocka_unit_test(test_fetch_all_auth),
        cmocka_unit_test(test_fetch_all_multipart),
        cmocka_unit_test(test_local_blocks_read_from_disk),
        cmocka_unit_test(test_missing_block_named),
        cmocka_unit_test(test_indirect_result_larger_than_a_frame),
        cmocka_unit_test(test_stopped_server_fails_after_retries),
        cmocka_unit_test(test_prefetch_two_peers),
        cmocka_unit_test(test_prefetch_small_budget_multipart),
        cmocka_unit_test(test_prefetch_freed_early),
        cmocka_unit_test(test_prefetch_local_and_remote_streamed),
        cmocka_unit_test(test_prefetch_server_gone),
        cmocka_unit_test(test_bad_conf_named),
        cmocka_unit_test(test_bit_flipped_on_the_wire_is_fetch_failure),
        cmocka_unit_test(test_lost_executor_fails_at_once),
        cmocka_unit_test(test_lost_executor_ends_retry_wait),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
