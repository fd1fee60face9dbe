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

typedef float lanes __attribute__((vector_size(32)));
typedef uint32_t lane_bits __attribute__((vector_size(32)));

// Macros, not functions: a function taking eight lanes would have two ABIs here.
#define LOAD_LANES(p) ({ lanes loaded_; memcpy(&loaded_, (p), sizeof loaded_); loaded_; })
#define LANE_MAGNITUDES(v) ({ const lanes value_ = (v); lane_bits bits_; memcpy(&bits_, &value_, sizeof bits_); bits_ & 0x7fffffffu; })
#define LANE_MAX(a, b) ({ const lane_bits a_ = (a), b_ = (b), greater_ = (lane_bits)(a_ > b_); (a_ & greater_) | (b_ & ~greater_); })
#define ACROSS(v) ({ const lane_bits all_ = (v); uint32_t top_ = 0; for (int l_ = 0; l_ < 8; l_++) top_ = all_[l_] > top_ ? all_[l_] : top_; top_; })

/// Groups of 32 outputs in eight lanes: the largest input magnitude, and every phase's
/// output from its four central taps (those four inputs loaded once for all phases).
enum { WIDE = 32 };

__attribute__((target_clones("avx2", "default")))
float trellis_true_peak(const float *input, int count, const float *taps, int phases, int tap_count, float gain, float outer, float peak) {
    uint32_t top = magnitude_bits(peak);
    // An output sums tap_count inputs, the newest from its own group and the rest from
    // the group before (or the history): |output| <= gain * the two groups' largest. Where
    // that could raise the peak, the central taps' sum plus `outer` times that largest
    // bounds it closer; only where that too could raise it is the group interpolated.
    // Groups are WIDE long where the phases and taps are 4x oversampling's, else `group`.
    const int history = tap_count - 1, group = history > GROUP ? history : GROUP;
    uint32_t previous = largest_magnitude(input - history, history);
    const int centre = tap_count / 2 - 2;
    const int wide = phases == 3 && tap_count >= 4 && history <= GROUP;
    for (int start = 0; start < count;) {
        const int left = count - start;
        const int length = wide && left >= WIDE ? WIDE : left < group ? left : group;
        const float *x = input + start;
        uint32_t own;
        if (length == WIDE && wide) {
            lane_bits m = LANE_MAGNITUDES(LOAD_LANES(x));
            for (int n = 8; n < WIDE; n += 8) m = LANE_MAX(m, LANE_MAGNITUDES(LOAD_LANES(x + n)));
            own = ACROSS(m);
        } else {
            own = largest_magnitude(x, length);
        }
        top = own > top ? own : top;
        const float reach = from_bits(own > previous ? own : previous), now = from_bits(top);
        previous = own;
        const int from = start;
        start += length;
        if (phases == 0 || reach * gain <= now) continue;
        uint32_t central;
        if (length == WIDE && wide) {
            const float *h = taps + centre;
            const lanes a0 = h[0] - (lanes){}, a1 = h[1] - (lanes){}, a2 = h[2] - (lanes){}, a3 = h[3] - (lanes){};
            const lanes b0 = h[tap_count] - (lanes){}, b1 = h[tap_count + 1] - (lanes){}, b2 = h[tap_count + 2] - (lanes){}, b3 = h[tap_count + 3] - (lanes){};
            const lanes c0 = h[2 * tap_count] - (lanes){}, c1 = h[2 * tap_count + 1] - (lanes){}, c2 = h[2 * tap_count + 2] - (lanes){}, c3 = h[2 * tap_count + 3] - (lanes){};
            lane_bits m = {0};
            const float *y = x - centre;
            for (int n = 0; n < WIDE; n += 8) {
                const lanes y0 = LOAD_LANES(y + n), y1 = LOAD_LANES(y + n - 1), y2 = LOAD_LANES(y + n - 2), y3 = LOAD_LANES(y + n - 3);
                m = LANE_MAX(m, LANE_MAGNITUDES(a0 * y0 + a1 * y1 + a2 * y2 + a3 * y3));
                m = LANE_MAX(m, LANE_MAGNITUDES(b0 * y0 + b1 * y1 + b2 * y2 + b3 * y3));
                m = LANE_MAX(m, LANE_MAGNITUDES(c0 * y0 + c1 * y1 + c2 * y2 + c3 * y3));
            }
            central = ACROSS(m);
        } else {
            central = tap_count >= 4 ? group_central_peak(x, length, taps, phases, tap_count) : 0x7f800000u;
        }
        if (from_bits(central) + reach * outer <= now) continue;
        const uint32_t interpolated = group_peak(input + from, length, taps, phases, tap_count);
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
