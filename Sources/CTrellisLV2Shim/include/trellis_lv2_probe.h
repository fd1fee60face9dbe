#ifndef TRELLIS_LV2_PROBE_H
#define TRELLIS_LV2_PROBE_H

#include <sys/types.h>

/// Starts a library prober: a process that opens plugin libraries as lilv opens them
/// (`RTLD_NOW`), each in a child of its own, so that a library that crashes, hangs or
/// cannot be unloaded cleanly never touches the caller.
///
/// The prober is this same program (`/proc/self/exe`, started with `posix_spawn`, which
/// is safe from a threaded process where `fork` is not): a start-up constructor in this
/// library sees `TRELLIS_LV2_PROBE_SERVER` and serves before `main`, forking one child
/// per library (cheap: the program's own libraries are loaded once, in the prober),
/// `width` at once, each given `timeout` seconds before it is killed.
///
/// Write library paths, one per line, to `*request_fd` and close it when done. Read
/// from `*answer_read_fd`, until it ends, one record per library:
///
///     path NUL outcome NUL answer NUL
///
/// where outcome is `exit N`, `signal N` or `late`, and answer is what the child wrote:
///
///     ok\n<uri>\n<uri>\n...     lv2_descriptor lists these plugins
///     lib\n                      only lv2_lib_descriptor is exported
///     none\n                     neither entry point is exported
///     error\n<dlerror text>\n    the library does not load
///
/// Requests and records are buffered in the prober, so the caller may write every
/// request before reading. Returns the prober's pid, or -1 (with errno) when it could
/// not be started. Thread: control.
pid_t trellis_lv2_probe_server(int width, double timeout, int *request_fd, int *answer_read_fd);

#endif
