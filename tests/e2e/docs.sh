#!/bin/sh
# runs beside others
# The docs against the tool: every long option in each subcommand's --help
# is in the man page and in a README table, and
# every long option the man page names is taken by some subcommand (or the
# top level). The help text is what the parsers print, so an option added
# without its documentation, or documented but gone, fails here. Also: the
# man SYNOPSIS lists every subcommand of --help, every --help lines its
# options' texts up, README.md and docs/*.md have whole fences, code blocks
# and tables, every repository file that
# docs/result-schema.md names exists, every *.md or repository path that
# docs/*.md, README.md or the man page cites exists, and the --samples header of two real
# 0.2 s runs on CPU 1 (plain, and with a workload) is the column list of the
# result schema, the man page, the README and the help. About 2 s.
. "$(dirname "$0")/lib.sh"
T="$T" python3 - "$JL" "$JL_TOP" >"$T/docs.out" 2>&1 <<'PY'
import glob, os, re, subprocess, sys
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
table = "\n".join(l for l in readme.splitlines() if l.startswith("|"))
for s in subs:
    opts = set(opt_re.findall(help_of(s))) - {"help"}
    missing = sorted(o for o in opts if not re.search(r"--%s(?![a-z0-9-])" % re.escape(o), table))
    line(not missing, "%s: every option of its --help is in a README table" % s, "missing: %s" % missing)
# (COMING FROM CYCLICTEST names cyclictest's own options, taken here or not)
man_own = re.sub(r"\.SH COMING FROM CYCLICTEST\n.*?(?=\n\.SH )", "", man, flags=re.S)
man_own_opts = {o.replace("\\-", "-") for o in re.findall(r"\\-\\-([a-z](?:[a-z0-9]|\\-)*[a-z0-9])", man_own)}
stray = sorted(o for o in man_own_opts if o not in accepted)
line(not stray, "every option the man page names is taken by a subcommand", "not taken: %s" % stray)
# every --help lines up: an option and its text at least two spaces apart, the
# text at the column of the rest of that help unless the option is too long
import collections
help_opt_re = re.compile(r"^( +)(-\w(?:, --[a-z][\w-]*)?|--[a-z][\w-]*)(\S*)((?: (?:[A-Z\[<]|[a-z]+\|)[^ ]*)*)(.*)$")
for s in [None] + subs:
    text = help_of(s) if s else top_help
    bad, starts, rows = [], collections.Counter(), []
    for l in text.splitlines():
        m = help_opt_re.match(l)
        if not m or not m.group(5):
            continue
        rest = m.group(5)
        opt_end = len(l) - len(rest)
        if not rest.startswith("  "):
            bad.append("option and text one space apart: %r" % l)
            continue
        start = opt_end + len(rest) - len(rest.lstrip(" "))
        starts[start] += 1
        rows.append((l, opt_end, start))
    if starts:
        col = starts.most_common(1)[0][0]
        bad += ["text at column %d, not %d: %r" % (st, col, l) for l, end, st in rows if st != col and end + 2 <= col]
    line(not bad, "%s --help: every option's text lines up" % (s or "jitterlab"), "; ".join(bad))
# markdown of README.md and docs/*.md: fences balanced, no text run into an
# indented code block, every table row with its header's cells (GitHub splits
# cells at every | not written \|, inside `code` too)
def md_problems(f):
    out, lines = [], open(f).read().splitlines()
    fence = re.compile(r"^ {0,3}(```|~~~)")
    if sum(1 for l in lines if fence.match(l)) % 2:
        out.append("a ``` fence is not closed")
    in_fence = in_code = in_list = False
    prev, ncells = "", None
    for k, l in enumerate(lines, 1):
        if fence.match(l):
            in_fence = not in_fence
        if in_fence or fence.match(l):
            prev = l
            continue
        if l.startswith("|"):
            cells = len(re.findall(r"(?<!\\)\|", l.rstrip())) - 1
            if ncells is None:
                ncells = cells
            elif cells != ncells:
                out.append("%d: %d table cells, the header has %d" % (k, cells, ncells))
        else:
            ncells = None
        if l.strip():
            if re.match(r"^\s*([-*+]|\d+\.) ", l) and not l.startswith("    "):
                in_list = True
            elif not l.startswith(" "):
                in_list = False
            if l.startswith("    ") and not prev.strip() and not in_list:
                in_code = True
            elif not l.startswith("    "):
                if in_code and prev.strip():
                    out.append("%d: text right after a code block: %r" % (k, l[:60]))
                in_code = False
        prev = l
    return out
for f in [top + "/README.md"] + sorted(glob.glob(top + "/docs/*.md")):
    probs = md_problems(f)
    line(not probs, "%s: markdown fences, code blocks and tables are whole" % os.path.relpath(f, top), "; ".join(probs))
# the man SYNOPSIS lists every subcommand of jitterlab --help
synopsis = man.split(".SH SYNOPSIS", 1)[1].split("\n.SH ", 1)[0]
listed = set(re.findall(r"^\.B jitterlab ([a-z0-9-]+)", synopsis, re.M))
missing = [s for s in subs if s not in listed]
line(not missing, "the man SYNOPSIS lists every subcommand of jitterlab --help", "missing: %s" % missing)
# every repository file docs/result-schema.md names exists
schema = open(top + "/docs/result-schema.md").read()
named = set(re.findall(r"`((?:src|docs|tests|contrib|bench|examples|debian)/[A-Za-z0-9_./-]+)`", schema))
named |= set(re.findall(r"(?<![\w./-])([A-Z][A-Za-z0-9_-]*\.md|[a-z][a-z0-9_-]*\.(?:c|h|py|sh))\b", schema))
import os
gone = sorted(p for p in named if not any(os.path.exists(os.path.join(top, d, p)) for d in ("", "docs")))
line(named and not gone, "every repository file docs/result-schema.md names exists", "not in the repository: %s" % gone)
# every file docs/*.md, README.md and the man page cite exists: a *.md by any
# name (beside the citing file, in docs/ or at the top) and every repository
# path; {a,b} alternatives each, a helper program by its .c, globs by a match,
# NAME, STEP, FILE, DIR, REPEAT and MACHINE as placeholders
import glob
cite_re = re.compile(r"(?<![\w./-])((?:src|docs|tests|contrib|bench|examples|debian|tools)/[A-Za-z0-9_.*{},/-]*[A-Za-z0-9_*}]|[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md)(?![\w/-])")
def alternatives(p):
    m = re.search(r"\{([^{}]*)\}", p)
    return [q for a in m.group(1).split(",") for q in alternatives(p[:m.start()] + a + p[m.end():])] if m else [p]
citing = sorted(glob.glob(top + "/docs/*.md")) + [top + "/README.md", top + "/docs/jitterlab.1"]
gone = []
for f in citing:
    text = open(f).read().replace("\\-", "-").replace("\\&", "")
    for p in set(cite_re.findall(text)):
        if re.search(r"(?<![a-z])(NAME|STEP|REPEAT|FILE|DIR|MACHINE)(?![a-z])", p):
            continue
        for q in alternatives(p.rstrip(".")):
            bases = (top, top + "/docs", os.path.dirname(f))
            if not any(glob.glob(os.path.join(b, q)) or glob.glob(os.path.join(b, q + ".c")) for b in bases):
                gone.append("%s: %s" % (os.path.relpath(f, top), q))
line(not gone, "every file docs/*.md, README.md and the man page cite is in the repository", "not in the repository: %s" % sorted(gone))
# the --samples header of a real run is the column list the docs give
def header(*extra):
    out = os.path.join(os.environ["T"], "s.csv")
    subprocess.run([jl, "run", "-a", "1", "-D", "200ms", "-q", "--no-telemetry", "--samples", out, *extra],
                   capture_output=True, text=True)
    try:
        return open(out).readline().strip()
    except OSError as e:
        return "(no file: %s)" % e
plain = header()
schema_plain = re.search(r"writes every sample as CSV: a header line `([^`]+)`", schema)
man_plain = re.search(r"CSV with the header line\n\.B (\S+)", man)
readme_plain = re.search(r"\| `--samples FILE` \|[^|]*\| every sample as CSV `([^`]+)`", readme)
help_plain = re.search(r"--samples FILE +every sample as CSV: (\S+)", help_of("run"))
docs_plain = [m.group(1).replace("\\-", "-") if m else None for m in (schema_plain, man_plain, readme_plain, help_plain)]
line(all(d == plain for d in docs_plain), "--samples: the header of a 0.2 s run is the one the docs give",
     "run wrote %r; result-schema, man, README, help: %r" % (plain, docs_plain))
ctl = header("--workload", "spin:10us")
schema_ctl = re.search(r"With `--workload` or `--counters` the samples CSV has the columns\n`([^`]+)`", schema)
man_ctl = re.search(r"the header is\n\.B (\S+)", man)
docs_ctl = [m.group(1) if m else None for m in (schema_ctl, man_ctl)]
line(all(d == ctl for d in docs_ctl), "--samples --workload: the header of a 0.2 s run is the one the docs give",
     "run wrote %r; result-schema, man: %r" % (ctl, docs_ctl))
PY
tap_lines_plain() { while IFS= read -r l; do case $l in "ok - "*) ok "${l#ok - }" ;; "not ok - "*) name=${l#not ok - }; IFS= read -r why; not_ok "$name" "$why" ;; *) echo "# $l" ;; esac; done <"$1"; }
tap_lines_plain "$T/docs.out"
