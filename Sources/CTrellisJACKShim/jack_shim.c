#include "trellis_jack_shim.h"

jack_client_t *trellis_jack_client_open(const char *client_name,
                                        jack_options_t options,
                                        jack_status_t *status,
                                        const char *server_name) {
    if (server_name != NULL) {
        return jack_client_open(client_name, options | JackServerName, status, server_name);
    }
    return jack_client_open(client_name, options, status);
}
