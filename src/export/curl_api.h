/*
 * The part of libcurl that the InfluxDB writer calls, loaded on the first
 * HTTP destination (common/dynlib.h says why it is not linked).
 */
#ifndef JITTERLAB_EXPORT_CURL_API_H
#define JITTERLAB_EXPORT_CURL_API_H

#include <curl/curl.h>
#include <stddef.h>

struct curl_api {
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
    CURLcode (*easy_perform)(CURL *curl);
    CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
    const char *(*easy_strerror)(CURLcode code);
    void (*easy_cleanup)(CURL *curl);
    struct curl_slist *(*slist_append)(struct curl_slist *list, const char *text);
    void (*slist_free_all)(struct curl_slist *list);
};

/* Fills api; the handle for dynlib_close, or NULL with err. */
void *curl_api_load(struct curl_api *api, char *err, size_t errlen);

#endif
