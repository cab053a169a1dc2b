#!/bin/sh
# The docs against the tool: every long option in each subcommand's --help
# is in the man page, every option of run's --help is in the README, and
# every long option the man page names is taken by some subcommand (or the
# top level). The help text is what the parsers print, so an option added
# without its documentation, or documented but gone, fails here. About 1 s.
. "$(dirname "$0")/lib.sh"
python3 - "$JL" "$JL_TOP" >"$T/docs.out" 2>&1 <<'PY'
import re, subprocess, sys
jl, top = sys.argv[1:3]
def help_of(*a):
    return subprocess.run([jl, *a, "--help"], capture_output=True, text=True).stdout
top_help = help_of()
block = top_help.split("subcommands:\n", 1)[1].split("\n\n", 1)[0]
subs = re.findall(r"^  ([a-z][a-z0-9-]*) ", block, re.M)
opt_re = re.compile(r"^ {1,6}(?:-\w, )?--([a-z][a-z0-9-]*)", re.M)
man = open(top + "/docs/jitterlab.1").read()
man_opts = {o.replace("\\-", "-") for o in re.findall(r"\\-\\-([a-z](?:[a-z0-9]|\\-)*[a-z0-9])", man)}
readme = open(top + "/README.md").read()
accepted = set(re.findall(r"--([a-z][a-z0-9-]*)", top_help.split("subcommands:")[0]))
def line(ok, name, why=""):
    print(("ok - %s" % name) if ok else ("not ok - %s\n# %s" % (name, why)))
line(len(subs) >= 11, "the top-level help lists the subcommands", subs)
for s in subs:
    opts = set(opt_re.findall(help_of(s)))
    accepted |= opts
    missing = sorted(o for o in opts if o not in man_opts)
    line(opts and not missing, "%s: every option of its --help is in the man page" % s, "missing: %s" % missing)
run_opts = set(opt_re.findall(help_of("run"))) - {"help"}
missing = sorted(o for o in run_opts if "--" + o not in readme)
line(not missing, "run: every option of its --help is in the README", "missing: %s" % missing)
stray = sorted(o for o in man_opts if o not in accepted)
line(not stray, "every option the man page names is taken by a subcommand", "not taken: %s" % stray)
PY
tap_lines_plain() { while IFS= read -r l; do case $l in "ok - "*) ok "${l#ok - }" ;; "not ok - "*) name=${l#not ok - }; IFS= read -r why; not_ok "$name" "$why" ;; *) echo "# $l" ;; esac; done <"$1"; }
tap_lines_plain "$T/docs.out"
