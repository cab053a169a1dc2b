/*
 * libcurl's entry points for the InfluxDB writer (see curl_api.h).
 */
#include "export/curl_api.h"

#include <stddef.h>

#include "common/dynlib.h"

#define SYM(field, symbol)                                                                         \
    {                                                                                              \
#symbol, offsetof(struct curl_api, field)                                                  \
    }

void *curl_api_load(struct curl_api *api, char *err, size_t errlen)
{
    static const struct dynlib_symbol symbols[] = {
        SYM(easy_init, curl_easy_init),         SYM(easy_setopt, curl_easy_setopt),
        SYM(easy_perform, curl_easy_perform),   SYM(easy_getinfo, curl_easy_getinfo),
        SYM(easy_strerror, curl_easy_strerror), SYM(easy_cleanup, curl_easy_cleanup),
        SYM(slist_append, curl_slist_append),   SYM(slist_free_all, curl_slist_free_all),
    };
    return dynlib_open("libcurl.so.4", symbols, sizeof(symbols) / sizeof(symbols[0]), api, err,
                       errlen);
}
