#!/usr/bin/env bash
# Replication benchmark (issue 12): 3 nodes, RF 3 acks=all min ISR 2 beside RF 1 acks=1 (librdkafka and
# our Producer), failover time after kill -9 of a leader (median of TRIALS), end-to-end latency at RATE
# records/s with RF 3 acks=all. See bench/replication.mjs for what each phase measures and bench/README.md.
#
#   bash bench/replication.sh                      # build into dist, then run every phase
#   COUNT=200000 TRIALS=3 bash bench/replication.sh
#   BUILD=0 PHASES=failover bash bench/replication.sh
#
# Env (defaults): BUILD=1 COUNT=1000000 SIZE=100 TRIALS=10 RATE=10000 LAT_SECONDS=10 SEND_EVERY_MS=5 SETTLE_MS=3000
#   PHASES="throughput failover pause latency" OVERRIDES="k=v,k=v" (extra broker configs on every node)
# While the brokers refuse replication factors above 1, it says so and measures RF 1 only.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
PY=${PY:-/usr/bin/python3}
BUILD=${BUILD:-1}
LIB_NAME=replication.sh
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"

[[ -x $PY ]] && $PY -c 'import confluent_kafka' 2>/dev/null || {
  echo "replication.sh: $PY cannot import confluent_kafka (apt-get install python3-confluent-kafka)" >&2; exit 2; }
if [[ $BUILD == 1 ]]; then
  log "building (tsc -p tsconfig.build.json)"
  (cd "$ROOT" && timeout 900 npx tsc -p tsconfig.build.json)
fi
[[ -f $ROOT/dist/src/cli/main.js ]] || { echo "replication.sh: no dist/src/cli/main.js (build first)" >&2; exit 2; }
cd "$ROOT"
PY=$PY timeout 3600 node bench/replication.mjs
