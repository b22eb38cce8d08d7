/* conf_k8s_keys.h — every spark.kubernetes.* key of Spark 4.1, each either implemented with
 * Spark's default or refused with the reason, as data (Spark's Config.scala of the Kubernetes
 * module, read key by key).
 *
 * A key cspark implements has its meaning here and, when it has a type, its entry (type, range,
 * default) in conf_entries.c; a key it refuses has the reason. cs_conf_k8s_check refuses a set
 * refused key in one line naming it, its value and why; cspark-submit calls it through
 * cs_conf_validate before anything is created, and the Kubernetes backend when a driver starts
 * (client mode, and a driver made with the job API). A refused key set to Spark's default changes
 * nothing and is accepted. tools/conf_doc.c prints the table for docs/configuration.md
 * (tests/integration/conf_doc.sh fails when the page is out of date).
 *
 * The table is static and read-only; nothing to free. Thread-safe.
 */
#ifndef CSPARK_COMMON_CONF_K8S_KEYS_H
#define CSPARK_COMMON_CONF_K8S_KEYS_H

#include "common/conf.h"
#include "common/err.h"

typedef struct cs_conf_k8s_key {
    /* the key; ending in '.', every key under that prefix (spark.kubernetes.driver.label.) */
    const char *key;
    const char *meaning; /* what it does, as Spark's documentation says */
    /* the default, in words, of a key whose conf_entries.c entry has none (computed, or none):
     * NULL when the entry has it (it is shown from there), or for "(none)" */
    const char *dflt_words;
    const char
        *refused; /* NULL: implemented; else why cspark refuses any value but Spark's default */
} cs_conf_k8s_key;

/* The table, in the order of docs/configuration.md; *n receives its length. */
const cs_conf_k8s_key *cs_conf_k8s_keys(int *n);

/* The row of key (exact, or the family whose prefix it starts with), or NULL. Borrowed. */
const cs_conf_k8s_key *cs_conf_k8s_key_find(const char *key);

/* CS_EINVAL with "KEY: 'VALUE' is not supported by cspark (REASON); remove it[ or set Spark's
 * default 'D']" for the first refused key c sets to a refused value, in c's order. */
int cs_conf_k8s_check(const cs_conf *c, cs_error *err);

#endif /* CSPARK_COMMON_CONF_K8S_KEYS_H */
