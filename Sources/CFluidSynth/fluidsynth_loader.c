/* libfluidsynth through dlopen, loaded by the first call that can come before a synth
 * exists (new_fluid_settings, fluid_is_soundfont, fluid_set_log_function). Every other
 * function takes an object those made, so the table is filled by then, on a control
 * thread, before the audio thread can call it. */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

#include "CFluidSynth.h"

#define FLUID_FUNCTIONS(X) \
    X(fluid_settings_t *, new_fluid_settings, (void), ()) \
    X(void, delete_fluid_settings, (fluid_settings_t *settings), (settings)) \
    X(fluid_synth_t *, new_fluid_synth, (fluid_settings_t *settings), (settings)) \
    X(void, delete_fluid_synth, (fluid_synth_t *synth), (synth)) \
    X(int, fluid_settings_setint, (fluid_settings_t *settings, const char *name, int val), (settings, name, val)) \
    X(int, fluid_settings_setnum, (fluid_settings_t *settings, const char *name, double val), (settings, name, val)) \
    X(int, fluid_synth_write_float, (fluid_synth_t *synth, int len, void *lout, int loff, int lincr, void *rout, int roff, int rincr), \
      (synth, len, lout, loff, lincr, rout, roff, rincr)) \
    X(int, fluid_synth_sfload, (fluid_synth_t *synth, const char *filename, int reset_presets), (synth, filename, reset_presets)) \
    X(int, fluid_synth_set_polyphony, (fluid_synth_t *synth, int polyphony), (synth, polyphony)) \
    X(int, fluid_synth_set_gen, (fluid_synth_t *synth, int chan, int param, float value), (synth, chan, param, value)) \
    X(void, fluid_synth_set_gain, (fluid_synth_t *synth, float gain), (synth, gain)) \
    X(int, fluid_synth_program_select, (fluid_synth_t *synth, int chan, int sfont_id, int bank_num, int preset_num), \
      (synth, chan, sfont_id, bank_num, preset_num)) \
    X(int, fluid_synth_program_change, (fluid_synth_t *synth, int chan, int program), (synth, chan, program)) \
    X(int, fluid_synth_pitch_bend, (fluid_synth_t *synth, int chan, int val), (synth, chan, val)) \
    X(int, fluid_synth_noteon, (fluid_synth_t *synth, int chan, int key, int vel), (synth, chan, key, vel)) \
    X(int, fluid_synth_noteoff, (fluid_synth_t *synth, int chan, int key), (synth, chan, key)) \
    X(int, fluid_synth_key_pressure, (fluid_synth_t *synth, int chan, int key, int val), (synth, chan, key, val)) \
    X(fluid_sfont_t *, fluid_synth_get_sfont_by_id, (fluid_synth_t *synth, int id), (synth, id)) \
    X(int, fluid_synth_channel_pressure, (fluid_synth_t *synth, int chan, int val), (synth, chan, val)) \
    X(int, fluid_synth_cc, (fluid_synth_t *synth, int chan, int ctrl, int val), (synth, chan, ctrl, val)) \
    X(int, fluid_synth_all_sounds_off, (fluid_synth_t *synth, int chan), (synth, chan)) \
    X(void, fluid_sfont_iteration_start, (fluid_sfont_t *sfont), (sfont)) \
    X(fluid_preset_t *, fluid_sfont_iteration_next, (fluid_sfont_t *sfont), (sfont)) \
    X(fluid_log_function_t, fluid_set_log_function, (int level, fluid_log_function_t fun, void *data), (level, fun, data)) \
    X(int, fluid_preset_get_num, (fluid_preset_t *preset), (preset)) \
    X(const char *, fluid_preset_get_name, (fluid_preset_t *preset), (preset)) \
    X(int, fluid_preset_get_banknum, (fluid_preset_t *preset), (preset)) \
    X(int, fluid_is_soundfont, (const char *filename), (filename))

#define POINTER(type, name, parameters, arguments) static type(*real_##name) parameters;
FLUID_FUNCTIONS(POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static const char *failure = "libfluidsynth was not loaded";

static void load(void) {
    void *library = dlopen("libfluidsynth.so.3", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        failure = dlerror();
        return;
    }
#define RESOLVE(type, name, parameters, arguments) \
    if (!(real_##name = (type(*) parameters)dlsym(library, #name))) { failure = "libfluidsynth lacks " #name; return; }
    FLUID_FUNCTIONS(RESOLVE)
    loaded = 1;
}

int trellis_fluidsynth_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *trellis_fluidsynth_error(void) { return loaded ? NULL : failure; }

/* The first calls load the library; without it they answer "none" (NULL, FLUID_FAILED). */
fluid_settings_t *new_fluid_settings(void) { return trellis_fluidsynth_load() ? real_new_fluid_settings() : NULL; }
int fluid_is_soundfont(const char *filename) { return trellis_fluidsynth_load() ? real_fluid_is_soundfont(filename) : 0; }
fluid_log_function_t fluid_set_log_function(int level, fluid_log_function_t fun, void *data) {
    return trellis_fluidsynth_load() ? real_fluid_set_log_function(level, fun, data) : NULL;
}

/* The rest take an object the first calls made. */
#define FORWARD(type, name, parameters, arguments) type name parameters { return real_##name arguments; }
#define FORWARD_VOID(type, name, parameters, arguments) void name parameters { real_##name arguments; }
FORWARD_VOID(void, delete_fluid_settings, (fluid_settings_t *settings), (settings))
FORWARD(fluid_synth_t *, new_fluid_synth, (fluid_settings_t *settings), (settings))
FORWARD_VOID(void, delete_fluid_synth, (fluid_synth_t *synth), (synth))
FORWARD(int, fluid_settings_setint, (fluid_settings_t *settings, const char *name, int val), (settings, name, val))
FORWARD(int, fluid_settings_setnum, (fluid_settings_t *settings, const char *name, double val), (settings, name, val))
FORWARD(int, fluid_synth_write_float, (fluid_synth_t *synth, int len, void *lout, int loff, int lincr, void *rout, int roff, int rincr),
        (synth, len, lout, loff, lincr, rout, roff, rincr))
FORWARD(int, fluid_synth_sfload, (fluid_synth_t *synth, const char *filename, int reset_presets), (synth, filename, reset_presets))
FORWARD(int, fluid_synth_set_polyphony, (fluid_synth_t *synth, int polyphony), (synth, polyphony))
FORWARD(int, fluid_synth_set_gen, (fluid_synth_t *synth, int chan, int param, float value), (synth, chan, param, value))
FORWARD_VOID(void, fluid_synth_set_gain, (fluid_synth_t *synth, float gain), (synth, gain))
FORWARD(int, fluid_synth_program_select, (fluid_synth_t *synth, int chan, int sfont_id, int bank_num, int preset_num),
        (synth, chan, sfont_id, bank_num, preset_num))
FORWARD(int, fluid_synth_program_change, (fluid_synth_t *synth, int chan, int program), (synth, chan, program))
FORWARD(int, fluid_synth_pitch_bend, (fluid_synth_t *synth, int chan, int val), (synth, chan, val))
FORWARD(int, fluid_synth_noteon, (fluid_synth_t *synth, int chan, int key, int vel), (synth, chan, key, vel))
FORWARD(int, fluid_synth_noteoff, (fluid_synth_t *synth, int chan, int key), (synth, chan, key))
FORWARD(int, fluid_synth_key_pressure, (fluid_synth_t *synth, int chan, int key, int val), (synth, chan, key, val))
FORWARD(fluid_sfont_t *, fluid_synth_get_sfont_by_id, (fluid_synth_t *synth, int id), (synth, id))
FORWARD(int, fluid_synth_channel_pressure, (fluid_synth_t *synth, int chan, int val), (synth, chan, val))
FORWARD(int, fluid_synth_cc, (fluid_synth_t *synth, int chan, int ctrl, int val), (synth, chan, ctrl, val))
FORWARD(int, fluid_synth_all_sounds_off, (fluid_synth_t *synth, int chan), (synth, chan))
FORWARD_VOID(void, fluid_sfont_iteration_start, (fluid_sfont_t *sfont), (sfont))
FORWARD(fluid_preset_t *, fluid_sfont_iteration_next, (fluid_sfont_t *sfont), (sfont))
FORWARD(int, fluid_preset_get_num, (fluid_preset_t *preset), (preset))
FORWARD(const char *, fluid_preset_get_name, (fluid_preset_t *preset), (preset))
FORWARD(int, fluid_preset_get_banknum, (fluid_preset_t *preset), (preset))
