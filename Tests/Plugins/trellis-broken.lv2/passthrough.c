/* A mono pass-through listed under the needs-feature URI only. */
#include <stdlib.h>
#include <string.h>
#include <lv2/core/lv2.h>

typedef struct {
    const float* in;
    float* out;
} Passthrough;

static LV2_Handle instantiate(const LV2_Descriptor* descriptor, double rate, const char* path,
                              const LV2_Feature* const* features) {
    (void)descriptor; (void)rate; (void)path; (void)features;
    return calloc(1, sizeof(Passthrough));
}

static void connect_port(LV2_Handle handle, uint32_t port, void* data) {
    Passthrough* self = (Passthrough*)handle;
    if (port == 0) self->in = (const float*)data;
    if (port == 1) self->out = (float*)data;
}

static void run(LV2_Handle handle, uint32_t frames) {
    Passthrough* self = (Passthrough*)handle;
    if (self->in != self->out) memmove(self->out, self->in, frames * sizeof(float));
}

static void cleanup(LV2_Handle handle) { free(handle); }

static const LV2_Descriptor descriptor = {
    "http://example.org/trellis-test/needs-feature", instantiate, connect_port, NULL, run, NULL, cleanup, NULL,
};

LV2_SYMBOL_EXPORT const LV2_Descriptor* lv2_descriptor(uint32_t index) {
    return index == 0 ? &descriptor : NULL;
}
