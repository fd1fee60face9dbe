/*
 * trellis.h: Trellis' engine from C (libtrellis.so).
 *
 * Effect chains on non-interleaved float buffers, the units Trellis knows (built-in
 * units and every installed LV2 plugin), audio files, and offline renders of sessions
 * and chains. No Swift type crosses this interface: handles are opaque pointers, text
 * is UTF-8, listings are JSON.
 *
 * Errors: a function that fails returns a negative trellis_status (or NULL), and
 * trellis_last_error() gives the message, the same text the `trellis` command prints,
 * for the calling thread; trellis_last_status() gives the status of a NULL return.
 *
 * Threads: any function may be called from any thread, and different handles from
 * different threads at once; one handle must not be used by two threads at once.
 * Processing never waits for another thread's call.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef TRELLIS_H
#define TRELLIS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TRELLIS_API_VERSION 1

typedef enum {
    TRELLIS_OK = 0,
    /* Anything not below. */
    TRELLIS_ERROR = -1,
    /* A bad argument: a null pointer, a channel count or length out of range. */
    TRELLIS_ERROR_ARGUMENT = -2,
    /* A unit no one knows, or one that could not be made; the text suggests names. */
    TRELLIS_ERROR_UNIT = -3,
    /* An unknown parameter, or a value out of its range (the text gives the range). */
    TRELLIS_ERROR_PARAMETER = -4,
    /* A file that cannot be read or written, or a format that cannot be written. */
    TRELLIS_ERROR_FILE = -5,
    /* A session that cannot be loaded or rendered. */
    TRELLIS_ERROR_SESSION = -6
} trellis_status;

/* The library's version, "0.9.0" for instance. */
const char *trellis_version(void);

/* The calling thread's last failure; "" when none. Valid until the thread's next call. */
const char *trellis_last_error(void);

/* The status of the calling thread's last failure (TRELLIS_OK when none). */
int trellis_last_status(void);

/* Frees text this library returned (the *_json functions). NULL is ignored. */
void trellis_free_string(char *text);

/* ---- Units ---------------------------------------------------------------------- */

/* Every unit, LV2 plugins included, as a JSON array of objects (what `trellis units
 * --json` prints). The first call scans the installed plugins (seconds on a machine
 * with hundreds); later calls and processes use the scan's cache. Free the text. */
char *trellis_units_json(void);

/* One unit, by short name, type:subtype:manufacturer triple or lv2:URI, as a JSON
 * object (what `trellis info --json NAME` prints): its parameters with ranges,
 * defaults, units and hints, buses, presets, latency and tail. Free the text. */
char *trellis_unit_info_json(const char *name);

/* ---- Chains --------------------------------------------------------------------- */

typedef struct trellis_chain trellis_chain;

/*
 * Opens a chain of units in series, written as the units of `trellis chain` are:
 *   "eq band0.type=lowshelf band0.freq=120 band0.gain=3 ! gain gain=-6"
 * Stages are separated by a lone "!"; words by blanks; a word in double or single
 * quotes keeps its blanks, and inside double quotes a backslash keeps the next
 * character. Each stage is a unit (short name, triple or lv2:URI) and name=value
 * settings read as `trellis chain` reads them (channels=, bypass=, preset=, state=,
 * files.NAME= set the node; other names set parameters).
 *
 * The chain runs at `sample_rate` on `channels` input channels (1 to 64), adapting
 * widths as `trellis chain` does (a mono plugin runs once per channel); its output
 * width is trellis_chain_output_channels(). `block_frames` is the longest slice a
 * unit is given at once (0: 4096, the command's default).
 */
trellis_chain *trellis_chain_open(const char *units, double sample_rate, int channels, int block_frames);

/* Closes a chain and frees everything it holds. NULL is ignored. */
void trellis_chain_close(trellis_chain *chain);

int trellis_chain_input_channels(const trellis_chain *chain);
int trellis_chain_output_channels(const trellis_chain *chain);
double trellis_chain_sample_rate(const trellis_chain *chain);

/* The number of stages (units) in the chain. */
int trellis_chain_unit_count(const trellis_chain *chain);

/*
 * The parameters of stage `unit` (0 is the first) as a JSON array of objects, each
 * as `trellis info --json` gives it, with its current value:
 *   {"identifier", "name", "scope", "element", "unit", "minimum", "maximum",
 *    "defaultValue", "value", "flags": ["readable", "writable", "logarithmic",
 *    "integer", "toggled", "enumeration", "output", "ramped"],
 *    "values": ["label", ...] (an enumeration's names for minimum, minimum+1, ...)}
 * Free the text.
 */
char *trellis_chain_parameters_json(const trellis_chain *chain, int unit);

/* Reads a parameter of stage `unit`, named by identifier or name. */
int trellis_chain_get_parameter(const trellis_chain *chain, int unit, const char *name, double *value);

/* Sets a parameter of stage `unit`, named by identifier or name; it takes effect from
 * the next frame processed. Out of range is an error naming the range. */
int trellis_chain_set_parameter(trellis_chain *chain, int unit, const char *name, double value);

/*
 * Processes `frames` frames (any length, 0 included): input[c] points to the frames
 * of input channel c (trellis_chain_input_channels of them), output[c] receives the
 * frames of output channel c. An output channel may be the same memory as an input
 * channel (in place). State carries over from call to call: a signal processed in
 * chunks of any length gives the same samples as in one call. Returns TRELLIS_OK.
 */
int trellis_chain_process(trellis_chain *chain, const float *const *input, float *const *output, int64_t frames);

/* Clears the chain's state (delay lines, envelopes, reverb tails) and starts its
 * clock again at frame 0; parameter values stay. */
int trellis_chain_reset(trellis_chain *chain);

/* Frames from the chain's input to its output (the sum of its units' latencies). */
int64_t trellis_chain_latency(const trellis_chain *chain);

/* Seconds a unit of the chain keeps sounding after its input falls silent (a reverb's
 * decay), summed over the chain; 0 for none. */
double trellis_chain_tail(const trellis_chain *chain);

/* ---- Audio files ---------------------------------------------------------------- */

typedef struct trellis_file trellis_file;

/* Opens an audio file to read (WAV, AIFF, CAF, FLAC, Ogg Vorbis, and whatever else
 * libsndfile reads). `sample_rate` > 0 converts to that rate (libsoxr, high quality);
 * 0 reads at the file's own rate. */
trellis_file *trellis_file_open_read(const char *path, double sample_rate);

/* Creates (or replaces) an audio file to write; the container comes from the
 * extension (.wav .aiff .caf .flac .ogg). `sample_type` is "float32", "int16",
 * "int24" or "int32", or NULL for what the container holds best; `quality` is Ogg
 * Vorbis' quality from 0 to 1, or a negative number for the default. */
trellis_file *trellis_file_open_write(const char *path, double sample_rate, int channels, const char *sample_type, double quality);

/* The rate frames are read or written at, the channel count, and the length in frames
 * at that rate (frames written so far for a file being written). */
int trellis_file_info(const trellis_file *file, double *sample_rate, int *channels, int64_t *frames);

/* Reads up to `frames` frames into channels[c]; returns the frames read (fewer at the
 * end, 0 past it) or a negative status. */
int64_t trellis_file_read(trellis_file *file, float *const *channels, int64_t frames);

/* Moves the read position to `frame` (at the reading rate). */
int trellis_file_seek(trellis_file *file, int64_t frame);

/* The read or write position, in frames. */
int64_t trellis_file_tell(const trellis_file *file);

/* Appends `frames` frames of channels[c]. */
int trellis_file_write(trellis_file *file, const float *const *channels, int64_t frames);

/* Finishes and closes the file (a written file's header and last frames); returns a
 * failure to finish it. Frees the handle in every case. NULL is ignored. */
int trellis_file_close(trellis_file *file);

/* ---- Offline renders ------------------------------------------------------------ */

/*
 * Renders a session file into `output` (container from its extension, float for the
 * containers that hold it), as `trellis render SESSION -o OUTPUT` does. `inputs` are
 * `input_count` texts "PORT=FILE": the session's JACK input port PORT is fed from FILE
 * (converted to the session's rate); other inputs are silent. `duration` > 0 gives
 * the length in seconds; 0 renders as long as the session's players play. Returns the
 * frames written.
 */
int64_t trellis_render_session(const char *session, const char *const *inputs, int input_count, double duration, const char *output);

/*
 * Renders a chain from a source into `output`, as `trellis chain SOURCE ! UNITS !
 * OUTPUT` does: `source` is an audio file, a Standard MIDI File (played to the
 * chain's first unit, an instrument), or a tone ("tone freq=440 amp=0.5"). `units` as
 * for trellis_chain_open. `sample_rate` 0 takes the source file's (48000 for a MIDI
 * file or a tone); `duration` 0 renders as long as the source lasts (a MIDI file with
 * its last notes' release). Returns the frames written.
 */
int64_t trellis_render_chain(const char *source, const char *units, double sample_rate, double duration, const char *output);

#ifdef __cplusplus
}
#endif

#endif
