#ifndef TRELLIS_SHIM_H
#define TRELLIS_SHIM_H

#include <stdint.h>

/// Flushes denormals to zero (FTZ and DAZ) on the calling thread and returns
/// the previous control state so it can be restored. Thread: audio.
uint32_t trellis_enable_flush_denormals(void);

/// Restores a control state returned by `trellis_enable_flush_denormals`.
void trellis_restore_float_state(uint32_t state);

/// Reports whether FTZ and DAZ are both in force on the calling thread.
int trellis_flush_denormals_enabled(void);

/// Marks the calling thread as (or no longer as) an audio thread, so
/// debug builds can assert that control-only APIs are not called from it.
void trellis_set_audio_thread(int is_audio);

/// Reports whether the calling thread marked itself as an audio thread.
int trellis_is_audio_thread(void);

/// Monotonic host time in nanoseconds. Thread: any (no system call on Linux's vDSO).
uint64_t trellis_host_time_ns(void);

/// Sleeps while `*word` holds `expected` (a futex wait; returns at once when it does
/// not, and may return spuriously). Thread: a render worker, never the audio thread.
void trellis_futex_wait(uint32_t *word, uint32_t expected);

/// Sleeps while `*word` holds `expected`, until a wake or the monotonic clock
/// (`trellis_host_time_ns`) reaches `deadline_ns`, whichever comes first.
void trellis_futex_wait_until(uint32_t *word, uint32_t expected, uint64_t deadline_ns);

/// Lets another thread of this one's priority run (`sched_yield`).
void trellis_yield(void);

/// Wakes up to `count` threads sleeping on `word`. Thread: any (one system call).
void trellis_futex_wake(uint32_t *word, int32_t count);

/// Sleeps while `*word` holds `expected`, at most `timeout_ns` nanoseconds; `word` may
/// be in memory shared with another process. Returns 0 when woken or when the word
/// differed, -1 on timeout or interruption. Thread: any (one system call).
int trellis_futex_wait_shared(uint32_t *word, uint32_t expected, uint64_t timeout_ns);

/// Wakes up to `count` threads, in any process, sleeping on `word`. Thread: any.
void trellis_futex_wake_shared(uint32_t *word, int32_t count);

/// An anonymous memory file (memfd, close-on-exec) of `size` bytes; -1 with errno set.
int trellis_memfd(const char *name, uint64_t size);

/// A file descriptor that becomes readable when process `pid` exits (pidfd); -1 with
/// errno set.
int trellis_pidfd_open(int32_t pid);

/// Asks for SIGKILL when the parent process dies; returns -1 with errno set on failure.
int trellis_die_with_parent(void);

/// Tells the processor that the calling thread spins (x86 `pause`). Thread: any.
void trellis_cpu_relax(void);

/// Copies `count` samples for another core to read: on x86, where `to` is 16-byte
/// aligned, with stores that bypass the cache, so that the writer neither fetches the
/// lines the reader last held nor keeps them. `trellis_stream_fence` must come between
/// the copy and whatever publishes it. Thread: any (a tap's copy on the audio thread).
void trellis_stream_samples(float *to, const float *from, int64_t count);

/// Orders the stores of `trellis_stream_samples` before the stores after it (x86
/// `sfence`). Thread: any.
void trellis_stream_fence(void);

/// Names the calling thread as `top -H`, `ps -L` and perf show it (the kernel keeps the
/// first 15 bytes). Thread: the one to name.
void trellis_name_thread(const char *name);

/// The processors online. Thread: any.
int32_t trellis_processor_count(void);

/// Adds to a spawn's file actions: close every descriptor from `lowest` up, so a child
/// holds only what it was given (glibc's posix_spawn_file_actions_addclosefrom_np, which
/// Swift's Glibc does not show). `actions` is a posix_spawn_file_actions_t. Thread: any.
int trellis_spawn_close_from(void *actions, int lowest);

#endif
