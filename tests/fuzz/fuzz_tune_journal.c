/*
 * Fuzz target: the tune journal reader, tune_journal_load
 * (src/tune/tune.c), on a journal file in a private directory that passes
 * its ownership and mode checks, so that the content is what gets tested.
 */
#include "fuzz.h"

#include "tune/tune.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_write_file("run/tune-state.json", data, size);
    if (chmod(path, 0600) != 0)
        abort();
    static struct tune_journal j;
    char err[512];
    int rc = tune_journal_load(path, &j, err, sizeof err);
    if (rc == 0) {
        for (int i = 0; i < j.changes.n; i++)
            if (!j.changes.change[i].path || !j.changes.change[i].old_value)
                abort();
        tune_plan_free(&j.changes);
    }
    return 0;
}
