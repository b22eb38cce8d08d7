/* auth.c — secrets and HMAC-SHA256 proofs for the rpc handshake (auth.h). Called by handshake.c
 * and by the processes that load or generate the application secret. OpenSSL libcrypto.
 */
#include "common/conf_entries.h"
#include "rpc/auth.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

static const char LABEL[] = "cspark-auth-v1";

void cs_auth_secret_free(char *secret)
{
    if (!secret) return;
    OPENSSL_cleanse(secret, strlen(secret));
    free(secret);
}

static int read_secret_file(const char *path, char **secret, cs_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cs_error_set(
            err, CS_EINVAL,
            "invalid value for spark.authenticate.secret.file: cannot read '%s': %s", path,
            strerror(errno));
    size_t cap = 256, n = 0;
    char *buf = cs_xmalloc(cap);
    for (;;) {
        if (n + 1 >= cap) {
            if (cap >= 1 << 20) break; /* a secret is small; refuse to slurp huge files */
            buf = cs_xrealloc(buf, cap * 2);
            cap *= 2;
        }
        size_t k = fread(buf + n, 1, cap - 1 - n, f);
        if (k == 0) break;
        n += k;
    }
    int bad = ferror(f);
    fclose(f);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--;
    buf[n] = 0;
    if (bad || n == 0) {
        OPENSSL_cleanse(buf, cap);
        free(buf);
        return cs_error_set(err, CS_EINVAL,
                            "invalid value for spark.authenticate.secret.file: '%s' is %s", path,
                            bad ? "unreadable" : "empty");
    }
    *secret = buf;
    return 0;
}

int cs_auth_secret_load(const cs_conf *conf, char **secret, cs_error *err)
{
    *secret = NULL;
    bool on = false;
    int rc = conf ? cs_conf_entry_bool(conf, "spark.authenticate", &on, err) : 0;
    if (rc < 0) return rc;
    if (!on) return 0;
    const char *env = getenv(AUTH_SECRET_ENV);
    if (env && *env) {
        *secret = cs_xstrdup(env);
        return 0;
    }
    const char *path = cs_conf_get(conf, "spark.authenticate.secret.file");
    if (path && *path) return read_secret_file(path, secret, err);
    const char *v = cs_conf_get(conf, "spark.authenticate.secret");
    if (v && *v) {
        *secret = cs_xstrdup(v);
        return 0;
    }
    return cs_error_set(
        err, CS_ENOTFOUND,
        "spark.authenticate is true but no secret is set (expected env " AUTH_SECRET_ENV
        ", spark.authenticate.secret.file or "
        "spark.authenticate.secret)");
}

char *cs_auth_secret_generate(void)
{
    uint8_t b[32];
    if (RAND_bytes(b, sizeof b) != 1) {
        fprintf(stderr, "cspark: RAND_bytes failed\n");
        abort();
    }
    char *s = cs_xmalloc(2 * sizeof b + 1);
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof b; i++) {
        s[2 * i] = hex[b[i] >> 4];
        s[2 * i + 1] = hex[b[i] & 15];
    }
    s[2 * sizeof b] = 0;
    OPENSSL_cleanse(b, sizeof b);
    return s;
}

int cs_auth_nonce(uint8_t *out)
{
    return RAND_bytes(out, AUTH_NONCE_LEN) == 1 ? 0 : CS_EIO;
}

static int mac(const char *secret, const uint8_t *first, const uint8_t *second, const char *app_id,
               uint8_t *out)
{
    size_t alen = app_id ? strlen(app_id) : 0;
    size_t n = sizeof LABEL - 1 + 2 * AUTH_NONCE_LEN + alen;
    uint8_t stackbuf[512];
    uint8_t *msg = n <= sizeof stackbuf ? stackbuf : cs_xmalloc(n);
    memcpy(msg, LABEL, sizeof LABEL - 1);
    memcpy(msg + sizeof LABEL - 1, first, AUTH_NONCE_LEN);
    memcpy(msg + sizeof LABEL - 1 + AUTH_NONCE_LEN, second, AUTH_NONCE_LEN);
    if (alen) memcpy(msg + sizeof LABEL - 1 + 2 * AUTH_NONCE_LEN, app_id, alen);
    unsigned int olen = 0;
    const unsigned char *r = HMAC(EVP_sha256(), secret, (int)strlen(secret), msg, n, out, &olen);
    if (msg != stackbuf) free(msg);
    return r && olen == AUTH_MAC_LEN ? 0 : CS_EIO;
}

int cs_auth_client_mac(const char *secret, const uint8_t *server_nonce, const uint8_t *client_nonce,
                       const char *app_id, uint8_t *out)
{
    return mac(secret, server_nonce, client_nonce, app_id, out);
}

int cs_auth_server_mac(const char *secret, const uint8_t *server_nonce, const uint8_t *client_nonce,
                       const char *app_id, uint8_t *out)
{
    return mac(secret, client_nonce, server_nonce, app_id, out);
}

bool cs_auth_mac_equal(const uint8_t *a, const uint8_t *b, size_t b_len)
{
    if (b_len != AUTH_MAC_LEN || !b) return false;
    return CRYPTO_memcmp(a, b, AUTH_MAC_LEN) == 0;
}
