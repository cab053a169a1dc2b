/*
 * Libraries loaded when an option needs them instead of linked: a linked
 * libcurl or libmicrohttpd maps their TLS, Kerberos and LDAP dependencies
 * into every run, and mlockall makes all of it resident (about 17 MiB of a
 * 23 MiB run). A table of {symbol, offset} fills a struct of typed
 * function pointers from dlopen/dlsym.
 */
#ifndef JITTERLAB_COMMON_DYNLIB_H
#define JITTERLAB_COMMON_DYNLIB_H

#include <stddef.h>

struct dynlib_symbol {
    const char *name;
    size_t offset; /* of a function pointer in the caller's struct */
};

/* Opens soname and stores each symbol's address at api + offset. Returns
 * the handle, or NULL with err naming the library or the symbol. */
void *dynlib_open(const char *soname, const struct dynlib_symbol *symbols, size_t n, void *api,
                  char *err, size_t errlen);
void dynlib_close(void *handle);

#endif
