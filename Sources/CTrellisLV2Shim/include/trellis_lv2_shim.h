#ifndef TRELLIS_LV2_SHIM_H
#define TRELLIS_LV2_SHIM_H

#include <stdint.h>
#include <lv2/log/log.h>

/// Receives one formatted log line. `context` is what was given to
/// `trellis_lv2_log_init`. Called on whatever thread the plugin logged from.
typedef void (*trellis_lv2_log_sink)(void *context, uint32_t type, const char *message);

/// The LV2 log feature: Swift cannot implement its variadic `printf`, so this
/// formats into a fixed stack buffer (no allocation) and hands the line on.
typedef struct {
    LV2_Log_Log log;
    trellis_lv2_log_sink sink;
    void *context;
} TrellisLV2Log;

/// Fills `log` so that `&log->log` can be given to plugins as the log feature.
void trellis_lv2_log_init(TrellisLV2Log *log, trellis_lv2_log_sink sink, void *context);

#endif
