/* A plugin whose library calls a function nothing defines: opening it with
   RTLD_NOW, as lilv does, fails with "undefined symbol". */
#include <stddef.h>
#include <lv2/core/lv2.h>

extern void trellis_test_missing_symbol(void);

static LV2_Handle instantiate(const LV2_Descriptor* descriptor, double rate, const char* path,
                              const LV2_Feature* const* features) {
    (void)descriptor; (void)rate; (void)path; (void)features;
    trellis_test_missing_symbol();
    return NULL;
}

static void connect_port(LV2_Handle handle, uint32_t port, void* data) { (void)handle; (void)port; (void)data; }
static void run(LV2_Handle handle, uint32_t frames) { (void)handle; (void)frames; }
static void cleanup(LV2_Handle handle) { (void)handle; }

static const LV2_Descriptor descriptor = {
    "http://example.org/trellis-test/unlinked", instantiate, connect_port, NULL, run, NULL, cleanup, NULL,
};

LV2_SYMBOL_EXPORT const LV2_Descriptor* lv2_descriptor(uint32_t index) {
    return index == 0 ? &descriptor : NULL;
}
