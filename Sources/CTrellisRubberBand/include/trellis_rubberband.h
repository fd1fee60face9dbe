#ifndef TRELLIS_RUBBERBAND_H
#define TRELLIS_RUBBERBAND_H

#include <rubberband/rubberband-c.h>

#ifdef __cplusplus
extern "C" {
#endif

/// `rubberband_new`, with a logger that drops Rubber Band's messages: the C API has no
/// way to give one, and without it the library writes its warnings (buffers it resizes
/// while the unit warms it up) to stderr. The result is an ordinary `RubberBandState`
/// for every `rubberband_` function, freed by `rubberband_delete`. Thread: control.
RubberBandState trellis_rubberband_new_quiet(unsigned int sampleRate, unsigned int channels,
                                             RubberBandOptions options, double initialTimeRatio,
                                             double initialPitchScale);

#ifdef __cplusplus
}
#endif

#endif
