#ifndef TRELLIS_LOUDNESS_H
#define TRELLIS_LOUDNESS_H

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

/// BS.1770's K-weighting (a high shelf, then a high pass with b = 1, -2, 1) of two
/// channels side by side in double precision: `coefficients` = shelf b0 b1 b2 a1 a2,
/// high pass a1 a2; `state` = each channel's four memories (transposed direct form II),
/// left then right; `sums` receives each channel's sum of squares of its output.
/// Thread: any; touches only what it is given.
void trellis_k_weighting_pair(const float *left, const float *right, int count, const double *coefficients, double *state, double *sums);

#endif
