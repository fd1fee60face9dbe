#define _GNU_SOURCE
#include "trellis_shim.h"

#include <limits.h>
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#include <pmmintrin.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
static const uint32_t flush_bits = 0x8040; /* FTZ (bit 15) | DAZ (bit 6) */

uint32_t trellis_enable_flush_denormals(void) {
    uint32_t previous = _mm_getcsr();
    _mm_setcsr(previous | flush_bits);
    return previous;
}

void trellis_restore_float_state(uint32_t state) { _mm_setcsr(state); }

int trellis_flush_denormals_enabled(void) { return (_mm_getcsr() & flush_bits) == flush_bits; }

#elif defined(__aarch64__)
static const uint64_t fz_bit = 1ull << 24;

uint32_t trellis_enable_flush_denormals(void) {
    uint64_t fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr | fz_bit));
    return (uint32_t)fpcr;
}

void trellis_restore_float_state(uint32_t state) {
    uint64_t fpcr = state;
    __asm__ volatile("msr fpcr, %0" : : "r"(fpcr));
}

int trellis_flush_denormals_enabled(void) {
    uint64_t fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    return (fpcr & fz_bit) != 0;
}
#else
uint32_t trellis_enable_flush_denormals(void) { return 0; }
void trellis_restore_float_state(uint32_t state) { (void)state; }
int trellis_flush_denormals_enabled(void) { return 0; }
#endif

static __thread int audio_thread;

void trellis_set_audio_thread(int is_audio) { audio_thread = is_audio; }

int trellis_is_audio_thread(void) { return audio_thread; }

uint64_t trellis_host_time_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000ull + (uint64_t)now.tv_nsec;
}

void trellis_futex_wait(uint32_t *word, uint32_t expected) {
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

void trellis_futex_wait_until(uint32_t *word, uint32_t expected, uint64_t deadline_ns) {
    // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC time.
    struct timespec deadline = { (time_t)(deadline_ns / 1000000000u), (long)(deadline_ns % 1000000000u) };
    syscall(SYS_futex, word, FUTEX_WAIT_BITSET_PRIVATE, expected, &deadline, NULL, FUTEX_BITSET_MATCH_ANY);
}

void trellis_yield(void) {
    sched_yield();
}

void trellis_futex_wake(uint32_t *word, int32_t count) {
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

int trellis_futex_wait_shared(uint32_t *word, uint32_t expected, uint64_t timeout_ns) {
    struct timespec timeout = { (time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u) };
    long result = syscall(SYS_futex, word, FUTEX_WAIT, expected, &timeout, NULL, 0);
    return result == 0 || errno == EAGAIN ? 0 : -1;
}

void trellis_futex_wake_shared(uint32_t *word, int32_t count) {
    syscall(SYS_futex, word, FUTEX_WAKE, count, NULL, NULL, 0);
}

int trellis_memfd(const char *name, uint64_t size) {
    int fd = (int)syscall(SYS_memfd_create, name, MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (ftruncate(fd, (off_t)size) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int trellis_pidfd_open(int32_t pid) {
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

int trellis_die_with_parent(void) {
    return prctl(PR_SET_PDEATHSIG, SIGKILL);
}

void trellis_name_thread(const char *name) {
    prctl(PR_SET_NAME, name, 0, 0, 0);
}

void trellis_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

void trellis_stream_samples(float *to, const float *from, int64_t count) {
    int64_t i = 0;
#if defined(__x86_64__)
    if (((uintptr_t)to & 15) == 0) {
        for (; i + 4 <= count; i += 4) _mm_stream_ps(to + i, _mm_loadu_ps(from + i));
    }
#endif
    for (; i < count; i++) to[i] = from[i];
}

void trellis_stream_fence(void) {
#if defined(__x86_64__) || defined(__i386__)
    _mm_sfence();
#else
    __atomic_thread_fence(__ATOMIC_RELEASE);
#endif
}

int32_t trellis_processor_count(void) {
    long count = sysconf(_SC_NPROCESSORS_ONLN);
    return count < 1 ? 1 : (count > INT_MAX ? INT_MAX : (int32_t)count);
}

int trellis_spawn_close_from(void *actions, int lowest) {
    return posix_spawn_file_actions_addclosefrom_np((posix_spawn_file_actions_t *)actions, lowest);
}
