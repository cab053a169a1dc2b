/*
 * Replays a fuzz target's corpus without libFuzzer (built with the normal
 * compiler, so `make test` needs no clang): each file named on the command
 * line is read and passed to LLVMFuzzerTestOneInput, one TAP line per file.
 * A crash, sanitizer report or abort ends the process, which the test
 * runner counts as a failure.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
    int failed = 0;
    printf("1..%d\n", argc - 1);
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        uint8_t *data = NULL;
        size_t size = 0, cap = 0, got;
        do {
            if (size == cap) {
                cap = cap ? cap * 2 : 4096;
                uint8_t *more = realloc(data, cap);
                if (!more)
                    abort();
                data = more;
            }
            got = f ? fread(data + size, 1, cap - size, f) : 0;
            size += got;
        } while (got > 0);
        if (!f) {
            printf("not ok %d - %s: cannot open\n", i, argv[i]);
            failed = 1;
        } else {
            fclose(f);
            fflush(stdout);
            LLVMFuzzerTestOneInput(data, size);
            printf("ok %d - %s\n", i, argv[i]);
        }
        free(data);
    }
    return failed;
}
