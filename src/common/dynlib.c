/*
 * dlopen and dlsym into a struct of function pointers (see dynlib.h).
 */
#include "common/dynlib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void *dynlib_open(const char *soname, const struct dynlib_symbol *symbols, size_t n, void *api,
                  char *err, size_t errlen)
{
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *why = dlerror();
        snprintf(err, errlen, "cannot load %s: %s", soname, why ? why : "not found");
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        void *sym = dlsym(h, symbols[i].name);
        if (!sym) {
            snprintf(err, errlen, "%s has no %s", soname, symbols[i].name);
            dlclose(h);
            return NULL;
        }
        /* A function pointer and an object pointer have one size here
         * (POSIX dlsym); memcpy keeps the conversion well defined. */
        memcpy((char *)api + symbols[i].offset, &sym, sizeof(sym));
    }
    return h;
}

void dynlib_close(void *handle)
{
    if (handle)
        dlclose(handle);
}
