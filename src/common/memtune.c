/*
 * memtune.c — see memtune.h. Environment settings (MALLOC_MMAP_THRESHOLD_ and friends) still
 * win: a value given there is left alone.
 */
#include "common/memtune.h"

#include <malloc.h>
#include <stdlib.h>

void cs_memtune_init(void)
{
#ifdef M_MMAP_THRESHOLD
    if (!getenv("MALLOC_MMAP_THRESHOLD_")) mallopt(M_MMAP_THRESHOLD, 64 << 20);
    if (!getenv("MALLOC_TRIM_THRESHOLD_")) mallopt(M_TRIM_THRESHOLD, 256 << 20);
    if (!getenv("MALLOC_TOP_PAD_")) mallopt(M_TOP_PAD, 16 << 20);
#endif
}
