/*
 * libmicrohttpd's entry points for the exporter (see mhd_api.h).
 */
#include "export/mhd_api.h"

#include <stddef.h>

#include "common/dynlib.h"

#define SYM(field, symbol)                                                                         \
    {                                                                                              \
#symbol, offsetof(struct mhd_api, field)                                                   \
    }

void *mhd_api_load(struct mhd_api *api, char *err, size_t errlen)
{
    static const struct dynlib_symbol symbols[] = {
        SYM(start_daemon, MHD_start_daemon),
        SYM(stop_daemon, MHD_stop_daemon),
        SYM(create_response_from_buffer, MHD_create_response_from_buffer),
        SYM(add_response_header, MHD_add_response_header),
        SYM(queue_response, MHD_queue_response),
        SYM(destroy_response, MHD_destroy_response),
        SYM(lookup_connection_value, MHD_lookup_connection_value),
    };
    return dynlib_open("libmicrohttpd.so.12", symbols, sizeof(symbols) / sizeof(symbols[0]), api,
                       err, errlen);
}
