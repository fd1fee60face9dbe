#include "allocation_counter.h"

#include <errno.h>
#include <stddef.h>

/* glibc exports its allocator under these names, so the interposed entry
   points can forward without dlsym (which itself allocates). */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *pointer, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *pointer);

static __thread int armed;
static __thread uint64_t allocations;
static __thread uint64_t frees;

void trellis_allocation_counter_arm(void) {
    allocations = 0;
    frees = 0;
    armed = 1;
}

void trellis_allocation_counter_disarm(void) { armed = 0; }

uint64_t trellis_allocation_counter_allocations(void) { return allocations; }

uint64_t trellis_allocation_counter_frees(void) { return frees; }

/* AddressSanitizer owns the allocator and calls malloc before this file's
   thread-locals exist, so under it nothing is replaced and nothing is counted
   (`swift test --sanitize=address` checks memory, not allocation counts). */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRELLIS_UNDER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TRELLIS_UNDER_ASAN 1
#endif

#ifndef TRELLIS_UNDER_ASAN
void *malloc(size_t size) {
    if (armed) allocations++;
    return __libc_malloc(size);
}

void *calloc(size_t count, size_t size) {
    if (armed) allocations++;
    return __libc_calloc(count, size);
}

void *realloc(void *pointer, size_t size) {
    if (armed) allocations++;
    return __libc_realloc(pointer, size);
}

void free(void *pointer) {
    if (armed && pointer != NULL) frees++;
    __libc_free(pointer);
}

void *memalign(size_t alignment, size_t size) {
    if (armed) allocations++;
    return __libc_memalign(alignment, size);
}

void *aligned_alloc(size_t alignment, size_t size) {
    if (armed) allocations++;
    return __libc_memalign(alignment, size);
}

int posix_memalign(void **result, size_t alignment, size_t size) {
    if (armed) allocations++;
    if (alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0) return EINVAL;
    void *pointer = __libc_memalign(alignment, size);
    if (pointer == NULL) return ENOMEM;
    *result = pointer;
    return 0;
}
#endif
