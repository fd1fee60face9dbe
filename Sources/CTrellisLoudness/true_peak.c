#include "trellis_loudness.h"

#include <stdint.h>
#include <math.h>
#include <string.h>

/// The branch with a tap count the compiler knows: it unrolls the taps and vectorizes
/// across output samples, which keeps the sums in registers; AVX2 where the CPU has it.
#define BRANCH_PEAK(TAPS)                                                          \
    __attribute__((target_clones("avx2", "default")))                            \
    static uint32_t branch_peak_##TAPS(const float *input, int count, const float *taps) { \
        uint32_t top = 0;                                                          \
        for (int n = 0; n < count; n++) {                                          \
            float sum = 0;                                                         \
            for (int k = 0; k < TAPS; k++) sum += taps[k] * input[n - k];          \
            uint32_t bits;                                                         \
            memcpy(&bits, &sum, sizeof bits);                                      \
            bits &= 0x7fffffffu;                                                   \
            top = bits > top ? bits : top;                                         \
        }                                                                          \
        return top;                                                                \
    }

BRANCH_PEAK(12)
BRANCH_PEAK(24)

float trellis_interpolated_peak(const float *input, int count, const float *taps, int tap_count) {
    // Magnitudes compare as their bit patterns: an integer maximum, which vectorizes.
    uint32_t top = 0;
    if (tap_count == 12) {
        top = branch_peak_12(input, count, taps);
    } else if (tap_count == 24) {
        top = branch_peak_24(input, count, taps);
    } else {
        for (int n = 0; n < count; n++) {
            float sum = 0;
            for (int k = 0; k < tap_count; k++) sum += taps[k] * input[n - k];
            uint32_t bits;
            memcpy(&bits, &sum, sizeof bits);
            bits &= 0x7fffffffu;
            top = bits > top ? bits : top;
        }
    }
    float peak;
    memcpy(&peak, &top, sizeof peak);
    return peak;
}

void trellis_interpolated_magnitudes(const float *input, int count, const float *taps, int tap_count, float *magnitudes) {
    for (int n = 0; n < count; n++) {
        float sum = 0;
        for (int k = 0; k < tap_count; k++) sum += taps[k] * input[n - k];
        const float magnitude = fabsf(sum);
        if (magnitude > magnitudes[n]) magnitudes[n] = magnitude;
    }
}
