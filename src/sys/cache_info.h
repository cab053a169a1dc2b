/*
 * CPU cache sizes from sysfs (/sys/devices/system/cpu/cpu0/cache/index*),
 * through the sysroot: what the workloads and loads size their buffers by.
 */
#ifndef JITTERLAB_SYS_CACHE_INFO_H
#define JITTERLAB_SYS_CACHE_INFO_H

#include <stdint.h>

#include "sys/sysroot.h"

/* Size in bytes of CPU 0's data or unified cache of this level (1, 2, 3...);
 * level 0 asks for the last level (the largest level present). 0 when
 * unknown. */
uint64_t cache_size_bytes(const struct sysroot *sr, int level);

#endif
