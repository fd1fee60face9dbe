#include "trellis_lv2_shim.h"

#include <stdarg.h>
#include <stdio.h>

static int trellis_lv2_vprintf(LV2_Log_Handle handle, LV2_URID type, const char *fmt, va_list args) {
    TrellisLV2Log *log = (TrellisLV2Log *)handle;
    char line[512];
    int length = vsnprintf(line, sizeof line, fmt, args);
    if (length < 0) return length;
    log->sink(log->context, type, line);
    return length;
}

static int trellis_lv2_printf(LV2_Log_Handle handle, LV2_URID type, const char *fmt, ...) {
    va_list args;
    va_start(args, fmt);
    int length = trellis_lv2_vprintf(handle, type, fmt, args);
    va_end(args);
    return length;
}

void trellis_lv2_log_init(TrellisLV2Log *log, trellis_lv2_log_sink sink, void *context) {
    log->log.handle = log;
    log->log.printf = trellis_lv2_printf;
    log->log.vprintf = trellis_lv2_vprintf;
    log->sink = sink;
    log->context = context;
}
