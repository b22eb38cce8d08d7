/*
 * spill.h — spill files and small file helpers shared by the shuffle writer, ext_agg and
 * ext_sorter. A spill file is created with mkstemp in the spill directory and unlinked at once:
 * it lives only as long as its fd, so no spill file is ever left behind (not even after a crash).
 * Internal to src/shuffle.
 */
#ifndef CSPARK_SHUFFLE_SPILL_H
#define CSPARK_SHUFFLE_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "shuffle/memory.h"

/* An anonymous read/write file in dir (NULL = $TMPDIR or /tmp); the fd, or <0 with err. */
int cs_spill_file_open(const char *dir, cs_error *err);
/* pread exactly n bytes at off; CS_EIO on error or short file. */
int cs_spill_pread_full(int fd, uint8_t *buf, size_t n, uint64_t off, cs_error *err);

/* Read-buffer size for each of `runs` spill runs merged at once: a quarter of the task's budget
 * shared among them, at least 64 KiB, at most RECIO_WRITE_BUF (that when the budget is unlimited).
 */
size_t cs_spill_merge_buffer(const cs_task_memory *mem, int runs);

#endif /* CSPARK_SHUFFLE_SPILL_H */
