/*
 * jitterlab entry point: the subcommand table and nothing else. A row names
 * the subcommand, its function (src/cmd/NAME.c), its properties (flags, see
 * cmd.h) and its line in `jitterlab --help`; subcommand_main() does the rest.
 * A new subcommand is one row here and one file in src/cmd/.
 */
#include "cmd/cmd.h"

static const struct subcommand subcommands[] = {
    {"run", cmd_run, SUBCOMMAND_WARN_STALE_TUNE,
     "measure wake-up latency with one real-time thread per CPU"},
    {"inspect", cmd_inspect, SUBCOMMAND_WARN_STALE_TUNE,
     "say whether this machine can meet a latency budget, and why not"},
    {"load", cmd_load, SUBCOMMAND_WARN_STALE_TUNE,
     "run a pinned, bounded best-effort load (cpu, pulse, cache, memory, cmd)"},
    {"doctor", cmd_doctor, SUBCOMMAND_WARN_STALE_TUNE,
     "what keeps a loop from its latency budget on these CPUs, and what fixes it"},
    {"tune", cmd_tune, 0, "apply, hold, show or restore reversible latency tuning"},
    {"stat", cmd_stat, 0,
     "show frequency, idle states, interrupts and steal per CPU (turbostat-like)"},
    {"compare", cmd_compare, 0,
     "compare results with a baseline: better, worse or no difference, with statistics"},
    {"tail", cmd_tail, 0,
     "how sure is the worst case: the latency tail by extreme value theory, checked"},
    {"report", cmd_report, 0, "draw run results as one self-contained HTML page (plots, tables)"},
    {"experiment", cmd_experiment, SUBCOMMAND_WARN_STALE_TUNE,
     "run an A/B experiment fairly (interleaved repeats) and compare its steps"},
    {"c2c", cmd_c2c, SUBCOMMAND_WARN_STALE_TUNE,
     "measure core-to-core cache-line latency for every pair of CPUs, by topology"},
    {"noise", cmd_noise, SUBCOMMAND_WARN_STALE_TUNE,
     "measure what takes a busy CPU away (interrupts, threads, hypervisor), with causes"},
    {"tsc", cmd_tsc, 0,
     "check whether the TSC can be trusted on these CPUs (warps, offsets, rate)"},
    {"rendezvous", cmd_rendezvous, SUBCOMMAND_WARN_STALE_TUNE,
     "time an all-CPU rendezvous with three cache-line layouts of its shared fields"},
};

int main(int argc, char **argv)
{
    return subcommand_main(subcommands, sizeof(subcommands) / sizeof(subcommands[0]), argc, argv);
}
