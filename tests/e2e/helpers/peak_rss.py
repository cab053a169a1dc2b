#!/usr/bin/env python3
"""Runs a command and prints its peak RSS in kB and its wall time in s
(`KB SECONDS` on stdout, after the command's own output); exits with the
command's status. For the input-memory test and bench/input-memory.sh.

    peak_rss.py COMMAND [ARG...]
"""
import resource
import subprocess
import sys
import time

start = time.monotonic()
rc = subprocess.call(sys.argv[1:])
wall = time.monotonic() - start
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, "%.2f" % wall)
sys.exit(rc)
