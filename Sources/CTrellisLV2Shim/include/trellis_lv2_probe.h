#ifndef TRELLIS_LV2_PROBE_H
#define TRELLIS_LV2_PROBE_H

#include <sys/types.h>

/// Opens a plugin library in a fresh process, as lilv opens it (`RTLD_NOW`), so that a
/// library that crashes, hangs or cannot be unloaded cleanly never touches the caller.
///
/// The child is this same program (`/proc/self/exe`, started with `posix_spawn`, which is
/// safe from a threaded process where `fork` is not): a start-up constructor in this
/// library sees `TRELLIS_LV2_PROBE_LIBRARY`, probes and exits before `main`. Its answer
/// comes on the pipe whose read end is returned in `*read_fd`:
///
///     ok\n<uri>\n<uri>\n...     lv2_descriptor lists these plugins
///     lib\n                      only lv2_lib_descriptor is exported
///     none\n                     neither entry point is exported
///     error\n<dlerror text>\n    the library does not load
///
/// Returns the child's pid, or -1 (with errno) when no child could be started.
/// Thread: control.
pid_t trellis_lv2_probe_library(const char *path, int *read_fd);

#endif
