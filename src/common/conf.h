/* conf.h — Spark configuration: a string→string map with Spark's typed getters.
 *
 * A cs_conf holds configuration exactly as SparkConf does: keys and values are strings; typed
 * access parses on read (sizes like "512m", durations like "120s", ints, doubles, booleans)
 * with Spark's syntax and reports malformed values naming the key. It also reads Java
 * .properties files (spark-defaults.conf, --properties-file) and serialises back to that format
 * (the driver/executor ConfigMap `spark.properties`). Built by cspark-submit, read by the
 * context, schedulers, cluster backends and executors.
 *
 * Ownership: cs_conf_new/cs_conf_clone return a map owned by the caller, freed with cs_conf_free.
 * cs_conf_set copies key and value. A string returned by cs_conf_get is borrowed: valid until the
 * next cs_conf_set/cs_conf_unset of that key or cs_conf_free. cs_conf_to_properties returns
 * malloc'd memory. Not thread-safe for concurrent writers; concurrent readers of an unchanging map
 * are fine.
 */
#ifndef CSPARK_COMMON_CONF_H
#define CSPARK_COMMON_CONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef struct cs_conf cs_conf;

cs_conf *cs_conf_new(void);
void cs_conf_free(cs_conf *c);
cs_conf *cs_conf_clone(const cs_conf *c);

void cs_conf_set(cs_conf *c, const char *key, const char *value); /* copies both */
void cs_conf_set_if_missing(cs_conf *c, const char *key, const char *value);
void cs_conf_unset(cs_conf *c, const char *key);
/* Borrowed until the next set/unset of that key; NULL if unset. */
const char *cs_conf_get(const cs_conf *c, const char *key);
bool cs_conf_contains(const cs_conf *c, const char *key);
/* Copies every entry of src into dst; overwrite=false keeps keys already in dst. */
void cs_conf_merge(cs_conf *dst, const cs_conf *src, bool overwrite);

/* Typed getters: if the key is unset, parse `dflt` (a string in the same syntax; NULL means
 * "no default": *out is left untouched and CS_ENOTFOUND is returned, err untouched).
 * On a malformed value: return CS_EINVAL with a message exactly like
 * "invalid value for spark.executor.memory: '12q' (expected a size such as 512m or 2g)".
 * Leading/trailing whitespace around values is ignored, as Spark trims. */
int cs_conf_get_int(const cs_conf *c, const char *key, const char *dflt, int64_t *out,
                    cs_error *err);
/* true/false (case-insensitive) only, as Spark */
int cs_conf_get_bool(const cs_conf *c, const char *key, const char *dflt, bool *out, cs_error *err);
int cs_conf_get_double(const cs_conf *c, const char *key, const char *dflt, double *out,
                       cs_error *err);

/* Spark byte strings: b, k/kb, m/mb, g/gb, t/tb, p/pb (binary units, case-insensitive); a bare
 * number uses default_unit (e.g. CS_MiB for spark.executor.memory, CS_BYTE for
 * spark.kubernetes.configMap.maxSize). Result in bytes. Negative values and overflow are
 * CS_EINVAL. */
enum { CS_BYTE = 1 };
#define CS_KiB 1024LL
#define CS_MiB (1024LL * 1024)
#define CS_GiB (1024LL * 1024 * 1024)
#define CS_TiB (1024LL * 1024 * 1024 * 1024)
int cs_conf_get_size(const cs_conf *c, const char *key, const char *dflt, int64_t default_unit,
                     int64_t *out_bytes, cs_error *err);

/* Spark time strings: us, ms, s, m or min, h, d (case-insensitive); a bare number uses
 * default_unit_ms (CS_MS=1, CS_SEC=1000). Result in ms (microseconds are truncated toward 0). */
#define CS_MS 1LL
#define CS_SEC 1000LL
#define CS_MIN (60LL * 1000)
int cs_conf_get_duration_ms(const cs_conf *c, const char *key, const char *dflt,
                            int64_t default_unit_ms, int64_t *out_ms, cs_error *err);

/* The same parsers on a bare string (no key); on error fill err with the message naming `what`
 * in place of the key. Exposed for command-line options and tests. */
int cs_conf_parse_int(const char *what, const char *s, int64_t *out, cs_error *err);
int cs_conf_parse_bool(const char *what, const char *s, bool *out, cs_error *err);
int cs_conf_parse_double(const char *what, const char *s, double *out, cs_error *err);
int cs_conf_parse_size(const char *what, const char *s, int64_t default_unit, int64_t *out_bytes,
                       cs_error *err);
int cs_conf_parse_duration_ms(const char *what, const char *s, int64_t default_unit_ms,
                              int64_t *out_ms, cs_error *err);

/* Java .properties parsing as Spark reads spark-defaults.conf / --properties-file:
 * `key=value`, `key: value`, `key value`, # and ! comments, line continuation with a trailing
 * backslash, \t \n \r \f \uXXXX escapes, surrounding whitespace trimmed (Spark trims values).
 * overwrite=false keeps existing keys. Errors name the file and what is wrong; a missing file
 * is CS_ENOTFOUND "properties file /x/y not found". */
int cs_conf_load_properties(cs_conf *c, const char *path, bool overwrite, cs_error *err);
/* Same, from memory; `name` is used in error messages. */
int cs_conf_parse_properties(cs_conf *c, const char *name, const char *text, size_t len,
                             bool overwrite, cs_error *err);

/* Iterates keys in sorted (strcmp) order. fn must not modify c. */
void cs_conf_foreach(const cs_conf *c, void (*fn)(void *arg, const char *key, const char *value),
                     void *arg);
size_t cs_conf_size(const cs_conf *c);

/* Serialises as sorted "key=value\n" lines (properties-escaped, so cs_conf_parse_properties reads
 * it back identically, except that leading/trailing whitespace of keys and values is trimmed on
 * reading, as Spark does); malloc'd, NUL-terminated; *len (if non-NULL) gets the length. */
char *cs_conf_to_properties(const cs_conf *c, size_t *len);

/* Redaction as Spark's spark.redaction.regex default "(?i)secret|password|token|access[.]key"
 * (matched against the key, case-insensitive, anywhere in it): returns value, or the constant
 * "*********(redacted)" when the key is sensitive — also every key conf_entries.c marks as a
 * credential (cs_conf_entry_is_secret), whatever the key's name and spark.redaction.regex. */
#define CS_REDACTED "*********(redacted)"
const char *cs_conf_redact(const char *key, const char *value);
bool cs_conf_is_sensitive(const char *key);
/* As cs_conf_redact, but honours a user-set spark.redaction.regex in c (POSIX extended syntax; a
 * leading "(?i)" means case-insensitive). An unusable regex falls back to the default. A
 * credential's key is redacted whatever the regex. */
const char *cs_conf_redact_with(const cs_conf *c, const char *key, const char *value);
/* Checks that spark.redaction.regex (if set in c) compiles; CS_EINVAL naming the key if not. */
int cs_conf_check_redaction_regex(const cs_conf *c, cs_error *err);

#endif /* CSPARK_COMMON_CONF_H */
