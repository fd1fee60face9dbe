#ifndef TRELLIS_JACK_SHIM_H
#define TRELLIS_JACK_SHIM_H

#include <jack/jack.h>

/// Opens a JACK client without the variadic call Swift cannot make.
/// `server_name` may be NULL for the default server. Thread: control.
jack_client_t *trellis_jack_client_open(const char *client_name,
                                        jack_options_t options,
                                        jack_status_t *status,
                                        const char *server_name);

#endif
