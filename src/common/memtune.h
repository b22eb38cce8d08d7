/*
 * memtune.h — process-wide allocator settings for the driver and executors. Tasks allocate and
 * free batch buffers and hash tables of a few to tens of megabytes again and again; by default
 * glibc returns such blocks to the kernel and every new task then faults in fresh zeroed pages
 * (measured: ~5% of a word count). Raising the mmap and trim thresholds keeps freed memory in the
 * process for the next task, as a JVM keeps its heap. Called once at process start (cs_app_run,
 * cspark-executor).
 *
 * Also the one rule for the data limit (RLIMIT_DATA) of a process that runs tasks, standing in
 * for a pod's memory limit: local-cluster sets it on each executor it forks, local mode on the
 * driver itself (its tasks run in it).
 */
#ifndef CSPARK_COMMON_MEMTUNE_H
#define CSPARK_COMMON_MEMTUNE_H

#include <stdbool.h>
#include <stdint.h>

void cs_memtune_init(void);

/* The data limit in bytes of a process given memory_mb MiB (spark.executor.memory, or
 * spark.driver.memory in local mode) that runs `task_threads` task threads: the memory a pod of
 * it would get (memory plus Spark's overhead, max(384 MiB, 10%)), plus room for what a process
 * reserves without using it (a thread stack and a malloc arena per thread, the libraries' data).
 * A task that allocates beyond it gets NULL from malloc, as it would be OOM-killed in its pod. */
int64_t cs_memtune_data_limit(int64_t memory_mb, int task_threads);

/* False in AddressSanitizer builds: their shadow memory (terabytes of reserved address space) is
 * refused by a data limit, so no data limit is set there. */
bool cs_memtune_can_limit_data(void);

/* Lowers the calling process's soft data limit to limit_bytes (the hard limit stays, so it can
 * be raised again), unless the process already maps nearly that much (every later allocation
 * would fail) or was started under a lower limit. Returns 0 when set; 1, with *why filled ("a lower
 * limit is already set", "the process already uses N MiB of data", "not in a sanitizer build"),
 * when it is left alone; a negative error code when setrlimit fails. */
int cs_memtune_limit_self(int64_t limit_bytes, const char **why);

#endif
