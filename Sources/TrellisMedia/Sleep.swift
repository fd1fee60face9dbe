import Glibc

/// Yields the control thread for a fraction of a millisecond while it waits on another
/// thread. Thread: any but audio.
@inline(__always)
func sleepBriefly() { usleep(100) }
