#!/usr/bin/env bash
# Consumer-group rebalance benchmark of the Tributary broker: see bench/README.md, section "Rebalance".
#
#   bash bench/rebalance.sh            # 3 runs x (range, cooperative-sticky), one broker; table at the end
#
# Starts a broker on a free port with a temp data dir (group.initial.rebalance.delay.ms=0), creates a
# PARTITIONS-partition topic, runs a paced producer (RATE records/s round-robin over every partition) in
# the background for the whole benchmark, runs bench/rebalance.py bench, then stops the producer and the
# broker (trap on exit) and removes the data.
#
# Env (defaults): RUNS=3 STRATEGIES="range cooperative-sticky" MEMBERS=10 PARTITIONS=100 RATE=2000 SIZE=100
#   BUILD=1 BROKER_DIST=/tmp/tributary-rebalance-build/dist (private build *outside* the tree, so neither
#   dist/ nor run.sh's bench/.build is touched; set BROKER_DIST=$PWD/dist BUILD=0 for the shared build)
#   BROKER_OVERRIDES="key=value ..." (extra --override) BENCH_ARGS="..." (extra rebalance.py bench args)
#   TIMEOUT=1200 (whole benchmark) KEEP_DATA=0
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
PY=/usr/bin/python3
REB="$HERE/rebalance.py"

RUNS=${RUNS:-3}
STRATEGIES=${STRATEGIES:-range cooperative-sticky}
MEMBERS=${MEMBERS:-10}
PARTITIONS=${PARTITIONS:-100}
RATE=${RATE:-2000}
SIZE=${SIZE:-100}
BUILD=${BUILD:-1}
BUILD_ROOT=${BUILD_ROOT:-/tmp/tributary-rebalance-build}
BROKER_DIST=${BROKER_DIST:-$BUILD_ROOT/dist}
BROKER_OVERRIDES=${BROKER_OVERRIDES:-}
BENCH_ARGS=${BENCH_ARGS:-}
TIMEOUT=${TIMEOUT:-1200}
KEEP_DATA=${KEEP_DATA:-0}
STAMP=$(date +%Y%m%d-%H%M%S)
RESULTS_DIR="$HERE/rebalance-results"
RESULTS="$RESULTS_DIR/run-$STAMP.jsonl"
TOPIC=rebalance

[[ $RUNS =~ ^[1-9][0-9]?$ ]] || { echo "RUNS must be 1..99" >&2; exit 2; }
[[ -x $PY ]] && $PY -c 'import confluent_kafka' 2>/dev/null || {
  echo "rebalance.sh: $PY cannot import confluent_kafka (apt-get install python3-confluent-kafka)" >&2; exit 2; }
mkdir -p "$RESULTS_DIR"

BROKER_PID=""
PRODUCER_PID=""
WORK=$(mktemp -d /tmp/tributary-rebalance.XXXXXX)
DATA_DIR="$WORK/data"
BROKER_LOG="$WORK/broker.log"
PRODUCER_OUT="$WORK/producer.out"

LIB_NAME=rebalance.sh
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"  # log, stop_pid, build_private, start_broker, broker_warnings

cleanup() {
  local rc=$?
  stop_pid "$PRODUCER_PID" producer; PRODUCER_PID=""
  stop_pid "$BROKER_PID" broker; BROKER_PID=""
  if [[ $KEEP_DATA == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi
  exit $rc
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

build() {
  [[ $BUILD == 1 && $BROKER_DIST == "$BUILD_ROOT/dist" ]] && build_private "$BUILD_ROOT"
  [[ -f $BROKER_DIST/src/cli/main.js ]] || { echo "rebalance.sh: no $BROKER_DIST/src/cli/main.js" >&2; exit 2; }
}

build
start_broker "$DATA_DIR" "$BROKER_LOG" -- group.initial.rebalance.delay.ms=0
timeout 60 $PY "$HERE/librdkafka_bench.py" create -t "$TOPIC" -p "$PARTITIONS" --bootstrap "$BOOTSTRAP" --timeout 30
log "producer: $RATE records/s over $PARTITIONS partitions, $SIZE B (bounded at $TIMEOUT s)"
# no `timeout` wrapper, so that PRODUCER_PID is the Python process (its CPU is measured): --seconds bounds it,
# and the trap stops it
$PY "$REB" produce -b "$BOOTSTRAP" -t "$TOPIC" --rate "$RATE" --size "$SIZE" \
  --seconds "$TIMEOUT" >"$PRODUCER_OUT" 2>&1 &
PRODUCER_PID=$!
sleep 2
kill -0 "$PRODUCER_PID" 2>/dev/null || { echo "rebalance.sh: producer exited:" >&2; cat "$PRODUCER_OUT" >&2; exit 1; }

strategy_args=()
for s in $STRATEGIES; do strategy_args+=(--strategy "$s"); done
log "results -> $RESULTS"
rc=0
# shellcheck disable=SC2086
timeout -k 10 "$TIMEOUT" $PY "$REB" bench -b "$BOOTSTRAP" -t "$TOPIC" --partitions "$PARTITIONS" \
  --members "$MEMBERS" --rate "$RATE" --runs "$RUNS" "${strategy_args[@]}" --broker-pid "$BROKER_PID" \
  --producer-pid "$PRODUCER_PID" --results "$RESULTS" $BENCH_ARGS || rc=$?

stop_pid "$PRODUCER_PID" producer; PRODUCER_PID=""
log "producer: $(grep -h '^{' "$PRODUCER_OUT" | tail -n 1 || cat "$PRODUCER_OUT")"
grep -h '^{' "$PRODUCER_OUT" | tail -n 1 >>"$RESULTS" || true  # {"bench": "rebalance-producer", ...}
log "broker RSS $(awk '/VmHWM/{print $2" "$3" peak"}' /proc/$BROKER_PID/status 2>/dev/null || echo '?')"
stop_pid "$BROKER_PID" broker; BROKER_PID=""
broker_warnings "$BROKER_LOG" "$RESULTS_DIR/broker-$STAMP.log"
echo
echo "raw results: $RESULTS"
[[ $rc == 0 ]] || { echo "rebalance.sh: benchmark failed (exit $rc)" >&2; exit "$rc"; }
