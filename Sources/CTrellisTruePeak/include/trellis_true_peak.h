#ifndef TRELLIS_TRUE_PEAK_H
#define TRELLIS_TRUE_PEAK_H

/// The largest magnitude of `count` samples interpolated by one polyphase branch:
/// output[n] = sum over k < tap_count of taps[k] * input[n - k], so `input` must have
/// `tap_count - 1` samples of history before it. In C so that the compiler vectorizes
/// it in every build (12 and 24 taps are the fast cases).
/// Thread: any; touches only what it is given.
float trellis_interpolated_peak(const float *input, int count, const float *taps, int tap_count);

/// Raises `magnitudes[n]` to the magnitude of the same branch's output n where that is
/// larger: the per-sample true-peak envelope a limiter needs.
/// Thread: any; touches only what it is given.
void trellis_interpolated_magnitudes(const float *input, int count, const float *taps, int tap_count, float *magnitudes);

#endif
