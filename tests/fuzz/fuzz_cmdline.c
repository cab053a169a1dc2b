/*
 * Fuzz target: the kernel command line parser (src/sys/kernel_cmdline.c).
 * It never fails; every string it keeps stays terminated.
 */
#include "fuzz.h"

#include "sys/kernel_cmdline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct kernel_cmdline k;
    char *text = fuzz_cstring(data, size);
    kernel_cmdline_parse(text, &k);
    if (strlen(k.isolcpus.text) >= sizeof k.isolcpus.text || strlen(k.idle) >= sizeof k.idle ||
        strlen(k.tsc) >= sizeof k.tsc || strlen(k.preempt) >= sizeof k.preempt)
        abort();
    free(text);
    return 0;
}
