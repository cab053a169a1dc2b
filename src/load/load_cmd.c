/*
 * cmd: an external program (for example "stress-ng --cpu 1 --timeout 0") run
 * with /bin/sh -c in a process group of its own; the runner starts and kills
 * it (see load.c). The command text is everything after "cmd:".
 */
#include <stdio.h>
#include <string.h>

#include "load/load_kind.h"

static int cmd_parse(const char *args, const struct sysroot *sr, struct load_spec *spec,
                     const char **why)
{
    (void)sr;
    if (!args || !args[strspn(args, " \t")]) {
        *why = "cmd needs a command (e.g. cmd:stress-ng --cpu 1)";
        return -1;
    }
    if (strlen(args) >= sizeof(spec->command)) {
        *why = "command too long";
        return -1;
    }
    snprintf(spec->command, sizeof(spec->command), "%s", args);
    return 0;
}

const struct load_kind load_kind_cmd = {
    .name = "cmd",
    .usage = "cmd:COMMAND",
    .help = "a shell command in its own process group; pulsed, it\nis started at every ON and "
            "killed at every OFF",
    .parse = cmd_parse,
    .external = true,
};
