/*
 * disk_store.h — cached partitions on an executor's local disk (Spark's DiskStore): one file per
 * block, <local_dir>/rdd_<rdd>_<partition>, holding the records as a recio stream
 * (common/recio.h) whose blocks carry the shuffle's checksum (XXH3 by default), so a block whose
 * bytes changed on disk is refused on read (and recomputed), never decoded. Written in one pass
 * as a task computes the partition (DISK_ONLY, MEMORY_AND_DISK beyond memory) or from memory
 * when the block manager evicts a MEMORY_AND_DISK block; read back batch by batch.
 *
 * Ownership: writers and readers are malloc'd and freed by their close/free; paths are copied.
 * One writer or reader per thread; the block manager serialises creation and removal.
 */
#ifndef CSPARK_STORAGE_DISK_STORE_H
#define CSPARK_STORAGE_DISK_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "records/batch.h"
#include "records/checksum.h"
#include "common/err.h"

/* The file of block rdd_<rdd>_<partition> under dir. */
void cs_disk_store_path(const char *dir, int rdd_id, int partition, char *out, size_t cap);

typedef struct disk_writer disk_writer;
/* Creates (truncates) path. NULL + err naming the path. */
disk_writer *cs_disk_writer_open(const char *path, bool compress, cs_checksum_algo algo,
                                 cs_error *err);
int cs_disk_writer_add(disk_writer *w, const cs_batch *b, cs_error *err);
/* Flushes, closes and frees w; *size = the file's length. On error the file is removed. */
int cs_disk_writer_close(disk_writer *w, int64_t *size, cs_error *err);
/* Closes, removes the file, frees w. NULL is fine. */
void cs_disk_writer_abort(disk_writer *w);

typedef struct disk_reader disk_reader;
disk_reader *cs_disk_reader_open(const char *path, cs_error *err);
/* The next batch of records into out (reset first): 1, 0 at the end, <0 (CS_EPROTO on a
 * checksum mismatch or corrupt data, CS_EIO on a read error). */
int cs_disk_reader_next(disk_reader *r, cs_batch *out, cs_error *err);
void cs_disk_reader_free(disk_reader *r);

/* The whole file (for the block server). */
int cs_disk_store_read_all(const char *path, uint8_t **data, size_t *len, cs_error *err);

#endif /* CSPARK_STORAGE_DISK_STORE_H */
