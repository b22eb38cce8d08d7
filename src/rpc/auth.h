/* auth.h — spark.authenticate: the per-application shared secret and the challenge-response
 * proofs of the rpc handshake.
 *
 * Handshake (run by handshake.c on every connection when a secret is set; proto/cspark.proto):
 *   client -> AuthHello(app_id)
 *   server -> AuthChallenge(server nonce, 32 random bytes)
 *   client -> AuthResponse(client nonce, HMAC-SHA256(secret, "cspark-auth-v1" || server nonce ||
 *             client nonce || app_id))
 *   server -> AuthResult(ok, HMAC-SHA256(secret, "cspark-auth-v1" || client nonce || server nonce
 *             || app_id))   — the server proves knowledge too; the client checks it.
 * Both nonces are exactly AUTH_NONCE_LEN bytes, so the concatenation is unambiguous. The secret
 * never crosses the wire and is never logged; MACs are compared with CRYPTO_memcmp.
 *
 * Secret sources (as Spark): env _SPARK_AUTH_SECRET, then conf spark.authenticate.secret.file
 * (the file's content, trailing newline stripped), then conf spark.authenticate.secret.
 * Called by handshake.c (proofs), the driver (cs_auth_secret_generate) and executors/driver
 * (cs_auth_secret_load).
 *
 * Ownership: returned secrets are malloc'd, owned by the caller; release with cs_auth_secret_free
 * (which wipes them).
 */
#ifndef CSPARK_RPC_AUTH_H
#define CSPARK_RPC_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/conf.h"
#include "common/err.h"

#define AUTH_NONCE_LEN 32
#define AUTH_MAC_LEN 32
#define AUTH_SECRET_ENV "_SPARK_AUTH_SECRET"

/* If spark.authenticate is false (default): *secret = NULL, returns 0. If true: the secret from
 * the sources above in that order; none set -> CS_ENOTFOUND naming them (a driver then calls
 * cs_auth_secret_generate and passes it to executors through _SPARK_AUTH_SECRET); an unreadable or
 * empty secret file -> CS_EINVAL naming the key and path; bad spark.authenticate -> CS_EINVAL. */
int cs_auth_secret_load(const cs_conf *conf, char **secret, cs_error *err);
/* A fresh random secret: 32 bytes from RAND_bytes as 64 lowercase hex characters (malloc'd). */
char *cs_auth_secret_generate(void);
/* Wipes and frees; NULL is fine. */
void cs_auth_secret_free(char *secret);

/* AUTH_NONCE_LEN random bytes (RAND_bytes). 0 or CS_EIO. */
int cs_auth_nonce(uint8_t *out);
/* The client's proof (server nonce first) and the server's proof (client nonce first);
 * out has AUTH_MAC_LEN bytes. 0 or CS_EIO. */
int cs_auth_client_mac(const char *secret, const uint8_t *server_nonce, const uint8_t *client_nonce,
                       const char *app_id, uint8_t *out);
int cs_auth_server_mac(const char *secret, const uint8_t *server_nonce, const uint8_t *client_nonce,
                       const char *app_id, uint8_t *out);
/* Constant-time comparison of two AUTH_MAC_LEN-byte MACs; a's length is checked by the caller. */
bool cs_auth_mac_equal(const uint8_t *a, const uint8_t *b, size_t b_len);

#endif /* CSPARK_RPC_AUTH_H */
