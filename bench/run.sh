#!/usr/bin/env bash
# librdkafka benchmark of the Tributary broker: see bench/README.md.
#
#   bash bench/run.sh                  # one run
#   RUNS=3 bash bench/run.sh           # three runs (fresh broker each), medians
#   PROFILE=1 bash bench/run.sh        # broker under node --cpu-prof, prints top self-time functions
#
# Env (defaults): RUNS=1 PROFILE=0 COUNT_SMALL=1000000 SIZE_SMALL=100 COUNT_LARGE=1000000 SIZE_LARGE=1024
#   RATE=10000 LAT_SECONDS=10 E2E_LINGERS="0 1" E2E_CONSUMER=thread|process PARTITIONS=1 ACKS=1 PHASE_TIMEOUT=300 BUILD=1
#   BROKER_DIST=bench/.build/dist (private build; set BROKER_DIST=$PWD/dist to use the shared one)
#   BROKER_OVERRIDES="key=value ..." (extra --override for the broker) PHASES="produce-small consume-small
#   produce-large consume-large e2e kcat" KEEP_DATA=0
#   BROKER_NODE_ARGS="--trace-gc-nvp": more node arguments for the broker (output in the broker log, kept with KEEP_DATA=1)
#   e2e-floor (not in the default PHASES): the e2e load through a relay doing no Kafka work (bench/e2e-floor.mjs)
#   kcat-ceiling (not in the default PHASES): the kcat phases against a server doing no work per record (kcat-ceiling.mjs)
#   LOOP_DELAY=1: event-loop delay and GC pauses of the broker per phase -> results/loop-delay-*.jsonl
#   SCHED_TRACE=1: perf sched during each e2e phase; bench/e2e_sched.py prints how long the broker's and
#     the client's threads waited for a CPU and whether the tail records had such a wait (needs perf, root)
#   kcat: the same produce/consume of 1M x 100 B and COUNT_LARGE x 1 KiB through kcat (no Python per record)
#   partitions, data-size (not in the default PHASES: minutes each): bench/partitions.mjs (TOPICS,
#   PARTITIONS_PER_TOPIC) and bench/data-size.mjs (TARGET_GB), each with its own broker
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
PY=/usr/bin/python3
BENCH="$HERE/librdkafka_bench.py"

RUNS=${RUNS:-1}
PROFILE=${PROFILE:-0}
COUNT_SMALL=${COUNT_SMALL:-1000000}
SIZE_SMALL=${SIZE_SMALL:-100}
COUNT_LARGE=${COUNT_LARGE:-1000000}
SIZE_LARGE=${SIZE_LARGE:-1024}
RATE=${RATE:-10000}
LAT_SECONDS=${LAT_SECONDS:-10}
E2E_LINGERS=${E2E_LINGERS:-0 1}
E2E_CONSUMER=${E2E_CONSUMER:-thread}   # thread (as specified) or process (consumer in its own process: no shared GIL)
PARTITIONS=${PARTITIONS:-1}
ACKS=${ACKS:-1}
PHASE_TIMEOUT=${PHASE_TIMEOUT:-300}
BUILD=${BUILD:-1}
BROKER_DIST=${BROKER_DIST:-$HERE/.build/dist}
BROKER_OVERRIDES=${BROKER_OVERRIDES:-}
PHASES=${PHASES:-produce-small consume-small produce-large consume-large e2e kcat}
KEEP_DATA=${KEEP_DATA:-0}
LOOP_DELAY=${LOOP_DELAY:-0}
LOOP_DELAY_OUT=""
SCHED_TRACE=${SCHED_TRACE:-0}
STAMP=$(date +%Y%m%d-%H%M%S)
RESULTS_DIR="$HERE/results"
RESULTS="$RESULTS_DIR/run-$STAMP.jsonl"
PROFILE_DIR="$HERE/profiles"

[[ $RUNS =~ ^[1-9][0-9]?$ ]] || { echo "RUNS must be 1..99" >&2; exit 2; }
[[ -x $PY ]] && $PY -c 'import confluent_kafka' 2>/dev/null || {
  echo "run.sh: $PY cannot import confluent_kafka (apt-get install python3-confluent-kafka)" >&2; exit 2; }
mkdir -p "$RESULTS_DIR"

BROKER_PID=""
DATA_DIR=""
BROKER_LOG=""
WORK=$(mktemp -d /tmp/tributary-bench.XXXXXX)
LIB_NAME=bench
# shellcheck source=bench/lib.sh
source "$HERE/lib.sh"

stop_broker() {
  # graceful shutdown flushes logs (and writes the CPU profile); bounded at 30 s
  stop_pid "$BROKER_PID" broker
  BROKER_PID=""
}

cleanup() {
  local rc=$?
  stop_broker
  if [[ $KEEP_DATA == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi
  exit $rc
}
trap cleanup EXIT
trap 'log "interrupted"; exit 130' INT TERM

build() {
  # Private incremental build (lib.sh): other engineers rebuild dist/ concurrently; this keeps the broker
  # we benchmark from being swapped half-way.
  if [[ $BUILD == 1 && $BROKER_DIST == "$HERE/.build/dist" ]]; then build_private "$HERE/.build"; fi
  [[ -f $BROKER_DIST/src/cli/main.js ]] || { echo "run.sh: no $BROKER_DIST/src/cli/main.js" >&2; exit 2; }
}

start_broker_run() {
  local run=$1
  DATA_DIR="$WORK/data-$run"
  BROKER_LOG="$WORK/broker-$run.log"
  local node_args=()
  # More node arguments for the broker (e.g. --trace-gc-nvp; its output lands in the broker log).
  if [[ -n ${BROKER_NODE_ARGS:-} ]]; then read -r -a node_args <<<"$BROKER_NODE_ARGS"; fi
  if [[ $PROFILE == 1 ]]; then
    mkdir -p "$PROFILE_DIR"
    node_args+=(--cpu-prof --cpu-prof-dir="$PROFILE_DIR" --cpu-prof-name="broker-$STAMP-run$run.cpuprofile")
  fi
  if [[ $LOOP_DELAY == 1 ]]; then
    # Event-loop delay and GC pauses per phase (loop-delay.mjs), one JSON line per phase
    export LOOP_DELAY_OUT="$RESULTS_DIR/loop-delay-$STAMP.jsonl"
    node_args+=(--import "$HERE/loop-delay.mjs")
  fi
  start_broker "$DATA_DIR" "$BROKER_LOG" "${node_args[@]}"
  log "run $run: broker pid $BROKER_PID on $BOOTSTRAP"
}

FAILED=()
phase() {  # phase NAME args...: one bounded client process; failures are recorded, not fatal
  local name=$1; shift
  log "$name"
  local rc=0
  loop_delay_mark "run $RUN $name ${LABEL:-}"
  TMPDIR="$WORK" BENCH_RESULTS="$RESULTS" BENCH_LABEL="${LABEL:-tributary}" BROKER_PID="$BROKER_PID" \
    timeout -k 5 "$((PHASE_TIMEOUT + 30))" $PY "$BENCH" "$@" --bootstrap "$BOOTSTRAP" \
      --broker-pid "$BROKER_PID" --timeout "$PHASE_TIMEOUT" || rc=$?
  if [[ $rc != 0 ]]; then
    FAILED+=("run $RUN $name (exit $rc)")
    log "$name FAILED (exit $rc); broker log tail:"; tail -n 15 "$BROKER_LOG" >&2 || true
    kill -0 "$BROKER_PID" 2>/dev/null || { log "broker died"; return 1; }
  fi
  return 0
}
# Starts a new event-loop-delay interval named $1 in the broker (LOOP_DELAY=1; loop-delay.mjs).
loop_delay_mark() {
  [[ -n $LOOP_DELAY_OUT && -n $BROKER_PID ]] || return 0
  printf '%s\n' "$1" >"$LOOP_DELAY_OUT.label"
  kill -USR2 "$BROKER_PID" 2>/dev/null || true
  sleep 0.2
}
has_phase() { [[ " $PHASES " == *" $1 "* ]]; }
# SCHED_TRACE=1: `perf sched record` (every CPU, CLOCK_MONOTONIC) during each e2e phase, then bench/e2e_sched.py:
# how long the broker's and the client's threads waited for a CPU, and whether the tail records had such a wait.
SCHED_PERF_PID=""
sched_trace_start() {
  SCHED_DATA="$WORK/sched-$1.data"
  perf sched record -k CLOCK_MONOTONIC -a -o "$SCHED_DATA" >"$WORK/sched-$1.log" 2>&1 &
  SCHED_PERF_PID=$!
  SCHED_STEAL0=$(awk '/^cpu /{print $9}' /proc/stat)
  sleep 1  # perf's start-up, before the phase's first record
}
sched_trace_report() {
  kill -INT "$SCHED_PERF_PID" 2>/dev/null || true
  wait "$SCHED_PERF_PID" 2>/dev/null || true
  SCHED_PERF_PID=""
  # Time the hypervisor ran something else on our virtual CPUs: the guest's scheduler cannot see it.
  log "steal time during the phase: $(( ($(awk '/^cpu /{print $9}' /proc/stat) - SCHED_STEAL0) * 10 )) ms (both CPUs)"
  [[ -s $2 ]] || { log "sched trace: no latencies written"; return 0; }
  perf sched timehist -i "$SCHED_DATA" >"$WORK/timehist-$1.txt" 2>/dev/null || { log "perf sched timehist failed"; return 0; }
  $PY "$HERE/e2e_sched.py" --timehist "$WORK/timehist-$1.txt" --latencies "$2" --broker-pid "$BROKER_PID"
  $PY "$HERE/e2e_sched.py" --timehist "$WORK/timehist-$1.txt" --latencies "$2" --broker-pid "$BROKER_PID" --json \
    | sed "s/^{/{\"run\": \"$1\", /" >>"$RESULTS"
  rm -f "$SCHED_DATA"
}

build
log "results -> $RESULTS"
PER_RUN_RUNS=$RUNS
has_phase produce-small || has_phase consume-small || has_phase produce-large || has_phase consume-large \
  || has_phase e2e || has_phase e2e-floor || has_phase kcat || has_phase kcat-ceiling || PER_RUN_RUNS=0
for RUN in $(seq 1 "$PER_RUN_RUNS"); do
  start_broker_run "$RUN"
  T_SMALL="bench-small-$RUN"; T_LARGE="bench-large-$RUN"; T_E2E="bench-e2e-$RUN"
  T_KSMALL="bench-kcat-small-$RUN"; T_KLARGE="bench-kcat-large-$RUN"
  timeout 60 $PY "$BENCH" create -t "$T_SMALL" -t "$T_LARGE" -t "$T_E2E" -t "$T_KSMALL" -t "$T_KLARGE" -p "$PARTITIONS" \
    --bootstrap "$BOOTSTRAP" --timeout 30 || { FAILED+=("run $RUN create topics"); stop_broker; continue; }
  ok=1
  has_phase produce-small && { phase produce-small produce -t "$T_SMALL" -n "$COUNT_SMALL" -s "$SIZE_SMALL" --acks "$ACKS" || ok=0; }
  [[ $ok == 1 ]] && has_phase consume-small && { phase consume-small consume -t "$T_SMALL" -n "$COUNT_SMALL" -s "$SIZE_SMALL" || ok=0; }
  [[ $ok == 1 ]] && has_phase produce-large && { phase produce-large produce -t "$T_LARGE" -n "$COUNT_LARGE" -s "$SIZE_LARGE" --acks "$ACKS" || ok=0; }
  [[ $ok == 1 ]] && has_phase consume-large && { phase consume-large consume -t "$T_LARGE" -n "$COUNT_LARGE" -s "$SIZE_LARGE" || ok=0; }
  for lg in $E2E_LINGERS; do
    sched_args=()
    [[ $ok == 1 ]] && has_phase e2e && [[ $SCHED_TRACE == 1 ]] && sched_trace_start "$RUN-$lg" && sched_args=(--dump-latencies "$WORK/latencies-$RUN-$lg.txt")
    [[ $ok == 1 ]] && has_phase e2e && { phase "e2e linger.ms=$lg" e2e -t "$T_E2E" --rate "$RATE" --seconds "$LAT_SECONDS" \
      -s "$SIZE_SMALL" --acks "$ACKS" --linger-ms "$lg" $([[ $E2E_CONSUMER == process ]] && echo --consumer-process) "${sched_args[@]}" || ok=0; }
    [[ ${#sched_args[@]} -gt 0 ]] && sched_trace_report "$RUN-$lg" "$WORK/latencies-$RUN-$lg.txt"
  done
  # The same load through a relay that does no Kafka work: the floor of the e2e latency right now (e2e-floor.mjs).
  has_phase e2e-floor && { log "e2e-floor"; BENCH_RESULTS="$RESULTS" node "$HERE/e2e-floor.mjs" --rate "$RATE" \
    --seconds "$LAT_SECONDS" --size "$SIZE_SMALL" || FAILED+=("run $RUN e2e-floor"); }
  if [[ $ok == 1 ]] && has_phase kcat && [[ $PARTITIONS == 1 ]]; then
    phase kcat-produce-small kcat-produce -t "$T_KSMALL" -n "$COUNT_SMALL" -s "$SIZE_SMALL" --acks "$ACKS" || ok=0
    [[ $ok == 1 ]] && { phase kcat-consume-small kcat-consume -t "$T_KSMALL" -n "$COUNT_SMALL" -s "$SIZE_SMALL" || ok=0; }
    [[ $ok == 1 ]] && { phase kcat-produce-large kcat-produce -t "$T_KLARGE" -n "$COUNT_LARGE" -s "$SIZE_LARGE" --acks "$ACKS" || ok=0; }
    [[ $ok == 1 ]] && { phase kcat-consume-large kcat-consume -t "$T_KLARGE" -n "$COUNT_LARGE" -s "$SIZE_LARGE" || ok=0; }
  fi
  # kcat against a server that does no work per record (kcat-ceiling.mjs): the most kcat reaches here.
  if has_phase kcat-ceiling; then
    log "kcat-ceiling"
    BENCH_RESULTS="$RESULTS" node "$HERE/kcat-ceiling.mjs" --dist "$BROKER_DIST" --count "$COUNT_SMALL" --sizes "$SIZE_SMALL" \
      && BENCH_RESULTS="$RESULTS" node "$HERE/kcat-ceiling.mjs" --dist "$BROKER_DIST" --count "$COUNT_LARGE" --sizes "$SIZE_LARGE" \
      || FAILED+=("run $RUN kcat-ceiling")
  fi
  loop_delay_mark "run $RUN after phases ${LABEL:-}"
  log "run $RUN: data dir $(du -sh "$DATA_DIR" 2>/dev/null | cut -f1), broker RSS $(awk '/VmHWM/{print $2" "$3" peak"}' /proc/$BROKER_PID/status 2>/dev/null || echo '?')"
  stop_broker
  broker_warnings "$BROKER_LOG" "$RESULTS_DIR/broker-$STAMP-run$RUN.log"
  [[ $KEEP_DATA == 1 ]] || rm -rf "$DATA_DIR"
done

# Partition scale and data size start brokers of their own and take minutes (10,000 partitions; 20 GB),
# so they run only when PHASES names them: PHASES="partitions data-size" bash bench/run.sh
if has_phase partitions; then
  log "partitions: bench/partitions.mjs (TOPICS=${TOPICS:-10} x PARTITIONS_PER_TOPIC=${PARTITIONS_PER_TOPIC:-1000})"
  BROKER_DIST="$BROKER_DIST" TOPICS="${TOPICS:-10}" PARTITIONS="${PARTITIONS_PER_TOPIC:-1000}" node "$HERE/partitions.mjs" || FAILED+=("partitions")
fi
if has_phase data-size; then
  log "data-size: bench/data-size.mjs (TARGET_GB=${TARGET_GB:-20})"
  BROKER_DIST="$BROKER_DIST" node "$HERE/data-size.mjs" || FAILED+=("data-size")
fi

echo
echo "## Tributary + librdkafka, $(date '+%Y-%m-%d %H:%M'), $(nproc) cores, RUNS=$RUNS, P=$PARTITIONS, acks=$ACKS (medians)"
echo
$PY "$BENCH" summarize "$RESULTS"
echo
echo "raw results: $RESULTS"

if [[ $PROFILE == 1 ]]; then
  prof=$(ls -t "$PROFILE_DIR"/broker-"$STAMP"-run*.cpuprofile 2>/dev/null | head -n 1 || true)
  if [[ -n $prof ]]; then
    echo; echo "## Broker CPU profile: $prof"; echo
    timeout 120 node "$HERE/top-profile.mjs" "$prof" --top "${TOP:-25}" || FAILED+=("top-profile")
  else
    FAILED+=("no .cpuprofile written (did the broker exit cleanly on SIGTERM?)")
  fi
fi

if ((${#FAILED[@]})); then
  echo; echo "FAILURES:"; printf '  - %s\n' "${FAILED[@]}"
  exit 1
fi
