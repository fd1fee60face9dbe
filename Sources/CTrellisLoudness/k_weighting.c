#include "trellis_loudness.h"

/// Two doubles, the left and right channel side by side.
typedef double pair __attribute__((vector_size(16)));

/// Direct form I keeps each filter's recursion to one multiply-add a sample (the
/// feed-forward sums are off that chain), and both channels share every instruction.
/// Where the CPU has FMA (x86-64-v3) that multiply-add is fused.
__attribute__((target_clones("arch=x86-64-v3", "default")))
void trellis_k_weighting_pair(const float *left, const float *right, int count, const double *c, double *state, double *sums) {
    const pair b0 = {c[0], c[0]}, b1 = {c[1], c[1]}, b2 = {c[2], c[2]};
    const pair a1 = {c[3], c[3]}, a2 = {c[4], c[4]}, p1 = {c[5], c[5]}, p2 = {c[6], c[6]};
    // Each channel's memories: inputs x1 x2, shelf outputs y1 y2, high-pass outputs z1 z2.
    pair x1 = {state[0], state[6]}, x2 = {state[1], state[7]};
    pair y1 = {state[2], state[8]}, y2 = {state[3], state[9]};
    pair z1 = {state[4], state[10]}, z2 = {state[5], state[11]};
    pair sum = {0, 0};
    for (int i = 0; i < count; i++) {
        const pair x = {left[i], right[i]};
        const pair y = (b0 * x + b1 * x1 + b2 * x2 - a2 * y2) - a1 * y1;
        const pair z = (y - 2 * y1 + y2 - p2 * z2) - p1 * z1;
        x2 = x1; x1 = x;
        y2 = y1; y1 = y;
        z2 = z1; z1 = z;
        sum += z * z;
    }
    state[0] = x1[0]; state[1] = x2[0]; state[2] = y1[0]; state[3] = y2[0]; state[4] = z1[0]; state[5] = z2[0];
    state[6] = x1[1]; state[7] = x2[1]; state[8] = y1[1]; state[9] = y2[1]; state[10] = z1[1]; state[11] = z2[1];
    sums[0] = sum[0];
    sums[1] = sum[1];
}
