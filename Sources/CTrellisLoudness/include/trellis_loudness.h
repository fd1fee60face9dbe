#ifndef TRELLIS_LOUDNESS_H
#define TRELLIS_LOUDNESS_H

/// `peak` raised to the largest magnitude of `count` samples and of their interpolation
/// by `phases` polyphase branches of `tap_count` taps each (branch p's output n is the
/// sum over k of taps[p * tap_count + k] * input[n - k], so `input` must have
/// `tap_count - 1` samples of history before it). `gain` must be at least the largest
/// sum of a branch's tap magnitudes, and `outer` the largest sum of those outside its
/// four central taps, each with room for rounding: a run of outputs that these bounds
/// show cannot exceed the peak so far is not interpolated, so the result is exact at a
/// fraction of the work once the peak is up. In C so that the compiler vectorizes it in
/// every build (12 and 24 taps are the fast cases).
/// Thread: any; touches only what it is given.
float trellis_true_peak(const float *input, int count, const float *taps, int phases, int tap_count, float gain, float outer, float peak);

/// Raises `magnitudes[n]` to the magnitude of the same branch's output n where that is
/// larger: the per-sample true-peak envelope a limiter needs.
/// Thread: any; touches only what it is given.
void trellis_interpolated_magnitudes(const float *input, int count, const float *taps, int tap_count, float *magnitudes);

/// BS.1770's K-weighting (a high shelf, then a high pass with b = 1, -2, 1) of two
/// channels side by side in double precision: `coefficients` = shelf b0 b1 b2 a1 a2,
/// high pass a1 a2; `state` = each channel's six memories (direct form I: inputs, shelf
/// outputs, high-pass outputs, each newest first), left then right; `sums` receives each channel's sum of squares of its output.
/// Thread: any; touches only what it is given.
void trellis_k_weighting_pair(const float *left, const float *right, int count, const double *coefficients, double *state, double *sums);

#endif
