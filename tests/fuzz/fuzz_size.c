/*
 * Fuzz target: parse_size_bytes (src/common/units.c), which reads the cache
 * sizes sysfs prints and the workload sizes people type.
 */
#include "fuzz.h"

#include "common/units.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_cstring(data, size);
    uint64_t bytes = 0;
    (void)parse_size_bytes(text, &bytes);
    free(text);
    return 0;
}
