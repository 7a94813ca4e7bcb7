#!/bin/bash
# V8 heap bytes allocated per record by the broker in request-cost.mjs (one Produce and one Fetch per
# record): the `allocated=` of every GC in --trace-gc-nvp, summed over the run (start-up and warm-up
# included, the same in every build) and divided by the records. Deterministic enough to compare
# builds on a loaded machine, unlike latency (bench/README.md, "Tail latency").
#
#   bash bench/garbage-per-record.sh [DIST] [COUNT]      # defaults: dist 60000
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
dist=${1:-dist}; count=${2:-60000}
out=$(node "$HERE/request-cost.mjs" --dist "$dist" --count "$count" --node-args="--trace-gc-nvp" 2>&1)
echo "$out" | grep -o 'allocated=[0-9]*' | awk -F= -v n="$count" -v d="$dist" '{s+=$2; c++} END {printf "%s: %d GCs, %.0f MiB allocated, %.0f B per record\n", d, c, s/1048576, s/n}'
echo "$out" | grep '"bench"' | python3 -c "import sys,json; d=json.loads(sys.stdin.read()); print('  broker us/rec', d['broker_us_per_rec'], 'records/s', d['records_per_s'], 'load', d['loadavg'][0])"
