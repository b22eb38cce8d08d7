/* handshake.c — spark.authenticate on every connection of an endpoint with a secret: the state
 * machine of the challenge-response (auth.h draws the messages and holds the cryptography) on
 * both sides, the refusal of a peer that fails it or says nothing for the endpoint's
 * auth_timeout_ms, and the step that opens a connection once it is authenticated (or at once
 * without a secret): on_accept on the server side, waking cs_rpc_connect's caller on the client
 * side. The same step lifts the decoder's handshake limit (RPC_HANDSHAKE_MAX_FRAME) to
 * spark.rpc.message.maxSize, trusting an authenticated peer's frame lengths.
 *
 * What an unauthenticated peer can cost is bounded: frames of RPC_HANDSHAKE_MAX_FRAME bytes, no
 * read buffer of its own, auth_timeout_ms of waiting, and at most max_unauthenticated such peers
 * per endpoint — the accepted peers still authenticating wait in e->unauth, oldest first, and a
 * new one beyond the bound drops the oldest (an honest peer finishes the handshake within a few
 * round trips, so it is the hostile ones that age; a dropped honest client sees a closed
 * connection, not an authentication failure, and may retry). Refusals of such peers are logged
 * at a bounded rate (cs_rpc_log_refusal).
 *
 *   server: C_AUTH/A_SRV_HELLO -AuthHello-> A_SRV_RESPONSE -AuthResponse(good MAC)-> C_OPEN
 *   client: C_AUTH/A_CLI_CHALLENGE -AuthChallenge-> A_CLI_RESULT -AuthResult(ok, proof)-> C_OPEN
 *   Anything else at any step, or the timer, refuses the peer: the server sends
 *   AuthResult(ok=false) and drains (C_DRAIN); the client closes, cs_rpc_connect fails (CS_EAUTH).
 *
 * Locks and lifetimes (the timer holds a reference): rpc_internal.h. Called by connection.c and
 * listen_connect.c, on the loop thread only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "rpc/rpc_internal.h"

#define COMP cs_rpc_log_component

/* ---- peers still authenticating ---------------------------------------------------------- */

void cs_rpc_log_refusal(rpc_conn *c, const char *reason)
{
    rpc_endpoint *e = c->e;
    uint64_t now = uv_now(&e->loop);
    if (now - e->refusal_window >= RPC_REFUSAL_LOG_WINDOW_MS) {
        if (e->refusals_dropped)
            CS_WARN(COMP,
                    "event=auth_failed_unlogged endpoint=%s count=%lld window_ms=%d "
                    "reason=\"more refused peers than are logged\"",
                    cs_log_value(e->name), e->refusals_dropped, RPC_REFUSAL_LOG_WINDOW_MS);
        e->refusal_window = now;
        e->refusals_logged = 0;
        e->refusals_dropped = 0;
    }
    if (e->refusals_logged >= RPC_REFUSAL_LOG_BURST) {
        e->refusals_dropped++;
        return;
    }
    e->refusals_logged++;
    CS_WARN(COMP, "peer=%s event=auth_failed reason=%s endpoint=%s", cs_log_value(c->peer),
            cs_log_quote(reason), cs_log_value(e->name));
}

void cs_rpc_handshake_forget(rpc_conn *c)
{
    if (!c->waiting_auth) return;
    rpc_endpoint *e = c->e;
    if (c->prev_unauth)
        c->prev_unauth->next_unauth = c->next_unauth;
    else
        e->unauth_head = c->next_unauth;
    if (c->next_unauth)
        c->next_unauth->prev_unauth = c->prev_unauth;
    else
        e->unauth_tail = c->prev_unauth;
    c->next_unauth = c->prev_unauth = NULL;
    c->waiting_auth = 0;
    e->num_unauth--;
}

/* A newly accepted peer joins the unauthenticated ones, dropping the oldest beyond the bound. */
static void hold_unauthenticated(rpc_conn *c)
{
    rpc_endpoint *e = c->e;
    while (e->num_unauth >= e->max_unauthenticated && e->unauth_head) {
        rpc_conn *old = e->unauth_head;
        char why[200];
        snprintf(why, sizeof why,
                 "more than %d connections waiting for authentication "
                 "(cspark.rpc.maxUnauthenticatedConnections): the oldest is dropped",
                 e->max_unauthenticated);
        cs_rpc_log_refusal(old, why);
        cs_rpc_conn_close_now(old, "dropped while authenticating: too many unauthenticated peers");
    }
    c->waiting_auth = 1;
    c->next_unauth = NULL;
    c->prev_unauth = e->unauth_tail;
    if (e->unauth_tail)
        e->unauth_tail->next_unauth = c;
    else
        e->unauth_head = c;
    e->unauth_tail = c;
    e->num_unauth++;
}

/* The connection is open: frames up to spark.rpc.message.maxSize, reserved whole at their header
 * only when the peer proved the secret. */
static void lift_limits(rpc_conn *c)
{
    cs_frame_decoder_set_limit(&c->dec, cs_rpc_endpoint_max_frame(c->e), c->e->secret != NULL,
                               "frame larger than spark.rpc.message.maxSize");
}

/* ---- refusing and opening ---------------------------------------------------------------- */

void cs_rpc_handshake_refuse(rpc_conn *c, const char *reason)
{
    if (c->waiting_auth)
        cs_rpc_log_refusal(c, reason);
    else
        CS_WARN(COMP, "peer=%s event=auth_failed reason=%s endpoint=%s", cs_log_value(c->peer),
                cs_log_quote(reason), cs_log_value(c->e->name));
    cs_rpc_handshake_forget(c);
    Cspark__AuthResult res = CSPARK__AUTH_RESULT__INIT;
    res.ok = 0;
    res.reason = (char *)reason;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_AUTH_RESULT;
    env.auth_result = &res;
    snprintf(c->drain_reason, sizeof c->drain_reason, "authentication failed: %s", reason);
    c->state = C_DRAIN;
    c->close_after_flush = 1;
    if (c->timer_on) uv_timer_stop(&c->timer);
    cs_rpc_send_now(c, &env);
}

/* Client side: the handshake failed; the connecting caller gets CS_EAUTH. */
static void client_fail(rpc_conn *c, const char *reason)
{
    CS_WARN(COMP, "peer=%s event=auth_failed reason=%s endpoint=%s", cs_log_value(c->peer),
            cs_log_quote(reason), cs_log_value(c->e->name));
    char msg[300];
    snprintf(msg, sizeof msg, "authentication failed: %s", reason);
    pthread_mutex_lock(&c->mu);
    if (!c->connect_done) {
        c->connect_rc = CS_EAUTH;
        snprintf(c->connect_msg, sizeof c->connect_msg, "%s", msg);
    }
    pthread_mutex_unlock(&c->mu);
    cs_rpc_conn_close_now(c, msg);
}

static void on_auth_timeout(uv_timer_t *t)
{
    rpc_conn *c = t->data;
    if (c->state == C_AUTH) cs_rpc_handshake_refuse(c, "authentication timed out");
}

/* Client side: open; cs_rpc_connect's caller wakes with the connection. */
static void client_open(rpc_conn *c)
{
    c->state = C_OPEN;
    lift_limits(c);
    pthread_mutex_lock(&c->mu);
    if (!c->connect_done) {
        c->connect_done = 1;
        c->connect_rc = 0;
        c->announce = 1;
        pthread_cond_broadcast(&c->cv);
    }
    pthread_mutex_unlock(&c->mu);
}

/* Server side: open; on_accept runs. */
static void server_open(rpc_conn *c)
{
    c->state = C_OPEN;
    lift_limits(c);
    cs_rpc_handshake_forget(c);
    if (c->timer_on) uv_timer_stop(&c->timer);
    if (c->e->h.on_accept) c->e->h.on_accept(c->e->h.arg, c);
}

void cs_rpc_handshake_accepted(rpc_conn *c)
{
    rpc_endpoint *e = c->e;
    if (e->secret) {
        c->state = C_AUTH;
        c->step = A_SRV_HELLO;
        hold_unauthenticated(c);
        uv_timer_init(&e->loop, &c->timer);
        c->timer.data = c;
        cs_rpc_conn_ref(c); /* the timer's reference */
        c->timer_on = 1;
        uv_timer_start(&c->timer, on_auth_timeout, e->auth_timeout_ms, 0);
    }
    cs_rpc_conn_start_reading(c);
    if (c->state == C_OPEN) server_open(c);
}

void cs_rpc_handshake_connected(rpc_conn *c)
{
    rpc_endpoint *e = c->e;
    if (!e->secret) {
        c->state = C_OPEN;
        cs_rpc_conn_start_reading(c);
        if (c->state == C_OPEN) {
            client_open(c);
            cs_rpc_flush(c);
        }
        return;
    }
    c->state = C_AUTH;
    c->step = A_CLI_CHALLENGE;
    cs_rpc_conn_start_reading(c);
    if (c->state == C_CLOSING) return;
    Cspark__AuthHello hello = CSPARK__AUTH_HELLO__INIT;
    hello.app_id = e->app_id ? e->app_id : "";
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_AUTH_HELLO;
    env.auth_hello = &hello;
    cs_rpc_send_now(c, &env);
}

/* ---- the steps --------------------------------------------------------------------------- */

static void server_hello(rpc_conn *c, const Cspark__Envelope *m)
{
    rpc_endpoint *e = c->e;
    if (m->body_case != CSPARK__ENVELOPE__BODY_AUTH_HELLO) {
        char why[128];
        snprintf(why, sizeof why, "message before authentication (%s)", cs_frame_body_name(m));
        cs_rpc_handshake_refuse(c, why);
        return;
    }
    const char *app = m->auth_hello->app_id ? m->auth_hello->app_id : "";
    if (e->app_id && *e->app_id && strcmp(app, e->app_id) != 0) {
        cs_rpc_handshake_refuse(c, "application id mismatch");
        return;
    }
    c->auth_app = cs_xstrdup(app);
    if (cs_auth_nonce(c->server_nonce) < 0) {
        cs_rpc_handshake_refuse(c, "no random nonce");
        return;
    }
    Cspark__AuthChallenge ch = CSPARK__AUTH_CHALLENGE__INIT;
    ch.nonce.data = c->server_nonce;
    ch.nonce.len = AUTH_NONCE_LEN;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_AUTH_CHALLENGE;
    env.auth_challenge = &ch;
    c->step = A_SRV_RESPONSE;
    cs_rpc_send_now(c, &env);
}

static void server_response(rpc_conn *c, const Cspark__Envelope *m)
{
    rpc_endpoint *e = c->e;
    if (m->body_case != CSPARK__ENVELOPE__BODY_AUTH_RESPONSE) {
        cs_rpc_handshake_refuse(c, "expected an authentication response");
        return;
    }
    const Cspark__AuthResponse *r = m->auth_response;
    uint8_t want[AUTH_MAC_LEN], proof[AUTH_MAC_LEN];
    if (r->client_nonce.len != AUTH_NONCE_LEN) {
        cs_rpc_handshake_refuse(c, "bad client nonce");
        return;
    }
    memcpy(c->client_nonce, r->client_nonce.data, AUTH_NONCE_LEN);
    if (cs_auth_client_mac(e->secret, c->server_nonce, c->client_nonce, c->auth_app, want) < 0 ||
        !cs_auth_mac_equal(want, r->mac.data, r->mac.len)) {
        cs_rpc_handshake_refuse(c, "bad MAC");
        return;
    }
    if (cs_auth_server_mac(e->secret, c->server_nonce, c->client_nonce, c->auth_app, proof) < 0) {
        cs_rpc_handshake_refuse(c, "cannot compute proof");
        return;
    }
    Cspark__AuthResult res = CSPARK__AUTH_RESULT__INIT;
    res.ok = 1;
    res.server_mac.data = proof;
    res.server_mac.len = AUTH_MAC_LEN;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_AUTH_RESULT;
    env.auth_result = &res;
    cs_rpc_send_now(c, &env);
    c->step = A_NONE;
    server_open(c);
}

static void client_challenge(rpc_conn *c, const Cspark__Envelope *m)
{
    rpc_endpoint *e = c->e;
    if (m->body_case == CSPARK__ENVELOPE__BODY_AUTH_RESULT && !m->auth_result->ok) {
        client_fail(c, m->auth_result->reason && *m->auth_result->reason ? m->auth_result->reason
                                                                         : "refused by server");
        return;
    }
    if (m->body_case != CSPARK__ENVELOPE__BODY_AUTH_CHALLENGE ||
        m->auth_challenge->nonce.len != AUTH_NONCE_LEN) {
        client_fail(c, "expected an authentication challenge");
        return;
    }
    memcpy(c->server_nonce, m->auth_challenge->nonce.data, AUTH_NONCE_LEN);
    uint8_t mac[AUTH_MAC_LEN];
    if (cs_auth_nonce(c->client_nonce) < 0 ||
        cs_auth_client_mac(e->secret, c->server_nonce, c->client_nonce, e->app_id, mac) < 0) {
        client_fail(c, "cannot compute proof");
        return;
    }
    Cspark__AuthResponse r = CSPARK__AUTH_RESPONSE__INIT;
    r.client_nonce.data = c->client_nonce;
    r.client_nonce.len = AUTH_NONCE_LEN;
    r.mac.data = mac;
    r.mac.len = AUTH_MAC_LEN;
    Cspark__Envelope env = CSPARK__ENVELOPE__INIT;
    env.body_case = CSPARK__ENVELOPE__BODY_AUTH_RESPONSE;
    env.auth_response = &r;
    c->step = A_CLI_RESULT;
    cs_rpc_send_now(c, &env);
}

static void client_result(rpc_conn *c, const Cspark__Envelope *m)
{
    rpc_endpoint *e = c->e;
    if (m->body_case != CSPARK__ENVELOPE__BODY_AUTH_RESULT) {
        client_fail(c, "expected an authentication result");
        return;
    }
    const Cspark__AuthResult *r = m->auth_result;
    if (!r->ok) {
        client_fail(c, r->reason && *r->reason ? r->reason : "refused by server");
        return;
    }
    uint8_t want[AUTH_MAC_LEN];
    if (cs_auth_server_mac(e->secret, c->server_nonce, c->client_nonce, e->app_id, want) < 0 ||
        !cs_auth_mac_equal(want, r->server_mac.data, r->server_mac.len)) {
        client_fail(c, "server proof mismatch (wrong secret?)");
        return;
    }
    c->step = A_NONE;
    client_open(c);
}

void cs_rpc_handshake_message(rpc_conn *c, Cspark__Envelope *m)
{
    switch (c->step) {
    case A_SRV_HELLO:
        server_hello(c, m);
        break;
    case A_SRV_RESPONSE:
        server_response(c, m);
        break;
    case A_CLI_CHALLENGE:
        client_challenge(c, m);
        break;
    case A_CLI_RESULT:
        client_result(c, m);
        break;
    case A_NONE:
        break;
    }
}
