#ifndef TRELLIS_ALLOCATION_COUNTER_H
#define TRELLIS_ALLOCATION_COUNTER_H

#include <stdint.h>

/// Counts heap calls (malloc, calloc, realloc, posix_memalign, aligned_alloc,
/// free) made by the calling thread while it is armed. The counter replaces
/// the C library's allocator entry points for the whole test process and
/// forwards every call; only the arming thread's calls are counted. Built with
/// AddressSanitizer, it replaces nothing and counts nothing.

/// Starts counting on the calling thread, from zero.
void trellis_allocation_counter_arm(void);

/// Stops counting on the calling thread.
void trellis_allocation_counter_disarm(void);

/// Allocations (malloc, calloc, realloc, memalign family) seen on this thread while armed.
uint64_t trellis_allocation_counter_allocations(void);

/// Frees seen on this thread while armed.
uint64_t trellis_allocation_counter_frees(void);

#endif
