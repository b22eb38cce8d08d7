/* kubesim TLS material: a self-signed CA and a server certificate for 127.0.0.1 / localhost signed
 * by it, generated at start with OpenSSL's libcrypto (EC P-256). Called by main.c. */
#ifndef KUBESIM_TLS_H
#define KUBESIM_TLS_H

typedef struct ks_tls {
    char *ca_pem;   /* CA certificate (PEM) — goes into the kubeconfig */
    char *cert_pem; /* server certificate (PEM) */
    char *key_pem;  /* server private key (PKCS#8 PEM) */
} ks_tls;

/* Fills t with new malloc'd PEM strings; returns 0 or -1. */
int ks_tls_generate(ks_tls *t);
void ks_tls_clear(ks_tls *t);

#endif
