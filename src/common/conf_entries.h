/* conf_entries.h — every typed configuration key cspark reads, declared once with its type and
 * the values it accepts (Spark's ConfigEntry with checkValue) and, where the key has one, its
 * default: the only one (Spark's createWithDefault).
 *
 * cspark-submit calls cs_conf_validate on the effective configuration before anything is
 * created: a value of the wrong syntax or out of range (a port of 70000, a zero heartbeat
 * interval, a negative timeout, zero executor memory) is refused with one line naming the key,
 * the value and what is expected, and the application never starts. The components read a key
 * whose entry has a default with the cs_conf_entry_* accessors below; other keys with the typed
 * getters of conf.h, with the default of their one reader. tests/integration/conf_entries.sh
 * checks that every key read with a typed getter under src/ is declared here with the same type,
 * so a new key cannot skip validation, and that no key has a second default (an entry's and a
 * call site's, or two call sites').
 *
 * The table is static and read-only; nothing to free. Thread-safe.
 */
#ifndef CSPARK_COMMON_CONF_ENTRIES_H
#define CSPARK_COMMON_CONF_ENTRIES_H

#include <stdbool.h>
#include <stdint.h>

#include "common/conf.h"

typedef enum {
    CS_CONF_BOOL,
    CS_CONF_INT,      /* bounds: min/max */
    CS_CONF_PORT,     /* an int in [0, 65535]; 0 picks a free port, as Spark */
    CS_CONF_SIZE,     /* bytes; a bare number is in `unit` bytes; bounds in bytes */
    CS_CONF_DURATION, /* ms; a bare number is in `unit` ms; bounds in ms */
    CS_CONF_DOUBLE,   /* bounds: min/max, exclusive where min_open/max_open */
    CS_CONF_CHOICE,   /* one of `choices` ("a|b|c"), matched case-insensitively when `nocase` */
    CS_CONF_STRING,   /* any text, checked by its reader (a master URL); declared for its default */
} cs_conf_type;

typedef struct cs_conf_entry {
    const char *key;
    cs_conf_type type;
    int64_t unit; /* CS_CONF_SIZE: CS_BYTE, CS_KiB, CS_MiB; CS_CONF_DURATION: CS_MS, CS_SEC */
    double min;   /* inclusive unless min_open */
    double max;   /* inclusive unless max_open */
    bool min_open;
    bool max_open;
    const char *choices;  /* CS_CONF_CHOICE */
    bool nocase;          /* CS_CONF_CHOICE */
    const char *dflt;     /* Spark's default, in the key's syntax; NULL: none (optional key) */
    const char *fallback; /* unset: the value of this key instead (Spark's fallbackConf) */
    /* a credential: never written where others can read it (a ConfigMap, a pod spec, the event
     * log, the UI's environment page: always redacted there, whatever spark.redaction.regex
     * says); a pod that needs it reads it from a Kubernetes Secret through the environment
     * variable secret_env (NULL: no pod is given it that way) */
    bool secret;
    const char *secret_env;
} cs_conf_entry;

/* The entry of `key`, or NULL when cspark declares no type for it. Borrowed (static). */
const cs_conf_entry *cs_conf_entry_find(const char *key);

/* Whether key's entry is a credential (cs_conf_entry.secret); false for keys without an entry. */
bool cs_conf_entry_is_secret(const char *key);

/* The typed accessors: the key's value, or its entry's default when unset (CS_ENOTFOUND, *out
 * untouched, when the entry has none), in the entry's default unit; CS_EINVAL as conf.h's getters
 * on a malformed value, and for a key with no entry of that type (int: INT or PORT). A duration
 * with a fallback key reads that key (through its own entry) when it is unset. */
int cs_conf_entry_int(const cs_conf *c, const char *key, int64_t *out, cs_error *err);
int cs_conf_entry_bool(const cs_conf *c, const char *key, bool *out, cs_error *err);
int cs_conf_entry_double(const cs_conf *c, const char *key, double *out, cs_error *err);
int cs_conf_entry_size(const cs_conf *c, const char *key, int64_t *out_bytes, cs_error *err);
int cs_conf_entry_duration_ms(const cs_conf *c, const char *key, int64_t *out_ms, cs_error *err);
/* A CHOICE or STRING key's value, else its entry's default (NULL when it has none, or when the
 * key has no such entry). Borrowed from c or the table. */
const char *cs_conf_entry_string(const cs_conf *c, const char *key);

/* Checks one value against its entry; CS_EINVAL with "invalid value for KEY: 'VALUE' (expected
 * ...)" when it does not parse or is out of range. */
int cs_conf_entry_check(const cs_conf_entry *e, const char *value, cs_error *err);

/* Checks every key of `c` that has an entry, in the table's order, then the rules that relate
 * keys (spark.network.timeout above spark.executor.heartbeatInterval, as SparkConf does). */
int cs_conf_validate(const cs_conf *c, cs_error *err);

/* spark.app.id as a user may give it: 1 to 63 letters, digits, '-', '_' or '.', beginning and
 * ending with a letter or digit (a Kubernetes label value, as Spark labels every pod
 * spark-app-selector=<id>), and no "..". The id names local directories and event logs, so a
 * '/', '\\', control byte or leading '.' would put them elsewhere. CS_EINVAL with one line naming
 * the key, the value and what is expected. Called by cs_conf_validate and by the context. */
int cs_conf_check_app_id(const char *id, cs_error *err);

/* Where a key may have a default of its own besides its entry's (conf_entries.c lists each):
 * CS_CONF_IN_CLUSTER where executors are processes apart from the driver (local-cluster and
 * Kubernetes), CS_CONF_IN_DRIVER_POD in the driver pod of a cluster-mode application, and
 * CS_CONF_IN_EXECUTOR_POD in executor pods (Spark's KubernetesConf defaults). */
typedef enum {
    CS_CONF_IN_CLUSTER = 1,
    CS_CONF_IN_DRIVER_POD = 2,
    CS_CONF_IN_EXECUTOR_POD = 4,
} cs_conf_scope;

/* The default of key in scope: the scope's own when it has one, else its entry's (NULL: none).
 * Borrowed (static). */
const char *cs_conf_entry_default_in(const char *key, cs_conf_scope scope);
/* An INT or PORT key's value, else its default in scope. As cs_conf_entry_int. */
int cs_conf_entry_int_in(const cs_conf *c, const char *key, cs_conf_scope scope, int64_t *out,
                         cs_error *err);
/* Sets in c every key of scope's own defaults that c does not set, so that every later reader of
 * c (this process's components, the configuration a driver pod or executors receive) sees it. */
void cs_conf_entry_set_defaults_in(cs_conf *c, cs_conf_scope scope);

/* The whole table, for documentation and tests: *n receives its length. */
const cs_conf_entry *cs_conf_entries(int *n);

#endif /* CSPARK_COMMON_CONF_ENTRIES_H */
