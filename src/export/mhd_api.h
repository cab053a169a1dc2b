/*
 * The part of libmicrohttpd that the exporter calls, loaded when an
 * exporter starts (common/dynlib.h says why it is not linked).
 */
#ifndef JITTERLAB_EXPORT_MHD_API_H
#define JITTERLAB_EXPORT_MHD_API_H

#include <microhttpd.h>
#include <stddef.h>

struct mhd_api {
    struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port,
                                       MHD_AcceptPolicyCallback apc, void *apc_cls,
                                       MHD_AccessHandlerCallback dh, void *dh_cls, ...);
    void (*stop_daemon)(struct MHD_Daemon *daemon);
    struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer,
                                                        enum MHD_ResponseMemoryMode mode);
    enum MHD_Result (*add_response_header)(struct MHD_Response *response, const char *header,
                                           const char *content);
    enum MHD_Result (*queue_response)(struct MHD_Connection *connection, unsigned int status_code,
                                      struct MHD_Response *response);
    void (*destroy_response)(struct MHD_Response *response);
    const char *(*lookup_connection_value)(struct MHD_Connection *connection,
                                           enum MHD_ValueKind kind, const char *key);
};

/* Fills api; the handle for dynlib_close, or NULL with err. */
void *mhd_api_load(struct mhd_api *api, char *err, size_t errlen);

#endif
