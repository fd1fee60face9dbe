#include "trellis_rubberband.h"

#include <memory>
#include <rubberband/RubberBandStretcher.h>

// The C API's handle, as rubberband-c.cpp defines it (one pointer, unchanged since the
// C API began), so that the library's own functions take a stretcher made here.
struct RubberBandState_ {
    RubberBand::RubberBandStretcher *m_s;
};

namespace {
struct QuietLogger : RubberBand::RubberBandStretcher::Logger {
    void log(const char *) override {}
    void log(const char *, double) override {}
    void log(const char *, double, double) override {}
};
}

RubberBandState trellis_rubberband_new_quiet(unsigned int sampleRate, unsigned int channels,
                                             RubberBandOptions options, double initialTimeRatio,
                                             double initialPitchScale) {
    try {
        auto *stretcher = new RubberBand::RubberBandStretcher(
            sampleRate, channels, std::make_shared<QuietLogger>(), options, initialTimeRatio, initialPitchScale);
        return new RubberBandState_{stretcher};
    } catch (...) {
        return nullptr;
    }
}
