#!/usr/bin/env bash
# Side-by-side client benchmark (issue 4): the same workload through our Producer/Consumer
# (`tributary bench`), kafkajs, @platformatic/kafka and librdkafka (confluent-kafka-python), against one
# Tributary broker process, plus NATS JetStream through the peer-bench harness (when PEER_BENCH has it);
# one table at the end.
# See bench/README.md, section "Clients side by side".
#
#   bash bench/clients.sh                 # RUNS=3, about 10-15 minutes on a quiet machine
#   RUNS=1 COUNT=200000 bash bench/clients.sh
#   PROFILE=1 RUNS=1 CLIENTS=tributary bash bench/clients.sh   # broker and our client under --cpu-prof
#
# Env (defaults): RUNS=3 COUNT=1000000 SIZE=100 ACKS_LIST="1 all" LINGER_MS=5 BATCH_SIZE=1000000
#   MAX_POLL_RECORDS=500 PARTITION_FETCH_BYTES=1048576
#   BUFFER_MEMORY=33554432 CHUNK=1000 CLIENTS="tributary kafkajs platformatic librdkafka" NATS=1
#   PEER_BENCH=/tmp/peer-bench (a checkout of the peer-bench harness, not part of this repository;
#   its npm packages are installed if missing, and NATS is skipped when the directory is missing)
#   OURS_PRODUCE_ARGS= (extra `tributary bench produce` options) PHASE_TIMEOUT=300 BUILD=1
#   BUILD_ROOT=/tmp/tributary-clients-build (private build of broker and CLI) BROKER_OVERRIDES= KEEP_DATA=0
#
# Each run starts a fresh broker (group.initial.rebalance.delay.ms=0, so the group consumers of kafkajs
# and platformatic do not wait 3 s) and a fresh data dir. Per client: produce COUNT x SIZE with each acks
# of ACKS_LIST to a topic of its own, then consume the first of those topics from the start.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
PY=/usr/bin/python3

RUNS=${RUNS:-3}
COUNT=${COUNT:-1000000}
SIZE=${SIZE:-100}
ACKS_LIST=${ACKS_LIST:-1 all}
LINGER_MS=${LINGER_MS:-5}
# The same batch size for every client that has the setting (ours, librdkafka's batch.size; kafkajs and
# platformatic send one request per send() call): librdkafka's default, 1,000,000 bytes.
BATCH_SIZE=${BATCH_SIZE:-1000000}
# Consumers: the Java defaults (max.poll.records 500, max.partition.fetch.bytes 1 MiB) for ours, kafkajs and
# platformatic (librdkafka_bench.py keeps its own tuning, see bench/README.md).
MAX_POLL_RECORDS=${MAX_POLL_RECORDS:-500}
PARTITION_FETCH_BYTES=${PARTITION_FETCH_BYTES:-1048576}
BUFFER_MEMORY=${BUFFER_MEMORY:-33554432}
CHUNK=${CHUNK:-1000}
CLIENTS=${CLIENTS:-tributary kafkajs platformatic librdkafka}
NATS=${NATS:-1}
PEER_BENCH=${PEER_BENCH:-/tmp/peer-bench}
OURS_PRODUCE_ARGS=${OURS_PRODUCE_ARGS:-}
PHASE_TIMEOUT=${PHASE_TIMEOUT:-300}
PROFILE=${PROFILE:-0}
BUILD=${BUILD:-1}
BUILD_ROOT=${BUILD_ROOT:-/tmp/tributary-clients-build}
BROKER_DIST=${BROKER_DIST:-$BUILD_ROOT/dist}
KEEP_DATA=${KEEP_DATA:-0}
STAMP=$(date +%Y%m%d-%H%M%S)
RESULTS_DIR="$HERE/results"
RESULTS="$RESULTS_DIR/clients-$STAMP.jsonl"
PROFILE_DIR="$HERE/profiles"

[[ $RUNS =~ ^[1-9][0-9]?$ ]] || { echo "RUNS must be 1..99" >&2; exit 2; }
[[ $COUNT =~ ^[1-9][0-9]*$ && $SIZE =~ ^[1-9][0-9]*$ ]] || { echo "COUNT and SIZE must be positive integers" >&2; exit 2; }
mkdir -p "$RESULTS_DIR"

BROKER_PID=""
NATS_STARTED=0
WORK=$(mktemp -d /tmp/tributary-clients.XXXXXX)
LIB_NAME=clients.sh
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"

cleanup() {
  local rc=$?
  stop_pid "$BROKER_PID" broker; BROKER_PID=""
  if [[ $NATS_STARTED == 1 ]]; then PEER_DATA="$WORK/peer" bash "$PEER_BENCH/peers/nats/stop.sh" >/dev/null 2>&1 || true; fi
  if [[ $KEEP_DATA == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi
  exit $rc
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

FAILED=()
CLI=()
# phase RUN CLIENT PHASE ACKS cmd...: runs one bounded client process, records its normalised result.
phase() {
  local run=$1 client=$2 what=$3 acks=$4; shift 4
  local out="$WORK/phase.out" rc=0
  log "run $run: $client $what acks=$acks"
  timeout -k 5 "$((PHASE_TIMEOUT + 30))" "$@" >"$out" 2>"$WORK/phase.err" || rc=$?
  if [[ $rc != 0 ]]; then
    FAILED+=("run $run $client $what acks=$acks (exit $rc)")
    log "FAILED (exit $rc):"; tail -n 5 "$WORK/phase.err" >&2 || true
    node "$HERE/clients-table.mjs" add "$RESULTS" "$run" "$client" "$what" "$acks" <"$out" >/dev/null 2>&1 || true
    return 0
  fi
  node "$HERE/clients-table.mjs" add "$RESULTS" "$run" "$client" "$what" "$acks" <"$out" >&2 \
    || FAILED+=("run $run $client $what acks=$acks (no result)")
}

create_topic() { node "$BROKER_DIST/src/cli/main.js" topic create "$1" --partitions 1 -b "$BOOTSTRAP" >/dev/null; }

run_client() {  # run_client RUN CLIENT
  local run=$1 client=$2 first="" acks topic
  for acks in $ACKS_LIST; do
    topic="$client-acks$acks-$run"
    create_topic "$topic"
    [[ -n $first ]] || first=$topic
    case $client in
      tributary)
        # shellcheck disable=SC2086
        phase "$run" "$client" produce "$acks" "${CLI[@]}" bench produce -b "$BOOTSTRAP" --topic "$topic" --records "$COUNT" \
          --record-size "$SIZE" --acks "$acks" --linger-ms "$LINGER_MS" --batch-size "$BATCH_SIZE" \
          --buffer-memory "$BUFFER_MEMORY" --chunk-records "$CHUNK" --json --no-progress $OURS_PRODUCE_ARGS ;;
      kafkajs|platformatic)
        phase "$run" "$client" produce "$acks" node "$HERE/clients-node.mjs" --client "$client" --mode produce \
          --bootstrap "$BOOTSTRAP" --topic "$topic" --records "$COUNT" --record-size "$SIZE" --acks "$acks" \
          --chunk "$CHUNK" --buffer-memory "$BUFFER_MEMORY" --timeout-s "$PHASE_TIMEOUT" ;;
      librdkafka)
        phase "$run" "$client" produce "$acks" $PY "$HERE/librdkafka_bench.py" produce -b "$BOOTSTRAP" -t "$topic" \
          -n "$COUNT" -s "$SIZE" --acks "$acks" --linger-ms "$LINGER_MS" --batch-size "$BATCH_SIZE" \
          --queue-kbytes "$((BUFFER_MEMORY / 1024))" --latency --broker-pid "$BROKER_PID" --timeout "$PHASE_TIMEOUT" ;;
      *) echo "clients.sh: unknown client $client" >&2; exit 2 ;;
    esac
  done
  case $client in
    tributary)
      phase "$run" "$client" consume "-" "${CLI[@]}" bench consume -b "$BOOTSTRAP" --topic "$first" --records "$COUNT" \
        --max-poll-records "$MAX_POLL_RECORDS" --partition-max-bytes "$PARTITION_FETCH_BYTES" --json --no-progress ;;
    kafkajs|platformatic)
      phase "$run" "$client" consume "-" node "$HERE/clients-node.mjs" --client "$client" --mode consume \
        --bootstrap "$BOOTSTRAP" --topic "$first" --records "$COUNT" --record-size "$SIZE" --timeout-s "$PHASE_TIMEOUT" \
        --partition-fetch-bytes "$PARTITION_FETCH_BYTES" ;;
    librdkafka)
      phase "$run" "$client" consume "-" $PY "$HERE/librdkafka_bench.py" consume -b "$BOOTSTRAP" -t "$first" \
        -n "$COUNT" -s "$SIZE" --broker-pid "$BROKER_PID" --timeout "$PHASE_TIMEOUT" ;;
  esac
}

# NATS JetStream through peer-bench (hand-rolled async publisher, the best peer of the baseline in bench/README.md).
nats_ready() {
  [[ $NATS == 1 ]] || return 1
  command -v nats-server >/dev/null || { log "NATS skipped: no nats-server (apt-get install nats-server)"; return 1; }
  if [[ ! -d $PEER_BENCH/node_modules/@nats-io/jetstream ]]; then
    [[ -f $PEER_BENCH/peers/run.mjs ]] || { log "NATS skipped: no peer-bench checkout in $PEER_BENCH (set PEER_BENCH)"; return 1; }
    log "installing the npm packages of $PEER_BENCH (no optional ones)"
    (cd "$PEER_BENCH" && timeout 300 npm install --omit=optional --no-audit --no-fund >/dev/null 2>&1) \
      || { log "NATS skipped: npm install in $PEER_BENCH failed"; return 1; }
  fi
}

run_nats() {  # run_nats RUN
  local run=$1 port out="$WORK/nats.out" rc=0
  port=$(free_port)
  log "run $run: nats (peer-bench, --natsPub raw) on port $port"
  NATS_PORT=$port PEER_DATA="$WORK/peer" bash "$PEER_BENCH/peers/nats/start.sh" >&2 || { FAILED+=("run $run nats start"); return 0; }
  NATS_STARTED=1
  (cd "$PEER_BENCH" && NATS_PORT=$port PEER_DATA="$WORK/peer" timeout -k 5 "$((2 * PHASE_TIMEOUT + 60))" \
    node peers/run.mjs --system nats --label nats-raw-async --mode throughput --count "$COUNT" --size "$SIZE" \
      --reps 1 --natsPub raw --timeout "$PHASE_TIMEOUT") >"$out" 2>"$WORK/nats.err" || rc=$?
  PEER_DATA="$WORK/peer" bash "$PEER_BENCH/peers/nats/stop.sh" >/dev/null 2>&1 || true
  NATS_STARTED=0
  if [[ $rc != 0 ]]; then FAILED+=("run $run nats (exit $rc)"); tail -n 5 "$WORK/nats.err" >&2 || true; return 0; fi
  node "$HERE/clients-table.mjs" add "$RESULTS" "$run" nats produce "ack" <"$out" >&2 || FAILED+=("run $run nats produce")
  node "$HERE/clients-table.mjs" add "$RESULTS" "$run" nats consume "-" <"$out" >&2 || FAILED+=("run $run nats consume")
}

[[ $BUILD == 1 && $BROKER_DIST == "$BUILD_ROOT/dist" ]] && build_private "$BUILD_ROOT"
[[ -f $BROKER_DIST/src/cli/main.js ]] || { echo "clients.sh: no $BROKER_DIST/src/cli/main.js" >&2; exit 2; }
CLI=(node "$BROKER_DIST/src/cli/main.js")
BROKER_NODE_ARGS=()
if [[ $PROFILE == 1 ]]; then
  mkdir -p "$PROFILE_DIR"
  CLI=(node --cpu-prof --cpu-prof-dir="$PROFILE_DIR" "$BROKER_DIST/src/cli/main.js")
fi
HAVE_NATS=0
nats_ready && HAVE_NATS=1

SETTINGS="COUNT=$COUNT SIZE=$SIZE partitions=1 ACKS_LIST=\"$ACKS_LIST\" compression=none LINGER_MS=$LINGER_MS BATCH_SIZE=$BATCH_SIZE BUFFER_MEMORY=$BUFFER_MEMORY CHUNK=$CHUNK MAX_POLL_RECORDS=$MAX_POLL_RECORDS PARTITION_FETCH_BYTES=$PARTITION_FETCH_BYTES OURS_PRODUCE_ARGS=\"$OURS_PRODUCE_ARGS\""
log "settings: $SETTINGS"
log "results -> $RESULTS"
for RUN in $(seq 1 "$RUNS"); do
  if [[ $PROFILE == 1 ]]; then BROKER_NODE_ARGS=(--cpu-prof --cpu-prof-dir="$PROFILE_DIR" --cpu-prof-name="clients-broker-$STAMP-run$RUN.cpuprofile"); fi
  start_broker "$WORK/data-$RUN" "$WORK/broker-$RUN.log" "${BROKER_NODE_ARGS[@]}" -- group.initial.rebalance.delay.ms=0
  for client in $CLIENTS; do run_client "$RUN" "$client"; done
  stop_pid "$BROKER_PID" broker; BROKER_PID=""
  broker_warnings "$WORK/broker-$RUN.log" "$RESULTS_DIR/clients-broker-$STAMP-run$RUN.log"
  [[ $KEEP_DATA == 1 ]] || rm -rf "$WORK/data-$RUN"
  # NATS runs with our broker stopped, as each system did in the peer baseline.
  [[ $HAVE_NATS == 1 ]] && run_nats "$RUN"
done

echo
echo "## Clients side by side, $(date '+%Y-%m-%d %H:%M'), $(nproc) cores, RUNS=$RUNS"
echo
echo "Settings: $SETTINGS; other clients: see bench/README.md. Load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
node "$HERE/clients-table.mjs" table "$RESULTS"
echo
echo "raw results: $RESULTS"
if ((${#FAILED[@]})); then
  echo; echo "FAILURES:"; printf '  - %s\n' "${FAILED[@]}"
  exit 1
fi
