/* The C interface from C alone: built against the installed trellis.h and
 * libtrellis.so (scripts/test-c), each check against arithmetic or a documented
 * behaviour. Prints one line per check; exits 1 on the first failure. */
#include <trellis.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char *what) {
    printf("%s: %s\n", ok ? "ok" : "FAILED", what);
    if (!ok) {
        printf("  last error: %s\n", trellis_last_error());
        failures++;
    }
}

enum { FRAMES = 10000 };

static void fill(float *samples, int count, float frequency) {
    for (int i = 0; i < count; i++) samples[i] = 0.5f * sinf(2.0f * 3.14159265f * frequency * (float)i / 48000.0f);
}

int main(int argc, char **argv) {
    const char *folder = argc > 1 ? argv[1] : "/tmp";
    static float left[FRAMES], right[FRAMES], outLeft[FRAMES], outRight[FRAMES], again[2][FRAMES];
    fill(left, FRAMES, 440);
    fill(right, FRAMES, 1000);

    check(strlen(trellis_version()) > 0, "trellis_version gives a version");

    /* A gain of -6 dB scales by 10^(-6/20). */
    trellis_chain *gain = trellis_chain_open("gain gain=-6", 48000, 2, 0);
    check(gain != NULL, "a chain opens from its text");
    if (!gain) return 1;
    check(trellis_chain_input_channels(gain) == 2 && trellis_chain_output_channels(gain) == 2, "a stereo gain takes and gives 2 channels");
    check(trellis_chain_unit_count(gain) == 1, "one stage");
    const float *in[2] = {left, right};
    float *out[2] = {outLeft, outRight};
    check(trellis_chain_process(gain, in, out, FRAMES) == TRELLIS_OK, "processing succeeds");
    float factor = powf(10.0f, -6.0f / 20.0f), worst = 0;
    for (int i = 0; i < FRAMES; i++) {
        worst = fmaxf(worst, fabsf(outLeft[i] - left[i] * factor));
        worst = fmaxf(worst, fabsf(outRight[i] - right[i] * factor));
    }
    check(worst < 1e-6f, "gain -6 dB multiplies every sample by 10^(-6/20)");

    double value = 0;
    check(trellis_chain_get_parameter(gain, 0, "gain", &value) == TRELLIS_OK && value == -6, "a parameter reads back as set");
    check(trellis_chain_set_parameter(gain, 0, "gain", 100) == TRELLIS_ERROR_PARAMETER, "a value out of range is a parameter error");
    check(strstr(trellis_last_error(), "-120") != NULL && strstr(trellis_last_error(), "24") != NULL, "its message gives the range");
    check(trellis_chain_set_parameter(gain, 0, "gain", 0) == TRELLIS_OK, "a value in range is taken");
    char *parameters = trellis_chain_parameters_json(gain, 0);
    check(parameters != NULL && strstr(parameters, "\"identifier\" : \"gain\"") != NULL, "parameters come as JSON");
    trellis_free_string(parameters);
    trellis_chain_close(gain);

    /* State carries over: a biquad in chunks of 1 and 63 frames equals one call. */
    trellis_chain *eq = trellis_chain_open("eq \"band0.type\"=lowpass band0.freq=800", 48000, 2, 0);
    check(eq != NULL, "quoted words open too");
    if (!eq) return 1;
    trellis_chain_process(eq, in, out, FRAMES);
    trellis_chain_reset(eq);
    float *pieces[2] = {again[0], again[1]};
    int done = 0, step = 1;
    while (done < FRAMES) {
        int count = done + step > FRAMES ? FRAMES - done : step;
        const float *from[2] = {left + done, right + done};
        float *to[2] = {pieces[0] + done, pieces[1] + done};
        trellis_chain_process(eq, from, to, count);
        done += count;
        step = step == 1 ? 63 : 1;
    }
    check(memcmp(again[0], outLeft, sizeof outLeft) == 0 && memcmp(again[1], outRight, sizeof outRight) == 0,
          "after a reset, chunks of 1 and 63 frames give the samples of one call");

    /* In place: the output may be the input's memory. */
    trellis_chain_reset(eq);
    memcpy(again[0], left, sizeof left);
    memcpy(again[1], right, sizeof right);
    const float *same[2] = {again[0], again[1]};
    trellis_chain_process(eq, same, pieces, FRAMES);
    check(memcmp(again[0], outLeft, sizeof outLeft) == 0 && memcmp(again[1], outRight, sizeof outRight) == 0, "in place equals out of place");
    trellis_chain_close(eq);

    /* Errors: a status and the command line's message. */
    check(trellis_chain_open("eqq", 48000, 2, 0) == NULL && trellis_last_status() == TRELLIS_ERROR_UNIT, "an unknown unit is a unit error");
    check(strstr(trellis_last_error(), "did you mean eq") != NULL, "its message suggests the name meant");
    check(trellis_chain_open("gain", 48000, 0, 0) == NULL && trellis_last_status() == TRELLIS_ERROR_ARGUMENT, "0 channels is an argument error");
    check(trellis_chain_process(NULL, in, out, 1) == TRELLIS_ERROR_ARGUMENT, "a NULL chain is an argument error");

    /* Files: what is written reads back, at its rate. */
    char path[4096];
    snprintf(path, sizeof path, "%s/c-test.wav", folder);
    trellis_file *written = trellis_file_open_write(path, 48000, 2, "float32", -1);
    check(written != NULL, "a file opens for writing");
    if (!written) return 1;
    check(trellis_file_write(written, in, FRAMES) == TRELLIS_OK && trellis_file_close(written) == TRELLIS_OK, "it is written and closed");
    trellis_file *read = trellis_file_open_read(path, 0);
    double rate = 0;
    int channels = 0;
    int64_t length = 0;
    check(read != NULL && trellis_file_info(read, &rate, &channels, &length) == TRELLIS_OK && rate == 48000 && channels == 2 && length == FRAMES,
          "it reads back with its rate, channels and length");
    check(trellis_file_read(read, pieces, FRAMES) == FRAMES && memcmp(again[0], left, sizeof left) == 0, "float samples read back exactly");
    check(trellis_file_read(read, pieces, FRAMES) == 0, "reading past the end gives 0 frames");
    trellis_file_close(read);
    trellis_file *converted = trellis_file_open_read(path, 24000);
    check(converted != NULL && trellis_file_info(converted, &rate, &channels, &length) == TRELLIS_OK && rate == 24000 && length == FRAMES / 2,
          "read at half the rate, it is half as long");
    trellis_file_close(converted);
    check(trellis_file_open_read("/nonexistent/x.wav", 0) == NULL && trellis_last_status() == TRELLIS_ERROR_FILE, "a missing file is a file error");

    /* An offline render of a tone, as `trellis chain tone ... ! gain ! out` does. */
    char rendered[4096];
    snprintf(rendered, sizeof rendered, "%s/c-tone.wav", folder);
    check(trellis_render_chain("tone freq=440 amp=0.5", "gain gain=-6", 48000, 0.5, rendered) == 24000, "a tone renders 0.5 s at 48 kHz");

    char *units = trellis_units_json();
    check(units != NULL && strstr(units, "\"name\" : \"reverb\"") != NULL, "the units listing names the built-in reverb");
    trellis_free_string(units);
    char *info = trellis_unit_info_json("compressor");
    check(info != NULL && strstr(info, "\"parameters\"") != NULL, "a unit's info has its parameters");
    trellis_free_string(info);

    printf("%d failed\n", failures);
    return failures ? 1 : 0;
}
