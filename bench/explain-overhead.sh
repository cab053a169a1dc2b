#!/bin/sh
# Benchmark: what `run --explain` costs (default threshold), with and
# without, alternating paired rounds: bench/option-overhead.sh does it.
#
#   bench/explain-overhead.sh [CPU] [ROUNDS] [ROUND_SECONDS]
WITH=--explain WITHOUT= exec "$(dirname "$0")/option-overhead.sh" "$@"
