/*
 * memtune.h — process-wide allocator settings for the driver and executors. Tasks allocate and
 * free batch buffers and hash tables of a few to tens of megabytes again and again; by default
 * glibc returns such blocks to the kernel and every new task then faults in fresh zeroed pages
 * (measured: ~5% of a word count). Raising the mmap and trim thresholds keeps freed memory in the
 * process for the next task, as a JVM keeps its heap. Called once at process start (cs_app_run,
 * cspark-executor).
 */
#ifndef CSPARK_COMMON_MEMTUNE_H
#define CSPARK_COMMON_MEMTUNE_H

void cs_memtune_init(void);

#endif
