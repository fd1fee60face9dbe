/* Hand-written C doing each benchmark's work with libsndfile: the floor a whole
 * process can reach on this machine. Same algorithms as the Trellis units (RBJ biquads
 * in double, transposed direct form II; equal-power pan), 4096-frame chunks, no threads.
 *
 *   reference gain IN OUT          -6 dB
 *   reference eq3 IN OUT           high-pass 80, peaking 1 kHz -4 dB Q 1.41, low-pass 12 kHz
 *   reference mix8 OUT IN1..IN8    8 mono files to stereo, gains and pans as lib.sh's mix_gains
 */
#include <math.h>
#include <sndfile.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHUNK 4096

typedef struct { double b0, b1, b2, a1, a2; } biquad;

static biquad design(const char *type, double freq, double gain_db, double q, double rate) {
    double w = 2 * M_PI * freq / rate, cw = cos(w), alpha = sin(w) / (2 * q), a = pow(10, gain_db / 40);
    double b0, b1, b2, a0, a1, a2;
    if (!strcmp(type, "highpass")) {
        b0 = (1 + cw) / 2; b1 = -(1 + cw); b2 = b0; a0 = 1 + alpha; a1 = -2 * cw; a2 = 1 - alpha;
    } else if (!strcmp(type, "lowpass")) {
        b0 = (1 - cw) / 2; b1 = 1 - cw; b2 = b0; a0 = 1 + alpha; a1 = -2 * cw; a2 = 1 - alpha;
    } else {
        b0 = 1 + alpha * a; b1 = -2 * cw; b2 = 1 - alpha * a; a0 = 1 + alpha / a; a1 = -2 * cw; a2 = 1 - alpha / a;
    }
    return (biquad){ b0 / a0, b1 / a0, b2 / a0, a1 / a0, a2 / a0 };
}

static SNDFILE *open_out(const char *path, int channels) {
    SF_INFO info = { .samplerate = 48000, .channels = channels, .format = SF_FORMAT_WAV | SF_FORMAT_FLOAT };
    SNDFILE *file = sf_open(path, SFM_WRITE, &info);
    if (!file) { fprintf(stderr, "%s: %s\n", path, sf_strerror(NULL)); exit(1); }
    return file;
}

static SNDFILE *open_in(const char *path, SF_INFO *info) {
    memset(info, 0, sizeof *info);
    SNDFILE *file = sf_open(path, SFM_READ, info);
    if (!file) { fprintf(stderr, "%s: %s\n", path, sf_strerror(NULL)); exit(1); }
    return file;
}

static int run_gain(const char *in, const char *out) {
    SF_INFO info;
    SNDFILE *src = open_in(in, &info), *dst = open_out(out, info.channels);
    static float buffer[CHUNK * 2];
    const float g = powf(10, -6.0f / 20);
    sf_count_t got;
    while ((got = sf_readf_float(src, buffer, CHUNK)) > 0) {
        for (sf_count_t i = 0; i < got * info.channels; i++) buffer[i] *= g;
        sf_writef_float(dst, buffer, got);
    }
    sf_close(src); sf_close(dst);
    return 0;
}

static int run_eq3(const char *in, const char *out) {
    SF_INFO info;
    SNDFILE *src = open_in(in, &info), *dst = open_out(out, 2);
    if (info.channels != 2) { fprintf(stderr, "%s: expected stereo\n", in); return 1; }
    biquad c[3] = { design("highpass", 80, 0, 0.7071, 48000), design("peaking", 1000, -4, 1.41, 48000),
                    design("lowpass", 12000, 0, 0.7071, 48000) };
    double s1[3][2] = { { 0 } }, s2[3][2] = { { 0 } };
    static float buffer[CHUNK * 2];
    sf_count_t got;
    while ((got = sf_readf_float(src, buffer, CHUNK)) > 0) {
        for (sf_count_t i = 0; i < got; i++) {
            for (int ch = 0; ch < 2; ch++) {
                double x = buffer[2 * i + ch];
                for (int k = 0; k < 3; k++) {
                    double y = c[k].b0 * x + s1[k][ch];
                    s1[k][ch] = c[k].b1 * x - c[k].a1 * y + s2[k][ch];
                    s2[k][ch] = c[k].b2 * x - c[k].a2 * y;
                    x = y;
                }
                buffer[2 * i + ch] = (float)x;
            }
        }
        sf_writef_float(dst, buffer, got);
    }
    sf_close(src); sf_close(dst);
    return 0;
}

static int run_mix8(const char *out, char **ins) {
    SNDFILE *src[8];
    SF_INFO info;
    float gl[8], gr[8];
    for (int i = 0; i < 8; i++) {
        src[i] = open_in(ins[i], &info);
        float volume = 1.0f - 0.05f * i, pan = -1.0f + 2.0f * i / 7, angle = (pan + 1) * (float)M_PI / 4;
        gl[i] = cosf(angle) * volume;
        gr[i] = sinf(angle) * volume;
    }
    SNDFILE *dst = open_out(out, 2);
    static float in[CHUNK], mix[CHUNK * 2];
    for (;;) {
        sf_count_t frames = 0;
        memset(mix, 0, sizeof mix);
        for (int i = 0; i < 8; i++) {
            sf_count_t got = sf_readf_float(src[i], in, CHUNK);
            if (got > frames) frames = got;
            for (sf_count_t f = 0; f < got; f++) {
                mix[2 * f] += in[f] * gl[i];
                mix[2 * f + 1] += in[f] * gr[i];
            }
        }
        if (frames == 0) break;
        sf_writef_float(dst, mix, frames);
    }
    for (int i = 0; i < 8; i++) sf_close(src[i]);
    sf_close(dst);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "gain")) return run_gain(argv[2], argv[3]);
    if (argc == 4 && !strcmp(argv[1], "eq3")) return run_eq3(argv[2], argv[3]);
    if (argc == 11 && !strcmp(argv[1], "mix8")) return run_mix8(argv[2], argv + 3);
    fprintf(stderr, "usage: reference gain|eq3 IN OUT | reference mix8 OUT IN1..IN8\n");
    return 2;
}
