/*
 * col_collation.h — the names of Spark 4's string collations (CollationFactory): UTF8_BINARY (the
 * default: byte order, today's strings), UTF8_LCASE (compares the lower case of the whole string,
 * no ICU), and ICU's root locale UNICODE with Spark's specifiers: UNICODE (tertiary strength),
 * UNICODE_CI (secondary: case-insensitive), UNICODE_AI (primary with the case level) and
 * UNICODE_CI_AI (primary). `_CS` / `_AS` name the defaults and may be spelled out, in any order,
 * each at most once (UNICODE_CS_AS is UNICODE). ICU's other locales are not built. An id is what a
 * string type carries (col_type.h's `collation`); the comparison and hashing keys of each live in
 * sqlexec/collation_keys.h. Names are matched without regard to case; Spark's canonical spelling is
 * what cs_collation_name returns. Pure functions over static tables: any thread.
 */
#ifndef CSPARK_COLUMNAR_COL_COLLATION_H
#define CSPARK_COLUMNAR_COL_COLLATION_H

#include <stdbool.h>

#include "common/strutil.h"

enum {
    CS_COLLATION_UTF8_BINARY = 0,
    CS_COLLATION_UTF8_LCASE = 1,
    CS_COLLATION_UNICODE = 2,
    CS_COLLATION_UNICODE_CI = 3,
    CS_COLLATION_UNICODE_AI = 4,    /* case-sensitive, accent-insensitive (ICU level 1 + case) */
    CS_COLLATION_UNICODE_CI_AI = 5, /* ICU primary strength */
    CS_COLLATION_COUNT
};

/* Spark's name of a collation id ("UTF8_BINARY" for an unknown one). Static. */
const char *cs_collation_name(int id);
/* The id of a collation name (any case), or -1 when it names none. */
int cs_collation_lookup(const char *name);
/* Spark's proposals for an invalid name, as its COLLATION_INVALID_NAME message lists them: the
 * known names closest to name by edit distance, comma-separated, appended to out. */
void cs_collation_proposals(const char *name, cs_sbuf *out);

#endif /* CSPARK_COLUMNAR_COL_COLLATION_H */
