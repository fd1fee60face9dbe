// A test plugin for Trellis: passes audio through and, from run(), logs each change
// of its `mark` control through the LV2 log feature: a note for mark >= 0, a warning
// below. Built by the tests with the system C compiler.
#include <stdlib.h>
#include <string.h>

#include <lv2/core/lv2.h>
#include <lv2/log/log.h>
#include <lv2/log/logger.h>
#include <lv2/urid/urid.h>

typedef struct {
    const float *in;
    float *out;
    const float *mark;
    float last_mark;
    LV2_Log_Logger logger;
} Logger;

static LV2_Handle instantiate(const LV2_Descriptor *descriptor, double rate, const char *bundle,
                              const LV2_Feature *const *features) {
    (void)descriptor;
    (void)rate;
    (void)bundle;
    LV2_URID_Map *map = NULL;
    LV2_Log_Log *log = NULL;
    for (int i = 0; features[i]; ++i) {
        if (!strcmp(features[i]->URI, LV2_URID__map)) map = features[i]->data;
        if (!strcmp(features[i]->URI, LV2_LOG__log)) log = features[i]->data;
    }
    if (!map) return NULL;
    Logger *self = calloc(1, sizeof(Logger));
    if (!self) return NULL;
    lv2_log_logger_init(&self->logger, map, log);
    return self;
}

static void connect_port(LV2_Handle instance, uint32_t port, void *data) {
    Logger *self = instance;
    switch (port) {
    case 0: self->in = data; break;
    case 1: self->out = data; break;
    case 2: self->mark = data; break;
    }
}

static void activate(LV2_Handle instance) { ((Logger *)instance)->last_mark = 0.0f; }

static void run(LV2_Handle instance, uint32_t frames) {
    Logger *self = instance;
    if (self->in != self->out) memcpy(self->out, self->in, frames * sizeof(float));
    const float mark = *self->mark;
    if (mark != self->last_mark) {
        if (mark >= 0.0f) {
            lv2_log_note(&self->logger, "mark %g\n", mark);
        } else {
            lv2_log_warning(&self->logger, "mark %g is below zero\n", mark);
        }
        self->last_mark = mark;
    }
}

static void cleanup(LV2_Handle instance) { free(instance); }

static const LV2_Descriptor descriptor = {
    "http://example.org/trellis-test/logger", instantiate, connect_port, activate, run, NULL, cleanup, NULL,
};

LV2_SYMBOL_EXPORT const LV2_Descriptor *lv2_descriptor(uint32_t index) { return index == 0 ? &descriptor : NULL; }
