/*
 * Fuzz target: /proc/interrupts as irq_read (src/sys/irq.c) reads it from a
 * sysroot, for target CPUs 0-3 and 1000 (a CPU no header names).
 */
#include "fuzz.h"

#include "sys/irq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_write_file("proc/interrupts", data, size);
    struct sysroot sr;
    sysroot_init(&sr, fuzz_dir());
    static struct cpulist targets;
    static struct read_notes notes;
    const char *why = NULL;
    if (cpulist_parse("0-3,1000", &targets, &why) != 0)
        abort();
    notes.count = 0;
    struct irq_table t;
    if (irq_read(&sr, &targets, &t, &notes) == 0) {
        for (int i = 0; i < t.nirq; i++)
            for (int c = 0; c < t.ntarget; c++)
                (void)irq_count(&t, i, c);
    }
    irq_free(&t);
    return 0;
}
