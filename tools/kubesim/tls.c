/* kubesim certificate generation (see tls.h) with libcrypto: EC keys, X.509 v3 with
 * basicConstraints, keyUsage and subjectAltName (DNS:localhost, IP:127.0.0.1), valid for one year.
 */
#include "tls.h"
#include "store.h"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdlib.h>
#include <string.h>

static EVP_PKEY *new_key(void)
{
    return EVP_EC_gen("prime256v1");
}

static int add_ext(X509 *cert, X509 *issuer, int nid, const char *value)
{
    X509V3_CTX ctx;
    X509V3_set_ctx_nodb(&ctx);
    X509V3_set_ctx(&ctx, issuer, cert, NULL, NULL, 0);
    X509_EXTENSION *ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
    if (!ext) return -1;
    int ok = X509_add_ext(cert, ext, -1);
    X509_EXTENSION_free(ext);
    return ok ? 0 : -1;
}

static X509 *new_cert(EVP_PKEY *key, const char *cn, X509 *issuer, EVP_PKEY *issuer_key,
                      long serial, int ca)
{
    X509 *c = X509_new();
    if (!c) return NULL;
    X509_set_version(c, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(c), serial);
    X509_gmtime_adj(X509_getm_notBefore(c), -3600);
    X509_gmtime_adj(X509_getm_notAfter(c), 365L * 24 * 3600);
    X509_set_pubkey(c, key);
    X509_NAME *name = X509_get_subject_name(c);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
    X509_set_issuer_name(c, issuer ? X509_get_subject_name(issuer) : name);
    X509 *iss = issuer ? issuer : c;
    int rc = 0;
    if (ca) {
        rc |= add_ext(c, iss, NID_basic_constraints, "critical,CA:TRUE");
        rc |= add_ext(c, iss, NID_key_usage, "critical,keyCertSign,cRLSign,digitalSignature");
        rc |= add_ext(c, iss, NID_subject_key_identifier, "hash");
    } else {
        rc |= add_ext(c, iss, NID_basic_constraints, "critical,CA:FALSE");
        rc |= add_ext(c, iss, NID_key_usage, "critical,digitalSignature,keyEncipherment");
        rc |= add_ext(c, iss, NID_ext_key_usage, "serverAuth");
        rc |= add_ext(c, iss, NID_subject_alt_name,
                      "DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,"
                      "DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,"
                      "IP:127.0.0.1,IP:" KS_SERVICE_IP);
    }
    if (rc || !X509_sign(c, issuer_key ? issuer_key : key, EVP_sha256())) {
        X509_free(c);
        return NULL;
    }
    return c;
}

static char *bio_string(BIO *b)
{
    char *data;
    long n = BIO_get_mem_data(b, &data);
    char *s = malloc((size_t)n + 1);
    if (s) {
        memcpy(s, data, (size_t)n);
        s[n] = 0;
    }
    return s;
}

int ks_tls_generate(ks_tls *t)
{
    memset(t, 0, sizeof *t);
    int rc = -1;
    EVP_PKEY *cakey = new_key(), *key = new_key();
    X509 *ca = NULL, *cert = NULL;
    BIO *b1 = BIO_new(BIO_s_mem()), *b2 = BIO_new(BIO_s_mem()), *b3 = BIO_new(BIO_s_mem());
    if (!cakey || !key || !b1 || !b2 || !b3) goto out;
    ca = new_cert(cakey, "kubesim-ca", NULL, NULL, 1, 1);
    if (!ca) goto out;
    cert = new_cert(key, "kubesim-apiserver", ca, cakey, 2, 0);
    if (!cert) goto out;
    if (!PEM_write_bio_X509(b1, ca) || !PEM_write_bio_X509(b2, cert) ||
        !PEM_write_bio_PrivateKey(b3, key, NULL, NULL, 0, NULL, NULL))
        goto out;
    t->ca_pem = bio_string(b1);
    t->cert_pem = bio_string(b2);
    t->key_pem = bio_string(b3);
    rc = t->ca_pem && t->cert_pem && t->key_pem ? 0 : -1;
out:
    X509_free(ca);
    X509_free(cert);
    EVP_PKEY_free(cakey);
    EVP_PKEY_free(key);
    BIO_free(b1);
    BIO_free(b2);
    BIO_free(b3);
    if (rc) ks_tls_clear(t);
    return rc;
}

void ks_tls_clear(ks_tls *t)
{
    free(t->ca_pem);
    free(t->cert_pem);
    free(t->key_pem);
    memset(t, 0, sizeof *t);
}
