/* libfluidsynth's API, resolved at first use (fluidsynth_loader.c): a program or library
 * that never plays a SoundFont never loads libfluidsynth and what it pulls in (about 9 ms
 * of start-up). */
#include <fluidsynth.h>

/* Loads libfluidsynth if it is not yet; 0 when it cannot be (the error's text in
 * trellis_fluidsynth_error). Thread: any but audio. */
int trellis_fluidsynth_load(void);
const char *trellis_fluidsynth_error(void);
