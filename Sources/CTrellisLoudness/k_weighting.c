#include "trellis_loudness.h"

void trellis_k_weighting_pair(const float *left, const float *right, int count, const double *c, double *state, double *sums) {
    const double b0 = c[0], b1 = c[1], b2 = c[2], a1 = c[3], a2 = c[4], p1 = c[5], p2 = c[6];
    double ls1 = state[0], ls2 = state[1], lp1 = state[2], lp2 = state[3];
    double rs1 = state[4], rs2 = state[5], rp1 = state[6], rp2 = state[7];
    double sum_left = 0, sum_right = 0;
    for (int i = 0; i < count; i++) {
        const double xl = left[i], xr = right[i];
        const double yl = b0 * xl + ls1, yr = b0 * xr + rs1;
        ls1 = b1 * xl - a1 * yl + ls2;
        rs1 = b1 * xr - a1 * yr + rs2;
        ls2 = b2 * xl - a2 * yl;
        rs2 = b2 * xr - a2 * yr;
        const double zl = yl + lp1, zr = yr + rp1;
        lp1 = -2 * yl - p1 * zl + lp2;
        rp1 = -2 * yr - p1 * zr + rp2;
        lp2 = yl - p2 * zl;
        rp2 = yr - p2 * zr;
        sum_left += zl * zl;
        sum_right += zr * zr;
    }
    state[0] = ls1; state[1] = ls2; state[2] = lp1; state[3] = lp2;
    state[4] = rs1; state[5] = rs2; state[6] = rp1; state[7] = rp2;
    sums[0] = sum_left;
    sums[1] = sum_right;
}
