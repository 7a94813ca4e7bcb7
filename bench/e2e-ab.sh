#!/bin/bash
# The e2e phase (10,000 records/s, linger 0) alternating run by run between builds or node flags, one
# line per run: whole-run and after-the-first-second percentiles, broker CPU per record, and the
# broker's GC from loop-delay.mjs. Alternating is what makes two builds comparable on this shared
# machine: the load moves between runs more than the builds differ (bench/README.md, "Tail latency").
#
#   bash bench/e2e-ab.sh ROUNDS "DIST|NODE ARGS" ["DIST|NODE ARGS" ...]
#   bash bench/e2e-ab.sh 3 "/path/base/dist|" "$PWD/dist|" "$PWD/dist|--max-semi-space-size=4"
#
# Each DIST is a built dist/ (its bin's first-line node flags apply, bench/lib.sh); NODE ARGS come after them.
# AB_PHASES="produce-small consume-small produce-large consume-large e2e" runs the e2e phase after the
# throughput phases on the same broker, as a full run.sh does (default: the e2e phase alone).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
rounds=$1; shift
for round in $(seq 1 "$rounds"); do
  for cfg in "$@"; do
    dist=${cfg%%|*}; args=${cfg#*|}
    out=$(BUILD=0 BROKER_DIST=$dist BROKER_NODE_ARGS="$args" LOOP_DELAY=1 PHASES="${AB_PHASES:-e2e}" E2E_LINGERS=0 RUNS=1 bash "$HERE/run.sh" 2>&1) || { echo "$round | $cfg | FAILED"; echo "$out" | tail -5; continue; }
    line=$(echo "$out" | grep '^{"bench": "e2e"')
    ld=$(ls -t "$HERE"/results/loop-delay-*.jsonl | head -1)
    gc=$(grep '"run 1 e2e' "$ld" | python3 -c "import sys,json; d=json.loads(sys.stdin.read()); print('gc', d['gcCount'], 'total', d['gcTotalMs'], 'max', d['gcMaxMs'], 'ms | loop p99/p99.9', d['p99Ms'], d['p999Ms'])")
    echo "$round | $cfg | $(echo "$line" | python3 -c "import sys,json; d=json.loads(sys.stdin.read()); print('p50',d['p50_ms'],'p99',d['p99_ms'],'p99.9',d['p999_ms'],'| after 1 s: p50',d['steady_p50_ms'],'p99',d['steady_p99_ms'],'p99.9',d['steady_p999_ms'],'| broker us/rec',d['broker_us_per_rec'],'load',d['loadavg_1m'][0])") | $gc"
  done
done
