/*
 * checksum.h — the checksums that protect every encoded record block (common/recio.h): shuffle
 * data and index-addressed segments, spill files, task results. One 32-bit value per block,
 * chosen by spark.shuffle.checksum.algorithm (Spark's key and values, plus XXH3):
 *
 *   ADLER32  Adler-32 (zlib's adler32_z), Spark's default
 *   CRC32    CRC-32 of zlib/IEEE 802.3 (zlib's crc32_z)
 *   CRC32C   CRC-32C, Castagnoli (iSCSI, RFC 3720): the SSE4.2 instruction where the CPU has it,
 *            a table otherwise; the same values as Java's java.util.zip.CRC32C
 *   XXH3     the low 32 bits of xxHash's XXH3-64 (cspark's own value, the default: 3-6x faster
 *            than the others on this hardware; see docs/shuffle.md for the figures)
 *
 * Each algorithm is a stream function: cs_checksum_update(algo, state, data, len) continues the
 * state from a previous call, starting from cs_checksum_init(algo). XXH3 is not a stream
 * function in that sense: its update hashes the data seeded with the running state, which
 * gives a different but equally good value per sequence of calls — callers always make the same
 * calls (the block header, then the payload), so values are reproducible.
 *
 * The algorithm ids are stored in block headers, so they are part of the file format: each has
 * exactly two bits set, so one flipped bit never turns an id into NONE or into another id.
 * Pure functions, thread-safe; no ownership.
 */
#ifndef CSPARK_COMMON_CHECKSUM_H
#define CSPARK_COMMON_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"

typedef enum cs_checksum_algo {
    CS_CHECKSUM_NONE = 0,
    CS_CHECKSUM_ADLER32 = 0x3,
    CS_CHECKSUM_CRC32 = 0x5,
    CS_CHECKSUM_CRC32C = 0x6,
    CS_CHECKSUM_XXH3 = 0x9,
} cs_checksum_algo;

/* What cspark computes when nothing is configured (spark.shuffle.checksum.algorithm unset). */
#define CS_CHECKSUM_DEFAULT CS_CHECKSUM_XXH3
#define CS_CHECKSUM_DEFAULT_NAME "XXH3"

/* True for the ids above other than NONE. */
int cs_checksum_known(unsigned algo);
/* Spark's name of the algorithm ("ADLER32", ...; "NONE"; "UNKNOWN"). Never NULL. */
const char *cs_checksum_name(cs_checksum_algo algo);
/* name -> algorithm, case-insensitive (as Spark upper-cases the value). CS_EINVAL with Spark's
 * message naming spark.shuffle.checksum.algorithm for anything else. */
int cs_checksum_parse(const char *name, cs_checksum_algo *out, cs_error *err);

uint32_t cs_checksum_init(cs_checksum_algo algo);
uint32_t cs_checksum_update(cs_checksum_algo algo, uint32_t state, const void *data, size_t len);

#endif /* CSPARK_COMMON_CHECKSUM_H */
