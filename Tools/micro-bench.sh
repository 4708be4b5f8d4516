#!/usr/bin/env bash
# The micro-benchmarks of the hot functions (Tools/micro-benchmarks: notification rendering, the engine's probe, each
# input decoder), through ordo-one/benchmark with its malloc interposer.
#   Tools/micro-bench.sh           time, throughput, instructions and allocations per item (a table on stdout)
#   Tools/micro-bench.sh --check   CI's smoke run: allocations only, a few iterations, each benchmark's count against
#                                  Tools/micro-benchmarks/Thresholds with zero tolerance (no timing is checked);
#                                  exits non-zero when a hot path allocates more (or less: then update the thresholds
#                                  with --update and say why in the commit)
#   Tools/micro-bench.sh --update  writes the allocation counts of this build as the new thresholds
set -euo pipefail
cd "$(dirname "$0")/.."
Tools/setup.sh
cd Tools/micro-benchmarks
case "${1:-}" in
    --check) GEOTRIGGER_MICRO_SMOKE=1 swift package benchmark thresholds check --no-progress ;;
    --update) GEOTRIGGER_MICRO_SMOKE=1 swift package --allow-writing-to-package-directory benchmark thresholds update --no-progress ;;
    "") swift package benchmark --no-progress ;;
    *) echo "usage: $0 [--check|--update]" >&2; exit 2 ;;
esac
