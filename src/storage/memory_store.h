/*
 * memory_store.h — the in-memory form of a cached partition (Spark's MemoryStore entries): the
 * partition's records as compact copies of the batches that computed it, one data buffer and one
 * descriptor array per batch (never an allocation per record), with the bytes they hold counted
 * for the unified memory pool. Also the block's wire form, a recio stream (common/recio.h) with
 * checksummed blocks, which the block server sends to tasks on other executors and they decode.
 * Used by the block manager (block_manager.c) and the task's cache reader (src/exec).
 *
 * Ownership: a cs_block_data owns its batches (cs_block_data_free); encode returns malloc'd bytes.
 * Not thread-safe: the block manager locks or pins around it.
 */
#ifndef CSPARK_STORAGE_MEMORY_STORE_H
#define CSPARK_STORAGE_MEMORY_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "records/batch.h"
#include "records/checksum.h"
#include "common/err.h"

typedef struct cs_block_data {
    cs_batch *batches;
    int n, cap;
    int64_t bytes;   /* memory held: payload + descriptors of every batch */
    int64_t records; /* records held */
} cs_block_data;

/* Memory a compact copy of b takes (what cs_block_data_add will add to bytes). */
int64_t cs_block_data_copy_size(const cs_batch *b);
/* Appends a compact copy of b's records (nothing when b is empty). */
void cs_block_data_add(cs_block_data *d, const cs_batch *b);
void cs_block_data_free(cs_block_data *d);
/* The records as a recio stream of uncompressed blocks with checksum algo; *len its length. */
uint8_t *cs_block_data_encode(const cs_block_data *d, cs_checksum_algo algo, size_t *len);
/* Decodes a recio stream (checksums verified) into *out (zeroed by the caller); CS_EPROTO on
 * corrupt input, *out then freed. */
int cs_block_data_decode(const uint8_t *data, size_t len, cs_block_data *out, cs_error *err);

#endif /* CSPARK_STORAGE_MEMORY_STORE_H */
