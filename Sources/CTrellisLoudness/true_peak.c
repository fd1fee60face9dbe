#include "trellis_loudness.h"

#include <stdint.h>
#include <math.h>
#include <string.h>

/// Magnitudes compare as their bit patterns: an integer maximum, which vectorizes.
static inline uint32_t magnitude_bits(float value) {
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    return bits & 0x7fffffffu;
}

static inline float from_bits(uint32_t bits) {
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

__attribute__((always_inline))
static inline uint32_t largest_magnitude(const float *samples, int count) {
    uint32_t top = 0;
    for (int n = 0; n < count; n++) {
        const uint32_t bits = magnitude_bits(samples[n]);
        top = bits > top ? bits : top;
    }
    return top;
}

/// Outputs come in groups at least this long (and never shorter than the history); a
/// group is interpolated only when it could raise the peak.
enum { GROUP = 16 };

/// The largest interpolated magnitude of one group of outputs, every phase, with a tap
/// count the compiler knows: it unrolls the taps and vectorizes across the outputs.
#define GROUP_PEAK(TAPS)                                                                   \
    __attribute__((target_clones("avx2", "default")))                                    \
    static uint32_t group_peak_##TAPS(const float *input, int count, const float *taps, int phases) { \
        uint32_t top = 0;                                                                  \
        for (int phase = 0; phase < phases; phase++) {                                     \
            const float *h = taps + phase * TAPS;                                          \
            for (int n = 0; n < count; n++) {                                              \
                float sum = 0;                                                             \
                for (int k = 0; k < TAPS; k++) sum += h[k] * input[n - k];                 \
                const uint32_t bits = magnitude_bits(sum);                                 \
                top = bits > top ? bits : top;                                             \
            }                                                                              \
        }                                                                                  \
        return top;                                                                        \
    }

GROUP_PEAK(12)
GROUP_PEAK(24)

/// The largest magnitude of one group's outputs, every phase, from each branch's four
/// central taps alone: within `outer` times the inputs' largest magnitude of the truth.
__attribute__((always_inline))
static inline uint32_t group_central_peak(const float *input, int count, const float *taps, int phases, int tap_count) {
    const int centre = tap_count / 2 - 2;
    uint32_t top = 0;
    for (int phase = 0; phase < phases; phase++) {
        const float *h = taps + phase * tap_count + centre;
        const float h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3];
        const float *x = input - centre;
        for (int n = 0; n < count; n++) {
            const uint32_t bits = magnitude_bits(h0 * x[n] + h1 * x[n - 1] + h2 * x[n - 2] + h3 * x[n - 3]);
            top = bits > top ? bits : top;
        }
    }
    return top;
}

static uint32_t group_peak(const float *input, int count, const float *taps, int phases, int tap_count) {
    if (tap_count == 12) return group_peak_12(input, count, taps, phases);
    if (tap_count == 24) return group_peak_24(input, count, taps, phases);
    uint32_t top = 0;
    for (int phase = 0; phase < phases; phase++) {
        const float *h = taps + phase * tap_count;
        for (int n = 0; n < count; n++) {
            float sum = 0;
            for (int k = 0; k < tap_count; k++) sum += h[k] * input[n - k];
            const uint32_t bits = magnitude_bits(sum);
            top = bits > top ? bits : top;
        }
    }
    return top;
}

__attribute__((target_clones("avx2", "default")))
float trellis_true_peak(const float *input, int count, const float *taps, int phases, int tap_count, float gain, float outer, float peak) {
    uint32_t top = magnitude_bits(peak);
    // An output sums tap_count inputs, the newest from its own group and the rest from
    // the group before (or the history): |output| <= gain * the two groups' largest. Where
    // that could raise the peak, the central taps' sum plus `outer` times that largest
    // bounds it closer; only where that too could raise it is the group interpolated.
    const int history = tap_count - 1, group = history > GROUP ? history : GROUP;
    uint32_t previous = largest_magnitude(input - history, history);
    for (int start = 0; start < count; start += group) {
        const int length = count - start < group ? count - start : group;
        const uint32_t own = largest_magnitude(input + start, length);
        top = own > top ? own : top;
        const float reach = from_bits(own > previous ? own : previous), now = from_bits(top);
        previous = own;
        if (phases == 0 || reach * gain <= now) continue;
        if (tap_count >= 4 && from_bits(group_central_peak(input + start, length, taps, phases, tap_count)) + reach * outer <= now) continue;
        const uint32_t interpolated = group_peak(input + start, length, taps, phases, tap_count);
        top = interpolated > top ? interpolated : top;
    }
    return from_bits(top);
}

void trellis_interpolated_magnitudes(const float *input, int count, const float *taps, int tap_count, float *magnitudes) {
    for (int n = 0; n < count; n++) {
        float sum = 0;
        for (int k = 0; k < tap_count; k++) sum += taps[k] * input[n - k];
        const float magnitude = fabsf(sum);
        if (magnitude > magnitudes[n]) magnitudes[n] = magnitude;
    }
}
