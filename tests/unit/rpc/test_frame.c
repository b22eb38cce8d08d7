/*
 * test_frame.c — the frame codec: encode/decode round trips fed byte by byte, in random splits
 * and coalesced in one buffer; direct reads into the body (a trusted decoder reserves the whole
 * body, an untrusted one grows with the bytes); refusal of oversized lengths (before any
 * allocation), empty frames, garbage bodies and envelopes without a known body; a length prefix
 * from an untrusted peer reserving no more than what arrived; the handshake limit; auth secret
 * loading and proofs; rpc settings read from the configuration.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/conf.h"
#include "rpc/auth.h"
#include "rpc/endpoint.h"
#include "rpc/frame.h"

#define N 200

static size_t encode_many(uint8_t **out)
{
    size_t cap = 0;
    Cspark__Envelope env[N];
    Cspark__LaunchTask lt[N];
    Cspark__Heartbeat hb[N];
    char ids[N][32];
    for (int i = 0; i < N; i++) {
        cspark__envelope__init(&env[i]);
        env[i].request_id = (uint64_t)i * 1000003u;
        if (i % 2) {
            cspark__launch_task__init(&lt[i]);
            lt[i].task_id = i;
            lt[i].partition = i % 7;
            env[i].body_case = CSPARK__ENVELOPE__BODY_LAUNCH_TASK;
            env[i].launch_task = &lt[i];
        } else {
            cspark__heartbeat__init(&hb[i]);
            snprintf(ids[i], sizeof ids[i], "executor-%d", i);
            hb[i].executor_id = ids[i];
            env[i].body_case = CSPARK__ENVELOPE__BODY_HEARTBEAT;
            env[i].heartbeat = &hb[i];
        }
        cap += cs_frame_size(&env[i]);
    }
    uint8_t *buf = malloc(cap);
    size_t off = 0;
    for (int i = 0; i < N; i++)
        off += cs_frame_encode(&env[i], buf + off);
    assert_int_equal(off, cap);
    *out = buf;
    return cap;
}

static void check_env(const Cspark__Envelope *e, int i)
{
    assert_int_equal(e->request_id, (uint64_t)i * 1000003u);
    if (i % 2) {
        assert_int_equal(e->body_case, CSPARK__ENVELOPE__BODY_LAUNCH_TASK);
        assert_int_equal(e->launch_task->task_id, i);
        assert_int_equal(e->launch_task->partition, i % 7);
    } else {
        char id[32];
        snprintf(id, sizeof id, "executor-%d", i);
        assert_int_equal(e->body_case, CSPARK__ENVELOPE__BODY_HEARTBEAT);
        assert_string_equal(e->heartbeat->executor_id, id);
    }
}

/* Feeds buf in pieces of the sizes given by next_piece; checks all N envelopes come out. */
static void feed_in_pieces(const uint8_t *buf, size_t len, unsigned seed, size_t maxpiece)
{
    frame_decoder d;
    cs_frame_decoder_init(&d, 0);
    int got = 0;
    size_t pos = 0;
    srand(seed);
    while (pos < len) {
        size_t piece = maxpiece ? 1 + (size_t)rand() % maxpiece : len - pos;
        if (piece > len - pos) piece = len - pos;
        size_t off = 0;
        while (off < piece) {
            size_t used = 0;
            Cspark__Envelope *e = NULL;
            const char *why = NULL;
            int rc = cs_frame_decoder_feed(&d, buf + pos + off, piece - off, &used, &e, &why);
            assert_true(rc >= 0);
            off += used;
            if (rc == 1) {
                check_env(e, got++);
                cspark__envelope__free_unpacked(e, NULL);
            } else {
                assert_int_equal(off, piece);
            }
        }
        pos += piece;
    }
    assert_int_equal(got, N);
    assert_int_equal(d.hdr_have, 0);
    cs_frame_decoder_free(&d);
}

static void test_split_and_coalesced(void **state)
{
    uint8_t *buf;
    size_t len = encode_many(&buf);
    feed_in_pieces(buf, len, 1, 0);   /* everything at once */
    feed_in_pieces(buf, len, 2, 1);   /* byte by byte */
    feed_in_pieces(buf, len, 3, 3);   /* splits inside headers */
    feed_in_pieces(buf, len, 4, 100); /* random */
    free(buf);
}

/* A BlockData frame carrying n patterned bytes (*data, malloc'd); *fl gets its length. */
static uint8_t *block_frame(size_t n, uint8_t **data, size_t *fl)
{
    Cspark__BlockData bd = CSPARK__BLOCK_DATA__INIT;
    *data = malloc(n);
    for (size_t i = 0; i < n; i++)
        (*data)[i] = (uint8_t)(i * 7 % 253);
    bd.data.data = *data;
    bd.data.len = n;
    bd.last = 1;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.request_id = 5;
    env.body_case = CSPARK__ENVELOPE__BODY_BLOCK_DATA;
    env.block_data = &bd;
    *fl = cs_frame_size(&env);
    uint8_t *frame = malloc(*fl);
    assert_int_equal(cs_frame_encode(&env, frame), *fl);
    return frame;
}

/* out is that frame decoded: checks it and frees everything. */
static void expect_block(Cspark__Envelope *out, frame_decoder *d, uint8_t *frame, uint8_t *data,
                         size_t n)
{
    assert_int_equal(out->block_data->data.len, n);
    assert_memory_equal(out->block_data->data.data, data, n);
    cspark__envelope__free_unpacked(out, NULL);
    cs_frame_decoder_free(d);
    free(frame);
    free(data);
}

static void test_direct_body(void **state)
{
    size_t n = 200000, fl;
    uint8_t *data, *frame = block_frame(n, &data, &fl);
    frame_decoder d;
    cs_frame_decoder_init(&d, 0);
    cs_frame_decoder_set_limit(&d, 0, 1, NULL); /* an authenticated peer: reserve it all */
    size_t used;
    Cspark__Envelope *out = NULL;
    const char *why;
    size_t room = 0;
    assert_null(cs_frame_decoder_direct(&d, &room));
    assert_int_equal(cs_frame_decoder_feed(&d, frame, 10, &used, &out, &why), 0);
    uint8_t *at = cs_frame_decoder_direct(&d, &room);
    assert_non_null(at);
    assert_int_equal(room, fl - 10);
    memcpy(at, frame + 10, 1000); /* as a socket read would */
    assert_int_equal(cs_frame_decoder_feed(&d, at, 1000, &used, &out, &why), 0);
    at = cs_frame_decoder_direct(&d, &room);
    assert_int_equal(room, fl - 1010);
    memcpy(at, frame + 1010, room);
    assert_int_equal(cs_frame_decoder_feed(&d, at, room, &used, &out, &why), 1);
    expect_block(out, &d, frame, data, n);
}

static void expect_error(const uint8_t *bytes, size_t n, size_t max, const char *reason)
{
    frame_decoder d;
    cs_frame_decoder_init(&d, max);
    size_t used;
    Cspark__Envelope *out = NULL;
    const char *why = NULL;
    int rc;
    size_t off = 0;
    do {
        rc = cs_frame_decoder_feed(&d, bytes + off, n - off, &used, &out, &why);
        off += used;
        if (rc == 1) cspark__envelope__free_unpacked(out, NULL);
    } while (rc == 1 && off < n);
    assert_int_equal(rc, -1);
    assert_non_null(why);
    assert_non_null(strstr(why, reason));
    assert_null(d.body);
    /* sticky */
    assert_int_equal(cs_frame_decoder_feed(&d, bytes, n, &used, &out, &why), -1);
    cs_frame_decoder_free(&d);
}

static void test_malformed(void **state)
{
    uint8_t huge[4] = {0xff, 0xff, 0xff, 0xff};
    expect_error(huge, 4, 0, "maxSize");
    uint8_t over[4] = {0, 0, 4, 1}; /* 1025 > 1024 */
    expect_error(over, 4, 1024, "maxSize");
    uint8_t empty[4] = {0, 0, 0, 0};
    expect_error(empty, 4, 0, "empty");
    uint8_t garbage[10] = {0, 0, 0, 6, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    expect_error(garbage, 10, 0, "unpack");
    uint8_t nobody[6] = {0, 0, 0, 2, 0x08, 0x05}; /* request_id only */
    expect_error(nobody, 6, 0, "no known body");
    uint8_t unknown[7] = {0, 0, 0, 3, 0xf8, 0x07, 0x01}; /* field 127 */
    expect_error(unknown, 7, 0, "no known body");
    /* a good frame followed by garbage: the good one comes out first */
    Cspark__StopExecutor se = CSPARK__STOP_EXECUTOR__INIT;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_STOP_EXECUTOR;
    env.stop_executor = &se;
    uint8_t buf[64];
    size_t n = cs_frame_encode(&env, buf);
    memcpy(buf + n, huge, 4);
    expect_error(buf, n + 4, 0, "maxSize");
}

/* Regression (issue 10 item 16): a 4-byte length prefix reserved the whole announced frame, so
 * a peer that had not authenticated could make a process allocate 128 MiB per connection with
 * four bytes. An untrusted decoder holds at most twice the bytes that arrived plus 64 KiB. */
static void test_untrusted_length_reserves_only_what_arrived(void **state)
{
    frame_decoder d;
    cs_frame_decoder_init(&d, 0);
    uint8_t hdr[4];
    cs_frame_put_header(hdr, 128u * 1024 * 1024); /* exactly spark.rpc.message.maxSize */
    size_t used;
    Cspark__Envelope *out = NULL;
    const char *why = NULL;
    assert_int_equal(cs_frame_decoder_feed(&d, hdr, 4, &used, &out, &why), 0);
    assert_true(d.body_cap <= FRAME_INITIAL_RESERVE);
    uint8_t junk[1000];
    memset(junk, 0xee, sizeof junk);
    size_t sent = 0;
    for (int i = 0; i < 3000; i++) { /* 3 MB copied in */
        assert_int_equal(cs_frame_decoder_feed(&d, junk, sizeof junk, &used, &out, &why), 0);
        sent += sizeof junk;
        assert_true(d.body_cap <= 2 * sent + FRAME_INITIAL_RESERVE);
    }
    size_t room = 0;
    for (int i = 0; i < 50; i++) { /* and read straight into the body */
        uint8_t *at = cs_frame_decoder_direct(&d, &room);
        assert_non_null(at);
        assert_true(room > 0);
        size_t n = room < 20000 ? room : 20000;
        memset(at, 0xee, n);
        assert_int_equal(cs_frame_decoder_feed(&d, at, n, &used, &out, &why), 0);
        sent += n;
        assert_true(d.body_cap <= 2 * sent + FRAME_INITIAL_RESERVE);
    }
    assert_int_equal(d.body_have, sent);
    cs_frame_decoder_free(&d);
}

/* A frame larger than the initial reservation, fed through both paths of an untrusted decoder,
 * comes out intact (the buffer moved as it grew). */
static void test_untrusted_growth_keeps_the_bytes(void **state)
{
    size_t n = 700000, fl;
    uint8_t *data, *frame = block_frame(n, &data, &fl);
    frame_decoder d;
    cs_frame_decoder_init(&d, 0);
    size_t pos = 0, used;
    Cspark__Envelope *out = NULL;
    const char *why;
    int rc = 0, turn = 0;
    while (rc == 0) {
        size_t room = 0;
        uint8_t *at = turn++ % 2 ? cs_frame_decoder_direct(&d, &room) : NULL;
        if (at) {
            size_t k = room < 30000 ? room : 30000;
            memcpy(at, frame + pos, k);
            rc = cs_frame_decoder_feed(&d, at, k, &used, &out, &why);
        } else {
            size_t k = fl - pos < 12345 ? fl - pos : 12345;
            rc = cs_frame_decoder_feed(&d, frame + pos, k, &used, &out, &why);
        }
        pos += used;
    }
    assert_int_equal(rc, 1);
    assert_int_equal(pos, fl);
    expect_block(out, &d, frame, data, n);
}

/* Before authentication only handshake-sized frames pass; the limit is lifted between frames. */
static void test_handshake_limit(void **state)
{
    frame_decoder d;
    cs_frame_decoder_init(&d, 0);
    cs_frame_decoder_set_limit(&d, 4096, 0, "frame larger than 4096 bytes before authentication");
    Cspark__Heartbeat hb = CSPARK__HEARTBEAT__INIT;
    char id[6000];
    memset(id, 'e', sizeof id - 1);
    id[sizeof id - 1] = 0;
    hb.executor_id = "small";
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_HEARTBEAT;
    env.heartbeat = &hb;
    uint8_t buf[8192];
    size_t n = cs_frame_encode(&env, buf), used;
    Cspark__Envelope *out = NULL;
    const char *why = NULL;
    assert_int_equal(cs_frame_decoder_feed(&d, buf, n, &used, &out, &why), 1);
    cspark__envelope__free_unpacked(out, NULL);
    cs_frame_decoder_set_limit(&d, 0, 1, "frame larger than spark.rpc.message.maxSize");
    hb.executor_id = id;
    n = cs_frame_encode(&env, buf);
    assert_int_equal(cs_frame_decoder_feed(&d, buf, n, &used, &out, &why), 1);
    assert_string_equal(out->heartbeat->executor_id, id);
    cspark__envelope__free_unpacked(out, NULL);
    cs_frame_decoder_set_limit(&d, 4096, 0, "frame larger than 4096 bytes before authentication");
    assert_int_equal(cs_frame_decoder_feed(&d, buf, n, &used, &out, &why), -1);
    assert_string_equal(why, "frame larger than 4096 bytes before authentication");
    assert_int_equal(used, 4); /* refused at the header */
    assert_null(d.body);
    cs_frame_decoder_free(&d);
}

static void expect_conf_error(const char *key, const char *value, const char *needle)
{
    cs_conf *c = cs_conf_new();
    cs_conf_set(c, key, value);
    rpc_options o = {0};
    cs_error err = {0};
    assert_int_equal(cs_rpc_options_from_conf(c, &o, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, key));
    assert_non_null(strstr(err.msg, needle));
    cs_conf_free(c);
}

static void test_options_from_conf(void **state)
{
    cs_conf *c = cs_conf_new();
    rpc_options o = {.name = "x"};
    cs_error err = {0};
    assert_int_equal(cs_rpc_options_from_conf(c, &o, &err), 0);
    assert_int_equal(o.max_frame, 128u * 1024 * 1024);
    assert_int_equal(o.auth_timeout_ms, 30000);
    assert_int_equal(o.max_unauthenticated, 256);
    assert_string_equal(o.name, "x");
    cs_conf_set(c, "spark.rpc.message.maxSize", "256");  /* MiB, as Spark */
    cs_conf_set(c, "spark.shuffle.sasl.timeout", "45s"); /* Spark's fallback */
    cs_conf_set(c, "cspark.rpc.maxUnauthenticatedConnections", "8");
    assert_int_equal(cs_rpc_options_from_conf(c, &o, &err), 0);
    assert_int_equal(o.max_frame, 256u * 1024 * 1024);
    assert_int_equal(o.auth_timeout_ms, 45000);
    assert_int_equal(o.max_unauthenticated, 8);
    cs_conf_set(c, "spark.network.auth.rpcTimeout", "2s");
    cs_conf_set(c, "spark.rpc.message.maxSize", "2047");
    assert_int_equal(cs_rpc_options_from_conf(c, &o, &err), 0);
    assert_int_equal(o.auth_timeout_ms, 2000);
    assert_int_equal(o.max_frame, 2047u * 1024 * 1024);
    cs_conf_free(c);
    expect_conf_error("spark.rpc.message.maxSize", "0", "between 1m and 2047m");
    expect_conf_error("spark.rpc.message.maxSize", "2048", "between 1m and 2047m");
    expect_conf_error("spark.rpc.message.maxSize", "-5", "size");
    expect_conf_error("spark.rpc.message.maxSize", "lots", "size");
    expect_conf_error("spark.network.auth.rpcTimeout", "0s", "positive duration");
    expect_conf_error("spark.network.auth.rpcTimeout", "soon", "duration");
    expect_conf_error("spark.shuffle.sasl.timeout", "-1s", "duration");
    expect_conf_error("cspark.rpc.maxUnauthenticatedConnections", "0", "between 1 and 65536");
    expect_conf_error("cspark.rpc.maxUnauthenticatedConnections", "1000000", "between 1 and 65536");
}

static void test_body_name(void **state)
{
    Cspark__StopExecutor se = CSPARK__STOP_EXECUTOR__INIT;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    assert_string_equal(cs_frame_body_name(&env), "unset");
    env.body_case = CSPARK__ENVELOPE__BODY_STOP_EXECUTOR;
    env.stop_executor = &se;
    assert_string_equal(cs_frame_body_name(&env), "stop_executor");
}

static void test_secret_sources(void **state)
{
    cs_conf *c = cs_conf_new();
    cs_error err = {0};
    char *s = (char *)1;
    unsetenv(AUTH_SECRET_ENV);
    assert_int_equal(cs_auth_secret_load(c, &s, &err), 0); /* off by default */
    assert_null(s);
    cs_conf_set(c, "spark.authenticate", "true");
    assert_int_equal(cs_auth_secret_load(c, &s, &err), CS_ENOTFOUND);
    assert_non_null(strstr(err.msg, "spark.authenticate.secret"));
    cs_conf_set(c, "spark.authenticate.secret", "from-conf");
    assert_int_equal(cs_auth_secret_load(c, &s, &err), 0);
    assert_string_equal(s, "from-conf");
    cs_auth_secret_free(s);
    char path[] = "/tmp/cspark-secret-XXXXXX";
    int fd = mkstemp(path);
    assert_int_equal(write(fd, "from-file\n", 10), 10);
    close(fd);
    cs_conf_set(c, "spark.authenticate.secret.file", path);
    assert_int_equal(cs_auth_secret_load(c, &s, &err), 0);
    assert_string_equal(s, "from-file");
    cs_auth_secret_free(s);
    setenv(AUTH_SECRET_ENV, "from-env", 1);
    assert_int_equal(cs_auth_secret_load(c, &s, &err), 0);
    assert_string_equal(s, "from-env");
    cs_auth_secret_free(s);
    unsetenv(AUTH_SECRET_ENV);
    unlink(path);
    assert_int_equal(cs_auth_secret_load(c, &s, &err), CS_EINVAL);
    assert_non_null(strstr(err.msg, "spark.authenticate.secret.file"));
    cs_conf_set(c, "spark.authenticate", "maybe");
    assert_int_equal(cs_auth_secret_load(c, &s, &err), CS_EINVAL);
    cs_conf_free(c);
}

static void test_proofs(void **state)
{
    char *a = cs_auth_secret_generate(), *b = cs_auth_secret_generate();
    assert_int_equal(strlen(a), 64);
    assert_string_not_equal(a, b);
    uint8_t sn[AUTH_NONCE_LEN], cn[AUTH_NONCE_LEN], m1[AUTH_MAC_LEN], m2[AUTH_MAC_LEN],
        m3[AUTH_MAC_LEN];
    assert_int_equal(cs_auth_nonce(sn), 0);
    assert_int_equal(cs_auth_nonce(cn), 0);
    assert_int_equal(cs_auth_client_mac(a, sn, cn, "app", m1), 0);
    assert_int_equal(cs_auth_server_mac(a, sn, cn, "app", m2), 0);
    assert_false(cs_auth_mac_equal(m1, m2, AUTH_MAC_LEN)); /* directions differ */
    assert_int_equal(cs_auth_client_mac(b, sn, cn, "app", m3), 0);
    assert_false(cs_auth_mac_equal(m1, m3, AUTH_MAC_LEN));
    assert_int_equal(cs_auth_client_mac(a, sn, cn, "app2", m3), 0);
    assert_false(cs_auth_mac_equal(m1, m3, AUTH_MAC_LEN));
    assert_int_equal(cs_auth_client_mac(a, sn, cn, "app", m3), 0);
    assert_true(cs_auth_mac_equal(m1, m3, AUTH_MAC_LEN));
    assert_false(cs_auth_mac_equal(m1, m3, AUTH_MAC_LEN - 1));
    cs_auth_secret_free(a);
    cs_auth_secret_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_and_coalesced),
        cmocka_unit_test(test_direct_body),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_body_name),
        cmocka_unit_test(test_secret_sources),
        cmocka_unit_test(test_proofs),
        cmocka_unit_test(test_untrusted_length_reserves_only_what_arrived),
        cmocka_unit_test(test_untrusted_growth_keeps_the_bytes),
        cmocka_unit_test(test_handshake_limit),
        cmocka_unit_test(test_options_from_conf),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
