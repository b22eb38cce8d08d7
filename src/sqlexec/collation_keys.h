/*
 * collation_keys.h — the keys that make Spark's string collations (columnar/col_collation.h)
 * comparable bytewise: two strings are equal under a collation exactly when their keys are equal,
 * and their keys' memcmp order is the collation's order (Spark's CollationFactory
 * .getCollationKey). UTF8_BINARY: the string's own bytes; UTF8_LCASE: Spark's lowerCaseCodePoints
 * (each code point lower-cased alone by ICU's u_tolower, U+0130 to "i" U+0307, final sigma to
 * sigma); the UNICODE family: ICU's sort key (ucol_getSortKey) of the root collator at Spark's
 * strength (invalid UTF-8 read as U+FFFD, as Spark's toValidString). Comparisons, IN, the
 * aggregate's and join's keys, sort keys and shuffle partitioning of collated strings all go
 * through these keys. The collators are opened once per process and shared read-only (ICU's
 * collators are thread-safe for sort keys); key bytes go into one growing buffer per call, never a
 * malloc per row. Any thread.
 */
#ifndef CSPARK_SQLEXEC_COLLATION_KEYS_H
#define CSPARK_SQLEXEC_COLLATION_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "columnar/col_builder.h"
#include "columnar/column.h"

/* A reusable scratch buffer for keys (owned by the caller; cs_collation_scratch_free). */
typedef struct cs_collation_scratch {
    uint8_t *key; /* the last key built */
    size_t key_cap;
    uint16_t *u16; /* UTF-16 of the string (ICU collations) */
    size_t u16_cap;
} cs_collation_scratch;

void cs_collation_scratch_free(cs_collation_scratch *sc);

/* The key of string s (len bytes) under collation into sc->key; returns its length. The bytes
 * stay valid until the next call with sc. */
size_t cs_collation_key(int collation, const uint8_t *s, size_t len, cs_collation_scratch *sc);

/* A binary column (a new reference) of the keys of every row of string column c (its length; a
 * null row stays null) under collation. */
cs_column *cs_collation_key_column(const cs_column *c, int collation, cs_col_allocator *alloc);

/* ICU's version string ("72.1"), for the documentation of a run. Static. */
const char *cs_collation_icu_version(void);

#endif /* CSPARK_SQLEXEC_COLLATION_KEYS_H */
